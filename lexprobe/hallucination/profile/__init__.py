"""The hallucination profile of scored runs: the scored units read from run stores (`results`), which units a
profile pools and in which order (`selection`), the rate tables, breakdowns and justice bias (`stats`) and the
calibration curves and ECE (`calibration`, numpy imported there only).

May import: `labels`, `reader`, `tasks` of this domain; `lexprobe.caselaw`, `lexprobe.engine`, `lexprobe.stats`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lexprobe.lazy import lazy_exports

if TYPE_CHECKING:
    from lexprobe.hallucination.profile.calibration import calibration_curves, calibration_rows
    from lexprobe.hallucination.profile.results import (
        ROLE_SQL,
        RUN_KIND,
        SKIPPED_ROLES,
        Unit,
        is_self_judged,
        read_runs,
        read_units,
    )
    from lexprobe.hallucination.profile.stats import (
        BALANCED_TASKS,
        CIRCUIT_FIRST_YEAR,
        COMPLEXITY_ORDER,
        ERAS,
        LEVEL_ORDER,
        PROMPT_STYLE_SELECTIONS,
        PROMPT_STYLE_TEXT,
        SINGLE_CLASS_NOTE,
        breakdowns,
        era_of,
        justice_bias,
        no_reference,
        profile,
        prominence_decile,
        rate_rows,
        single_class_notes,
    )

__all__ = [
    "BALANCED_TASKS",
    "CIRCUIT_FIRST_YEAR",
    "COMPLEXITY_ORDER",
    "ERAS",
    "LEVEL_ORDER",
    "PROMPT_STYLE_SELECTIONS",
    "PROMPT_STYLE_TEXT",
    "ROLE_SQL",
    "RUN_KIND",
    "SINGLE_CLASS_NOTE",
    "SKIPPED_ROLES",
    "Unit",
    "breakdowns",
    "calibration_curves",
    "calibration_rows",
    "era_of",
    "is_self_judged",
    "justice_bias",
    "no_reference",
    "profile",
    "prominence_decile",
    "rate_rows",
    "read_runs",
    "read_units",
    "single_class_notes",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    globals(),
    {
        "BALANCED_TASKS": "stats",
        "CIRCUIT_FIRST_YEAR": "stats",
        "COMPLEXITY_ORDER": "stats",
        "ERAS": "stats",
        "LEVEL_ORDER": "stats",
        "PROMPT_STYLE_SELECTIONS": "stats",
        "PROMPT_STYLE_TEXT": "stats",
        "ROLE_SQL": "results",
        "RUN_KIND": "results",
        "SINGLE_CLASS_NOTE": "stats",
        "SKIPPED_ROLES": "results",
        "Unit": "results",
        "breakdowns": "stats",
        "calibration_curves": "calibration",
        "calibration_rows": "calibration",
        "era_of": "stats",
        "is_self_judged": "results",
        "justice_bias": "stats",
        "no_reference": "stats",
        "profile": "stats",
        "prominence_decile": "stats",
        "rate_rows": "stats",
        "read_runs": "results",
        "read_units": "results",
        "single_class_notes": "stats",
    },
)
