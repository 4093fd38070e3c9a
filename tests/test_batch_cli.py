"""`--batch` on the command line: `hallucination run --batch` (its judge stage too) against the batch provider
server (tests/batch_provider_server.py) gives the labels and report of the same answers sent one by one; a SIGKILL
while polling and a rerun that submits nothing new; `lexprobe batch status`; `--dry-run --batch`; the report's count
of answers that came by batch. The dry run's lines and the estimate of models without a batch API are in
test_batch_engine.py."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from batch_provider_server import BatchProviderServer
from test_startup_imports import HEAVY, imported_modules

pytestmark = pytest.mark.slow  # starts the batch provider server (and, in the CLI file, subprocesses)

LEXPROBE = str(Path(sys.executable).with_name("lexprobe"))
MODEL = "openai/gpt-4o-mini"
JUDGE = "anthropic/claude-3-5-haiku-latest"
PROFILE = ("--tasks", "existence,fake_existence,factual_background", "--levels", "scotus", "--n", "3",
           "--samples", "2", "--seed", "5", "--judge", JUDGE)  # fmt: skip


@pytest.fixture(scope="module")
def server() -> Iterator[BatchProviderServer]:
    provider = BatchProviderServer().start()
    yield provider
    provider.stop()


@pytest.fixture
def env(server: BatchProviderServer, isolated_cache: Path) -> dict[str, str]:
    server.reset()
    return os.environ | {
        "OPENAI_API_KEY": "test-key",
        "OPENAI_BASE_URL": server.url + "/v1",
        "ANTHROPIC_API_KEY": "test-key",
        "ANTHROPIC_BASE_URL": server.url,
        "LEXPROBE_BATCH_POLL_S": "0.05",
        "LEXPROBE_CACHE": str(isolated_cache),
    }


def lexprobe(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([LEXPROBE, *args], capture_output=True, text=True, env=env, timeout=600)


def rows(stdout: str) -> list[dict]:
    return sorted(json.loads(stdout)["rows"], key=lambda row: (row["task"], row["level"], row["prompt_style"]))


def test_batched_run_gives_the_report_of_the_same_answers_sent_one_by_one(
    server: BatchProviderServer, env: dict[str, str], case_db_path: Path, tmp_path: Path
) -> None:
    server.faults = ["expired", "ok", "errored"]  # partial failures: resubmitted
    sync_before = server.sync_calls
    batched = lexprobe(env, "hallucination", "run", "--model", MODEL, *PROFILE, "--batch", "--run-dir",
                       str(tmp_path / "batch"), "--db", str(case_db_path), "--json")  # fmt: skip
    assert batched.returncode == 0, batched.stderr
    assert server.sync_calls == sync_before  # nothing went one by one: the judge's pairs went by batch too
    assert "by batch" in batched.stderr
    direct = lexprobe(env, "hallucination", "run", "--model", MODEL, *PROFILE, "--no-cache", "--run-dir",
                      str(tmp_path / "sync"), "--db", str(case_db_path), "--json")  # fmt: skip
    assert direct.returncode == 0, direct.stderr
    assert server.sync_calls > sync_before
    assert rows(batched.stdout) == rows(direct.stdout)
    judged = [row for row in rows(batched.stdout) if row["task"] == "factual_background"]
    assert judged and all(row["n"] + row.get("unscored", 0) > 0 for row in judged)

    report = lexprobe(env, "hallucination", "report", str(tmp_path / "batch"), "--json")
    assert report.returncode == 0, report.stderr
    (counts,) = json.loads(report.stdout)["batch"]
    assert counts["batched_answers"] == counts["answers"] > 0
    assert json.loads(report.stdout)["rows"] == json.loads(batched.stdout)["rows"]
    text = lexprobe(env, "hallucination", "report", str(tmp_path / "batch"))
    assert f"answers by batch (provider batch API): {counts['answers']:,} of {counts['answers']:,}" in text.stdout

    status = lexprobe(env, "batch", "status", str(tmp_path / "batch"), "--json")
    assert status.returncode == 0, status.stderr
    batches = json.loads(status.stdout)["batches"]
    assert {b["model"] for b in batches} == {MODEL, JUDGE}
    assert all(b["collected"] and b["provider_id"] for b in batches)
    assert [b["round"] for b in batches if b["model"] == MODEL] == [1, 2]  # the two failed items, once more
    table = lexprobe(env, "batch", "status", str(tmp_path / "batch"))
    assert table.returncode == 0 and batches[0]["provider_id"] in table.stdout
    assert f"{len(batches)} batch(es), 0 open" in table.stdout


def committed_batch(db: Path) -> bool:
    """True once the run store has recorded a provider batch id (read-only, as another process writes)."""
    if not db.is_file():
        return False
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return conn.execute("SELECT COUNT(*) FROM batches WHERE provider_id IS NOT NULL").fetchone()[0] > 0
    except sqlite3.OperationalError:  # no ledger yet
        return False
    finally:
        conn.close()


def test_sigkill_while_polling_then_a_rerun_submits_nothing_new(
    server: BatchProviderServer, env: dict[str, str], case_db_path: Path, tmp_path: Path
) -> None:
    server.hold = True  # every batch stays in progress
    run_dir = tmp_path / "run"
    command = [LEXPROBE, "hallucination", "run", "--model", MODEL, "--tasks", "existence", "--levels", "scotus",
               "--n", "4", "--samples", "0", "--batch", "--run-dir", str(run_dir), "--db", str(case_db_path),
               "--json"]  # fmt: skip
    before = len(server.submitted)
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while not committed_batch(run_dir / "run.sqlite"):
            assert process.poll() is None and time.monotonic() < deadline, "the run never recorded its batch"
            time.sleep(0.05)
        time.sleep(0.3)  # a few polls of a batch in progress
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
    submitted = server.submitted[before:]
    assert submitted and len({cid for _, cid, _ in submitted}) == len(submitted)
    server.hold = False
    status = lexprobe(env, "batch", "status", str(run_dir), "--json")
    assert json.loads(status.stdout)["open"] == 1
    rerun = lexprobe(env, *command[1:])
    assert rerun.returncode == 0, rerun.stderr
    assert server.submitted[before:] == submitted  # resumed polling: no request submitted twice
    assert "resuming batch" in rerun.stderr
    assert sum(row["n"] + row.get("unscored", 0) for row in json.loads(rerun.stdout)["rows"]) == len(submitted)
    assert json.loads(lexprobe(env, "batch", "status", str(run_dir), "--json").stdout)["open"] == 0


def test_dry_run_batch_counts_batches_requests_and_the_batch_cost(
    env: dict[str, str], case_db_path: Path, tmp_path: Path
) -> None:
    modules, dry = imported_modules(["hallucination", "run", "--model", MODEL, *PROFILE, "--run-dir",
                                     str(tmp_path / "dry"), "--db", str(case_db_path), "--dry-run", "--batch",
                                     "--json"], tmp_path)  # fmt: skip
    assert not {name.split(".")[0] for name in modules} & set(HEAVY)  # start-up stays cheap with --batch too
    estimate = json.loads(dry.stdout)
    batch = estimate["batch"]
    by_model = {row["model"]: row for row in batch["by_model"]}
    assert set(by_model) == {MODEL, JUDGE} and batch["synchronous"] == 0
    assert batch["requests"] == estimate["to_send"] > 0
    assert batch["batches"] == 2  # one per model: far below the limits
    assert batch["max_cost_usd"] == pytest.approx(estimate["max_cost_usd"] / 2)  # the synchronous price, halved
    for share in estimate["by_model"]:
        assert by_model[share["model"]]["requests"] == share["to_send"]
        assert by_model[share["model"]]["max_cost_usd"] == pytest.approx(share["max_cost_usd"] / 2)
    assert not (tmp_path / "dry").exists()  # a dry run writes nothing
