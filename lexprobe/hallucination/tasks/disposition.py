"""Disposition: affirm or reverse (the study's coarsening; not asked of district courts)."""

from __future__ import annotations

from lexprobe.hallucination.answers import (
    extract_disposition,
)
from lexprobe.hallucination.labels import Score
from lexprobe.hallucination.scoring import (
    ScoringContext,
    _compare,
    _missing,
    _nothing_found,
    _stance,
    scorer,
)
from lexprobe.hallucination.tasks.base import TaskSpec, simple_builder

SPEC = TaskSpec(
    "disposition",
    "Did {case} affirm or reverse?",
    "disposition",
    "moderate",
    False,
    ("zero", "few"),
    ("scotus", "coa"),
    simple_builder(
        lambda c: {"disposition": c["disposition"]} if c.get("disposition") else None, "an unambiguous disposition"
    ),
    16,
)


@scorer("disposition")
def score_disposition(answer: str, reference: dict, context: ScoringContext) -> Score:
    """Score the disposition task: affirm or reverse (vacate and remand count as reverse)."""
    missing = _missing(reference, "disposition") or _stance(answer)
    if missing:
        return missing
    disposition = extract_disposition(answer)
    if disposition is None:
        return _nothing_found(answer, "single affirm/reverse disposition")
    return _compare(disposition, reference["disposition"], "disposition")
