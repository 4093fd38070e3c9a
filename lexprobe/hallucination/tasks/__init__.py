"""The study's tasks: each one frozen `TaskSpec` (`tasks/base.py`) that says what it asks, with which templates, at
which levels and in which prompt styles, how its items are built, how an outside answer's reference is looked up,
how a greedy answer is extracted for calibration and how answers are scored. The data of every task (the Table 2
wording, template, complexity, levels, styles, ...) is one row of `tasks/catalogue.toml`; one module per
reference-based task binds its behaviour to its row (`base.catalogued`); the five reference-free tasks are bound
together in `tasks/reference_free.py`.

`TASKS` is the one registry every other module reads (the run, calibration, `score-answers`, the reports and the
CLI), in the catalogue's row order: adding a task means one catalogue row, one module defining its `TASK` and its
name in `_BOUND` below. The case a task asks about is a typed `SampledCase` (`tasks/cases.py`).

May import: `labels`, `reader`, `help_facts` of this domain; `lexprobe.caselaw`, `lexprobe.errors`.
"""

from __future__ import annotations

from collections.abc import Callable

from lexprobe.caselaw.courts import parse_levels
from lexprobe.errors import BadInputError
from lexprobe.hallucination.help_facts import UNCALIBRATED_WITH_REFERENCE
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
from lexprobe.hallucination.tasks.base import TaskSpec
from lexprobe.hallucination.tasks.catalogue import CATALOGUE

#: Every task bound to its behaviour (in any order: the catalogue's row order is the registry's).
_BOUND: tuple[TaskSpec, ...] = (
    author.TASK,
    authority.TASK,
    citation.TASK,
    court.TASK,
    disposition.TASK,
    doctrinal_agreement.TASK,
    existence.TASK,
    fake_existence.TASK,
    false_dissent.TASK,
    false_overruling.TASK,
    overruling_year.TASK,
    quotation.TASK,
    reference_free.FACTUAL_BACKGROUND,
    reference_free.PROCEDURAL_POSTURE,
    reference_free.SUBSEQUENT_HISTORY,
    reference_free.CORE_LEGAL_QUESTION,
    reference_free.CENTRAL_HOLDING,
)
_BY_ID = {task.id: task for task in _BOUND}
if len(_BY_ID) != len(_BOUND) or set(_BY_ID) != set(CATALOGUE):
    raise RuntimeError("every catalogue row needs exactly one bound task")

#: Every task, in the order `lexprobe hallucination tasks` and the reports list them (the catalogue's).
REGISTRY: tuple[TaskSpec, ...] = tuple(_BY_ID[task_id] for task_id in CATALOGUE)

TASKS: dict[str, TaskSpec] = {task.id: task for task in REGISTRY}

_UNCALIBRATED = tuple(task.id for task in REGISTRY if not task.calibrated and not task.reference_free)
if _UNCALIBRATED != UNCALIBRATED_WITH_REFERENCE:  # what `hallucination run --help` names without the registry
    raise RuntimeError("help_facts.UNCALIBRATED_WITH_REFERENCE must name the uncalibrated reference-based tasks")


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
    "REGISTRY",
    "TASKS",
    "resolve_levels",
    "resolve_tasks",
    "task_names",
]
