"""`lexprobe hallucination report`'s work: read run directories and compute everything the report shows (rates,
breakdowns, calibration, coverage, batch and reader counts, the paper's reference block); the command prints it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lexprobe.errors import BadInputError
from lexprobe.hallucination.profile.results import RunInfo, Unit

__all__ = ["REFERENCE_CHOICES", "CollectedReport", "ReportSettings", "collect_report", "mark_self_judged"]

#: `hallucination report --reference`: none, or the published estimates of the paper.
REFERENCE_CHOICES = ("none", "paper")


@dataclass(frozen=True)
class ReportSettings:
    """The report's statistics: calibration bins, Platt hold-out, seed, pooled prompt style, reference."""

    bins: int = 10
    holdout: float = 0.5
    seed: int = 0
    prompt_style: str = "few"
    reference: str = "none"


@dataclass
class CollectedReport:
    """Everything a report of some runs shows."""

    infos: list[RunInfo]
    units: list[Unit]
    stats: dict[str, Any]
    models: list[dict]
    coverage: list[dict]
    batched: list[dict]  # per run: how many answers came by a provider's batch API
    readers: list[dict]  # answers labelled by a --reader model
    reference: dict | None  # `--reference paper`'s block

    def to_json(self) -> dict[str, Any]:
        """The report as one JSON object (a single run's rate rows at the top level too)."""
        from lexprobe.hallucination.report.summary import report_json, report_rows

        single: dict[str, Any] = {}
        if len(self.infos) == 1:
            model = self.models[0]
            single = report_json(self.infos[0].model, report_rows(self.units))
            single["rows"] = mark_self_judged(single["rows"], self_judged(self.models), model["model"])
            single |= {"judge": model["judge"], "self_judged": model["self_judged"]}
        extra = {"reference": self.reference} if self.reference is not None else {}
        return single | {"models": self.models} | self.stats | {"coverage": self.coverage, "batch": self.batched,
                                                                 "readers": self.readers} | extra  # fmt: skip


def self_judged(models: list[dict]) -> set[str]:
    """The models (report rows) that judged their own reference-free pairs."""
    return {row["model"] for row in models if row["self_judged"]}


def mark_self_judged(rows: list[dict], judged_self: set[str], model: str | None = None) -> list[dict]:
    """Add `self_judged` to JSON rate rows: true on a reference-free task's row whose model (the row's `model`, else
    `model`) judged its own pairs."""
    from lexprobe.hallucination.tasks import TASKS

    for row in rows:
        task = TASKS.get(row.get("task", ""))
        row["self_judged"] = bool(task and task.reference_free and row.get("model", model) in judged_self)
    return rows


def collect_report(run_dirs: list[Path], settings: ReportSettings) -> CollectedReport:
    """Read `run_dirs` and compute their report. BadInputError for an unknown prompt style or reference, or a run
    directory that is missing."""
    from lexprobe.caselaw.judges import load_roster
    from lexprobe.engine.batch.status import batch_counts
    from lexprobe.hallucination.profile.results import read_runs
    from lexprobe.hallucination.profile.stats import PROMPT_STYLE_SELECTIONS, profile
    from lexprobe.hallucination.report.readings import reader_counts

    if settings.prompt_style not in PROMPT_STYLE_SELECTIONS:
        raise BadInputError(f"unknown --prompt-style {settings.prompt_style!r}; valid: "
                            f"{', '.join(PROMPT_STYLE_SELECTIONS)}")  # fmt: skip
    if settings.reference not in REFERENCE_CHOICES:
        raise BadInputError(f"unknown --reference {settings.reference!r}; valid: {', '.join(REFERENCE_CHOICES)}")
    try:
        infos, units = read_runs(run_dirs)
    except FileNotFoundError as exc:
        raise BadInputError(str(exc)) from None
    stats = profile(units, load_roster(), bins=settings.bins, seed=settings.seed, holdout=settings.holdout,
                    prompt_style=settings.prompt_style)  # fmt: skip
    models = [info.as_row() for info in infos]
    mark_self_judged(stats["rates"], self_judged(models))
    coverage = [row for info in infos for row in info.coverage_rows()]
    batched = [batch_counts(info.run_dir) for info in infos]
    reference = None
    if settings.reference == "paper":
        from lexprobe.hallucination.paper_figures.compare import paper_comparison

        reference = paper_comparison(stats, models, units)
    return CollectedReport(infos, units, stats, models, coverage, batched, reader_counts(units), reference)
