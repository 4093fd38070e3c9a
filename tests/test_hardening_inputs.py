"""Issue 12, item 13 and the usability findings: untrusted answer files for `score-answers`, dry runs without an
API key, court-level spellings, empty inputs and samples, and the examples every `--help` promises.

Everything runs the installed `lexprobe` console script against the real case database (`case_db_path`).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
import typer

from lexprobe.caselaw.query import LEVEL_FILTERS

LEXPROBE = str(Path(sys.executable).with_name("lexprobe"))
GOOD = [
    {"task": "existence", "case": "347 U.S. 483", "answer": "Yes, it is a real case."},
    {"task": "overruling_year", "case": "163 U.S. 537", "answer": "1954"},
    {"task": "fake_existence", "case": "Smith v. Jones, 999 U.S. 1 (1990)", "answer": "No."},
]


def run_cli(*args: str, drop: tuple[str, ...] = (), timeout: int = 300) -> subprocess.CompletedProcess[str]:
    """Run `lexprobe ARGS...` with the environment minus the variables in `drop` (help 200 columns wide)."""
    env = {key: value for key, value in os.environ.items() if key not in drop} | {"COLUMNS": "200"}
    return subprocess.run([LEXPROBE, *args], capture_output=True, text=True, env=env, timeout=timeout)


def good_line(index: int) -> bytes:
    return json.dumps(GOOD[index]).encode() + b"\n"


# --- item 13: score-answers on hostile input ----------------------------------------------------------------------


def test_score_answers_reports_every_bad_line_and_scores_the_good_ones(case_db_path: Path, tmp_path: Path) -> None:
    """Binary, deeply nested, huge-number, overlong and escape-laden lines are reported by number; the good lines
    before and after them are all scored; the exit code is 2 at the end; no traceback."""
    answers = tmp_path / "answers.jsonl"
    bad_lines = {
        2: b"\x89PNG\x1a\x00\x00\x00\rIHDR\xff\xfe\x00\xc3\x28binary",  # line 2: not UTF-8
        3: b"[" * 100_000 + b"]" * 100_000,  # line 3: 100k nested brackets
        5: b'{"task": "existence", "case": "347 U.S. 483", "answer": "x", "n": ' + b"9" * 1_000_000 + b"}",
        6: b'{"task": "\x1b[2J\x1b]0;pwned\x07", "case": "1", "answer": "x"}',  # control characters in a value
        7: b'{"task": "\\u001b[31mred", "case": "1", "answer": "x"}',  # an escape spelled as JSON \\u escape
        8: b'"' + b"a" * (2 << 20) + b'"',  # 2 MiB line
    }
    body = good_line(0)  # line 1
    body += bad_lines[2] + b"\n" + bad_lines[3] + b"\n"
    body += good_line(1)  # line 4
    body += bad_lines[5] + b"\n" + bad_lines[6] + b"\n" + bad_lines[7] + b"\n" + bad_lines[8] + b"\n"
    body += b"\n"  # line 9: blank, skipped silently
    body += good_line(2).rstrip(b"\n")  # line 10, no final newline
    answers.write_bytes(body)

    result = run_cli("hallucination", "score-answers", str(answers), "--db", str(case_db_path))

    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    pattern = re.compile(rf"^{re.escape(str(answers))}:(\d+): (.*)$", re.M)
    stderr_lines = {int(m.group(1)): m.group(2) for m in pattern.finditer(result.stderr)}
    assert set(stderr_lines) == set(bad_lines), result.stderr
    assert "UTF-8" in stderr_lines[2]
    assert "nested deeper" in stderr_lines[3]
    assert "1,000,000 characters" in stderr_lines[5]
    assert "longer than" in stderr_lines[8]
    assert "\x1b" not in result.stderr and "\x07" not in result.stderr  # nothing reaches the terminal raw
    assert "6 bad line(s)" in result.stderr and "3 line(s) scored" in result.stderr
    scored = [json.loads(line) for line in result.stdout.splitlines()]
    assert [(s["task"], s["label"]) for s in scored] == [
        ("existence", "correct"),
        ("overruling_year", "correct"),
        ("fake_existence", "correct"),
    ]


def test_score_answers_decodes_a_utf16_file_with_a_note(case_db_path: Path, tmp_path: Path) -> None:
    """What PowerShell's `>` writes (UTF-16 with a byte-order mark) is read, with a note suggesting UTF-8."""
    answers = tmp_path / "answers-utf16.jsonl"
    answers.write_bytes(("\r\n".join(json.dumps(line) for line in GOOD) + "\r\n").encode("utf-16"))
    result = run_cli("hallucination", "score-answers", str(answers), "--db", str(case_db_path))
    assert result.returncode == 0, result.stderr
    assert "utf-16" in result.stderr.lower() and "UTF-8" in result.stderr
    assert [json.loads(line)["label"] for line in result.stdout.splitlines()] == ["correct"] * 3


