"""`lexprobe investigation qa-score` (issue 15): factual-QA records of scripted runs in several run directories,
aggregated per model (mean rubric score, share fully correct, unscored and pending apart, cluster-bootstrap
intervals over cases), the named judge, the self-grading warning, exit codes, JSON and the HTML page."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lexprobe.cli.investigation import investigation_app
from lexprobe.engine.config import EngineConfig
from lexprobe.investigation.agent.harness import HarnessSettings
from lexprobe.investigation.qa.runner import run_qa
from lexprobe.investigation.sample.build import build_sample_environment
from lexprobe.investigation.scoring.qa import cluster_ratio_ci, same_model

KEEP = ("q01", "q03", "q04")  # rubric items: 3, 2, 3
SECOND_CASE = "fictional-harlow-second-case"


def _environment(folder: Path, case_id: str | None = None, retitle: dict[str, str] | None = None) -> Path:
    """The sample environment (merits level) with questions q01, q03, q04; optionally another case id and other
    question texts (a second case, whose questions the scripted judge grades differently)."""
    env = build_sample_environment(folder, "merits")
    questions = json.loads((env / "questions.json").read_text(encoding="utf-8"))
    questions["questions"] = [q for q in questions["questions"] if q["question_id"] in KEEP]
    for question in questions["questions"]:
        question["question"] = (retitle or {}).get(question["question_id"], question["question"])
    (env / "questions.json").write_text(json.dumps(questions), encoding="utf-8")
    if case_id:
        environment = json.loads((env / "environment.json").read_text(encoding="utf-8"))
        environment["case"]["case_id"] = case_id
        (env / "environment.json").write_text(json.dumps(environment), encoding="utf-8")
    return env


def _script(path: Path, lines: list[dict]) -> str:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return f"scripted:{path}"


def _run(env: Path, model: str, judge: str, run_dir: Path) -> None:
    settings = HarnessSettings(model=model, tool_budget=5)
    config = EngineConfig(progress=False, max_retries=0)
    asyncio.run(run_qa([env], settings, judge, run_dir, None, config, permanent_failures={}))


@pytest.fixture(scope="module")
def study(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """Model A in two run directories (case 1, case 2), model B (no ANSWER: line) in a third, one judge J.

    J grades: q01 all true on case 1, all false on case 2 (its text is marked "second case"); q03 [true, false]
    on both; q04 unreadable on case 1 (unscored), and no reply at all on case 2 (its text matches no line: pending).
    Model A: graded scores 1, 0.5 (case 1) and 0, 0.5 (case 2) -> mean 0.5, fully correct 1/4, 1 unscored,
    1 pending. Model B: three graded questions, each 0 (no ANSWER: line), one case.
    """
    root = tmp_path_factory.mktemp("qa-score")
    env1 = _environment(root / "env1")
    original = {q["question_id"]: q["question"] for q in json.loads((env1 / "questions.json").read_text())["questions"]}
    env2 = _environment(root / "env2", SECOND_CASE, {"q01": original["q01"] + " (second case)",
                                                     "q04": "Which pallet arrived wet? (left ungraded)"})  # fmt: skip
    judge = _script(root / "judge.jsonl", [
        {"when": "(second case)", "text": "[false, false, false]"},
        {"when": original["q01"], "text": "Grades: [true, true, true]"},
        {"when": original["q03"], "text": "[true, false]"},
        {"when": original["q04"], "text": "I cannot grade this answer."},
    ])  # fmt: skip
    model_a = _script(root / "agent-a.jsonl", [{"text": "I read the record.\nANSWER: the documents say so."}])
    model_b = _script(root / "agent-b.jsonl", [{"text": "I would rather not say."}])
    runs = {"a1": root / "run-a1", "a2": root / "run-a2", "b": root / "run-b"}
    _run(env1, model_a, judge, runs["a1"])
    _run(env2, model_a, judge, runs["a2"])
    _run(env1, model_b, judge, runs["b"])
    return {"root": root, "env1": env1, "judge": judge, "model_a": model_a, "model_b": model_b, **runs}


def _invoke(*args: str):
    return CliRunner().invoke(investigation_app, ["qa-score", *args])


def test_pooled_scores_are_exact_and_unscored_counted_apart(study: dict) -> None:
    result = _invoke(str(study["a1"]), str(study["a2"]), str(study["b"]), "--judge", study["judge"], "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)  # stdout holds only the JSON
    assert data["judge"] == study["judge"] and data["replicates"] == 2000 and data["seed"] == 0
    a, b = (
        {m["model"]: m for m in data["models"]}[study["model_a"]],
        {m["model"]: m for m in data["models"]}[study["model_b"]],
    )
    assert (a["n_records"], a["n_graded"], a["n_cases"], a["n_unscored"], a["n_pending"]) == (6, 4, 2, 1, 1)
    assert a["mean_rubric_score"] == 0.5  # (1 + 0.5 + 0 + 0.5) / 4; with unscored/pending as 0 it would be 1/3
    assert a["fully_correct"] == 0.25
    # two cases: resamples take case 1 twice (1/4), case 2 twice (1/4) or both (1/2) -> the 2.5% and 97.5% points
    assert a["mean_rubric_score_ci"] == [0.25, 0.75]
    assert a["fully_correct_ci"] == [0.0, 0.5]
    assert a["self_graded"] is False and a["n_no_answer"] == 0
    assert (b["n_graded"], b["n_no_answer"], b["n_cases"]) == (3, 3, 1)
    assert b["mean_rubric_score"] == 0.0 and b["fully_correct"] == 0.0
    assert b["mean_rubric_score_ci"] is None and b["fully_correct_ci"] is None  # one case: no interval
    assert any("1 unscored and 1 pending" in note for note in data["notes"])
    assert set(data["definitions"]) >= {"mean_rubric_score", "fully_correct", "unscored", "pending", "ci"}


def test_terminal_table_names_estimators_and_n(study: dict) -> None:
    result = _invoke(str(study["a1"]), str(study["a2"]), "--judge", study["judge"], "--bootstrap", "500")
    assert result.exit_code == 0, result.output
    text = " ".join(result.stdout.split())
    assert "Factual QA scores" in text and "50.0%" in text and "25.0%" in text and "[25.0, 75.0]" in text
    assert "mean rubric score: per graded question" in text and "never counted as 0" in text
    assert "500 resamples" in text


def test_html_page_holds_the_same_numbers(study: dict, tmp_path: Path) -> None:
    page = tmp_path / "out" / "qa.html"
    result = _invoke(str(study["a1"]), str(study["a2"]), str(study["b"]), "--judge", study["judge"], "--json",
                     "--html", str(page))  # fmt: skip
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    html = page.read_text(encoding="utf-8")
    rows = re.findall(r"<tr><td class=\"l\">.*?</tr>", html, re.DOTALL)
    assert len(rows) == 2
    for model, row in zip(data["models"], rows, strict=True):
        cells = re.findall(r"<td[^>]*>(.*?)</td>", row, re.DOTALL)
        assert cells[0].startswith(model["model"])
        assert cells[1:3] == [str(model["n_graded"]), str(model["n_cases"])]
        assert cells[3] == f"{100 * model['mean_rubric_score']:.1f}%"
        assert cells[5] == f"{100 * model['fully_correct']:.1f}%"
        assert cells[7:10] == [str(model["n_unscored"]), str(model["n_pending"]), str(model["n_no_answer"])]
    assert "[25.0, 75.0]" in html and "[0.0, 50.0]" in html
    assert "never counted as 0" in html and study["judge"] in html


def test_self_grading_is_warned_and_noted(study: dict, tmp_path: Path) -> None:
    same = _script(tmp_path / "self.jsonl", [
        {"when": "SELF-ANSWER", "text": "[true, true, true]"},
        {"text": "ANSWER: SELF-ANSWER"},
    ])  # fmt: skip
    _run(study["env1"], same, same, tmp_path / "run-self")
    page = tmp_path / "self.html"
    result = _invoke(str(tmp_path / "run-self"), "--judge", same, "--json", "--html", str(page))
    assert result.exit_code == 0, result.output
    assert "warning" in result.stderr and "graded by itself" in result.stderr
    data = json.loads(result.stdout)
    assert data["models"][0]["self_graded"] is True
    assert any("graded by itself" in warning for warning in data["warnings"])
    assert "self-graded" in page.read_text(encoding="utf-8")
    other = _invoke(str(study["a1"]), "--judge", study["judge"], "--json")
    assert "graded by itself" not in other.stderr and json.loads(other.stdout)["warnings"] == []


def test_judge_is_required_and_must_match(study: dict, tmp_path: Path) -> None:
    missing = _invoke(str(study["a1"]))
    assert missing.exit_code == 2 and "--judge" in missing.output
    wrong = _invoke(str(study["a1"]), "--judge", "openai/gpt-4o")
    assert wrong.exit_code == 2
    assert study["judge"] in wrong.stderr and "openai/gpt-4o" in wrong.stderr
    same = _script(
        tmp_path / "self.jsonl", [{"when": "SELF-ANSWER", "text": "[true]"}, {"text": "ANSWER: SELF-ANSWER"}]
    )
    _run(study["env1"], same, same, tmp_path / "run-self")
    mixed = _invoke(str(study["a1"]), str(tmp_path / "run-self"), "--judge", study["judge"])
    assert mixed.exit_code == 2 and "mixed judges" in mixed.stderr
    assert study["judge"] in mixed.stderr and same in mixed.stderr


def test_bad_run_directories_exit_2_naming_the_file(study: dict, tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    result = _invoke(str(empty), "--judge", study["judge"])
    assert result.exit_code == 2 and "holds no QA records" in result.stderr
    assert _invoke(str(tmp_path / "absent"), "--judge", study["judge"]).exit_code == 2
    broken = tmp_path / "broken" / "qa"
    broken.mkdir(parents=True)
    (broken / "x.qa.json").write_text("{not json", encoding="utf-8")
    result = _invoke(str(broken.parent), "--judge", study["judge"])
    assert result.exit_code == 2 and "x.qa.json" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    twice = _invoke(str(study["a1"]), str(study["a1"]), "--judge", study["judge"])
    assert twice.exit_code == 2 and "given twice" in twice.stderr


def test_same_model_and_cluster_interval() -> None:
    assert same_model("local", "local/smollm2") and same_model(" openai/gpt-4o", "openai/gpt-4o")
    assert not same_model("openai/gpt-4o", "anthropic/gpt-4o") and not same_model("???", "openai/gpt-4o")
    assert cluster_ratio_ci(["c1", "c1"], [1.0, 0.0], replicates=100, seed=0, level=0.95) is None  # one case
    low, high = cluster_ratio_ci(["c1", "c1", "c2", "c2", "c3"], [1, 1, 0, 0, 0.5], replicates=500, seed=1, level=0.95)
    assert 0.0 <= low < 0.5 < high <= 1.0
