"""Procedural posture (reference-free: two samples at temperature 1 and a contradiction judge)."""

from __future__ import annotations

from lexprobe.hallucination.tasks.base import ALL, TaskSpec, reference_free_builder

SPEC = TaskSpec(
    "procedural_posture",
    "What is the procedural posture of {case}?",
    "procedural_posture",
    "high",
    True,
    ("zero",),
    ALL,
    reference_free_builder,
    128,
)
