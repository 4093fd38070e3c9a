"""Factual background (reference-free: two samples at temperature 1 and a contradiction judge)."""

from __future__ import annotations

from lexprobe.hallucination.tasks.base import ALL, TaskSpec, reference_free_builder

SPEC = TaskSpec(
    "factual_background",
    "What is the factual background of {case}?",
    "factual_background",
    "high",
    True,
    ("zero",),
    ALL,
    reference_free_builder,
    128,
)
