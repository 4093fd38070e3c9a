"""Turn sampled cases into rendered questions (`Item`s) and engine requests, deterministically.

An item's id names its task, level, prompt style and case, so rerunning the same command produces the same ids and
the engine resumes where it stopped. The reference answer travels in the request's tags (tags never change the
cache key), so a run directory holds everything needed to score and report it later.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from lexprobe.caselaw.query import CaseDatabase
from lexprobe.caselaw.sampling import sample_cases
from lexprobe.hallucination.prompts import has_template, render_prompt
from lexprobe.hallucination.tasks import TaskSpec
from lexprobe.models.types import Request


@dataclass(frozen=True)
class Item:
    """One question to one model."""

    item_id: str
    task: str
    level: str
    prompt_style: str
    case_id: str | None
    prompt: str
    reference: dict
    max_tokens: int

    def request(self, model: str) -> Request:
        """Return the temperature-0 engine request for this item."""
        tags = {
            "task": self.task,
            "level": self.level,
            "prompt_style": self.prompt_style,
            "case_id": self.case_id or "",
            "reference": json.dumps(self.reference, sort_keys=True),
        }
        return Request.from_prompt(
            model, self.prompt, temperature=0.0, max_tokens=self.max_tokens, id=self.item_id, tags=tags
        )


@dataclass
class ItemPlan:
    """The items of a run and the (task, level, style) combinations skipped, each with a one-line reason."""

    items: list[Item] = field(default_factory=list)
    skipped: list[tuple[str, str, str, str]] = field(default_factory=list)


def sampled_cases(db: CaseDatabase, level: str, n: int, seed: int) -> list[dict]:
    """Return full case rows for the stratified sample of a level."""
    sample = sample_cases(db, level, n, seed)
    rows = []
    for row in sample.rows:
        full = db.conn.execute("SELECT * FROM cases WHERE case_id = ?", (row["case_id"],)).fetchone()
        rows.append(dict(full))
    return rows


def plan_items(
    db: CaseDatabase, tasks: list[TaskSpec], levels: list[str], styles: list[str], n: int, seed: int
) -> ItemPlan:
    """Build every item of a run: n sampled cases per level, each supported task in each requested style."""
    plan = ItemPlan()
    for level in levels:
        cases = sampled_cases(db, level, n, seed)
        for task in tasks:
            if level not in task.levels:
                for style in styles:
                    plan.skipped.append((task.id, level, style, f"the study does not ask {task.id} at this level"))
                continue
            drafts = task.builder(db, cases, level, n, seed) if task.builder else None
            for style in styles:
                if style not in task.styles:
                    plan.skipped.append((task.id, level, style, f"{task.id} has no {style}-shot template"))
                elif drafts is None or drafts.skipped:
                    plan.skipped.append((task.id, level, style, drafts.skipped if drafts else "no builder"))
                elif not has_template(task.template, style, level):
                    plan.skipped.append((task.id, level, style, f"no {style}-shot examples written for {level}"))
                else:
                    for draft in drafts.items:
                        plan.items.append(
                            Item(
                                item_id=f"{task.id}|{level}|{style}|{draft.key}",
                                task=task.id,
                                level=level,
                                prompt_style=style,
                                case_id=draft.case_id,
                                prompt=render_prompt(task.template, style, level, draft.variables),
                                reference=draft.reference,
                                max_tokens=task.max_tokens,
                            )
                        )
    return plan
