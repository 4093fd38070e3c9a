"""Disposition: affirm or reverse (the study's coarsening; not asked of district courts)."""

from __future__ import annotations

from lexprobe.hallucination.answers import extract_disposition
from lexprobe.hallucination.labels import Score
from lexprobe.hallucination.scoring import (
    ScoringContext,
    compare_values,
    missing_reference,
    nothing_found,
    stance_score,
)
from lexprobe.hallucination.tasks.base import TaskSpec, case_lookup, simple_builder


def _disposition_reference(case: dict) -> dict | None:
    return {"disposition": case["disposition"]} if case.get("disposition") else None


def score_disposition(answer: str, reference: dict, context: ScoringContext) -> Score:
    """Score the disposition task: affirm or reverse (vacate and remand count as reverse)."""
    missing = missing_reference(reference, "disposition") or stance_score(answer)
    if missing:
        return missing
    disposition = extract_disposition(answer)
    if disposition is None:
        return nothing_found(answer, "single affirm/reverse disposition")
    return compare_values(disposition, reference["disposition"], "disposition")


def disposition_truth(greedy: str, reference: dict) -> tuple[str, dict] | None:
    """Return the disposition scorer with the greedy answer's disposition as the truth; None without one."""
    disposition = extract_disposition(greedy)
    return None if disposition is None else ("disposition", {"disposition": disposition})


TASK = TaskSpec(
    id="disposition",
    question="Did {case} affirm or reverse?",
    template="disposition",
    complexity="moderate",
    levels=("scotus", "coa"),
    styles=("zero", "few"),
    max_tokens=16,
    needs=("name", "disposition"),
    balanced_on="disposition",
    builder=simple_builder(_disposition_reference, "an unambiguous disposition"),
    lookup=case_lookup(_disposition_reference, "no unambiguous disposition"),
    score=score_disposition,
    calibrated=True,
    extract=disposition_truth,
)
