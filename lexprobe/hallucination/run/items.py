"""Turn sampled cases into rendered questions (`Item`s) and engine requests, deterministically.

An item's id names its task, level, prompt style and case, so rerunning the same command produces the same ids and
the engine resumes where it stopped. What the item's requests share (task, level, style, case, covariates, the
reference answer) is stored once per item in the run store (`tasks/item.py`, `store_items`), so a run directory
holds everything needed to score and report it later.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from lexprobe.caselaw.query import CaseDatabase
from lexprobe.caselaw.sampling import SampleResult, YearWindow, sample_cases, subsample, window_text
from lexprobe.engine.store import RunStore
from lexprobe.hallucination.prompts.render import has_template, render_prompt
from lexprobe.hallucination.scorers.calibration import CALIBRATION_TEMPERATURE
from lexprobe.hallucination.scorers.judge import SAMPLE_TEMPERATURE, SAMPLES
from lexprobe.hallucination.tasks.base import TaskReference, TaskSpec
from lexprobe.hallucination.tasks.cases import SampledCase
from lexprobe.hallucination.tasks.coverage import Coverage, shared_needs, task_coverage
from lexprobe.hallucination.tasks.item import ItemRecord
from lexprobe.models.types import Message, Request


@dataclass(frozen=True)
class Item:
    """One question to one model."""

    item_id: str
    task: str
    level: str
    prompt_style: str
    case_id: str | None
    prompt: str
    reference: TaskReference  # the task's model (`TaskSpec.reference_type`), read from the draft's JSON
    max_tokens: int

    reference_free: bool = False
    calibration_samples: int = 0  # K answers at temperature 1 for the confidence of the greedy answer
    covariates: dict[str, str] = field(default_factory=dict)  # year, circuit, prominence, court_id (for breakdowns)

    def record(self) -> ItemRecord:
        """Return what the run store keeps of this item, once, in its `items` table (`RunStore.add_items`)."""
        return ItemRecord(task=self.task, level=self.level, prompt_style=self.prompt_style, case_id=self.case_id or "",
                          covariates=self.covariates, reference=self.reference)  # fmt: skip

    def requests(self, model: str) -> list[Request]:
        """Return the engine requests of this item: one greedy (temperature 0) request followed by its
        `calibration_samples` samples at temperature 1 (role `calibration`, distinct seeds 1..K), or for a
        reference-free task two samples at temperature 1 (`sample0` carries the pair's score, `sample1` is its
        partner).

        The requests share one prompt message (a paper-size plan has ~450,000 requests: a resumed run and a dry run
        rebuild them all); their tags are only the engine's role tags, the item itself is stored once (`record`)."""
        return self._requests(model, self._variants())

    def first_request(self, model: str) -> Request:
        """Return the first of `requests()` (the greedy request, or `sample0`) without building the others."""
        return self._requests(model, self._variants(first_only=True))[0]

    def request_ids(self) -> list[str]:
        """Return the ids of `requests()`, in the same order, without building them (as `_variants` names them)."""
        if not self.reference_free:
            return [self.item_id, *(f"{self.item_id}@{k}" for k in range(self.calibration_samples))]
        return [f"{self.item_id}#{k}" for k in range(SAMPLES)]

    def _variants(self, first_only: bool = False) -> list[tuple[str, float, dict[str, str], dict[str, int]]]:
        """Return (id, temperature, tags added, seed and sample index) of each request, in the order of `requests`
        (only the first with `first_only`)."""
        if not self.reference_free:
            calibration = {"role": "calibration", "of": self.item_id}
            samples = [
                (f"{self.item_id}@{k}", CALIBRATION_TEMPERATURE, calibration, {"seed": k + 1, "sample_index": k})
                for k in range(0 if first_only else self.calibration_samples)
            ]
            return [(self.item_id, 0.0, {}, {}), *samples]
        return [
            (f"{self.item_id}#{k}", SAMPLE_TEMPERATURE, {"role": f"sample{k}", "pair": self.item_id},
             {"sample_index": k})
            for k in range(1 if first_only else SAMPLES)
        ]  # fmt: skip

    def _requests(self, model: str, variants: list[tuple[str, float, dict[str, str], dict[str, int]]]) -> list[Request]:
        messages = (Message(role="user", content=self.prompt),)
        return [
            Request(model=model, messages=messages, temperature=temperature, max_tokens=self.max_tokens, id=id,
                    tags=extra, **params)
            for id, temperature, extra, params in variants
        ]  # fmt: skip


def store_items(store: RunStore, items: list[Item]) -> int:
    """Write the stored record of every item to the run store (once per item id); return how many were new."""
    return store.add_items({item.item_id: item.record().model_dump_json() for item in items})


@dataclass
class ItemPlan:
    """The items of a run, the (task, level, style) combinations skipped, each with a one-line reason, each task's
    coverage of each level's sample (`coverage.py`) and what each level's sample was drawn from."""

    items: list[Item] = field(default_factory=list)
    skipped: list[tuple[str, str, str, str]] = field(default_factory=list)
    coverage: list[Coverage] = field(default_factory=list)
    samples: dict[str, dict] = field(default_factory=dict)  # level -> years, require, eligible, drawn


