"""Disposition: affirm or reverse (the study's coarsening; not asked of district courts)."""

from __future__ import annotations

from lexprobe.hallucination.labels.score import Score
from lexprobe.hallucination.labels.scoring import compare_values
from lexprobe.hallucination.tasks.base import TaskReference, ValueAnswer, catalogued, reading_of
from lexprobe.hallucination.tasks.cases import SampledCase


class DispositionReference(TaskReference):
    """What the court that decided the case did: affirm or reverse (the class its balanced rate is taken over)."""

    disposition: str | None = None


def _disposition_reference(case: SampledCase) -> dict | None:
    return {"disposition": case.disposition} if case.disposition else None


def judge_disposition(value: str, truth: str) -> Score:
    """Judge the disposition an answer gives: affirm or reverse against the truth; a split one ("affirmed in part")
    is neither, so unscored."""
    if value == "mixed":
        return Score("unscored", "answer gives a split disposition (in part), neither affirm nor reverse")
    return compare_values(value, truth, "disposition")


TASK = catalogued(
    "disposition",
    DispositionReference,
    reference=_disposition_reference,
    # affirm or reverse, of the court that decided the case; vacate and remand count as reverse (`reader`)
    answer=ValueAnswer(
        "disposition", reading_of("disposition"), "single affirm/reverse disposition", judge=judge_disposition
    ),
)
