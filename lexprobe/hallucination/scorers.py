"""The scorers of every reference-based task, by task id: `SCORERS[task](answer, reference, context) -> Score`.

Each scorer lives in its task's module (`tasks/<task>.py`, registered with `@scorer`); the shared machinery and the
stance rules are in `scoring.py`. Importing this module imports every task so the registry is complete.
"""

from __future__ import annotations

import lexprobe.hallucination.tasks  # noqa: F401 - registers every task's scorer
from lexprobe.hallucination.scoring import SCORERS, Scorer, ScoringContext

__all__ = ["SCORERS", "Scorer", "ScoringContext"]