def sampled_cases(
    db: CaseDatabase, level: str, n: int, seed: int, years: YearWindow = None, require: tuple[str, ...] = ()
) -> tuple[SampleResult, list[SampledCase]]:
    """Return the stratified sample of a level and its cases as the tasks read them (each with the sample's
    `stratum`)."""
    sample = sample_cases(db, level, n, seed, years, require)
    found = db.get_cases(row["case_id"] for row in sample.rows)
    rows = []
    for row in sample.rows:
        full = found.get(row["case_id"])
        assert full is not None, row["case_id"]  # the sample is drawn from the same database
        rows.append(SampledCase.from_row(full.as_dict(), stratum=row["stratum"]))
    return sample, rows


def _stratum(case: SampledCase) -> str:
    """Return the stratum a sampled case was drawn in (what `subsample` allocates by)."""
    return str(case.stratum)


_COVARIATES = ("year", "circuit", "prominence", "court_id")


def case_covariates(db: CaseDatabase, case_id: str | None, cache: dict[str, dict[str, str]]) -> dict[str, str]:
    """Return the breakdown covariates of a case as tag strings (empty values left out)."""
    if not case_id:
        return {}
    if case_id not in cache:
        case = db.get_case(case_id)
        cache[case_id] = _covariate_tags(SampledCase.from_row(case.as_dict())) if case is not None else {}
    return cache[case_id]


def _covariate_tags(case: SampledCase) -> dict[str, str]:
    """Return the breakdown covariates of a case as tag strings, empty values left out."""
    values = {key: getattr(case, key) for key in _COVARIATES}
    return {key: str(value) for key, value in values.items() if value not in (None, "")}


def plan_items(
    db: CaseDatabase,
    tasks: list[TaskSpec],
    levels: list[str],
    styles: list[str],
    n: int,
    seed: int,
    samples: int = 0,
    *,
    years: dict[str, YearWindow] | None = None,
    complete_cases: bool = False,
    task_n: dict[str, int | None] | None = None,
) -> ItemPlan:
    """Build every item of a run: n sampled cases per level (decided within the level's `years` window; with
    `complete_cases` only cases with every fact the requested tasks need), each supported task in each requested
    style, with `samples` calibration samples per item of a calibrated task (see `calibration.py`).

    `task_n` asks a task about fewer cases than `n`: a stratified part of the same sample (`subsample`), or, for a
    task whose items do not come from the sample, at most that many (None = every one)."""
    plan = ItemPlan()
    covariates: dict[str, dict[str, str]] = {}
    task_n = task_n or {}
    for level in levels:
        window = (years or {}).get(level)
        require = shared_needs(tasks, level) if complete_cases else ()
        sample, cases = sampled_cases(db, level, n, seed, window, require)
        for row in cases:  # the sampled cases' covariates, from the rows just read
            covariates.setdefault(row.case_id, _covariate_tags(row))
        plan.samples[level] = {"years": window_text(window), "require": list(require), "eligible": sample.eligible,
                               "drawn": len(cases)}  # fmt: skip
        for task in tasks:
            if level not in task.levels:
                for style in styles:
                    plan.skipped.append((task.id, level, style, f"the study does not ask {task.id} at this level"))
                continue
            limit = task_n.get(task.id, n)
            offered = subsample(cases, limit, seed, stratum=_stratum) if limit is not None else cases
            drafts = task.builder(db, offered, level, limit if limit is not None else 10**9, seed)
            plan.coverage.append(task_coverage(db, task, level, offered, drafts))
            for style in styles:
                if reason := _style_skipped(task, level, style, drafts):
                    plan.skipped.append((task.id, level, style, reason))
                else:
                    plan.items.extend(_items(db, task, level, style, drafts, samples, covariates))
    return plan


def _style_skipped(task: TaskSpec, level: str, style: str, drafts) -> str | None:
    """Why `task` asks nothing at `level` in `style` (None: it asks its drafts)."""
    if style not in task.styles:
        return task.style_note or f"{task.id} has no {style}-shot template"
    if drafts is None or drafts.skipped:
        return drafts.skipped if drafts else "no builder"
    if not has_template(task.template, style, level):
        return f"no {style}-shot examples written for {level}"
    return None


def _items(db: CaseDatabase, task: TaskSpec, level: str, style: str, drafts, samples: int,
           covariates: dict[str, dict[str, str]]) -> list[Item]:  # fmt: skip
    """The items of `task`'s drafts at `level` in `style`."""
    return [
        Item(
            item_id=f"{task.id}|{level}|{style}|{draft.key}",
            task=task.id,
            level=level,
            prompt_style=style,
            case_id=draft.case_id,
            prompt=render_prompt(task.template, style, level, draft.variables),
            reference=task.reference_of(draft.reference),
            max_tokens=task.max_tokens,
            reference_free=task.reference_free,
            calibration_samples=samples if task.calibrated else 0,
            covariates=case_covariates(db, draft.case_id, covariates),
        )
        for draft in drafts.items
    ]
