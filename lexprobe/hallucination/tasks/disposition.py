"""Disposition: affirm or reverse (the study's coarsening; not asked of district courts)."""

from __future__ import annotations

from lexprobe.hallucination.labels.answers import extract_disposition
from lexprobe.hallucination.tasks.base import ValueAnswer, catalogued
from lexprobe.hallucination.tasks.cases import SampledCase


def _disposition_reference(case: SampledCase) -> dict | None:
    return {"disposition": case.disposition} if case.disposition else None


TASK = catalogued(
    "disposition",
    reference=_disposition_reference,
    # affirm or reverse; vacate and remand count as reverse (`extract_disposition`)
    answer=ValueAnswer("disposition", extract_disposition, "single affirm/reverse disposition"),
)
