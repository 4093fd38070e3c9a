"""Issue 13, the task structure: one frozen definition per task read by every consumer, the shared scoring steps
public, contra-factual tasks zero-shot only, level-specific prompt wording, and the court task's specific court."""

from __future__ import annotations

import ast
import dataclasses
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import lexprobe
from lexprobe.caselaw.courts import COURT_LEVELS as ALL
from lexprobe.caselaw.paths import data_root
from lexprobe.caselaw.query import CaseDatabase
from lexprobe.hallucination.labels.answers import extract_year
from lexprobe.hallucination.labels.score import Score
from lexprobe.hallucination.labels.scoring import (
    as_date,
    compare_values,
    existence_score,
    missing_reference,
    nothing_found,
    quoted,
    stance_score,
)
from lexprobe.hallucination.prompts.render import render_prompt
from lexprobe.hallucination.run.items import plan_items
from lexprobe.hallucination.scorers.by_task import SCORERS, ScoringContext
from lexprobe.hallucination.scorers.calibration import agrees, is_calibrated
from lexprobe.hallucination.scorers.external import reference_for, score_lines
from lexprobe.hallucination.tasks import REGISTRY, TASKS, reference_free
from lexprobe.hallucination.tasks.base import (
    CONTRA_FACTUAL_ZERO_SHOT,
    TaskReference,
    TaskSpec,
    case_lookup,
    reference_free_builder,
    simple_builder,
)
from lexprobe.hallucination.tasks.cases import SampledCase

LEXPROBE = str(Path(sys.executable).with_name("lexprobe"))
PACKAGE = Path(lexprobe.__file__).parent
#: The study's text: in the shared folder beside the data (`LEXPROBE_DATA`/../papers), else beside the checkout.
PAPER = next(
    (
        path
        for path in (
            data_root().parent / "papers" / "large-legal-fictions.txt",
            Path(__file__).resolve().parents[2] / "shared" / "papers" / "large-legal-fictions.txt",
        )
        if path.is_file()
    ),
    data_root().parent / "papers" / "large-legal-fictions.txt",
)
CONTEXT = ScoringContext()


@pytest.fixture(scope="module")
def db(case_db_path: Path) -> Iterator[CaseDatabase]:
    database = CaseDatabase(case_db_path)
    yield database
    database.close()


# --- A. one frozen definition per task, read by everyone -------------------------------------------------------


def test_every_task_is_one_frozen_keyword_definition() -> None:
    assert len(REGISTRY) == 17 and list(TASKS) == [task.id for task in REGISTRY]
    for task in REGISTRY:
        assert isinstance(task, TaskSpec)
        with pytest.raises(dataclasses.FrozenInstanceError):
            task.max_tokens = 1  # type: ignore[misc]
        assert (task.score is None) == task.reference_free
        assert task.calibrated == (task.extract is not None)
        assert task.calibrated or task.not_calibrated
    with pytest.raises(TypeError):
        TaskSpec("x", "q", "existence", "low", ALL, ("zero",), 16, reference_free_builder)  # type: ignore[misc]
    calibrated = {task.id for task in REGISTRY if task.calibrated}
    assert calibrated == {"existence", "court", "citation", "author", "disposition", "overruling_year",
                          "doctrinal_agreement", "fake_existence", "false_overruling"}  # fmt: skip
    assert set(SCORERS) == {task.id for task in REGISTRY if not task.reference_free}


def test_the_five_reference_free_tasks_are_declared_in_one_module() -> None:
    declared = {value.id for value in vars(reference_free).values() if isinstance(value, TaskSpec)}
    assert declared == {task.id for task in REGISTRY if task.reference_free}
    assert declared == {"factual_background", "procedural_posture", "subsequent_history", "core_legal_question",
                        "central_holding"}  # fmt: skip
    for module in declared:
        assert not (PACKAGE / "hallucination" / "tasks" / f"{module}.py").exists()


