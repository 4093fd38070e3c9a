"""Issue 12, engine items: Ctrl-C stops a run cleanly (7), the response cache keys on what the model is (8), and
permanent failures are told from pending ones (12).

The Ctrl-C tests run the real `lexprobe` console script as a subprocess, wait (watching the run's SQLite file from
outside) until the first answer is committed, send SIGINT and check the exit (130, not a crash), the summary on
stderr, and that rerunning the same command resumes without asking anything twice.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import socket
import sqlite3
import struct
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from tool_requirements import needs_bwrap

from lexprobe.engine.cache import ResponseCache
from lexprobe.engine.config import EngineConfig
from lexprobe.engine.executor import Engine
from lexprobe.engine.store import RunStore
from lexprobe.engine.summary import RequestsFailed, RequestsPending, RunSummary
from lexprobe.investigation.sample.build import build_sample_environment
from lexprobe.models.errors import ModelConfigError
from lexprobe.models.identity import embedded_fingerprint, embedded_model_path, model_identity
from lexprobe.models.types import Request

LEXPROBE = str(Path(sys.executable).with_name("lexprobe"))
SUMMARY = re.compile(r"interrupted: (\d+)(?: [a-z()]+)? done, (\d+) pending; rerun to resume")
VERDICT_KEY = "give your view on each hypothesis"


# --- helpers ------------------------------------------------------------------------------------------------------


def cli(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """Run `lexprobe ARGS` to completion."""
    return subprocess.run([LEXPROBE, *args], capture_output=True, text=True, timeout=timeout)


def start(args: list[str], log: Path) -> subprocess.Popen:
    """Start `lexprobe ARGS` as an interactive shell would (SIGINT at its default even when the test runner ignores
    it); stdout and stderr go to files, so a chatty process never blocks on a pipe."""
    with log.with_suffix(".out").open("w") as out, log.with_suffix(".err").open("w") as err:
        return subprocess.Popen(
            [LEXPROBE, *args],
            stdout=out,
            stderr=err,
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )


def committed(db: Path) -> int:
    """Responses committed in `db` (0 while it or its tables do not exist yet)."""
    if not db.exists():
        return 0
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
        try:
            return conn.execute("SELECT COUNT(*) FROM responses").fetchone()[0]
        finally:
            conn.close()
    except sqlite3.OperationalError:
        return 0


def rows(db: Path, sql: str) -> list[tuple]:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


def interrupt_after_first_answer(args: list[str], db: Path, log: Path, wait_s: float = 240) -> tuple[int, str, float]:
    """Start the command, send SIGINT once its first answer is committed; return (exit code, stderr, seconds from
    the signal to the exit)."""
    process = start(args, log)
    deadline = time.monotonic() + wait_s
    try:
        while committed(db) < 1:
            if process.poll() is not None:
                pytest.fail(
                    f"ended (rc {process.returncode}) before the first answer: {log.with_suffix('.err').read_text()}"
                )
            if time.monotonic() > deadline:
                pytest.fail(f"no answer committed within {wait_s}s")
            time.sleep(0.02)
        process.send_signal(signal.SIGINT)
        signalled = time.monotonic()
        process.wait(timeout=120)
        return process.returncode, log.with_suffix(".err").read_text(), time.monotonic() - signalled
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def write_script(path: Path, lines: list[dict]) -> str:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return f"scripted:{path}"


# --- item 7: Ctrl-C -----------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_ctrl_c_during_embedded_hallucination_run_exits_130_and_resumes(case_db_path: Path, tmp_path: Path) -> None:
    """SIGINT while the embedded model answers: no segfault; what completed is committed, the summary is printed,
    exit 130; the rerun sends only what was pending."""
    run_dir = tmp_path / "run"
    db = run_dir / "run.sqlite"
    args = ["hallucination", "run", "--model", "local", "--tasks", "existence", "--prompt-styles", "zero",
            "--levels", "scotus", "--n", "3", "--samples", "0", "--run-dir", str(run_dir), "--db", str(case_db_path),
            "--no-cache"]  # fmt: skip

    code, stderr, took = interrupt_after_first_answer(args, db, tmp_path / "first")

    assert code == 130, stderr  # was -11 (SIGSEGV): the weights were freed under the running llama.cpp call
    match = SUMMARY.search(stderr)
    assert match, stderr
    done, pending = int(match.group(1)), int(match.group(2))
    assert done == committed(db) and done >= 1 and done + pending == 3
    assert took < 60
    assert not rows(db, "SELECT * FROM telemetry WHERE event LIKE 'failed%'")  # an abandoned call is no failure

    rerun = cli(*args)
    assert rerun.returncode == 0, rerun.stderr
    assert f"{done} done before" in rerun.stderr and f"{pending} sent" in rerun.stderr
    assert rows(db, "SELECT COUNT(*), COUNT(DISTINCT request_id) FROM responses") == [(3, 3)]
    assert rows(db, "SELECT COUNT(*) FROM telemetry WHERE event = 'ok'") == [(3,)]  # nothing asked twice


@pytest.mark.slow
def test_ctrl_c_during_embedded_ask_exits_130_and_twice_still_no_crash(tmp_path: Path) -> None:
    """`ask --model local`: one Ctrl-C stops the call in flight (between two tokens) and exits 130 with the summary;
    a second Ctrl-C right after quits at once, still with 130."""
    prompt = "Explain the doctrine of adverse possession in great detail, with many examples."
    for presses in (1, 2):
        run_dir = tmp_path / f"ask{presses}"
        log = tmp_path / f"ask{presses}"
        process = start(["ask", "--model", "local", "--no-cache", "--max-tokens", "2000", "--run-dir", str(run_dir),
                         prompt], log)  # fmt: skip
        try:
            while not rows_ready(run_dir / "run.sqlite"):
                assert process.poll() is None, log.with_suffix(".err").read_text()
                time.sleep(0.02)
            time.sleep(1.5)  # the weights load, the answer is being generated
            assert process.poll() is None, "the answer was complete before the signal"
            for _ in range(presses):
                process.send_signal(signal.SIGINT)
                time.sleep(0.05)
            process.wait(timeout=60)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
        stderr = log.with_suffix(".err").read_text()
        assert process.returncode == 130, stderr
        if presses == 1:
            assert "interrupted: 0 done, 1 pending; rerun to resume" in stderr
        assert committed(run_dir / "run.sqlite") == 0


def rows_ready(db: Path) -> bool:
    """True once the request row is in `db` (the call is about to start)."""
    try:
        return db.exists() and bool(rows(db, "SELECT COUNT(*) FROM requests")[0][0])
    except sqlite3.OperationalError:
        return False


@needs_bwrap
@pytest.mark.slow
def test_ctrl_c_stops_an_investigation_at_the_next_step_and_it_resumes(tmp_path: Path) -> None:
    """SIGINT during a slow tool call (a 3-second shell command) stops the episode at its next step instead of
    holding the signal until the episode ends; the saved record resumes there."""
    env = build_sample_environment(tmp_path / "env", "merits")
    shell = {"tool_calls": [{"name": "shell", "arguments": {"command": "sleep 3; ls"}}]}
    model = write_script(tmp_path / "agent.jsonl", [
        shell, shell, {"text": "Summary: nothing conclusive."},
        {"when": VERDICT_KEY, "text": '[{"label": "H1", "verdict": "C"}]'},
    ])  # fmt: skip
    run_dir = tmp_path / "run"
    db = run_dir / "run.sqlite"
    args = ["investigation", "run", str(env), "--model", model, "--run-dir", str(run_dir), "--tool-budget", "5"]

    code, stderr, took = interrupt_after_first_answer(args, db, tmp_path / "first")

    assert code == 130, stderr
    assert "interrupted: 0 episode(s) done, 1 pending; rerun to resume" in stderr
    assert took < 10  # the running tool call ends (3 s), then the episode stops: no further step
    assert committed(db) == 1
    (record,) = [json.loads(path.read_text()) for path in (run_dir / "episodes").glob("*.json")]
    assert record["steps"] == 1 and record["status"] == "running"

    rerun = cli(*args)
    assert rerun.returncode == 0, rerun.stderr
    assert ": complete, 3 steps, 2 tool calls" in rerun.stdout
    assert rows(db, "SELECT COUNT(*), COUNT(DISTINCT request_id) FROM responses") == [(4, 4)]


# --- item 8: the cache keys on what the model is ------------------------------------------------------------------


def test_edited_script_is_answered_anew_not_from_the_cache(tmp_path: Path) -> None:
    """`ask --model scripted:FILE`, edit FILE, ask again: the new answer, not the cached old one."""
    script = tmp_path / "turns.jsonl"
    spec = write_script(script, [{"text": "first answer"}])

    first = cli("ask", "--json", "--model", spec, "Is this a contract?")
    again = cli("ask", "--json", "--model", spec, "Is this a contract?")
    write_script(script, [{"text": "edited answer"}])
    edited = cli("ask", "--json", "--model", spec, "Is this a contract?")

    assert [json.loads(r.stdout)["text"] for r in (first, again, edited)] == ["first answer"] * 2 + ["edited answer"]
    assert [json.loads(r.stdout)["cached"] for r in (first, again, edited)] == [False, True, False]


def test_response_key_hashes_file_content_and_keeps_hosted_keys(tmp_path: Path) -> None:
    """File-backed specs key on the file's SHA-256 (edit -> new key; a copy elsewhere -> the same key); hosted specs
    keep the spec, so their keys are what they were; the embedded model keys on a cheap fingerprint."""
    gguf = tmp_path / "model.gguf"
    gguf.write_bytes(b"GGUF" + b"\0" * 100)
    copy = tmp_path / "copy" / "model.gguf"
    copy.parent.mkdir()
    copy.write_bytes(gguf.read_bytes())
    before = Request.from_prompt(f"local:{gguf}", "Hi?").response_key()
    assert Request.from_prompt(f"local:{copy}", "Hi?").response_key() == before  # same content, same answers
    assert model_identity(f"local:{gguf}").startswith("local:sha256:")
    gguf.write_bytes(b"GGUF" + b"\1" * 100)  # same size
    os.utime(gguf, ns=(gguf.stat().st_atime_ns, gguf.stat().st_mtime_ns + 1_000_000))
    assert Request.from_prompt(f"local:{gguf}", "Hi?").response_key() != before

    hosted = Request.from_prompt("openai/gpt-4o-mini", "Hi?")
    assert hosted.response_key() == hosted.cache_key()
    assert model_identity("anthropic/claude-3-5-haiku-latest") == "anthropic/claude-3-5-haiku-latest"

    fingerprint = embedded_fingerprint()
    assert fingerprint and fingerprint.startswith("0.1.2:")
    assert model_identity("local") == model_identity("local/smollm2") == f"local:embedded:{fingerprint}"
    assert embedded_model_path().stat().st_size > 50_000_000  # why it is fingerprinted rather than hashed


# --- item 12: permanent failures are not pending -------------------------------------------------------------------


def test_corrupt_gguf_fails_before_any_work_with_exit_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.gguf"
    bad.write_text("this is not a model\n")
    result = cli("ask", "--model", f"local:{bad}", "Hi?")
    assert result.returncode == 2, result.stderr
    assert "is not a GGUF file" in result.stderr and str(bad) in result.stderr


def test_truncated_gguf_exits_2_and_stops_the_run_at_the_first_request(tmp_path: Path) -> None:
    """A GGUF with a valid header but a cut-off body loads only on the first call: that call ends the run (exit 2
    from the command line) instead of failing every request and claiming they are pending."""
    truncated = tmp_path / "truncated.gguf"
    with embedded_model_path().open("rb") as source:
        truncated.write_bytes(source.read(2_000_000))
    spec = f"local:{truncated}"

    result = cli("ask", "--model", spec, "Hi?")
    assert result.returncode == 2, result.stderr
    assert "could not load" in result.stderr and "rerun" not in result.stderr

    store = RunStore.open(tmp_path / "run")
    engine = Engine(store, None, EngineConfig(progress=False, concurrency=1))
    requests = [Request.from_prompt(spec, f"Question {i}?", id=f"q{i}") for i in range(3)]

    async def run() -> None:
        try:
            await engine.run(requests)
        finally:
            await engine.aclose()

    with pytest.raises(ModelConfigError, match="could not load"):
        asyncio.run(run())
    assert [(row.request_id, row.event) for row in store.telemetry()] == [("q0", "failed_permanent")]
    store.close()


@pytest.mark.slow
def test_prompt_longer_than_the_context_exits_2_with_the_reason(tmp_path: Path) -> None:
    result = cli("ask", "--model", "local", "--no-cache", "word " * 5000)
    assert result.returncode == 2, result.stderr
    assert "failed permanently" in result.stderr and "context window" in result.stderr


def test_exhausted_script_exits_2_naming_the_request(tmp_path: Path) -> None:
    """An investigation whose script runs out at step 2: exit 2 naming the request and the reason (was exit 1,
    "rerun to resume", though a rerun fails the same way)."""
    env = build_sample_environment(tmp_path / "env", "merits")
    model = write_script(tmp_path / "agent.jsonl", [{"tool_calls": [{"name": "glob", "arguments": {"pattern": "*"}}]}])
    result = cli("investigation", "run", str(env), "--model", model, "--run-dir", str(tmp_path / "run"))
    assert result.returncode == 2, result.stderr
    assert "failed permanently" in result.stderr and "|t1|2" in result.stderr
    assert "has 1 turn(s); the conversation asks for turn 2" in result.stderr
    (record,) = [json.loads(path.read_text()) for path in (tmp_path / "run" / "episodes").glob("*.json")]
    assert record["status"] == "failed" and "failed permanently" in record["error"]
    assert "rerun" not in record["error"]  # a rerun would fail the same way

    qa = cli("investigation", "qa", str(env), "--model", model, "--run-dir", str(tmp_path / "qa"))
    assert qa.returncode == 2, qa.stderr  # factual QA tells permanent failures apart too
    assert "failed permanently" in qa.stderr and "Traceback" not in qa.stderr

    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    asked = cli("ask", "--model", f"scripted:{empty}", "Hi?")
    assert asked.returncode == 2 and "has 0 turn(s)" in asked.stderr, asked.stderr


def test_unreachable_server_stays_pending_with_exit_1(tmp_path: Path) -> None:
    """A transient failure that outlasts the retries is still 'pending; rerun to resume' (exit 1): here a server
    that drops every connection it accepts. (A port where nothing listens is refused at once, exit 2: issue 29,
    item 7, tests/test_damaged_inputs.py.)"""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()

    def drop_connections() -> None:
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            conn.close()

    threading.Thread(target=drop_connections, daemon=True).start()
    spec = f"openai-compatible/smol@http://127.0.0.1:{listener.getsockname()[1]}/v1"
    try:
        result = cli("ask", "--model", spec, "--max-retries", "0", "Hi?")
    finally:
        listener.close()
    assert result.returncode == 1, result.stderr
    assert "rerun" in result.stderr and "Connection" in result.stderr


def test_summary_failure_tells_permanent_from_pending() -> None:
    """The exit a run ends with: 2 when a request failed permanently (naming it), 1 while requests are pending."""
    assert RunSummary(total=2, sent=2).failure() is None
    pending = RunSummary(total=2, sent=1, failed=1, errors=["q1: HTTP 503: busy"]).failure()
    assert isinstance(pending, RequestsPending) and pending.exit_code == 1 and "q1: HTTP 503" in str(pending)
    permanent = RunSummary(
        total=3, sent=1, failed=2, failed_permanent=1, errors=["q1: HTTP 503", "q2: HTTP 400: bad"],
        permanent_errors=["q2: HTTP 400: bad"],
    ).failure()  # fmt: skip
    assert isinstance(permanent, RequestsFailed) and permanent.exit_code == 2
    assert "q2: HTTP 400: bad" in str(permanent) and "1 more still pending" in str(permanent)


async def test_engine_counts_a_permanent_failure_apart_and_does_not_retry_it(tmp_path: Path) -> None:
    """A non-transient model error is recorded as `failed_permanent` after one attempt; other requests complete."""
    spec = write_script(tmp_path / "one.jsonl", [{"text": "only answer"}])
    store = RunStore.open(tmp_path / "run")
    engine = Engine(store, ResponseCache(tmp_path / "cache"), EngineConfig(progress=False, max_retries=3))
    followup = Request(model=spec, id="followup", messages=(
        {"role": "user", "content": "Q?"}, {"role": "assistant", "content": "A."}, {"role": "user", "content": "Q2?"},
    ))  # fmt: skip
    try:
        summary = await engine.run([Request.from_prompt(spec, "Q?", id="first"), followup])
    finally:
        await engine.aclose()
    assert (summary.sent, summary.failed, summary.failed_permanent, summary.retries) == (1, 1, 1, 0)
    assert engine.permanent_failures == {"followup": summary.permanent_errors[0].split(": ", 1)[1]}
    assert [row.event for row in store.telemetry("followup")] == ["failed_permanent"]
    assert isinstance(summary.failure(), RequestsFailed)
    store.close()
