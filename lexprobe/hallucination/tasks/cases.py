"""The case a task asks about: `SampledCase`, the typed facts of one sampled (or looked-up) case that the task
builders, their reference functions and the answer lookups of `score-answers` read.

A run's sample is read from the case database once (`run/items.sampled_cases`) and carried as `SampledCase`s from
there through every builder; an answer scored outside a run finds its case the same way (`tasks/base.find_case`).
Only the facts a task derives from (and the breakdown covariates) are fields: the stored items hold what the
builders make of them (template variables, references, covariate tags), never the case itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from typing import Any

__all__ = ["SampledCase"]


@dataclass(frozen=True)
class SampledCase:
    """One case as the tasks see it: the columns of `caselaw.stored.Case` a task reads, and the stratum of the sample
    it was drawn in (None for a case looked up by name or citation)."""

    case_id: str
    name: str | None = None
    citation: str | None = None
    year: int | None = None
    decision_date: str | None = None
    court_id: str | None = None
    author: str | None = None
    disposition: str | None = None
    majority_opinion_id: str | None = None
    overruled_year: int | None = None
    circuit: str | None = None
    prominence: float | None = None
    stratum: str | None = None

    @classmethod
    def from_row(cls, row: Mapping[str, Any], stratum: str | None = None) -> SampledCase:
        """Return the case of a mapping keyed by column name (a `Case.as_dict()`); keys that are no field are
        ignored, missing ones are None; `stratum`, when given, overrides the row's."""
        values = {field.name: row.get(field.name) for field in fields(cls)}
        if stratum is not None:
            values["stratum"] = stratum
        return cls(**values)

    def as_dict(self) -> dict[str, Any]:
        """Return the fields as a plain dict keyed by column name."""
        return asdict(self)
