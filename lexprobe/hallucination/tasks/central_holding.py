"""Central holding (reference-free: two samples at temperature 1 and a contradiction judge)."""

from __future__ import annotations

from lexprobe.hallucination.tasks.base import ALL, TaskSpec, reference_free_builder

SPEC = TaskSpec(
    "central_holding",
    "What is the central holding in {case}?",
    "central_holding",
    "high",
    True,
    ("zero",),
    ALL,
    reference_free_builder,
    128,
)
