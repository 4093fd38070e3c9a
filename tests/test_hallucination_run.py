"""`lexprobe hallucination run / report / score-answers` end to end: the embedded model, a scripted model with
known answers, a run killed and resumed, and an answers file with malformed lines."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

LEXPROBE = str(Path(sys.executable).with_name("lexprobe"))


def run_cli(*args: str, timeout: int = 1800) -> subprocess.CompletedProcess:  # a hang guard, wide for a loaded machine
    return subprocess.run([LEXPROBE, *args], capture_output=True, text=True, env=os.environ.copy(), timeout=timeout)


def test_tasks_lists_all_seventeen() -> None:
    result = run_cli("hallucination", "tasks", "--json")
    assert result.returncode == 0, result.stderr
    tasks = json.loads(result.stdout)
    assert len(tasks) == 17
    assert {t["task"] for t in tasks} >= {"existence", "fake_existence", "false_dissent", "central_holding"}


def test_scripted_yes_man_profile(case_db_path: Path, tmp_path: Path) -> None:
    """A model that answers "Yes" to everything: real cases exist (correct), fabricated ones too (hallucination)."""
    script = tmp_path / "yes.jsonl"
    script.write_text('{"text": "Yes"}\n')
    run_dir = tmp_path / "run"
    result = run_cli(
        "hallucination", "run", "--model", f"scripted:{script}", "--tasks", "existence,fake_existence,disposition",
        "--levels", "scotus,coa", "--n", "6", "--seed", "3", "--samples", "0",
        "--run-dir", str(run_dir), "--db", str(case_db_path),
        "--json",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    rows = {(r["task"], r["level"], r["prompt_style"]): r for r in json.loads(result.stdout)["rows"]}
    assert rows[("existence", "scotus", "zero")]["rate"] == 0.0
    assert rows[("existence", "scotus", "zero")]["n"] == 6
    assert rows[("fake_existence", "scotus", "zero")]["rate"] == 1.0
    assert ("fake_existence", "scotus", "few") not in rows  # contra-factual: zero-shot only, as in the study
    assert rows[("fake_existence", "coa", "zero")]["rate"] == 1.0
    # "Yes" is neither affirm nor reverse: unscored with a reason, never a silent label
    assert rows[("disposition", "scotus", "zero")]["n"] == 0
    assert rows[("disposition", "scotus", "zero")]["unscored"] > 0
    # appeals cases have no names offline: name-based tasks are skipped with a reason
    assert "skipped existence / coa" in result.stderr
    report = run_cli("hallucination", "report", str(run_dir), "--json")
    assert report.returncode == 0, report.stderr
    reported = json.loads(report.stdout)
    assert reported["rows"] == json.loads(result.stdout)["rows"]
    assert reported["models"][0]["model"] == f"scripted:{script}"


def test_embedded_model_profile_and_rerun_is_cached(case_db_path: Path, tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    # One case takes every task through the real model; more cases add time, not coverage.
    args = ("hallucination", "run", "--model", "local", "--tasks", "all", "--levels", "scotus", "--n", "1",
            "--samples", "0", "--run-dir", str(run_dir), "--db", str(case_db_path), "--json")  # fmt: skip
    first = run_cli(*args)
    assert first.returncode == 0, first.stderr
    rows = json.loads(first.stdout)["rows"]
    tasks = {row["task"] for row in rows}
    assert {"existence", "citation", "court", "fake_existence", "false_overruling", "overruling_year"} <= tasks
    for row in rows:
        assert row["pending"] == 0
        assert row["rate"] is None or 0.0 <= row["rate"] <= 1.0
    second = run_cli(*args)
    assert second.returncode == 0
    again, before = json.loads(second.stdout), json.loads(first.stdout)
    assert again.pop("summary")["sent"] == 0  # the engine's counts of this run: nothing sent
    assert before.pop("summary")["sent"] > 0
    assert again == before  # the same report
    assert " 0 sent" in second.stderr


def test_killed_run_resumes_without_duplicates(case_db_path: Path, tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    args = [LEXPROBE, "hallucination", "run", "--model", "local", "--tasks", "existence,author,citation", "--n", "5",
            "--samples", "0", "--run-dir", str(run_dir), "--db", str(case_db_path), "--no-cache",
            "--json"]  # fmt: skip
    process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    db_file = run_dir / "run.sqlite"
    deadline = time.monotonic() + 300
    done = 0
    while time.monotonic() < deadline and done < 5:
        time.sleep(0.2)
        if db_file.exists():
            try:
                conn = sqlite3.connect(f"file:{db_file}?mode=ro", uri=True)
                done = conn.execute("SELECT COUNT(*) FROM responses").fetchone()[0]
                conn.close()
            except sqlite3.OperationalError:
                pass
    process.send_signal(signal.SIGKILL)
    process.wait()
    conn = sqlite3.connect(db_file)
    (at_kill,) = conn.execute("SELECT COUNT(*) FROM responses").fetchone()
    (total,) = conn.execute("SELECT COUNT(*) FROM requests").fetchone()
    conn.close()
    assert 0 < at_kill < total
    rerun = subprocess.run(args, capture_output=True, text=True, timeout=1800)
    assert rerun.returncode == 0, rerun.stderr
    assert f"{at_kill} done before" in rerun.stderr and f"{total - at_kill} sent" in rerun.stderr
    conn = sqlite3.connect(db_file)
    assert conn.execute("SELECT COUNT(*), COUNT(DISTINCT request_id) FROM responses").fetchone() == (total, total)
    assert conn.execute("SELECT COUNT(*) FROM telemetry WHERE event = 'ok'").fetchone()[0] == total
    conn.close()


def test_score_answers_reports_malformed_lines_and_scores_the_rest(case_db_path: Path, tmp_path: Path) -> None:
    answers = tmp_path / "answers.jsonl"
    lines = [
        {"task": "existence", "case": "347 U.S. 483", "answer": "Yes, it is a real case."},
        {"task": "author", "case": "347 U.S. 483", "answer": "Chief Justice Earl Warren wrote it."},
        "this is not json",
        {"task": "overruling_year", "case": "163 U.S. 537", "answer": "1954"},
        {"task": "nonsense", "case": "347 U.S. 483", "answer": "x"},
        {"task": "fake_existence", "case": "Smith v. Jones, 999 U.S. 1 (1990)", "answer": "No."},
        {"task": "false_dissent", "case": "347 U.S. 483", "dissenter": "Earl Warren",
         "answer": "Justice Warren did not write a dissent in this case; he wrote the majority opinion."},
        {"task": "doctrinal_agreement", "case": "999 U.S. 999", "case2": "163 U.S. 537", "answer": "disagree"},
    ]  # fmt: skip
    answers.write_text("\n".join(line if isinstance(line, str) else json.dumps(line) for line in lines) + "\n")
    result = run_cli("hallucination", "score-answers", str(answers), "--db", str(case_db_path))
    assert result.returncode == 2  # bad input (issue 12): the good lines are scored, then exit 2
    assert f"{answers}:3:" in result.stderr and f"{answers}:5:" in result.stderr
    scored = [json.loads(line) for line in result.stdout.splitlines()]
    assert [s["label"] for s in scored] == ["correct", "correct", "correct", "correct", "correct", "unscored"]
    assert all(s["detail"] for s in scored)
