"""`lexprobe hallucination run`: sample, build items, send them through the engine at temperature 0, score, report.

The run directory's SQLite store holds the requests (with each item's reference in its tags), the answers and the
scores, so `lexprobe hallucination report RUN_DIR` can reprint the table later and a killed run resumes.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from lexprobe.caselaw.query import CaseDatabase
from lexprobe.engine import Engine, EngineConfig, Estimate, ResponseCache, RunStore, RunSummary, estimate_run
from lexprobe.hallucination.items import ItemPlan, plan_items
from lexprobe.hallucination.report import ReportRow, pending_judge_requests, score_run, summarize
from lexprobe.hallucination.results import RUN_KIND
from lexprobe.hallucination.scorers import ScoringContext
from lexprobe.hallucination.tasks import TaskSpec


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

    @property
    def judge_model(self) -> str:
        """The model that judges reference-free pairs."""
        return self.judge or self.model

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
        }

    @staticmethod
    def comparable(meta: dict) -> dict:
        """Return stored settings in the form two runs are compared in: the same tasks, levels and styles in another
        order ask the same items; a store written before `samples` was always recorded had 0 when it had none."""
        same = dict(meta)
        for key in ("tasks", "levels", "styles"):
            if isinstance(same.get(key), list):
                same[key] = sorted(same[key])
        same.setdefault("samples", 0)
        return same


@dataclass
class ProfileResult:
    """A finished (or partly finished) run."""

    plan: ItemPlan
    summary: RunSummary | None
    rows: list[ReportRow]
    estimate: Estimate | None = None


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
    store = RunStore.open(run_dir)
    try:
        store.check_claim(RUN_KIND, settings.model)
        store.check_settings("settings", settings.to_meta(), ProfileSettings.comparable)
        plan = plan_items(
            db, settings.tasks, settings.levels, settings.styles, settings.n, settings.seed, settings.samples
        )
        requests = [request for item in plan.items for request in item.requests(settings.model)]
        if dry_run:
            return ProfileResult(plan, None, [], estimate_run(requests, store, cache))
        store.claim(RUN_KIND, settings.model)
        store.set_meta("settings", settings.to_meta())
        store.set_meta("skipped", plan.skipped)
        engine = Engine(store, cache, config)
        try:
            summary = await engine.run(requests)
            judges = pending_judge_requests(store, settings.judge_model)
            if judges:
                summary.absorb(await engine.run(judges))
        finally:
            await engine.aclose()
        score_run(store, ScoringContext(db))
        return ProfileResult(plan, summary, summarize(store))
    finally:
        store.close()
