"""The scorers of every reference-based task, by task id: `SCORERS[task](answer, reference, context) -> Score`.

A read-only view of the task registry (`hallucination/tasks`): each scorer is its task's `score` field, defined in
the task's module; the shared steps and the stance rules are in `scoring.py`. A reference-free task has no scorer.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from lexprobe.hallucination.scoring import Scorer, ScoringContext
from lexprobe.hallucination.tasks import TASKS


class _Scorers(Mapping[str, Scorer]):
    """The registry's scorers, read at each lookup (so nothing else has to be kept in step with `TASKS`)."""

    def __getitem__(self, task_id: str) -> Scorer:
        score = TASKS[task_id].score
        if score is None:
            raise KeyError(task_id)
        return score

    def __iter__(self) -> Iterator[str]:
        return (task.id for task in TASKS.values() if task.score is not None)

    def __len__(self) -> int:
        return sum(1 for _ in self)


SCORERS: Mapping[str, Scorer] = _Scorers()

__all__ = ["SCORERS", "Scorer", "ScoringContext"]
