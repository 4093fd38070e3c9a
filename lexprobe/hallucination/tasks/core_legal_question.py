"""Core legal question (reference-free: two samples at temperature 1 and a contradiction judge)."""

from __future__ import annotations

from lexprobe.hallucination.tasks.base import ALL, TaskSpec, reference_free_builder

SPEC = TaskSpec(
    "core_legal_question",
    "What is the core legal question in {case}?",
    "core_legal_question",
    "high",
    True,
    ("zero",),
    ALL,
    reference_free_builder,
    128,
)
