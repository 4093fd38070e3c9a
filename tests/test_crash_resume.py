"""Kill a run with SIGKILL mid-job, rerun it, and check that nothing was lost, duplicated or sent twice.

The job (tests/run_job.py) runs distinct temperature-0 requests against the embedded model in a subprocess. The
test watches the run's SQLite file from outside, kills the process once a few responses are committed, and
reruns the job to completion. The resumed run's answers must equal those of an uninterrupted run.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

JOB = Path(__file__).with_name("run_job.py")
N = 10
MAX_TOKENS = 32
KILL_AFTER = 3


def job_command(run_dir: Path) -> list[str]:
    return [sys.executable, str(JOB), str(run_dir), str(N), str(MAX_TOKENS)]


def start_job(run_dir: Path) -> subprocess.Popen:
    """Start the job; its stderr goes to RUN_DIR.stderr (a file, so a chatty job can never block on a pipe)."""
    with stderr_path(run_dir).open("w") as sink:
        return subprocess.Popen(job_command(run_dir), stdout=subprocess.PIPE, stderr=sink, text=True)


def stderr_path(run_dir: Path) -> Path:
    return run_dir.with_name(run_dir.name + ".stderr")


def stall_report(process: subprocess.Popen, run_dir: Path) -> str:
    """Ask a stalled job for its thread stacks (run_job.py dumps them on SIGUSR1), then kill it."""
    process.send_signal(signal.SIGUSR1)
    time.sleep(1.0)
    process.kill()
    process.communicate()
    return stderr_path(run_dir).read_text()[-6000:]


def run_job(run_dir: Path, timeout_s: float = 300) -> dict:
    """Run the job to completion; return its summary."""
    process = start_job(run_dir)
    try:
        stdout, _ = process.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        pytest.fail(f"job in {run_dir} did not finish in {timeout_s}s; stacks:\n{stall_report(process, run_dir)}")
    assert process.returncode == 0, stderr_path(run_dir).read_text()[-4000:]
    return json.loads(stdout.strip().splitlines()[-1])


def read_only(db: Path) -> sqlite3.Connection:
    return sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)


def committed(db: Path) -> int:
    """Return how many responses are committed in `db` (0 while the file or its tables do not exist yet)."""
    if not db.exists():
        return 0
    try:
        conn = read_only(db)
        try:
            (count,) = conn.execute("SELECT COUNT(*) FROM responses").fetchone()
        finally:
            conn.close()
    except sqlite3.OperationalError:
        return 0
    return count


def stored_texts(db: Path) -> dict[str, str]:
    conn = read_only(db)
    try:
        rows = conn.execute("SELECT request_id, body FROM responses").fetchall()
    finally:
        conn.close()
    return {request_id: json.loads(body)["text"] for request_id, body in rows}


def test_sigkill_mid_run_then_resume_loses_and_duplicates_nothing(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    db = run_dir / "run.sqlite"
    process = start_job(run_dir)
    started = time.monotonic()
    try:
        while (count := committed(db)) < KILL_AFTER:
            if process.poll() is not None:
                log = stderr_path(run_dir).read_text()[-4000:]
                pytest.fail(f"job ended (rc {process.returncode}) before the kill: {log}")
            if time.monotonic() - started > 180:
                pytest.fail(f"only {count} responses committed after 180s; stacks:\n{stall_report(process, run_dir)}")
            time.sleep(0.02)
        os.kill(process.pid, signal.SIGKILL)
        stdout, _ = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == -signal.SIGKILL
    assert stdout == ""  # killed before it could print a summary

    completed_at_kill = committed(db)
    assert KILL_AFTER <= completed_at_kill < N, "the kill came too late to interrupt the job"
    before = stored_texts(db)

    summary = run_job(run_dir)

    assert summary["complete"] and summary["failed"] == 0
    assert summary["total"] == N
    assert summary["already_done"] == completed_at_kill
    assert summary["sent"] == N - completed_at_kill
    assert summary["cache_hits"] == 0 and summary["retries"] == 0

    conn = read_only(db)
    try:
        (rows, distinct) = conn.execute("SELECT COUNT(*), COUNT(DISTINCT request_id) FROM responses").fetchone()
        (requests,) = conn.execute("SELECT COUNT(*) FROM requests").fetchone()
        events = dict(conn.execute("SELECT event, COUNT(*) FROM telemetry GROUP BY event").fetchall())
        ok_per_request = conn.execute(
            "SELECT request_id, COUNT(*) FROM telemetry WHERE event = 'ok' GROUP BY request_id"
        ).fetchall()
    finally:
        conn.close()
    assert rows == distinct == requests == N
    assert events == {"ok": N}  # every request answered exactly once across both runs, nothing retried or failed
    assert sorted(request_id for request_id, _ in ok_per_request) == sorted(f"job-{i}" for i in range(N))
    assert all(count == 1 for _, count in ok_per_request)

    resumed = stored_texts(db)
    assert {k: resumed[k] for k in before} == before  # answers committed before the kill are untouched

    fresh_dir = tmp_path / "fresh"
    fresh = run_job(fresh_dir)
    assert fresh["complete"] and fresh["sent"] == N and fresh["already_done"] == 0
    uninterrupted = stored_texts(fresh_dir / "run.sqlite")
    assert len(uninterrupted) == N and all(uninterrupted.values())
    assert resumed == uninterrupted
