"""The study's tasks: each one frozen `TaskSpec` (`tasks/base.py`) that says what it asks, with which templates, at
which levels and in which prompt styles, how its items are built, how an outside answer's reference is looked up,
how a greedy answer is extracted for calibration and how answers are scored. One module per reference-based task;
the five reference-free tasks are declared together in `tasks/reference_free.py`.

`TASKS` is the one registry every other module reads (the run, calibration, `score-answers`, the reports and the
CLI): adding a task means one module defining its `TASK` and one line in `REGISTRY` below.
"""

from __future__ import annotations

from collections.abc import Callable

from lexprobe.caselaw.courts import parse_levels
from lexprobe.errors import BadInputError
from lexprobe.hallucination.tasks import (
    author,
    authority,
    citation,
    court,
    disposition,
    doctrinal_agreement,
    existence,
    fake_existence,
    false_dissent,
    false_overruling,
    overruling_year,
    quotation,
    reference_free,
)
from lexprobe.hallucination.tasks.base import LEVEL_ALIASES, LEVELS, Drafts, ItemDraft, TaskSpec

#: Every task, in the order `lexprobe hallucination tasks` and the reports list them.
REGISTRY: tuple[TaskSpec, ...] = (
    existence.TASK,
    court.TASK,
    citation.TASK,
    author.TASK,
    disposition.TASK,
    quotation.TASK,
    authority.TASK,
    overruling_year.TASK,
    doctrinal_agreement.TASK,
    reference_free.FACTUAL_BACKGROUND,
    reference_free.PROCEDURAL_POSTURE,
    reference_free.SUBSEQUENT_HISTORY,
    reference_free.CORE_LEGAL_QUESTION,
    reference_free.CENTRAL_HOLDING,
    fake_existence.TASK,
    false_dissent.TASK,
    false_overruling.TASK,
)

TASKS: dict[str, TaskSpec] = {task.id: task for task in REGISTRY}
if len(TASKS) != len(REGISTRY):
    raise RuntimeError("two registered tasks share an id")


def resolve_tasks(spec: str) -> list[TaskSpec]:
    """Return the tasks named by a comma list or 'all'; raises ValueError naming unknown ids and the valid ones."""
    if spec.strip() == "all":
        return list(TASKS.values())
    names = [name.strip() for name in spec.split(",") if name.strip()]
    unknown = [name for name in names if name not in TASKS]
    if unknown or not names:
        raise BadInputError(f"unknown task(s) {', '.join(unknown) or '(none given)'}; valid: all, {', '.join(TASKS)}")
    return [TASKS[name] for name in names]


def resolve_levels(spec: str) -> list[str]:
    """Return the canonical court levels of a comma list, any spelling `lexprobe.caselaw.courts.parse_levels`
    accepts ("usdc" -> "district"); raises ValueError (`BadInputError`) on unknown ones or none."""
    return list(parse_levels(spec))


def task_names(predicate: Callable[[TaskSpec], bool] | None = None) -> str:
    """Return the ids of the registered tasks for which `predicate(task)` holds (all without one), comma-joined,
    for help texts and messages."""
    chosen = [task for task in REGISTRY if predicate is None or predicate(task)]
    return ", ".join(task.id for task in chosen)


__all__ = [
    "LEVELS",
    "LEVEL_ALIASES",
    "REGISTRY",
    "TASKS",
    "Drafts",
    "ItemDraft",
    "TaskSpec",
    "resolve_levels",
    "resolve_tasks",
    "task_names",
]