def test_score_answers_on_an_empty_file_exits_2_saying_so(case_db_path: Path, tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n\n")
    result = run_cli("hallucination", "score-answers", str(empty), "--db", str(case_db_path))
    assert result.returncode == 2
    assert "empty input" in result.stderr and result.stdout == ""


# --- usability: a dry run needs no API key ---------------------------------------------------------------------------


@pytest.mark.parametrize("spec", ["anthropic/claude-3-5-haiku-latest", "openai/gpt-4o-mini"])
def test_ask_dry_run_needs_no_api_key(spec: str, isolated_cache: Path) -> None:
    keys = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY")
    result = run_cli("ask", "--dry-run", "--json", "--model", spec, "Is Marbury v. Madison a real case?", drop=keys)
    assert result.returncode == 0, result.stderr
    estimate = json.loads(result.stdout)
    assert (estimate["requests"], estimate["to_send"]) == (1, 1)
    # sending for real still needs the key, and says which
    real = run_cli("ask", "--model", spec, "hello", drop=keys)
    assert real.returncode == 2 and "_API_KEY is not set" in real.stderr


def test_hallucination_dry_run_needs_no_api_key(case_db_path: Path, tmp_path: Path) -> None:
    result = run_cli(
        "hallucination", "run", "--dry-run", "--model", "anthropic/claude-3-5-haiku-latest", "--tasks", "existence",
        "--n", "3", "--samples", "0", "--prompt-styles", "zero", "--run-dir", str(tmp_path / "run"),
        "--db", str(case_db_path), drop=("ANTHROPIC_API_KEY",),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("dry run: 3 requests")


# --- usability: court levels in any spelling, printed one way ------------------------------------------------------


def test_data_sample_accepts_every_spelling_of_a_level(case_db_path: Path) -> None:
    def sample(level: str) -> subprocess.CompletedProcess[str]:
        return run_cli("data", "sample", "--level", level, "--n", "5", "--seed", "3", "--db", str(case_db_path))

    for canonical, aliases in (("district", ("usdc", "U.S.D.C.", "District")), ("scotus", ("supreme", "SCOTUS")),
                               ("coa", ("appeals", "circuit", "uscoa"))):  # fmt: skip
        expected = sample(canonical)
        for alias in aliases:
            result = sample(alias)
            assert (result.returncode, result.stdout, result.stderr) == (
                expected.returncode,
                expected.stdout,
                expected.stderr,
            ), alias
        if expected.returncode == 0:  # the shared data has no district case: that level is an empty sample
            assert f"requested {canonical} cases" in expected.stderr  # printed in the one canonical spelling
        else:
            assert expected.returncode == 2 and f"no {canonical} case" in expected.stderr
    assert sample("scotus").stdout.count("\n") == 5 and sample("coa").stdout.count("\n") == 5
    unknown = sample("moon")
    assert unknown.returncode == 2 and "district (or usdc)" in unknown.stderr


def test_hallucination_run_takes_level_aliases_and_prints_canonical_ones(case_db_path: Path, tmp_path: Path) -> None:
    result = run_cli(
        "hallucination", "run", "--model", scripted(tmp_path), "--tasks", "fake_existence", "--levels",
        "supreme,usdc,appeals", "--n", "2", "--samples", "0", "--prompt-styles", "zero",
        "--run-dir", str(tmp_path / "run"), "--db", str(case_db_path), "--json",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    levels = {row["level"] for row in json.loads(result.stdout)["rows"]}
    assert {"scotus", "coa"} <= levels <= {"scotus", "coa", "district"}
    assert "usdc" not in result.stderr and "supreme" not in result.stderr
    bad = run_cli("hallucination", "run", "--levels", "moon", "--dry-run", "--db", str(case_db_path))
    assert bad.returncode == 2 and "scotus (or supreme)" in bad.stderr


# --- usability: empty samples and an --n beyond the data -----------------------------------------------------------


@pytest.fixture
def thin_db(case_db_path: Path, tmp_path: Path) -> Path:
    """A copy of the case database with no district case and only 5 eligible Supreme Court cases."""
    path = tmp_path / "thin.sqlite"
    shutil.copy(case_db_path, path)
    condition = LEVEL_FILTERS["scotus"][0]
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE cases SET level = 'gone' WHERE level = 'district'")
        conn.execute(
            "UPDATE cases SET level = 'gone' WHERE level = 'scotus' AND case_id NOT IN "
            f"(SELECT case_id FROM cases WHERE level = 'scotus' AND {condition} ORDER BY case_id LIMIT 5)"
        )
    conn.close()
    return path


def scripted(tmp_path: Path) -> str:
    """Return the spec of a scripted model that answers "No." to everything."""
    script = tmp_path / "no.jsonl"
    script.write_text('{"text": "No."}\n')
    return f"scripted:{script}"


def test_zero_case_samples_exit_2_and_short_ones_warn(thin_db: Path, tmp_path: Path) -> None:
    empty = run_cli("data", "sample", "--level", "usdc", "--n", "10", "--out", str(tmp_path / "s.jsonl"),
                    "--db", str(thin_db))  # fmt: skip
    assert empty.returncode == 2 and "no district case" in empty.stderr
    assert not (tmp_path / "s.jsonl").exists()

    short = run_cli("data", "sample", "--level", "scotus", "--n", "50", "--db", str(thin_db))
    assert short.returncode == 0, short.stderr
    assert len(short.stdout.splitlines()) == 5
    assert "warning" in short.stderr and "--n 50 is more than the 5 eligible scotus cases" in short.stderr

    args = ("hallucination", "run", "--dry-run", "--model", scripted(tmp_path), "--tasks", "existence",
            "--samples", "0", "--prompt-styles", "zero", "--db", str(thin_db))  # fmt: skip
    nothing = run_cli(*args, "--levels", "district", "--run-dir", str(tmp_path / "r1"))
    assert nothing.returncode == 2 and "no case to ask" in nothing.stderr
    partly = run_cli(*args, "--levels", "scotus,district", "--n", "50", "--run-dir", str(tmp_path / "r2"))
    assert partly.returncode == 0, partly.stderr
    assert "--n 50 is more than the 5 eligible scotus cases" in partly.stderr
    assert "no district case" in partly.stderr
    assert partly.stdout.startswith("dry run: 5 requests")


def test_a_run_whose_tasks_are_all_skipped_exits_2(case_db_path: Path, tmp_path: Path) -> None:
    """Appeals cases have no names offline, so `existence` at `coa` asks nothing: that is said, not exit 0."""
    result = run_cli("hallucination", "run", "--dry-run", "--model", scripted(tmp_path), "--tasks", "existence",
                     "--levels", "coa", "--n", "3", "--samples", "0", "--run-dir", str(tmp_path / "run"),
                     "--db", str(case_db_path))  # fmt: skip
    assert result.returncode == 2
    assert "nothing to ask" in result.stderr and "skipped existence / coa" in result.stderr


# --- usability: every --help shows an example that parses ------------------------------------------------------------

_EXAMPLE = re.compile(r"`(lexprobe [^`]+)`|Examples?: (lexprobe [^`\n]+)")
MAIN_COMMANDS = {"hallucination run", "investigation run", "check", "data build", "ask"}


def _leaf_commands() -> dict[str, object]:
    from lexprobe.cli import app

    found: dict[str, object] = {}

    def walk(command: object, path: tuple[str, ...]) -> None:
        subcommands = getattr(command, "commands", None)
        if subcommands:
            for name, sub in subcommands.items():
                walk(sub, (*path, name))
        else:
            found[" ".join(path)] = command

    walk(typer.main.get_command(app), ())
    return found


def _parse(example: str) -> None:
    """Parse an example command line with the real command tree; raises click's UsageError when it does not."""
    from lexprobe.cli import app

    args = shlex.split(re.split(r"\s[>|]\s", example)[0])[1:]
    command = typer.main.get_command(app)
    while getattr(command, "commands", None):
        command = command.commands[args.pop(0)]
    command.make_context("lexprobe", args)


def test_every_command_help_shows_examples_that_parse() -> None:
    commands = _leaf_commands()
    assert set(commands) >= MAIN_COMMANDS
    for name, command in commands.items():
        examples = [quoted or bare for quoted, bare in _EXAMPLE.findall(command.help or "")]
        assert examples, f"`lexprobe {name} --help` shows no example"
        for example in examples:
            _parse(example)
    top = run_cli("--help")
    assert top.returncode == 0 and "Examples" in top.stdout
    for name in MAIN_COMMANDS:
        shown = run_cli(*name.split(), "--help")
        assert shown.returncode == 0 and "Example" in shown.stdout and f"lexprobe {name}" in shown.stdout
