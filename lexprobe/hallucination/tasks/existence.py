"""Existence: is a real case real? ("Yes, it is a real case." is yes.)"""

from __future__ import annotations

from lexprobe.hallucination.labels import Score
from lexprobe.hallucination.scoring import (
    ScoringContext,
    _existence,
    scorer,
)
from lexprobe.hallucination.tasks.base import ALL, TaskSpec, simple_builder

SPEC = TaskSpec(
    "existence",
    "Is {case} a real case?",
    "existence",
    "low",
    False,
    ("zero", "few"),
    ALL,
    simple_builder(lambda c: {}, "a name"),
    16,
)


@scorer("existence")
def score_existence(answer: str, reference: dict, context: ScoringContext) -> Score:
    """Score "Is {real case} a real case?": yes is correct, no a hallucination."""
    return _existence(answer, real=True)
