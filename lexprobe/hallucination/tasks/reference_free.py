"""The five reference-free tasks (the study's Section 3.3): no reference answer; each question is asked twice at
temperature 1 and a contradiction judge (`hallucination/scorers/judge.py`) decides, so their rates are lower bounds.
Their data (wording, zero-shot only, 128 tokens, every level) is in the catalogue; they share one builder."""

from __future__ import annotations

from lexprobe.hallucination.tasks.base import TaskSpec, catalogued, reference_free_builder

FACTUAL_BACKGROUND: TaskSpec = catalogued("factual_background", builder=reference_free_builder)
PROCEDURAL_POSTURE: TaskSpec = catalogued("procedural_posture", builder=reference_free_builder)
SUBSEQUENT_HISTORY: TaskSpec = catalogued("subsequent_history", builder=reference_free_builder)
CORE_LEGAL_QUESTION: TaskSpec = catalogued("core_legal_question", builder=reference_free_builder)
CENTRAL_HOLDING: TaskSpec = catalogued("central_holding", builder=reference_free_builder)
