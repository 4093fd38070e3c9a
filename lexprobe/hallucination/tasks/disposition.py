"""Disposition: affirm or reverse (the study's coarsening; not asked of district courts)."""

from __future__ import annotations

from lexprobe.hallucination.answers import extract_disposition
from lexprobe.hallucination.labels import Score
from lexprobe.hallucination.scoring import ScoringContext
from lexprobe.hallucination.tasks.base import fact_task, score_extracted, value_truth


def _disposition_reference(case: dict) -> dict | None:
    return {"disposition": case["disposition"]} if case.get("disposition") else None


def score_disposition(answer: str, reference: dict, context: ScoringContext) -> Score:
    """Score the disposition task: affirm or reverse (vacate and remand count as reverse)."""
    disposition = extract_disposition(answer)
    return score_extracted(answer, reference, "disposition", disposition, "single affirm/reverse disposition")


TASK = fact_task(
    id="disposition",
    question="Did {case} affirm or reverse?",
    template="disposition",
    complexity="moderate",
    levels=("scotus", "coa"),
    max_tokens=16,
    needs=("name", "disposition"),
    balanced_on="disposition",
    reference=_disposition_reference,
    has="an unambiguous disposition",
    lacks="no unambiguous disposition",
    score=score_disposition,
    calibrated=True,
    extract=value_truth(extract_disposition, "disposition", "disposition"),
)
