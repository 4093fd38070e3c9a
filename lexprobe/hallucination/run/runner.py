"""`lexprobe hallucination run`: sample, build items, send them through the engine at temperature 0, score, report.

The run directory's SQLite store holds the items (each with its reference, once), their requests, the answers and
the scores, so `lexprobe hallucination report RUN_DIR` can reprint the table later and a killed run resumes.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from lexprobe.caselaw.courts import parse_levels
from lexprobe.caselaw.query import CaseDatabase
from lexprobe.caselaw.sampling import PAPER_YEARS, YearWindow
from lexprobe.engine.cache import ResponseCache
from lexprobe.engine.config import EngineConfig
from lexprobe.engine.estimate import CHARS_PER_TOKEN, Estimate, dry_run_store, estimate_run
from lexprobe.engine.store import RunStore
from lexprobe.engine.summary import RunSummary
from lexprobe.errors import BadInputError
from lexprobe.hallucination.profile.results import RUN_KIND, is_self_judged, read_units
from lexprobe.hallucination.report.readings import reader_counts
from lexprobe.hallucination.report.summary import ReportRow, pending_judge_requests, report_rows, score_run
from lexprobe.hallucination.run.items import Item, ItemPlan, plan_items, store_items
from lexprobe.hallucination.run.resume import requests_to_run
from lexprobe.hallucination.scorers.by_task import ScoringContext
from lexprobe.hallucination.scorers.calibration import DEFAULT_SAMPLES
from lexprobe.hallucination.scorers.judge import judge_request
from lexprobe.hallucination.scorers.model_reader import ReaderPass
from lexprobe.hallucination.tasks.base import TaskSpec
from lexprobe.models.types import Request

#: What "the model judges itself" means wherever a rate of a reference-free task appears.
SELF_JUDGED = "self-judged"
SELF_JUDGED_WARNING = (
    "no --judge given: the model under test judges its own reference-free pairs (self-judged); the study used a "
    "separate, stronger judge (GPT 4), so these rates are not comparable with its Table 5"
)


#: `--design paper`: the study's design (Section 3.1, Tables 3-7, Appendix E.1). Per-task case counts override the
#: per-level sample `n` (None = every case of the task's population, the 279 overruled cases of Table 4).
PAPER_DESIGN: dict[str, object] = {
    "n": 5000,  # cases per level (Tables 3-4)
    "samples": 10,  # K calibration samples (Table 7)
    "styles": ["zero", "few"],  # both where the study asked both; contra-factual and reference-free: zero only
    "levels": ["scotus", "coa", "district"],
    "task_n": {
        "factual_background": 100,  # Table 5: n=100 per level
        "procedural_posture": 100,
        "subsequent_history": 100,
        "core_legal_question": 100,
        "central_holding": 100,
        "doctrinal_agreement": 5000,  # Table 5 note and section 2.3: 2,839 agree + 2,161 disagree pairs
        "overruling_year": None,  # every case overruled in full (n=279 in the study)
        "false_dissent": 1000,  # Table 6: n=1000 per level
        "false_overruling": 1000,
        "fake_existence": 1000,  # Appendix Table 5 (it gives n=5000 for district)
    },
}


def design_settings(
    design: str | None, levels: str | None, styles: str | None, n: int | None, samples: int | None
) -> tuple[list[str], list[str], int, int, dict[str, int | None]]:
    """Return levels, prompt styles, n, K and per-task case counts: the options given, else the design's values
    (`--design paper`: `PAPER_DESIGN`), else the defaults. Raises `BadInputError` for an unknown design."""
    if design not in (None, "", "paper"):
        raise BadInputError(f"unknown --design {design!r}; valid: paper")
    paper = design == "paper"
    level_list = parse_levels(levels) if levels else list(PAPER_DESIGN["levels"] if paper else ["scotus"])
    style_list = [s.strip() for s in styles.split(",") if s.strip()] if styles is not None else ["zero", "few"]
    return (
        list(level_list),
        style_list,
        n if n is not None else (int(PAPER_DESIGN["n"]) if paper else 100),
        samples if samples is not None else (int(PAPER_DESIGN["samples"]) if paper else DEFAULT_SAMPLES),
        dict(PAPER_DESIGN["task_n"]) if paper else {},
    )


@dataclass
class ProfileSettings:
    """What one profiling run asks."""

    model: str
    tasks: list[TaskSpec]
    levels: list[str]
    styles: list[str]
    n: int
    seed: int
    judge: str | None = None  # the contradiction judge for reference-free tasks; None = the model under test
    samples: int = 0  # K calibration samples per item of a calibrated task (0 = no calibration)
    years: dict[str, YearWindow] | None = None  # date window per level; None = the study's (`PAPER_YEARS`)
    complete_cases: bool = False  # sample only cases with every fact the requested tasks need
    task_n: dict[str, int | None] = field(default_factory=dict)  # cases per task where not n (None = all)
    design: str = ""  # "paper" when `--design paper` set the values above
    reader: str | None = None  # `--reader`: the model that reads answers the rules leave unscored (not a setting
    # of the questions asked: a run resumes with another reader, or none)

    @property
    def judge_model(self) -> str:
        """The model that judges reference-free pairs."""
        return self.judge or self.model

    @property
    def self_judged(self) -> bool:
        """Whether the model under test judges its own reference-free pairs."""
        return is_self_judged(self.model, self.judge)

    @property
    def windows(self) -> dict[str, YearWindow]:
        """The date window of each level (the study's unless `years` says otherwise)."""
        years = self.years if self.years is not None else PAPER_YEARS
        return {level: years.get(level) for level in self.levels}

    def to_meta(self) -> dict:
        """Return the settings as JSON-ready data for the run store."""
        return {
            "model": self.model,
            "tasks": [t.id for t in self.tasks],
            "levels": self.levels,
            "styles": self.styles,
            "n": self.n,
            "seed": self.seed,
            "judge": self.judge_model,
            "samples": self.samples,
            "years": {level: list(window) if window else None for level, window in self.windows.items()},
            "complete_cases": self.complete_cases,
            "task_n": dict(self.task_n),
            "design": self.design,
        }

    @staticmethod
    def comparable(meta: dict) -> dict:
        """Return stored settings in the form two runs are compared in: the same tasks, levels and styles in another
        order ask the same items; a store written before `samples`, `years`, `complete_cases` and `task_n` were
        recorded had none of them (no date window); the design's name is not compared, only its values."""
        same = dict(meta)
        for key in ("tasks", "levels", "styles"):
            if isinstance(same.get(key), list):
                same[key] = sorted(same[key])
        same.setdefault("samples", 0)
        same.setdefault("years", dict.fromkeys(same.get("levels") or []))
        same.setdefault("complete_cases", False)
        same.setdefault("task_n", {})
        same.pop("design", None)
        return same


def judge_estimates(items: list[Item], judge_model: str) -> list[Request]:
    """Return a stand-in for the judge request of every reference-free pair, for a dry run: both samples as long as
    their `max_tokens` allows (so the estimate is an upper bound), with the ids the real requests get."""
    requests = []
    for item in items:
        if item.reference_free:
            filler = "x" * (item.max_tokens * CHARS_PER_TOKEN)
            requests.append(judge_request(judge_model, item.item_id, filler, filler, {"pair": item.item_id}))
    return requests


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector while the block builds many small objects that hold no cycles (a
    plan's items and requests): otherwise it passes over the growing heap again and again, which costs a
    paper-size plan seconds. It runs again after the block."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def estimate_plan(
    items: list[Item], model: str, judges: list[Request], store: RunStore, cache: ResponseCache | None
) -> Estimate:
    """Return the dry run's estimate of the items' requests and the judges'. Without a cache an item's requests
    differ only in what an estimate does not read (id, temperature, seed), so only its first is built and the
    others are counted as it (`estimate_run`'s `alike`): a paper-size plan has ~450,000 requests."""
    if cache is not None:  # each request's answer has its own cache key: build them all
        requests = [request for item in items for request in item.requests(model)]
        return estimate_run(requests + judges, store, cache)
    firsts = [item.first_request(model) for item in items]
    alike = {first.request_id: item.request_ids()[1:] for item, first in zip(items, firsts, strict=True)}
    return estimate_run(firsts + judges, store, cache, alike=alike)


@dataclass
class ProfileResult:
    """A finished (or partly finished) run."""

    plan: ItemPlan
    summary: RunSummary | None
    rows: list[ReportRow]
    estimate: Estimate | None = None
    readers: list[dict] = field(default_factory=list)  # `--reader`: how many answers each reader read (`readings`)


async def run_profile(
    settings: ProfileSettings,
    db: CaseDatabase,
    run_dir: Path,
    cache: ResponseCache | None,
    config: EngineConfig,
    *,
    dry_run: bool = False,
) -> ProfileResult:
    """Run (or, with `dry_run`, estimate) a hallucination profile; returns the plan, engine summary and table.

    Raises `RunConflictError` when `run_dir` holds another kind of run, another model's run or a run with other
    settings (naming what differs), `RunDirectoryLocked` while another process runs there, and `StoreError` for a
    run directory that cannot be written.
    """
    store = dry_run_store(run_dir) if dry_run else RunStore.open(run_dir)  # a dry run writes nothing
    try:
        store.check_claim(RUN_KIND, settings.model)
        store.check_settings("settings", settings.to_meta(), ProfileSettings.comparable)
        with collector_paused():  # a paper-size plan: ~450,000 requests, and as many tags dicts
            plan = plan_items(
                db, settings.tasks, settings.levels, settings.styles, settings.n, settings.seed, settings.samples,
                years=settings.windows, complete_cases=settings.complete_cases, task_n=settings.task_n,
            )  # fmt: skip
            if dry_run:
                return ProfileResult(plan, None, [], _estimate(plan, settings, store, cache, config))
            requests, settled = requests_to_run(store, plan.items, settings.model)  # a rerun: the unanswered
        store.claim(RUN_KIND, settings.model)
        store.set_meta("settings", settings.to_meta())
        store.set_meta("skipped", plan.skipped)
        store.set_meta("coverage", [row.to_dict() for row in plan.coverage])
        store.set_meta("samples", plan.samples)
        store_items(store, plan.items)
        from lexprobe.engine.executor import Engine  # here: a dry run never imports the executor and the clients

        store.set_meta("reader", settings.reader)
        engine = Engine(store, cache, config)
        context = ScoringContext(db)
        reader = ReaderPass(settings.reader) if settings.reader else None
        try:
            summary = await engine.run(requests, settled=settled)
            # only a reference-free item asks for a sample pair to judge: the store holds this plan's requests only
            # (check_settings above), so without one there is nothing to read back for judging
            if any(item.reference_free for item in plan.items):
                judges = pending_judge_requests(store, settings.judge_model)
                if judges:
                    summary.absorb(await engine.run(judges))
            if reader is not None:  # the rules first: the answers they leave unscored go to the reader
                score_run(store, context, reader)
                if reader.unread:
                    summary.absorb(await engine.run(reader.unread))
        finally:
            await engine.aclose()
        if reader is None or reader.unread:
            score_run(store, context, ReaderPass(reader.model) if reader is not None else None)
        units = read_units(store, store.get_meta("model") or "unknown")
        return ProfileResult(plan, summary, report_rows(units), readers=reader_counts(units))
    finally:
        store.close()


def _estimate(plan: ItemPlan, settings: ProfileSettings, store: RunStore, cache: ResponseCache | None,
              config: EngineConfig) -> Estimate:  # fmt: skip
    """A dry run's estimate of `plan`: requests, tokens and cost (with `--batch`, the batches' sizes too)."""
    judges = judge_estimates(plan.items, settings.judge_model)
    estimate = estimate_plan(plan.items, settings.model, judges, store, cache)
    if config.batch:  # the batches' sizes need every request's body
        from lexprobe.engine.estimate import batch_estimate

        requests = [request for item in plan.items for request in item.requests(settings.model)]
        estimate.batch = batch_estimate(estimate, requests + judges, store, cache)
    return estimate
