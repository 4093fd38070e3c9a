"""lexprobe inside Inspect (the real inspect-ai): `inspect eval lexprobe/hallucination` against `lexprobe
hallucination run` on the same scripted answers (identical labels, rates and confidences: the interop measurement),
the embedded model through `--model lexprobe/local`, `inspect score --scorer lexprobe/citation_check` on a log, and
a missing case database as one clear error. Nothing reaches the network: the models are lexprobe's own."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import read_eval_log

from lexprobe.engine.store import RunStore
from lexprobe.hallucination.labels.score import CONFIDENCE_SCORER, REFERENCE_SCORER

BIN = Path(sys.executable).parent
TASKS = "existence,fake_existence,disposition,factual_background"
# "Yes" to everything, and the judge's verdict for the reference-free pairs (a consistent pair: "yes")
SCRIPT = [
    {"when": "Premise:", "text": "The two responses agree. So, the answer is yes."},
    {"text": "Yes"},
]


@pytest.fixture(autouse=True)
def inspect_offline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Inspect's logs in a temporary folder, its display plain."""
    logs = tmp_path / "inspect-logs"
    monkeypatch.setenv("INSPECT_LOG_DIR", str(logs))
    monkeypatch.setenv("INSPECT_DISPLAY", "plain")
    return logs


def run(*args: str, timeout: int = 900) -> subprocess.CompletedProcess:
    return subprocess.run([str(BIN / args[0]), *args[1:]], capture_output=True, text=True, env=os.environ.copy(),
                          timeout=timeout)  # fmt: skip


def inspect_labels(log_file: Path) -> tuple[dict[str, dict], dict[str, float]]:
    """Each sample's reduced score metadata (label, confidence) by id, and the hallucination_rate metric's values."""
    log = read_eval_log(str(log_file))
    assert log.status == "success", log.error
    assert log.results is not None and log.reductions is not None
    reduced = {sample.sample_id: sample.metadata for sample in log.reductions[0].samples}
    metrics = {name: m.value for name, m in log.results.scores[0].metrics.items()}
    return {str(k): v for k, v in reduced.items()}, metrics


def test_inspect_task_and_hallucination_run_agree_on_scripted_answers(case_db_path: Path, tmp_path: Path,
                                                                        inspect_offline: Path) -> None:  # fmt: skip
    script = tmp_path / "answers.jsonl"
    script.write_text("".join(json.dumps(line) + "\n" for line in SCRIPT))
    run_dir = tmp_path / "run"
    native = run("lexprobe", "hallucination", "run", "--model", f"scripted:{script}", "--tasks", TASKS,
                 "--levels", "scotus", "--prompt-styles", "zero", "--n", "6", "--seed", "3", "--samples", "2",
                 "--run-dir", str(run_dir), "--db", str(case_db_path), "--json")  # fmt: skip
    assert native.returncode == 0, native.stderr
    inspected = run("inspect", "eval", "lexprobe/hallucination", "--model", f"lexprobe/scripted:{script}",
                    "-T", f"tasks={TASKS}", "-T", "level=scotus", "-T", "style=zero", "-T", "n=6", "-T", "seed=3",
                    "-T", "samples=2", "-T", f"db={case_db_path}", "--display", "plain")  # fmt: skip
    assert inspected.returncode == 0, inspected.stderr + inspected.stdout
    samples, metrics = inspect_labels(next(inspect_offline.glob("*.eval")))

    store = RunStore.open(run_dir)
    try:
        scores = store.scores()
    finally:
        store.close()
    labels = {request_id: label for (request_id, scorer), (label, _) in scores.items() if scorer == REFERENCE_SCORER}
    pairs = {request_id.removesuffix("#0"): label for request_id, label in labels.items() if "#" in request_id}
    labels = {request_id: label for request_id, label in labels.items() if "#" not in request_id} | pairs
    assert labels and set(labels) == set(samples)  # the same items, by the same ids
    assert {item: meta["label"] for item, meta in samples.items()} == labels
    assert {"correct", "hallucination", "unscored"} <= set(labels.values())
    confidences = {rid: detail.get("confidence") for (rid, scorer), (_, detail) in scores.items()
                   if scorer == CONFIDENCE_SCORER}  # fmt: skip
    assert confidences and all(samples[rid].get("confidence") == value for rid, value in confidences.items())

    for row in json.loads(native.stdout)["rows"]:  # the same rate (and binomial s.e.) by task and level
        key = f"{row['task']}/{row['level']}"
        if row["rate"] is None:
            assert key not in metrics or math.isnan(metrics[key])
        else:
            assert metrics[key] == pytest.approx(row["rate"]) and metrics[f"{key}_se"] == pytest.approx(row["se"])


