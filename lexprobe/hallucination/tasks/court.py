"""Court: which court decided the case (courts-db ids; districts compared at the district level)."""

from __future__ import annotations

from lexprobe.hallucination.answers import (
    extract_court,
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
from lexprobe.hallucination.tasks.base import ALL, TaskSpec, simple_builder

SPEC = TaskSpec(
    "court",
    "What court decided {case}?",
    "court",
    "low",
    False,
    ("zero", "few"),
    ALL,
    simple_builder(lambda c: {"court_id": c["court_id"]} if c.get("court_id") else None, "a court"),
    48,
)


@scorer("court")
def score_court(answer: str, reference: dict, context: ScoringContext) -> Score:
    """Score the court task: the court named must be the reference court itself (a district court at the district
    level: "Northern District of California" is "cand", a bare "California" is not)."""
    missing = _missing(reference, "court_id") or _stance(answer)
    if missing:
        return missing
    court = extract_court(answer)
    if court is None:
        return _nothing_found(answer, "court")
    return _compare(court, reference["court_id"], "court")
