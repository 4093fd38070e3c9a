"""The installed `lexprobe` console script, run as a subprocess against the embedded model."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from lexprobe import __version__
from lexprobe.engine.cache import ResponseCache
from lexprobe.engine.store import RunStore
from lexprobe.models.spec import SPEC_FORMS

pytestmark = pytest.mark.slow

LEXPROBE = Path(sys.executable).with_name("lexprobe")
PROMPT = "What is a tort? Answer in one sentence."
JSON_KEYS = {"text", "usage", "cost_usd", "latency_s", "cached"}


@pytest.fixture
def cli(tmp_path: Path, isolated_cache: Path):
    """Return a function running `lexprobe ARGS...` with LEXPROBE_CACHE in tmp_path; `drop` removes variables."""

    def run(*args: str, drop: tuple[str, ...] = (), timeout: float = 300) -> subprocess.CompletedProcess[str]:
        env = {key: value for key, value in os.environ.items() if key not in drop}
        env["LEXPROBE_CACHE"] = str(isolated_cache)
        return subprocess.run(
            [str(LEXPROBE), *args], capture_output=True, text=True, env=env, timeout=timeout, cwd=tmp_path
        )

    return run


def cached_count(cache_dir: Path) -> int:
    """How many responses the cache folder holds (0 when it has no database yet)."""
    if not (cache_dir / "responses.sqlite").exists():
        return 0
    cache = ResponseCache(cache_dir)
    try:
        return len(cache)
    finally:
        cache.close()


def test_console_script_is_installed():
    assert LEXPROBE.is_file()


def test_version(cli):
    result = cli("--version")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"lexprobe {__version__}"


def test_help_lists_commands(cli):
    result = cli("--help")
    assert result.returncode == 0, result.stderr
    for command in ("models", "ask", "demo"):
        assert command in result.stdout


def test_no_arguments_shows_help(cli):
    result = cli()
    assert "ask" in result.stdout + result.stderr
    assert "Usage" in result.stdout + result.stderr


def test_models_json_lists_every_spec_form(cli):
    result = cli("models", "--json", drop=("OPENAI_API_KEY", "ANTHROPIC_API_KEY"))
    assert result.returncode == 0, result.stderr
    rows = json.loads(result.stdout)
    assert [row["form"] for row in rows] == [form for form, _ in SPEC_FORMS]
    assert len(rows) == 7  # six backends; openai-compatible has its single-URL and its replicated form
    by_form = {row["form"]: row for row in rows}
    assert by_form["local"]["usable"] is True
    assert by_form["scripted:FILE.jsonl"]["usable"] is True
    assert by_form["openai/MODEL"] == {
        **by_form["openai/MODEL"],
        "usable": False,
        "reason": "OPENAI_API_KEY is not set",
    }
    assert by_form["anthropic/MODEL"]["usable"] is False
    assert all(set(row) == {"form", "description", "usable", "reason"} for row in rows)


def test_models_table(cli, isolated_cache):
    result = cli("models")
    assert result.returncode == 0, result.stderr
    assert "openai-compatible" in result.stdout
    assert "LEXPROBE_CACHE" in result.stdout


def test_ask_json_then_cached(cli, isolated_cache):
    """`ask --json` prints exactly one JSON object on stdout; the same ask again is served from the cache."""
    first = cli("ask", "--json", "--max-tokens", "16", PROMPT)
    assert first.returncode == 0, first.stderr
    lines = first.stdout.strip().splitlines()
    assert len(lines) == 1
    payload = json.loads(lines[0])
    assert set(payload) == JSON_KEYS
    assert payload["text"].strip()
    assert payload["cached"] is False
    assert payload["cost_usd"] == 0.0
    assert payload["latency_s"] > 0
    assert payload["usage"]["input_tokens"] > 0
    assert 0 < payload["usage"]["output_tokens"] <= 16
    assert cached_count(isolated_cache) == 1

    second = cli("ask", "--json", "--max-tokens", "16", PROMPT)
    assert second.returncode == 0, second.stderr
    again = json.loads(second.stdout)
    assert again["cached"] is True
    assert again["text"] == payload["text"]
    assert again["usage"] == payload["usage"]
    assert again["cost_usd"] == 0.0
    assert cached_count(isolated_cache) == 1


def test_ask_plain_prints_answer_on_stdout_and_usage_on_stderr(cli):
    """Without --json the answer alone goes to stdout; the usage line goes to stderr."""
    result = cli("ask", "--max-tokens", "16", PROMPT)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip()
    assert "{" not in result.stdout
    assert "tokens" not in result.stdout
    assert "in /" in result.stderr and "out tokens" in result.stderr

    as_json = cli("ask", "--json", "--max-tokens", "16", PROMPT)
    assert json.loads(as_json.stdout)["text"].strip() == result.stdout.strip()


def test_ask_json_with_progress_on_a_terminal_keeps_stdout_pure(isolated_cache):
    """With stderr on a terminal the progress bar is drawn there; stdout still holds only the JSON object."""
    env = {**os.environ, "LEXPROBE_CACHE": str(isolated_cache), "TERM": "xterm", "COLUMNS": "100"}
    primary, secondary = pty.openpty()
    process = subprocess.Popen(
        [str(LEXPROBE), "ask", "--json", "--max-tokens", "8", PROMPT],
        stdout=subprocess.PIPE,
        stderr=secondary,
        env=env,
    )
    os.close(secondary)
    terminal = b""
    while True:
        try:
            chunk = os.read(primary, 4096)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        terminal += chunk
    os.close(primary)
    stdout = process.stdout.read().decode()
    assert process.wait(timeout=120) == 0, terminal.decode(errors="replace")

    assert set(json.loads(stdout)) == JSON_KEYS
    assert len(stdout.strip().splitlines()) == 1
    assert b"requests" in terminal  # the progress bar's label


def test_ask_no_cache_leaves_cache_empty(cli, isolated_cache):
    result = cli("ask", "--json", "--no-cache", "--max-tokens", "8", PROMPT)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["cached"] is False
    assert cached_count(isolated_cache) == 0


def test_ask_dry_run_sends_nothing(cli, isolated_cache, tmp_path):
    """`--dry-run` prints the estimate; nothing is sent, cached or stored."""
    run_dir = tmp_path / "dry"
    result = cli("ask", "--dry-run", "--max-tokens", "16", "--run-dir", str(run_dir), PROMPT)
    assert result.returncode == 0, result.stderr
    line = result.stdout.strip()
    assert line.startswith("dry run: 1 requests")
    assert "1 to send" in line
    assert "at most 16 output tokens" in line
    assert "$0.0000" in line
    assert cached_count(isolated_cache) == 0
    store = RunStore.open(run_dir)
    assert store.counts()["requests"] == 0

    as_json = cli("ask", "--dry-run", "--json", "--max-tokens", "16", PROMPT)
    assert as_json.returncode == 0, as_json.stderr
    estimate = json.loads(as_json.stdout)
    assert (estimate["requests"], estimate["to_send"], estimate["max_output_tokens"]) == (1, 1, 16)
    assert estimate["max_cost_usd"] == 0.0
    assert cached_count(isolated_cache) == 0


def test_ask_dry_run_counts_cache_hit(cli, isolated_cache):
    assert cli("ask", "--json", "--max-tokens", "8", PROMPT).returncode == 0
    estimate = json.loads(cli("ask", "--dry-run", "--json", "--max-tokens", "8", PROMPT).stdout)
    assert (estimate["cache_hits"], estimate["to_send"]) == (1, 0)


def test_unknown_spec_exits_2_with_one_line_error(cli):
    result = cli("ask", "-m", "gpt4", "hello")
    assert result.returncode == 2
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "gpt4" in lines[0]
    assert "Traceback" not in result.stderr
    for form, _ in SPEC_FORMS:
        assert form in lines[0]


def test_missing_openai_key_exits_2_naming_it(cli, isolated_cache):
    result = cli("ask", "-m", "openai/gpt-4o", "hello", drop=("OPENAI_API_KEY",))
    assert result.returncode == 2
    assert "OPENAI_API_KEY" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.stderr
    assert result.stdout == ""
    assert cached_count(isolated_cache) == 0


def test_ask_run_dir_keeps_request_and_response(cli, tmp_path):
    run_dir = tmp_path / "run"
    result = cli("ask", "--json", "--max-tokens", "16", "--run-dir", str(run_dir), PROMPT)
    assert result.returncode == 0, result.stderr
    payload = json.loads(result.stdout)

    assert (run_dir / "run.sqlite").is_file()
    store = RunStore.open(run_dir)
    requests = store.requests()
    assert len(requests) == 1
    assert requests[0].model == "local"
    assert requests[0].messages[-1].content == PROMPT
    assert requests[0].max_tokens == 16
    stored = store.response(requests[0].request_id)
    assert stored is not None
    assert stored.text == payload["text"]
    assert store.counts() == {"requests": 1, "completed": 1, "pending": 0}
    assert [row.event for row in store.telemetry()] == ["ok"]


def test_demo_profiles_the_embedded_model(cli, tmp_path, isolated_cache):
    """The demo builds the case database on first use, runs a small profile, and resumes when rerun."""
    run_dir = tmp_path / "demo"
    # One case takes every task through the model; the generous timeouts only guard against a hang on a loaded machine.
    result = cli("demo", "--run-dir", str(run_dir), "--n", "1", timeout=2400)
    assert result.returncode == 0, result.stderr
    text = " ".join(result.stdout.split())  # rich wraps long lines
    assert "hallucination rates: local" in text
    assert "existence" in text and "fake_existence" in text and "central_holding" in text
    assert (isolated_cache / "caselaw.sqlite").is_file()
    report = tmp_path / "demo-report.html"
    assert f"HTML report: {report}" in text and report.stat().st_size > 10_000
    assert "investigation episode fictional-harlow-v-brightline|+chaff100|local|e0: complete" in text
    # readable verdicts, or one line saying why there are none and what to run instead (issue 33)
    assert "verdicts H1=? H2=? H3=? H4=?" not in text or "lexprobe demo --model openai/gpt-4o-mini" in text
    assert "cases: 1 Supreme Court case decided" in text and "skipped" not in result.stderr
    page = report.read_text()
    assert "Investigation (sample environment)" in page
    # the paper's published rates beside the embedded model's (issue 33), and how the cases were chosen
    assert "Reference rows from the paper" in page and "GPT 4" in page and "Llama 2" in page
    assert "cases: 1 Supreme Court case decided" in " ".join(page.split())
    assert list((run_dir / "investigation" / "episodes").glob("*.json"))
    store = RunStore.open_read_only(run_dir)  # reading only: the rerun below must be able to lock the run directory
    counts = store.counts()
    assert counts["pending"] == 0 and counts["requests"] > 20
    roles = {request.tags.get("role") for request in store.requests()}
    assert {"calibration", "sample0", "sample1"} <= roles  # K=3 calibration samples and reference-free pairs
    samples = [r for r in store.requests() if r.tags.get("role") == "calibration"]
    assert {r.sample_index for r in samples} == {0, 1, 2}
    again = cli("demo", "--run-dir", str(run_dir), "--n", "1", timeout=1200)
    assert again.returncode == 0, again.stderr
    assert f"{counts['requests']} done before" in " ".join(again.stdout.split())
