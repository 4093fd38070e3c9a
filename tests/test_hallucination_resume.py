"""A resumed `hallucination run` hands the engine only the items not answered in full (`hallucination/run/resume.py`):
the rerun's report and counts equal a run that never stopped, and a run directory holding another job is still
refused, whether the difference is in an answered item's first request or in the constants of its samples."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

from lexprobe.caselaw.query import CaseDatabase
from lexprobe.engine.store import RunStore
from lexprobe.hallucination.run.items import plan_items
from lexprobe.hallucination.run.resume import requests_to_run
from lexprobe.hallucination.tasks import resolve_tasks

LEXPROBE = str(Path(sys.executable).with_name("lexprobe"))
TASKS = "court,citation,central_holding"  # calibrated (K samples each) and reference-free (a judged pair)


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([LEXPROBE, *args], capture_output=True, text=True, env=os.environ.copy(), timeout=900)


def job(run_dir: Path, db: Path, script: Path) -> tuple[str, ...]:
    return ("hallucination", "run", "--model", f"scripted:{script}", "--tasks", TASKS, "--levels", "scotus",
            "--n", "5", "--seed", "11", "--samples", "2", "--run-dir", str(run_dir), "--db", str(db),
            "--no-cache", "--json")  # fmt: skip


def greedy_ids(run_dir: Path, task: str) -> list[str]:
    """The ids of the task's greedy (or sample0) requests, in plan order."""
    with sqlite3.connect(run_dir / "run.sqlite") as conn:
        rows = conn.execute("SELECT request_id, tags FROM requests ORDER BY seq").fetchall()
    return [rid for rid, tags in rows if rid.split("|")[0] == task and json.loads(tags).get("role")
            in (None, "sample0")]  # fmt: skip


def test_rerun_after_lost_answers_equals_the_whole_run(case_db_path: Path, tmp_path: Path) -> None:
    script = tmp_path / "yes.jsonl"
    script.write_text('{"text": "Yes, it is."}\n')
    run_dir = tmp_path / "run"
    first = run_cli(*job(run_dir, case_db_path, script))
    assert first.returncode == 0, first.stderr
    whole = json.loads(first.stdout)
    # the answers of two whole items and one calibration sample of a third are lost (as a killed run loses them)
    court = greedy_ids(run_dir, "court")
    lost = [court[1], f"{court[1]}@0", f"{court[1]}@1", court[3], f"{court[3]}@0", f"{court[3]}@1", f"{court[2]}@1"]
    with sqlite3.connect(run_dir / "run.sqlite") as conn:
        conn.executemany("DELETE FROM responses WHERE request_id = ?", [(rid,) for rid in lost])
        conn.execute("DELETE FROM scores")
    again = run_cli(*job(run_dir, case_db_path, script))
    assert again.returncode == 0, again.stderr
    rerun = json.loads(again.stdout)
    summary, before = rerun.pop("summary"), whole.pop("summary")
    assert summary["sent"] == len(lost)
    assert summary["total"] == before["total"]  # the settled items are counted, not dropped
    assert summary["already_done"] == before["total"] - len(lost)
    assert rerun == whole  # the same report


def test_an_answered_items_first_request_is_still_checked(case_db_path: Path, tmp_path: Path) -> None:
    script = tmp_path / "yes.jsonl"
    script.write_text('{"text": "Yes"}\n')
    run_dir = tmp_path / "run"
    assert run_cli(*job(run_dir, case_db_path, script)).returncode == 0
    second = greedy_ids(run_dir, "citation")[1]  # answered in full, not its shape's first item: checked by its key
    with sqlite3.connect(run_dir / "run.sqlite") as conn:
        conn.execute("UPDATE requests SET cache_key = 'another job' WHERE request_id = ?", (second,))
    rerun = run_cli(*job(run_dir, case_db_path, script))
    assert rerun.returncode == 2
    assert f"request {second!r} is already in" in rerun.stderr
    assert "use a new run directory" in rerun.stderr


def test_the_first_item_of_each_shape_is_checked_request_by_request(case_db_path: Path, tmp_path: Path) -> None:
    """A changed sampling constant shows in every item's samples: the first item of each shape pins them."""
    script = tmp_path / "yes.jsonl"
    script.write_text('{"text": "Yes"}\n')
    run_dir = tmp_path / "run"
    assert run_cli(*job(run_dir, case_db_path, script)).returncode == 0
    for sample in (f"{greedy_ids(run_dir, 'court')[0]}@1", greedy_ids(run_dir, "central_holding")[0][:-1] + "1"):
        with sqlite3.connect(run_dir / "run.sqlite") as conn:
            (kept,) = conn.execute("SELECT cache_key FROM requests WHERE request_id = ?", (sample,)).fetchone()
            conn.execute("UPDATE requests SET cache_key = 'other constants' WHERE request_id = ?", (sample,))
        rerun = run_cli(*job(run_dir, case_db_path, script))
        assert rerun.returncode == 2, sample
        assert f"request {sample!r} is already in" in rerun.stderr
        with sqlite3.connect(run_dir / "run.sqlite") as conn:
            conn.execute("UPDATE requests SET cache_key = ? WHERE request_id = ?", (kept, sample))
    assert run_cli(*job(run_dir, case_db_path, script)).returncode == 0  # restored: the same job again


def test_requests_to_run_builds_everything_without_answers(case_db_path: Path, tmp_path: Path) -> None:
    db = CaseDatabase(case_db_path)
    plan = plan_items(db, resolve_tasks(TASKS), ["scotus"], ["zero"], 4, 5, 2)
    model = "scripted:unused.jsonl"
    store = RunStore.open(tmp_path / "run")
    try:
        requests, settled = requests_to_run(store, plan.items, model)
        expected = [request for item in plan.items for request in item.requests(model)]
        assert settled == 0
        assert [r.request_id for r in requests] == [r.request_id for r in expected]
        assert [r.cache_key() for r in requests] == [r.cache_key() for r in expected]
    finally:
        store.close()


def test_answered_items_are_settled_by_their_first_request(case_db_path: Path, tmp_path: Path) -> None:
    from lexprobe.engine.executor import run_requests

    script = tmp_path / "yes.jsonl"
    script.write_text('{"text": "Yes"}\n')
    model = f"scripted:{script}"
    db = CaseDatabase(case_db_path)
    plan = plan_items(db, resolve_tasks(TASKS), ["scotus"], ["zero", "few"], 4, 5, 2)
    everything = [request for item in plan.items for request in item.requests(model)]
    store = RunStore.open(tmp_path / "run")
    try:
        assert run_requests(everything, store).complete
        requests, settled = requests_to_run(store, plan.items, model)
        shapes = {(i.task, i.level, i.prompt_style) for i in plan.items}
        firsts = {}
        for item in plan.items:
            firsts.setdefault((item.task, item.level, item.prompt_style), item)
        assert {r.request_id for r in requests} == {r.request_id for i in firsts.values() for r in i.requests(model)}
        assert settled + len(requests) == len(everything)
        assert len(shapes) < len(plan.items) and settled > 0
    finally:
        store.close()
