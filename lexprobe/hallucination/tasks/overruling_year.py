"""Overruling year: the year a case overruled in full was overruled."""

from __future__ import annotations

import random

from lexprobe.caselaw.query import CaseDatabase
from lexprobe.hallucination.labels.answers import extract_year
from lexprobe.hallucination.labels.scoring import OVERRULING_ANCHOR
from lexprobe.hallucination.tasks.base import Drafts, ItemDraft, ValueAnswer, case_variables, catalogued
from lexprobe.hallucination.tasks.cases import SampledCase


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


def _overruling_year(answer: str) -> int | None:
    """The year an answer gives as the overruling year (years after "overruled" first)."""
    return extract_year(answer, anchor=OVERRULING_ANCHOR)


TASK = catalogued(
    "overruling_year",
    reference=_overruling_reference,
    builder=_build_overruling_year,
    # exactly the year the case was overruled
    answer=ValueAnswer("year", _overruling_year, "year", truth=int),
)
