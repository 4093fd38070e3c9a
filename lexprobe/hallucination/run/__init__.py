"""One hallucination run: sampled cases turned into rendered items and engine requests (`items`), what a resumed
run still has to send (`resume`) and the run itself: sample, send, score, report (`runner`).

May import: every other package of this domain; `lexprobe.caselaw`, `lexprobe.engine`, `lexprobe.models`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lexprobe.lazy import lazy_exports

if TYPE_CHECKING:
    from lexprobe.hallucination.run.items import Item, ItemPlan, plan_items
    from lexprobe.hallucination.run.resume import requests_to_run
    from lexprobe.hallucination.run.runner import (
        SELF_JUDGED,
        SELF_JUDGED_WARNING,
        ProfileResult,
        ProfileSettings,
        design_settings,
        estimate_plan,
        judge_estimates,
        run_profile,
    )

__all__ = [
    "SELF_JUDGED",
    "SELF_JUDGED_WARNING",
    "Item",
    "ItemPlan",
    "ProfileResult",
    "ProfileSettings",
    "design_settings",
    "estimate_plan",
    "judge_estimates",
    "plan_items",
    "requests_to_run",
    "run_profile",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    globals(),
    {
        "Item": "items",
        "ItemPlan": "items",
        "ProfileResult": "runner",
        "ProfileSettings": "runner",
        "SELF_JUDGED": "runner",
        "SELF_JUDGED_WARNING": "runner",
        "design_settings": "runner",
        "estimate_plan": "runner",
        "judge_estimates": "runner",
        "plan_items": "items",
        "requests_to_run": "resume",
        "run_profile": "runner",
    },
)
