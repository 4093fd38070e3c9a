"""The five reference-free tasks (the study's Section 3.3): no reference answer; each question is asked twice at
temperature 1 and a contradiction judge (`hallucination/judge.py`) decides, so their rates are lower bounds."""

from __future__ import annotations

from lexprobe.hallucination.tasks.base import TaskSpec, reference_free_builder

#: Why no reference-free task is calibrated.
_NOT_CALIBRATED = "reference-free: already two samples judged for contradiction, no single value to agree on"


def _reference_free(task_id: str, question: str) -> TaskSpec:
    """Return the definition of a reference-free task (zero-shot only, 128 tokens, every level)."""
    return TaskSpec(
        id=task_id,
        question=question,
        template=task_id,
        complexity="high",
        styles=("zero",),
        max_tokens=128,
        builder=reference_free_builder,
        needs=("name",),
        not_calibrated=_NOT_CALIBRATED,
    )


FACTUAL_BACKGROUND = _reference_free("factual_background", "What is the factual background of {case}?")
PROCEDURAL_POSTURE = _reference_free("procedural_posture", "What is the procedural posture of {case}?")
SUBSEQUENT_HISTORY = _reference_free("subsequent_history", "What is the subsequent history of {case}?")
CORE_LEGAL_QUESTION = _reference_free("core_legal_question", "What is the core legal question in {case}?")
CENTRAL_HOLDING = _reference_free("central_holding", "What is the central holding in {case}?")
