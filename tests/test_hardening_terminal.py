"""Terminal escapes (issue 12, item 5): untrusted text reaches the terminal only as visible, inert text.

Model replies, tool output, stored commands, verdict reasons, document text and file names can hold ESC
sequences (clear screen, window title, OSC 8 hyperlinks), C1 controls ("\\x9b" is a CSI on its own), bidirectional
overrides, Rich markup ("[bold]", "[link=...]") and emoji codes. The real `lexprobe investigation show` (on a run of
the scripted model through the sample environment) and `lexprobe check` (on a brief with a hostile name and text)
must print none of those characters raw and must show the markup exactly as the agent or the document wrote it.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from tool_requirements import needs_bwrap

from lexprobe.investigation.sample import build_sample_environment
from lexprobe.terminal import safe_json, safe_markup, safe_text

LEXPROBE = Path(sys.executable).with_name("lexprobe")
#: What must never reach the terminal raw: C0 controls but tab and newline, DEL, C1 controls, bidi controls.
RAW_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
ESC = "\x1b"
HOSTILE = (
    f"clear{ESC}[2J title{ESC}]0;pwned\x07 link{ESC}]8;;http://evil.example{ESC}\\click{ESC}]8;;{ESC}\\ "
    f"csi\x9b31m bidi\u202eevil back\rspace [bold]x[/bold] [link=http://evil.example]y[/link] :smile:"
)
#: How HOSTILE must look once printed.
SHOWN = (
    r"clear\x1b[2J title\x1b]0;pwned\x07 link\x1b]8;;http://evil.example\x1b\click\x1b]8;;\x1b\ "
    r"csi\x9b31m bidi\u202eevil back\x0dspace [bold]x[/bold] [link=http://evil.example]y[/link] :smile:"
)
VERDICT_KEY = "give your view on each hypothesis"


def lexprobe(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """Run the real `lexprobe` with a wide terminal (so Rich does not wrap the lines under test)."""
    env = {**os.environ, "COLUMNS": "250"}
    return subprocess.run([str(LEXPROBE), *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=300)


def assert_inert(output: str) -> None:
    """No control character of RAW_CONTROL in `output` (decoded as UTF-8, so a C1 character counts too)."""
    found = sorted({f"U+{ord(c):04X}" for c in RAW_CONTROL.findall(output)})
    assert not found, f"raw control characters reached the terminal: {found}"


# --- the sanitizer -----------------------------------------------------------------------------------------------


def test_safe_text_shows_every_control_character_and_keeps_newlines_and_tabs() -> None:
    assert safe_text(HOSTILE) == SHOWN
    assert safe_text("a\tb\nc\x00d\x7fe\x85f\u2067g") == "a\tb\nc\\x00d\\x7fe\\x85f\\u2067g"
    assert safe_text("plain text, ünïcödé, 中文") == "plain text, ünïcödé, 中文"


def test_safe_markup_escapes_rich_markup() -> None:
    from rich.console import Console

    console = Console(width=200, record=True, force_terminal=False, emoji=False)
    console.print(f"[bold]{safe_markup(HOSTILE)}[/]", highlight=False)
    assert console.export_text().rstrip("\n") == SHOWN


def test_safe_json_stays_json_with_the_same_value() -> None:
    document = json.dumps({"reason": HOSTILE}, ensure_ascii=False)
    assert RAW_CONTROL.search(document)
    safe = safe_json(document)
    assert not RAW_CONTROL.search(safe) and json.loads(safe) == {"reason": HOSTILE}


# --- investigation show ------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def sample_env(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_sample_environment(tmp_path_factory.mktemp("env") / "harlow", "merits")


def hostile_run(env: Path, tmp_path: Path, first_calls: list[dict], *options: str) -> tuple[Path, str]:
    """Run one episode of a scripted agent that writes HOSTILE everywhere it can; return the run dir and id."""
    script = [
        {"text": HOSTILE, "tool_calls": first_calls},
        {"text": "Summary: " + HOSTILE},
        {"when": VERDICT_KEY, "text": json.dumps([{"label": "H1", "verdict": "A", "reason": HOSTILE}])},
    ]
    path = tmp_path / "agent.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in script))
    run_dir = tmp_path / "run"
    done = lexprobe("investigation", "run", str(env), "--model", f"scripted:{path}", "--run-dir", str(run_dir),
                    "--no-cache", *options, cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    listing = lexprobe("investigation", "show", str(run_dir), cwd=tmp_path)
    assert listing.returncode == 0, listing.stderr
    assert_inert(listing.stdout + listing.stderr)
    return run_dir, listing.stdout.split(": ")[0]


def test_show_prints_transcript_text_inert_and_markup_literally(sample_env: Path, tmp_path: Path) -> None:
    calls = [
        {"name": "grep", "arguments": {"pattern": "cat [bold]x[/bold]"}},
        {"name": "read", "arguments": {"path": f"DOC-{ESC}]0;t\x07[red]x[/red].txt"}},
    ]
    run_dir, episode_id = hostile_run(sample_env, tmp_path, calls, "--no-shell")
    shown = lexprobe("investigation", "show", str(run_dir), episode_id, cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    output = shown.stdout + shown.stderr
    assert_inert(output)
    assert SHOWN in output  # the assistant's reply, as written: escapes visible, markup and emoji code literal
    assert 'call grep({"pattern": "cat [bold]x[/bold]"})' in output  # the command the agent ran, not "cat x"
    assert r'call read({"path": "DOC-\u001b]0;t\u0007[red]x[/red].txt"})' in output
    assert r"'DOC-\x1b]0;t\x07[red]x[/red].txt'" in output  # the read tool's error, naming the path
    assert r"clear\x1b[2J title\x1b]0;pwned\x07" in output.split("verdicts")[-1]  # the verdict table's reason

    as_json = lexprobe("investigation", "show", str(run_dir), episode_id, "--json", cwd=tmp_path)
    assert_inert(as_json.stdout)
    assert json.loads(as_json.stdout)["summary"] == "Summary: " + HOSTILE  # still the exact stored value


@needs_bwrap
def test_show_prints_shell_output_inert(sample_env: Path, tmp_path: Path) -> None:
    command = r"printf 'out\033[2J\033]0;pwned\007\302\233 [bold]x[/bold]\n'"
    run_dir, episode_id = hostile_run(sample_env, tmp_path, [{"name": "shell", "arguments": {"command": command}}])
    shown = lexprobe("investigation", "show", str(run_dir), episode_id, cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert_inert(shown.stdout + shown.stderr)
    assert r"out\x1b[2J\x1b]0;pwned\x07\x9b [bold]x[/bold]" in shown.stdout
    assert "printf 'out" in shown.stdout and "[bold]x[/bold]" in shown.stdout


# --- check -------------------------------------------------------------------------------------------------------

BRIEF = (
    "The court held, see Brown\x9b2J v. [bold]Board[/bold] of Educ., 347 U.S. 483, 495 (1954), and "
    "Fake\u202eName v. [link=http://evil.example]Nobody[/link], 999 U.S. 999 (2001) :smile:.\n"
)
BRIEF_NAME = f"brief{ESC}]0;pwned\x07[red]x.txt"  # a file name cannot hold "/", so no closing tag


def test_check_prints_document_text_and_file_names_inert(case_db_path: Path, tmp_path: Path) -> None:
    (tmp_path / BRIEF_NAME).write_text(BRIEF, encoding="utf-8")
    done = lexprobe("check", BRIEF_NAME, "--db", str(case_db_path), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    output = done.stdout + done.stderr
    assert_inert(output)
    assert r"brief\x1b]0;pwned\x07[red]x.txt: 2 citations" in output  # the table title, markup not applied
    assert r"brief\x1b]0;pwned\x07[red]x.txt: 1 verified" in output  # the summary line
    assert r"see Brown\x9b2J v. [bold]Board[/bold] of" in output
    assert r"Fake\u202eName v. [link=http://evil.example]Nobody[/link]" in output
    assert ":smile:" in output


def test_check_error_line_is_inert(tmp_path: Path) -> None:
    (tmp_path / BRIEF_NAME).write_bytes(b"")
    done = lexprobe("check", BRIEF_NAME, "--db", str(tmp_path / "absent.sqlite"), cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr == "error: cannot read brief\\x1b]0;pwned\\x07[red]x.txt: empty file\n"
