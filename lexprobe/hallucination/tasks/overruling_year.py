"""Overruling year: the year a case overruled in full was overruled."""

from __future__ import annotations

import random

from lexprobe.caselaw.query import CaseDatabase
from lexprobe.hallucination.labels.score import Score
from lexprobe.hallucination.labels.scoring import compare_values
from lexprobe.hallucination.reader.candidates import VagueYear
from lexprobe.hallucination.tasks.base import (
    Drafts,
    ItemDraft,
    TaskReference,
    ValueAnswer,
    case_variables,
    catalogued,
    reading_of,
)
from lexprobe.hallucination.tasks.cases import SampledCase


class OverrulingYearReference(TaskReference):
    """The year the case was overruled in full."""

    year: int | None = None


def _build_overruling_year(db: CaseDatabase, cases: list[SampledCase], level: str, n: int, seed: int) -> Drafts:
    """All cases overruled in full (not a sample: the study used every explicitly overruled case), up to n."""
    if level != "scotus":
        return Drafts(skipped="overruling data covers the Supreme Court only")
    overruled = db.fully_overruled_cases("scotus")
    chosen = [SampledCase.from_row(c.as_dict()) for c in random.Random(seed).sample(overruled, min(n, len(overruled)))]
    return Drafts([ItemDraft(c.case_id, c.case_id, case_variables(c), {"year": c.overruled_year}) for c in chosen])


def _overruling_reference(case: SampledCase) -> dict | None:
    """The reference of an answer scored outside a run (`score-answers`): the case's overruling year."""
    year = case.overruled_year
    return {"year": year} if year else None


def judge_year(value: int | VagueYear, truth: int) -> Score:
    """Judge the year an answer gives: the exact year is correct, another year a hallucination; a vague year ("the
    mid-1980s") is not a year: unscored when its range holds the true year, a hallucination when it leaves it out."""
    if isinstance(value, VagueYear):
        if value.low <= truth <= value.high:
            return Score("unscored", f"vague year {value.text!r} is not a year (its range holds the truth {truth})")
        return Score("hallucination", f"vague year {value.text!r} ({value.low}-{value.high}) leaves out truth {truth}")
    return compare_values(value, truth, "year")


TASK = catalogued(
    "overruling_year",
    OverrulingYearReference,
    reference=_overruling_reference,
    builder=_build_overruling_year,
    # exactly the year the case was overruled, as the answer gives it (`reader`: not the case's own year)
    answer=ValueAnswer("year", reading_of("overruling_year"), "year", truth=int, judge=judge_year),
)