def test_the_model_reader_gives_the_same_labels_through_inspect(case_db_path: Path, tmp_path: Path,
                                                               inspect_offline: Path) -> None:  # fmt: skip
    """`-T reader=MODEL` reads what the rules leave unscored as `hallucination run --reader MODEL` does: a "Yes" to
    a disposition question is unscored by the rules, and the reader's "declined" makes it an abstention both ways."""
    script = tmp_path / "answers.jsonl"
    reading = {"when": "You read one answer", "text": json.dumps({"decision": "declined", "value": None})}
    script.write_text("".join(json.dumps(line) + "\n" for line in [reading, *SCRIPT]))
    run_dir = tmp_path / "run"
    native = run("lexprobe", "hallucination", "run", "--model", f"scripted:{script}", "--tasks",
                 "existence,disposition", "--levels", "scotus", "--prompt-styles", "zero", "--n", "4", "--seed", "3",
                 "--reader", f"scripted:{script}", "--run-dir", str(run_dir), "--db", str(case_db_path),
                 "--json")  # fmt: skip
    assert native.returncode == 0, native.stderr
    inspected = run("inspect", "eval", "lexprobe/hallucination", "--model", f"lexprobe/scripted:{script}",
                    "-T", "tasks=existence,disposition", "-T", "level=scotus", "-T", "style=zero", "-T", "n=4",
                    "-T", "seed=3", "-T", f"reader=lexprobe/scripted:{script}", "-T", f"db={case_db_path}",
                    "--display", "plain")  # fmt: skip
    assert inspected.returncode == 0, inspected.stderr + inspected.stdout
    samples, _ = inspect_labels(next(inspect_offline.glob("*.eval")))
    store = RunStore.open(run_dir)
    try:
        labels = {rid: label for (rid, scorer), (label, _) in store.scores().items() if scorer == REFERENCE_SCORER}
    finally:
        store.close()
    assert labels and {item: meta["label"] for item, meta in samples.items()} == labels
    read = {item for item, meta in samples.items() if meta.get("reader_decision") == "declined"}
    assert read and all(samples[item]["label"] == "abstain" and item.startswith("disposition") for item in read)


def test_the_paper_design_asks_what_hallucination_run_asks(case_db_path: Path, tmp_path: Path) -> None:
    """`-T design=paper -T complete_cases=true` plans the items and calibration samples `hallucination run --design
    paper --complete-cases` plans: its dry run's request count is the task's samples times its epochs."""
    from lexprobe.interop.inspect_hallucination import hallucination

    script = tmp_path / "answers.jsonl"
    script.write_text('{"text": "Yes"}\n')
    dry = run("lexprobe", "hallucination", "run", "--model", f"scripted:{script}", "--design", "paper", "--tasks",
              "existence,author", "--complete-cases", "--db", str(case_db_path), "--dry-run", "--json")  # fmt: skip
    assert dry.returncode == 0, dry.stderr
    task = hallucination(tasks="existence,author", design="paper", complete_cases=True, db=str(case_db_path))
    assert task.epochs == 11 and len(task.dataset) > 0  # the paper's K = 10 calibration samples
    assert len(task.dataset) * task.epochs == json.loads(dry.stdout)["requests"]


def test_embedded_model_runs_the_task_in_process(case_db_path: Path) -> None:
    logs = inspect_eval("lexprobe/hallucination", model="lexprobe/local", display="none",
                        task_args={"tasks": "existence", "level": "scotus", "n": 1, "style": "zero",
                                   "db": str(case_db_path)})  # fmt: skip
    log = logs[0]
    assert log.status == "success", log.error
    assert log.samples and len(log.samples) == 1
    sample = log.samples[0]
    assert sample.id == sample.metadata["task"] + "|scotus|zero|" + sample.metadata["case"]
    assert {"task", "level", "style", "case", "year"} <= set(sample.metadata)
    assert sample.output.completion  # the embedded model answered
    assert sample.scores["hallucination_reader"].answer in ("correct", "hallucination", "abstain", "unscored")
    assert log.stats.model_usage["lexprobe/local"].output_tokens > 0  # lexprobe's usage, no tiktoken


def test_citation_check_scores_an_inspect_log(case_db_path: Path, tmp_path: Path, inspect_offline: Path) -> None:
    script = tmp_path / "cites.jsonl"
    script.write_text(json.dumps({"text": "See Brown v. Board of Education, 347 U.S. 483 (1954)."}) + "\n")
    logs = inspect_eval("lexprobe/hallucination", model=f"lexprobe/scripted:{script}", display="none",
                        task_args={"tasks": "existence", "level": "scotus", "n": 2, "style": "zero",
                                   "db": str(case_db_path)})  # fmt: skip
    log_file = logs[0].location
    scored = run("inspect", "score", log_file, "--scorer", "lexprobe/citation_check", "-S", f"db={case_db_path}",
                 "--action", "append", "--display", "plain", "--overwrite")  # fmt: skip
    assert scored.returncode == 0, scored.stderr + scored.stdout
    log = read_eval_log(log_file)
    assert log.samples
    for sample in log.samples:
        score = sample.scores["citation_check"]
        assert score.value == 0.0  # Brown v. Board, verified against the case database
        assert score.metadata["citations"][0]["verdict"] == "verified"
        assert score.explanation.startswith("verified: Brown v. Board of Education")


def test_a_missing_case_database_is_one_clear_error(tmp_path: Path) -> None:
    missing, script = tmp_path / "nowhere.sqlite", tmp_path / "yes.jsonl"
    script.write_text('{"text": "Yes"}\n')
    result = run("inspect", "eval", "lexprobe/hallucination", "--model", f"lexprobe/scripted:{script}",
                 "-T", f"db={missing}", "--display", "plain", timeout=300)  # fmt: skip
    assert result.returncode != 0
    assert f"no case database at {missing}: build it with `lexprobe data build`, or pass -T db=PATH" in (
        result.stderr + result.stdout
    )


def test_a_bad_task_argument_is_one_line_not_a_traceback(case_db_path: Path, tmp_path: Path) -> None:
    script = tmp_path / "yes.jsonl"
    script.write_text('{"text": "Yes"}\n')
    result = run("inspect", "eval", "lexprobe/hallucination", "--model", f"lexprobe/scripted:{script}",
                 "-T", "tasks=nosuch", "-T", f"db={case_db_path}", "--display", "plain", timeout=300)  # fmt: skip
    output = result.stderr + result.stdout
    assert result.returncode != 0 and "Traceback" not in output
    assert "lexprobe/hallucination: unknown task(s) nosuch; valid: all, existence" in output
