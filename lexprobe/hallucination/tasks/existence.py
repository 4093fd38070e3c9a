"""Existence: is a real case real? ("Yes, it is a real case." is yes.)"""

from __future__ import annotations

from lexprobe.hallucination.labels.answers import extract_existence
from lexprobe.hallucination.labels.score import Score
from lexprobe.hallucination.labels.scoring import ScoringContext, existence_score
from lexprobe.hallucination.tasks.base import TaskReference, catalogued
from lexprobe.hallucination.tasks.cases import SampledCase


def score_existence(answer: str, reference: TaskReference, context: ScoringContext) -> Score:
    """Score "Is {real case} a real case?": yes is correct, no a hallucination."""
    return existence_score(answer, real=True)


def existence_truth(greedy: str, reference: TaskReference) -> tuple[str, dict] | None:
    """Return the scorer that makes a greedy yes (existence) or no (fake_existence) the truth; None without yes/no.
    Shared with fake_existence."""
    exists = extract_existence(greedy)
    return None if exists is None else ("existence" if exists else "fake_existence", {})


def _no_fact(case: SampledCase) -> dict:
    return {}


TASK = catalogued("existence", reference=_no_fact, score=score_existence, extract=existence_truth)
