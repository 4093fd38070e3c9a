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
from lexprobe.hallucination.judge import SAMPLE_TEMPERATURE, SAMPLES
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

    reference_free: bool = False

    def tags(self) -> dict[str, str]:
        """Return the bookkeeping tags every request of this item carries."""
        return {
            "task": self.task,
            "level": self.level,
            "prompt_style": self.prompt_style,
            "case_id": self.case_id or "",
            "reference": json.dumps(self.reference, sort_keys=True),
        }

    def requests(self, model: str) -> list[Request]:
        """Return the engine requests of this item: one greedy (temperature 0) request, or for a reference-free
        task two samples at temperature 1 (`sample0` carries the pair's score, `sample1` is its partner)."""
        if not self.reference_free:
            request = Request.from_prompt(
                model, self.prompt, temperature=0.0, max_tokens=self.max_tokens, id=self.item_id, tags=self.tags()
            )
            return [request]
        return [
            Request.from_prompt(
                model,
                self.prompt,
                temperature=SAMPLE_TEMPERATURE,
                sample_index=k,
                max_tokens=self.max_tokens,
                id=f"{self.item_id}#{k}",
                tags=self.tags() | {"role": f"sample{k}", "pair": self.item_id},
            )
            for k in range(SAMPLES)
        ]


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
                                reference_free=task.reference_free,
                            )
                        )
    return plan
