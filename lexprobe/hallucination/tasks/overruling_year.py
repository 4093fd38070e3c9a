"""Overruling year: the year a case overruled in full was overruled."""

from __future__ import annotations

import random

from lexprobe.caselaw.query import CaseDatabase
from lexprobe.hallucination.answers import extract_year
from lexprobe.hallucination.labels import Score
from lexprobe.hallucination.scoring import (
    OVERRULING_ANCHOR,
    ScoringContext,
    compare_values,
    missing_reference,
    nothing_found,
    stance_score,
)
from lexprobe.hallucination.tasks.base import Drafts, ItemDraft, TaskSpec, case_lookup, case_variables


def _build_overruling_year(db: CaseDatabase, cases: list[dict], level: str, n: int, seed: int) -> Drafts:
    """All cases overruled in full (not a sample: the study used every explicitly overruled case), up to n."""
    if level != "scotus":
        return Drafts(skipped="overruling data covers the Supreme Court only")
    rows = db.conn.execute(
        "SELECT * FROM cases WHERE level = 'scotus' AND overruled_year IS NOT NULL"
        " AND COALESCE(overruled_in_part, 0) = 0 AND name != '' AND citation IS NOT NULL ORDER BY case_id"
    ).fetchall()
    chosen = random.Random(seed).sample([dict(r) for r in rows], min(n, len(rows)))
    return Drafts(
        [ItemDraft(c["case_id"], c["case_id"], case_variables(c), {"year": c["overruled_year"]}) for c in chosen]
    )


def _overruling_reference(case: dict) -> dict | None:
    """The reference of an answer scored outside a run (`score-answers`): the case's overruling year."""
    year = case["overruled_year"]
    return {"year": year} if year else None


def score_overruling_year(answer: str, reference: dict, context: ScoringContext) -> Score:
    """Score the overruling-year task: exactly the year the case was overruled."""
    missing = missing_reference(reference, "year") or stance_score(answer)
    if missing:
        return missing
    year = extract_year(answer, anchor=OVERRULING_ANCHOR)
    if year is None:
        return nothing_found(answer, "year")
    return compare_values(year, int(reference["year"]), "year")


def overruling_truth(greedy: str, reference: dict) -> tuple[str, dict] | None:
    """Return the overruling-year scorer with the greedy answer's year as the truth; None without a year."""
    year = extract_year(greedy, anchor=OVERRULING_ANCHOR)
    return None if year is None else ("overruling_year", {"year": year})


TASK = TaskSpec(
    id="overruling_year",
    question="What year was {case} overruled?",
    template="overruling_year",
    complexity="moderate",
    levels=("scotus",),
    styles=("zero", "few"),
    max_tokens=16,
    population="every Supreme Court case overruled in full (not the sample)",
    builder=_build_overruling_year,
    lookup=case_lookup(_overruling_reference, "case is not recorded as overruled"),
    score=score_overruling_year,
    calibrated=True,
    extract=overruling_truth,
)
