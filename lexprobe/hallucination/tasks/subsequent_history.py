"""Subsequent history (reference-free: two samples at temperature 1 and a contradiction judge)."""

from __future__ import annotations

from lexprobe.hallucination.tasks.base import ALL, TaskSpec, reference_free_builder

SPEC = TaskSpec(
    "subsequent_history",
    "What is the subsequent history of {case}?",
    "subsequent_history",
    "high",
    True,
    ("zero",),
    ALL,
    reference_free_builder,
    128,
)