def test_the_shared_scoring_steps_are_public() -> None:
    assert stance_score("I don't know.") == Score("abstain", 'answer abstains: "I don\'t know."')
    assert stance_score("Yes") is None
    assert missing_reference({"year": None}, "year").label == "unscored"
    assert nothing_found("It was a long time ago.", "year").label == "unscored"
    assert compare_values(1954, 1954, "year").label == "correct"
    assert existence_score("No.", real=False).label == "correct"
    assert quoted("a  b\nc") == "'a b c'"
    assert str(as_date("1954-05-17T00:00")) == "1954-05-17"
    for path in (PACKAGE / "hallucination").rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module == "lexprobe.hallucination.labels.scoring":
                private = [alias.name for alias in node.names if alias.name.startswith("_")]
                assert not private, f"{path.name} imports private scoring steps {private}"


def _task_literal(node: ast.AST) -> bool:
    """True for a string literal that is a task id, or a tuple/list/set of them."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value in TASKS
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return bool(node.elts) and all(_task_literal(element) for element in node.elts)
    return False


def _task_comparisons(function: ast.AST) -> int:
    """Count the comparisons of anything with task-id literals in a function (`task == "court"`,
    `task in ("quotation", "authority")`)."""
    count = 0
    for node in ast.walk(function):
        if isinstance(node, ast.Compare) and any(_task_literal(side) for side in [node.left, *node.comparators]):
            count += 1
    return count


def test_no_module_dispatches_on_task_ids() -> None:
    """Calibration, `score-answers`, the run, the reports and the CLI read the registry: no function outside the task
    modules chains comparisons of a task id against task names."""
    modules = [*(PACKAGE / "hallucination").glob("*.py"), *(PACKAGE / "cli").glob("*.py")]
    chains = []
    for path in modules:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef) and _task_comparisons(node) >= 2:
                chains.append(f"{path.name}:{node.name}")
    assert chains == []


def _decision_year(case: SampledCase) -> dict | None:
    return {"year": case.year} if case.year else None


class DecisionYearReference(TaskReference):
    year: int | None = None


def _score_decision_year(answer: str, reference: DecisionYearReference, context: ScoringContext) -> Score:
    step = missing_reference(reference, "year") or stance_score(answer)
    if step:
        return step
    year = extract_year(answer)
    return nothing_found(answer, "year") if year is None else compare_values(year, int(reference.year), "year")


def _decision_year_truth(greedy: str, reference: DecisionYearReference) -> tuple[str, dict] | None:
    year = extract_year(greedy)
    return None if year is None else ("decision_year", {"year": year})


DECISION_YEAR = TaskSpec(
    id="decision_year",
    question="What year was {case} decided?",
    template="existence",
    complexity="low",
    levels=("scotus",),
    styles=("zero",),
    max_tokens=16,
    builder=simple_builder(_decision_year, "a year"),
    lookup=case_lookup(_decision_year, "case has no year"),
    score=_score_decision_year,
    calibrated=True,
    extract=_decision_year_truth,
    reference_type=DecisionYearReference,
)


def test_a_new_task_needs_only_its_definition_in_the_registry(db: CaseDatabase, monkeypatch) -> None:
    """What a new task module defines, once in the registry, is asked by the run, scored by `score-answers` and
    calibrated - nothing else to edit."""
    monkeypatch.setitem(TASKS, DECISION_YEAR.id, DECISION_YEAR)
    plan = plan_items(db, [DECISION_YEAR], ["scotus"], ["zero", "few"], 3, 5, samples=2)
    assert plan.items and {item.task for item in plan.items} == {"decision_year"}
    assert all(item.calibration_samples == 2 and item.prompt_style == "zero" for item in plan.items)
    assert is_calibrated("decision_year")
    item = plan.items[0]
    row = db.conn.execute("SELECT citation, year FROM cases WHERE case_id = ?", (item.case_id,)).fetchone()
    assert reference_for("decision_year", {"case": row["citation"]}, db) == ({"year": row["year"]}, None)
    line = json.dumps({"task": "decision_year", "case": row["citation"], "answer": f"It was {row['year']}."})
    (scored,) = list(score_lines([line], db))
    assert scored["label"] == "correct", scored
    assert agrees("decision_year", str(row["year"]), f"Decided in {row['year']}.", item.reference, CONTEXT)
    assert not agrees("decision_year", str(row["year"]), "1066", item.reference, CONTEXT)


def test_score_answers_reads_each_task_lookup(db: CaseDatabase) -> None:
    assert reference_for("central_holding", {"case": "347 U.S. 483"}, db) == (
        None,
        "task central_holding has no reference-based scorer",
    )
    assert reference_for("false_dissent", {"case": "x"}, db) == (None, "needs 'dissenter'")
    assert reference_for("author", {"case": "no such case"}, db)[1] == (
        "case 'no such case' is not in the case database (by id, citation or full name)"
    )


# --- B. contra-factual tasks are zero-shot only -----------------------------------------------------------------


CONTRA_FACTUAL = ("fake_existence", "false_dissent", "false_overruling")


def test_contra_factual_tasks_are_zero_shot_only(db: CaseDatabase) -> None:
    assert {task.id for task in REGISTRY if task.false_premise} == set(CONTRA_FACTUAL)
    tasks = [TASKS[task_id] for task_id in CONTRA_FACTUAL]
    assert all(task.styles == ("zero",) for task in tasks)
    plan = plan_items(db, tasks, ["scotus"], ["zero", "few"], 4, 7)
    assert {item.prompt_style for item in plan.items} == {"zero"}
    assert {item.task for item in plan.items} == set(CONTRA_FACTUAL)
    few = {(task, reason) for task, level, style, reason in plan.skipped if style == "few"}
    assert few == {(task_id, CONTRA_FACTUAL_ZERO_SHOT) for task_id in CONTRA_FACTUAL}


def test_a_few_shot_contra_factual_request_says_why_it_is_skipped(case_db_path: Path, tmp_path: Path) -> None:
    script = tmp_path / "no.jsonl"
    script.write_text('{"text": "No"}\n')
    result = subprocess.run(
        [LEXPROBE, "hallucination", "run", "--model", f"scripted:{script}", "--tasks", ",".join(CONTRA_FACTUAL),
         "--levels", "scotus", "--prompt-styles", "zero,few", "--n", "3", "--samples", "0",
         "--run-dir", str(tmp_path / "run"), "--db", str(case_db_path), "--json"],
        capture_output=True, text=True, env=os.environ.copy(), timeout=300,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    for task_id in CONTRA_FACTUAL:
        assert f"skipped {task_id} / scotus / few: {CONTRA_FACTUAL_ZERO_SHOT}" in result.stderr
    rows = json.loads(result.stdout)["rows"]
    assert {row["prompt_style"] for row in rows} == {"zero"}


# --- C. which court's opinion; the specific court ----------------------------------------------------------------

CASE = {"case_name": "Durham v. United States", "case_citation": "214 F.2d 862", "case_year": 1954}


def test_citation_prompt_says_which_court_s_case_is_meant() -> None:
    tail = ' Provide ONLY the citation in "<volume>, <reporter>, <page>" format, nothing else.'
    assert (
        render_prompt("citation", "zero", "scotus", CASE)
        == f"What is the citation for the case {CASE['case_name']}?{tail}"
    )
    assert render_prompt("citation", "zero", "coa", CASE) == (
        f"What is the citation for the circuit court case {CASE['case_name']}?{tail}"
    )
    assert render_prompt("citation", "zero", "district", CASE) == (
        f"What is the citation for the district court case {CASE['case_name']}?{tail}"
    )
    assert render_prompt("citation", "few", "coa", CASE).startswith(
        "What is the citation for the given circuit court case?"
    )
    assert render_prompt("citation", "few", "district", CASE).startswith(
        "What is the citation for the given district court case?"
    )


def test_author_prompt_asks_for_the_majority_author_of_supreme_court_and_appeals_cases_only() -> None:
    tail = " Provide the first and the last name of the judge ONLY."
    case = "Durham v. United States, 214 F.2d 862 (1954)"
    assert render_prompt("author", "zero", "scotus", CASE) == f"Who wrote the majority opinion in {case}?{tail}"
    assert render_prompt("author", "zero", "coa", CASE) == f"Who wrote the majority opinion in {case}?{tail}"
    assert render_prompt("author", "zero", "district", CASE) == f"Who wrote the opinion in {case}?{tail}"


#: Appendix B figure -> template.
FIGURES = {
    5: "existence", 6: "citation", 7: "author", 8: "disposition", 9: "court", 10: "quotation", 11: "authority",
    12: "overruling_year", 13: "doctrinal_agreement", 14: "factual_background", 15: "procedural_posture",
    16: "subsequent_history", 17: "core_legal_question", 18: "central_holding", 19: "false_dissent",
}  # fmt: skip
PLACEHOLDERS = {
    name: "{" + name + "}"
    for name in ("case_name", "case_citation", "case_year", "fake_dissenting_author", "citing_case_name",
                 "citing_case_citation", "citing_case_year", "cited_case_name", "cited_case_citation",
                 "cited_case_year")
}  # fmt: skip
_BLOCK = re.compile(r"(Zero-shot|Few-shot)\n\n((?:    .*\n|\n)*?)    \n\n")


def _appendix_templates() -> dict[tuple[str, str], str]:
    text = PAPER.read_text(encoding="utf-8")
    found: dict[tuple[str, str], str] = {}
    start = text.index("Zero-shot\n\n    Is the case {case_name}")
    for match in re.compile(r"^Figure (\d+): .*$", re.MULTILINE).finditer(text, start):
        figure = int(match.group(1))
        segment, start = text[start : match.start()], match.end()
        if figure in FIGURES:
            for style, block in _BLOCK.findall(segment):
                found[(FIGURES[figure], "zero" if style == "Zero-shot" else "few")] = block
        if figure == 19:
            break
    return found


def _words(text: str) -> str:
    return " ".join(text.replace("‘‘‘", "```").split())


@pytest.mark.skipif(
    not PAPER.is_file() and os.environ.get("CI") != "true",
    reason="the paper's text is not beside the data or the checkout",
)
def test_supreme_court_templates_are_the_appendix_word_for_word() -> None:
    appendix = _appendix_templates()
    assert len(appendix) == 24  # 15 zero-shot, 9 few-shot
    for (template, style), expected in appendix.items():
        assert _words(render_prompt(template, style, "scotus", PLACEHOLDERS)) == _words(expected), (template, style)


@pytest.mark.parametrize(
    ("court_id", "answer", "label"),
    [
        ("ca9", "A federal court of appeals", "hallucination"),
        ("ca9", "The United States Court of Appeals.", "hallucination"),
        ("ca9", "The circuit court", "hallucination"),
        ("ca9", "Second Circuit", "hallucination"),
        ("ca9", "The U.S. District Court for the Northern District of California", "hallucination"),
        ("ca9", "The Ninth Circuit", "correct"),
        ("ca9", "United States Court of Appeals for the Ninth Circuit", "correct"),
        ("cand", "United States District Court", "hallucination"),
        ("cand", "A federal district court", "hallucination"),
        ("cand", "Southern District of California", "hallucination"),
        ("cand", "N.D. Cal.", "correct"),
        ("cand", "I don't know which district court decided it.", "abstain"),
        ("cadc", "District of Columbia", "hallucination"),  # the district court, not the D.C. Circuit
        ("ca9", "It was decided in San Francisco.", "unscored"),
    ],
)
def test_court_requires_the_specific_circuit_or_district(court_id: str, answer: str, label: str) -> None:
    score = SCORERS["court"](answer, {"court_id": court_id}, CONTEXT)
    assert score.label == label, score.detail
    if label == "hallucination" and "no specific court" in score.detail:
        assert "the study requires the specific circuit or district" in score.detail
