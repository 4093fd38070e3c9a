"""The task catalogue: the pure data of every task (the study's Table 2 wording, template, complexity, token budget,
levels, prompt styles, needed case facts, calibration, population), one row a task in `catalogue.toml`, read once.

The rows are data and nothing else, as reporters-db keeps eyecite's reporters: reviewing a task's wording against
the paper means reading one table, and a task module holds only behaviour (its reference, builder, lookup, scorer
and extraction), bound to its row by id in `tasks/base.py` (`catalogued`). The registry order is the row order.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, fields
from importlib.resources import files
from typing import Any


@dataclass(frozen=True, kw_only=True)
class TaskRow:
    """One row of the catalogue: the data fields of a `TaskSpec` (None: the `TaskSpec` default), plus `has` and
    `lacks`, the messages of a task about one fact of each sampled case (its builder skips a level where no case
    has the fact; its lookup says why an outside answer's case has no reference)."""

    id: str
    question: str
    template: str
    complexity: str
    max_tokens: int
    levels: tuple[str, ...] | None = None
    styles: tuple[str, ...] | None = None
    needs: tuple[str, ...] = ()
    calibrated: bool = False
    not_calibrated: str = ""
    style_note: str = ""
    population: str = ""
    balanced_on: str = ""
    has: str = ""
    lacks: str = ""

    def spec_fields(self) -> dict[str, Any]:
        """Return the row's `TaskSpec` keyword arguments (without `has`, `lacks` and the fields left to default)."""
        values = {field.name: getattr(self, field.name) for field in fields(self)}
        return {key: value for key, value in values.items() if key not in ("has", "lacks") and value is not None}


def _row(table: dict[str, Any]) -> TaskRow:
    """Return a catalogue row from its TOML table (lists become tuples); raises TypeError on an unknown key."""
    return TaskRow(**{key: tuple(value) if isinstance(value, list) else value for key, value in table.items()})


def load_catalogue(text: str) -> dict[str, TaskRow]:
    """Return the rows of a catalogue's TOML text by id, in their order; raises ValueError on a repeated id."""
    rows = [_row(table) for table in tomllib.loads(text)["task"]]
    catalogue = {row.id: row for row in rows}
    if len(catalogue) != len(rows):
        raise ValueError("two catalogue rows share an id")
    return catalogue


#: Every task's data by id, in the order `lexprobe hallucination tasks` and the reports list them.
CATALOGUE: dict[str, TaskRow] = load_catalogue(files(__package__).joinpath("catalogue.toml").read_text("utf-8"))

__all__ = ["CATALOGUE", "TaskRow", "load_catalogue"]
