"""The study's tasks, one module each: what it asks, which template it uses, how its items are built from the case
database and, for a reference-based task, how its answers are scored (`@scorer`). Adding a task means one module and
one line in `_MODULES`.
"""

from __future__ import annotations

from importlib import import_module

from lexprobe.caselaw.courts import parse_levels
from lexprobe.hallucination.tasks.base import LEVEL_ALIASES, LEVELS, Drafts, ItemDraft, TaskSpec

#: Task modules in the order `lexprobe hallucination tasks` lists them.
_MODULES = (
    "existence",
    "court",
    "citation",
    "author",
    "disposition",
    "quotation",
    "authority",
    "overruling_year",
    "doctrinal_agreement",
    "factual_background",
    "procedural_posture",
    "subsequent_history",
    "core_legal_question",
    "central_holding",
    "fake_existence",
    "false_dissent",
    "false_overruling",
)

TASKS: dict[str, TaskSpec] = {}
for _name in _MODULES:
    _spec = import_module(f"lexprobe.hallucination.tasks.{_name}").SPEC
    TASKS[_spec.id] = _spec


def resolve_tasks(spec: str) -> list[TaskSpec]:
    """Return the tasks named by a comma list or 'all'; raises ValueError naming unknown ids and the valid ones."""
    if spec.strip() == "all":
        return list(TASKS.values())
    names = [name.strip() for name in spec.split(",") if name.strip()]
    unknown = [name for name in names if name not in TASKS]
    if unknown or not names:
        raise ValueError(f"unknown task(s) {', '.join(unknown) or '(none given)'}; valid: all, {', '.join(TASKS)}")
    return [TASKS[name] for name in names]


def resolve_levels(spec: str) -> list[str]:
    """Return the canonical court levels of a comma list, any spelling `lexprobe.caselaw.courts.parse_levels`
    accepts ("usdc" -> "district"); raises ValueError (`BadInputError`) on unknown ones or none."""
    return list(parse_levels(spec))


__all__ = ["LEVELS", "LEVEL_ALIASES", "TASKS", "Drafts", "ItemDraft", "TaskSpec", "resolve_levels", "resolve_tasks"]
