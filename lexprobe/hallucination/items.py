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
from lexprobe.hallucination.calibration import CALIBRATION_TEMPERATURE, is_calibrated
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
    calibration_samples: int = 0  # K answers at temperature 1 for the confidence of the greedy answer
    covariates: dict[str, str] = field(default_factory=dict)  # year, circuit, prominence, court_id (for breakdowns)

    def tags(self) -> dict[str, str]:
        """Return the bookkeeping tags every request of this item carries (covariates included)."""
        return self.covariates | {
            "task": self.task,
            "level": self.level,
            "prompt_style": self.prompt_style,
            "case_id": self.case_id or "",
            "reference": json.dumps(self.reference, sort_keys=True),
        }

    def requests(self, model: str) -> list[Request]:
        """Return the engine requests of this item: one greedy (temperature 0) request followed by its
        `calibration_samples` samples at temperature 1 (role `calibration`, distinct seeds 1..K), or for a
        reference-free task two samples at temperature 1 (`sample0` carries the pair's score, `sample1` is its
        partner)."""
        if not self.reference_free:
            greedy = Request.from_prompt(
                model, self.prompt, temperature=0.0, max_tokens=self.max_tokens, id=self.item_id, tags=self.tags()
            )
            samples = [
                Request.from_prompt(
                    model,
                    self.prompt,
                    temperature=CALIBRATION_TEMPERATURE,
                    seed=k + 1,
                    sample_index=k,
                    max_tokens=self.max_tokens,
                    id=f"{self.item_id}@{k}",
                    tags=self.tags() | {"role": "calibration", "of": self.item_id},
                )
                for k in range(self.calibration_samples)
            ]
            return [greedy, *samples]
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


_COVARIATES = ("year", "circuit", "prominence", "court_id")


def case_covariates(db: CaseDatabase, case_id: str | None, cache: dict[str, dict[str, str]]) -> dict[str, str]:
    """Return the breakdown covariates of a case as tag strings (empty values left out)."""
    if not case_id:
        return {}
    if case_id not in cache:
        row = db.conn.execute(f"SELECT {', '.join(_COVARIATES)} FROM cases WHERE case_id = ?", (case_id,)).fetchone()
        values = dict(zip(_COVARIATES, row, strict=True)) if row else {}
        cache[case_id] = {key: str(value) for key, value in values.items() if value not in (None, "")}
    return cache[case_id]


def plan_items(
    db: CaseDatabase,
    tasks: list[TaskSpec],
    levels: list[str],
    styles: list[str],
    n: int,
    seed: int,
    samples: int = 0,
) -> ItemPlan:
    """Build every item of a run: n sampled cases per level, each supported task in each requested style, with
    `samples` calibration samples per item of a calibrated task (see `calibration.py`)."""
    plan = ItemPlan()
    covariates: dict[str, dict[str, str]] = {}
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
                                calibration_samples=samples if is_calibrated(task.id, task.reference_free) else 0,
                                covariates=case_covariates(db, draft.case_id, covariates),
                            )
                        )
    return plan
