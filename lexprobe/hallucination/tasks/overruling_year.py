"""Overruling year: the year a case overruled in full was overruled."""

from __future__ import annotations

import random

from lexprobe.caselaw.query import CaseDatabase
from lexprobe.hallucination.answers import (
    extract_year,
)
from lexprobe.hallucination.labels import Score
from lexprobe.hallucination.scoring import (
    OVERRULING_ANCHOR,
    ScoringContext,
    _compare,
    _missing,
    _nothing_found,
    _stance,
    scorer,
)
from lexprobe.hallucination.tasks.base import Drafts, ItemDraft, TaskSpec, case_variables


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


SPEC = TaskSpec(
    "overruling_year",
    "What year was {case} overruled?",
    "overruling_year",
    "moderate",
    False,
    ("zero", "few"),
    ("scotus",),
    _build_overruling_year,
    16,
)


@scorer("overruling_year")
def score_overruling_year(answer: str, reference: dict, context: ScoringContext) -> Score:
    """Score the overruling-year task: exactly the year the case was overruled."""
    missing = _missing(reference, "year") or _stance(answer)
    if missing:
        return missing
    year = extract_year(answer, anchor=OVERRULING_ANCHOR)
    if year is None:
        return _nothing_found(answer, "year")
    return _compare(year, int(reference["year"]), "year")
