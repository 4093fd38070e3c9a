"""Court: which court decided the case (courts-db ids; districts compared at the district level).

The study requires the specific court (Section 2.1): "the name of the specific circuit court" for an appeals case,
"the name of the specific district court" for a district case. An answer that names a court only generically ("a
federal court of appeals", "the United States District Court") is not that answer: a `hallucination` whose detail
says so, never `correct` and never a silent `unscored`.
"""

from __future__ import annotations

import re

from lexprobe.hallucination.labels.abstention import normalize_answer
from lexprobe.hallucination.labels.score import Score
from lexprobe.hallucination.labels.scoring import ScoringContext, quoted
from lexprobe.hallucination.tasks.base import TaskReference, catalogued, reading_of, score_extracted, value_truth
from lexprobe.hallucination.tasks.cases import SampledCase

#: A court named without saying which one: "a federal court of appeals", "the U.S. District Court", "the circuit
#: court", "an appellate court", "a federal court".
GENERIC_COURT = re.compile(
    r"\b(?:court\s+of\s+appeals?|(?:federal\s+)?appeals?\s+court|appellate\s+court|circuit\s+court(?:\s+of\s+appeals?)?"
    r"|district\s+court|federal\s+court|trial\s+court)\b",
    re.IGNORECASE,
)


_read = reading_of("court")


class CourtReference(TaskReference):
    """The court that decided the case (its courts-db id)."""

    court_id: str | None = None


def _court_reference(case: SampledCase) -> dict | None:
    return {"court_id": case.court_id} if case.court_id else None


def score_court(answer: str, reference: CourtReference, context: ScoringContext) -> Score:
    """Score the court task: the court named must be the reference court itself (a district court at the district
    level: "Northern District of California" is "cand", a bare "California" is not); a court named only generically
    ("a federal court of appeals") is a hallucination, as the study requires the specific circuit or district."""
    scored = score_extracted(answer, reference, "court_id", _read, "court")
    generic = GENERIC_COURT.search(normalize_answer(answer))
    if scored.label == "unscored" and scored.detail.startswith("no court found") and generic:
        detail = f"answer names no specific court ({quoted(generic.group())}); the study requires the specific"
        return Score("hallucination", f"{detail} circuit or district: truth {reference.court_id!r}")
    return scored


TASK = catalogued(
    "court",
    CourtReference,
    reference=_court_reference,
    score=score_court,
    extract=value_truth(_read, "court", "court_id"),
)
