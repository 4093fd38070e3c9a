"""Which scored units a hallucination profile pools, and in which order its rows come: the prompt-style selection
of the pooled figures and the pooled ECE (few-shot by default, as the study), the true-premise reference-based units
the study's pooled figures use, and the table order (task, level, zero-shot first, model)."""

from __future__ import annotations

from lexprobe.hallucination.profile.results import Unit
from lexprobe.hallucination.tasks import TASKS

#: The answers the pooled figures and the pooled ECE use, by `--prompt-style`: "few" (the study's choice: the
#: few-shot answers, and the zero-shot answers of tasks the study asks zero-shot only), "zero", or "all".
PROMPT_STYLE_SELECTIONS = ("few", "zero", "all")
FALSE_PREMISE = "false premise"
LEVEL_ORDER = ("scotus", "coa", "district")


def row_order(key: tuple[str, str, str, str]) -> tuple:
    """Return the sort key of a (model, task, level, prompt style) row: task registry order, level, zero-shot first."""
    model, task, level, style = key
    task_index = list(TASKS).index(task) if task in TASKS else len(TASKS)
    level_index = LEVEL_ORDER.index(level) if level in LEVEL_ORDER else len(LEVEL_ORDER)
    return (task_index, level_index, style != "zero", model)


def true_premise_reference_based(unit: Unit) -> bool:
    """The units the study's pooled figures use: reference-based tasks with a true premise."""
    return not unit.reference_free and unit.complexity != FALSE_PREMISE


def in_prompt_style(unit: Unit, selection: str) -> bool:
    """Whether a unit belongs to the answers `selection` (see `PROMPT_STYLE_SELECTIONS`) picks for the pooled
    figures: "few" takes the few-shot answers, and the zero-shot answers of a task the study asks zero-shot only
    (reference-free and contra-factual tasks, which Figures 1 and 7 show); "zero" the zero-shot answers; "all"
    every answer. Raises ValueError on another selection."""
    if selection == "all":
        return True
    if selection == "zero":
        return unit.prompt_style == "zero"
    if selection == "few":
        spec = TASKS.get(unit.task)
        zero_only = spec is not None and "few" not in spec.styles
        return unit.prompt_style == "few" or (zero_only and unit.prompt_style == "zero")
    raise ValueError(f"prompt style must be one of {', '.join(PROMPT_STYLE_SELECTIONS)}, not {selection!r}")
