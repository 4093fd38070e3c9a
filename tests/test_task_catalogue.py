"""The task catalogue (`hallucination/tasks/catalogue.toml`): every task's data in one table, each task module binding
only behaviour to its row. `fixtures/task_specs.json` is every `TaskSpec`'s data as it was before the catalogue
existed (one line a task, registry order), so no wording, budget, level or message drifts; the shared scoring and
building steps of `tasks/base.py` are tested here too."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lexprobe.hallucination.labels.answers import extract_year
from lexprobe.hallucination.labels.score import Score
from lexprobe.hallucination.labels.scoring import missing_reference, stance_score
from lexprobe.hallucination.scorers.by_task import ScoringContext
from lexprobe.hallucination.tasks import REGISTRY, TASKS
from lexprobe.hallucination.tasks.base import (
    CONTRA_FACTUAL_ZERO_SHOT,
    TaskReference,
    ValueAnswer,
    case_builder,
    catalogued,
    score_extracted,
    unscorable,
)
from lexprobe.hallucination.tasks.cases import SampledCase
from lexprobe.hallucination.tasks.catalogue import CATALOGUE, load_catalogue
from lexprobe.hallucination.tasks.false_dissent import DissentReference
from lexprobe.hallucination.tasks.overruling_year import OverrulingYearReference
from lexprobe.hallucination.tasks.quotation import OpinionReference, opinion_text_step

SNAPSHOT = json.loads((Path(__file__).parent / "fixtures" / "task_specs.json").read_text(encoding="utf-8"))
DATA_FIELDS = ("id", "question", "template", "complexity", "max_tokens", "levels", "styles", "calibrated",
               "not_calibrated", "style_note", "needs", "population", "balanced_on")  # fmt: skip
BEHAVIOUR = ("builder", "lookup", "score", "extract", "stance_agreement")
CONTEXT = ScoringContext()
NONE, YEAR, OPINION = TaskReference(), OverrulingYearReference(year=1954), OpinionReference(opinion_id="7")
CASE = {"case_id": "c1", "name": "Roe v. Wade", "citation": "410 U.S. 113", "year": 1973, "overruled_year": None}


def test_the_registry_is_the_catalogue_in_its_row_order() -> None:
    assert [task.id for task in REGISTRY] == [row["id"] for row in SNAPSHOT] == list(CATALOGUE) == list(TASKS)


@pytest.mark.parametrize("row", SNAPSHOT, ids=[row["id"] for row in SNAPSHOT])
def test_every_task_spec_keeps_its_data(row: dict) -> None:
    task = TASKS[row["id"]]
    for name in DATA_FIELDS:
        value = getattr(task, name)
        assert (list(value) if isinstance(value, tuple) else value) == row[name], name
    assert [name for name in sorted(BEHAVIOUR) if getattr(task, name) is not None] == row["behaviour"]
    assert (CATALOGUE[row["id"]].has, CATALOGUE[row["id"]].lacks) == (row["has"], row["lacks"])


def test_contra_factual_rows_give_the_zero_shot_reason() -> None:
    notes = {task.id: task.style_note for task in REGISTRY if task.false_premise}
    assert notes == dict.fromkeys(("fake_existence", "false_dissent", "false_overruling"), CONTRA_FACTUAL_ZERO_SHOT)


class _Found:
    def __init__(self, case: dict) -> None:
        self.case = case

    def as_dict(self) -> dict:
        return self.case


class _OneCase:
    """A case database holding one bare case (a name, citation and year, no other fact)."""

    def find_case(self, text: str) -> _Found | None:
        return _Found(dict(CASE)) if text == CASE["citation"] else None


@pytest.mark.parametrize("row", [row for row in SNAPSHOT if row["has"]], ids=lambda row: row["id"])
def test_a_fact_task_builds_and_looks_up_with_its_row_messages(row: dict) -> None:
    task = TASKS[row["id"]]
    drafts = task.builder(None, [SampledCase.from_row(CASE)], "scotus", 5, 1)  # type: ignore[arg-type]
    reference, reason = task.lookup({"case": CASE["citation"]}, _OneCase())  # type: ignore[misc,arg-type]
    if row["id"] == "existence":  # every named case is asked about
        assert [draft.key for draft in drafts.items] == ["c1"] and (reference, reason) == ({}, None)
    else:
        assert drafts.skipped == f"no sampled scotus case has {row['has']}"
        assert (reference, reason) == (None, row["lacks"])


def test_catalogued_binds_the_row_and_checks_the_behaviour() -> None:
    with pytest.raises(ValueError, match="needs a reference function"):
        catalogued("court", score=TASKS["court"].score, extract=TASKS["court"].extract)
    with pytest.raises(ValueError, match="needs a row with `has` or `lacks`"):
        catalogued("citation", reference=lambda case: {}, builder=TASKS["citation"].builder)
    with pytest.raises(KeyError):
        catalogued("no_such_task")


def test_load_catalogue_rejects_unknown_keys_and_repeated_ids() -> None:
    row = '[[task]]\nid = "t"\nquestion = "Q?"\ntemplate = "t"\ncomplexity = "low"\nmax_tokens = 8\n'
    assert load_catalogue(row)["t"].spec_fields() == {"id": "t", "question": "Q?", "template": "t",
        "complexity": "low", "max_tokens": 8, "needs": (), "calibrated": False, "not_calibrated": "",
        "style_note": "", "population": "", "balanced_on": ""}  # fmt: skip
    with pytest.raises(TypeError):
        load_catalogue(row + 'colour = "red"\n')
    with pytest.raises(ValueError, match="share an id"):
        load_catalogue(row + row)


def test_unscorable_is_the_first_scoring_step() -> None:
    assert unscorable("1954", NONE, "year") == missing_reference(NONE, "year")
    assert unscorable("I don't know.", YEAR, "year").label == "abstain"
    rejects = "That premise is false: he never dissented."
    assert unscorable(rejects, DissentReference(dissenter="X"), "dissenter", True) == stance_score(
        rejects, false_premise=True
    )
    assert unscorable("1954", YEAR, "year") is None


def test_score_extracted_reads_lazily_and_judges_or_compares() -> None:
    def never(answer: str) -> None:
        raise AssertionError("read before the first step")

    assert score_extracted("", YEAR, "year", never, "year").detail == "empty answer"
    assert score_extracted("It was 1954.", YEAR, "year", extract_year, "year", truth=int).label == "correct"
    assert score_extracted("long ago", YEAR, "year", extract_year, "year").label == "unscored"
    judge = lambda year: Score("correct", str(year))  # noqa: E731
    judged = score_extracted("In 1955.", YEAR, "year", extract_year, "year", judge=judge)
    assert judged == Score("correct", "1955")


def test_value_answer_gives_the_scorer_and_the_calibration_truth() -> None:
    answer = ValueAnswer("year", extract_year, "year", truth=int)
    assert answer.score("It was 1954.", YEAR, CONTEXT).label == "correct"
    task = TASKS["overruling_year"]
    assert task.score is not None and task.score("Overruled in 1954.", YEAR, CONTEXT).label == "correct"
    assert task.extract is not None and task.extract("Overruled in 1954.", NONE) == ("overruling_year", {"year": 1954})
    assert task.extract("never", NONE) is None


def test_case_builder_asks_about_named_cases_with_a_reference() -> None:
    build = case_builder(lambda db, case: {"n": case.year} if case.year > 1900 else None, "a late year",
                         lambda case: {"name": case.name})  # fmt: skip
    assert build(None, [], "coa", 5, 1).skipped.startswith("no coa cases with names")  # type: ignore[arg-type,union-attr]
    old = SampledCase.from_row(dict(CASE, year=1850))
    assert build(None, [old], "coa", 5, 1).skipped == "no sampled coa case has a late year"  # type: ignore[arg-type]
    (draft,) = build(None, [old, SampledCase.from_row(CASE)], "coa", 5, 1).items  # type: ignore[arg-type]
    assert (draft.key, draft.variables, draft.reference) == ("c1", {"name": "Roe v. Wade"}, {"n": 1973})


def test_opinion_text_step_needs_the_reference_the_stance_and_the_text() -> None:
    stance = Score("abstain", "answer abstains")
    assert opinion_text_step(NONE, stance, CONTEXT, lambda opinion: "text") == missing_reference(NONE, "opinion_id")
    assert opinion_text_step(OPINION, stance, CONTEXT, lambda opinion: "text") == stance
    no_db = opinion_text_step(OPINION, None, CONTEXT, lambda opinion: "text")
    assert no_db == Score("unscored", "reference missing: no case database to read the opinion text from")
    with_db = ScoringContext(db=object())  # type: ignore[arg-type]
    assert opinion_text_step(OPINION, None, with_db, lambda opinion: None) == Score(
        "unscored", "reference missing: opinion 7 has no text in the case database"
    )
    assert opinion_text_step(OPINION, None, with_db, lambda opinion: "text") is None
