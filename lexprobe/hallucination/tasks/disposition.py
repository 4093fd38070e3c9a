"""Disposition: affirm or reverse (the study's coarsening; not asked of district courts)."""

from __future__ import annotations

from lexprobe.hallucination.labels.answers import extract_disposition
from lexprobe.hallucination.tasks.base import ValueAnswer, catalogued


def _disposition_reference(case: dict) -> dict | None:
    return {"disposition": case["disposition"]} if case.get("disposition") else None


TASK = catalogued(
    "disposition",
    reference=_disposition_reference,
    # affirm or reverse; vacate and remand count as reverse (`extract_disposition`)
    answer=ValueAnswer("disposition", extract_disposition, "single affirm/reverse disposition"),
)
