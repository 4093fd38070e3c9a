"""Read one or more hallucination runs into scored units: one per greedy question or reference-free pair.

A unit carries what every breakdown needs: model, task, level, prompt style, the case's covariates (year, circuit,
prominence, court), its label, the greedy answer, the reference, and the confidence where it was measured. Several
runs of the same model are told apart by their run directory's name.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

from lexprobe.engine.sqlite_util import store_error
from lexprobe.engine.store import RUN_DB_NAME, RunStore
from lexprobe.errors import BadInputError
from lexprobe.hallucination.labels.score import CONFIDENCE_SCORER, REFERENCE_SCORER
from lexprobe.hallucination.tasks import TASKS
from lexprobe.hallucination.tasks.base import FALSE_PREMISE, TaskReference
from lexprobe.hallucination.tasks.item import item_of

#: The kind of run a hallucination profile's run directory holds (see `RunStore.claim`).
RUN_KIND = "hallucination"
#: Requests that are not units: a pair's second sample, the judge's and the reader's (`scorers.model_reader`) replies,
#: calibration samples.
SKIPPED_ROLES = ("sample1", "judge", "reader", "calibration")


@dataclass(slots=True)
class Unit:
    """One scored (or pending) question of one model."""

    model: str
    task: str
    level: str
    prompt_style: str
    label: str | None  # correct | hallucination | abstain | unscored | None (pending)
    detail: str = ""
    case_id: str = ""
    year: int | None = None
    circuit: str | None = None
    prominence: float | None = None
    court_id: str | None = None
    answer: str = ""
    reference: TaskReference = field(default_factory=TaskReference)  # the task's model, as its item holds it
    confidence: float | None = None
    reader: str | None = None  # the model whose reading gave the label (`--reader`), None for the rules' labels
    reader_decision: str | None = None  # answer | declined | no answer | unreadable (the reader's reply)

    @property
    def complexity(self) -> str:
        """The study's complexity class of the task (low, moderate, high, false premise)."""
        spec = TASKS.get(self.task)
        return spec.complexity if spec else "unknown"

    @property
    def reference_free(self) -> bool:
        """Whether the task is scored by the contradiction judge (rate is a lower bound)."""
        spec = TASKS.get(self.task)
        return bool(spec and spec.reference_free)

    @property
    def scored(self) -> bool:
        """Whether the unit counts in a rate (abstentions do, as non-hallucinations)."""
        return self.label in ("correct", "hallucination", "abstain")


@dataclass
class RunInfo:
    """What a run directory says about itself."""

    run_dir: Path
    model: str
    label: str  # the model name shown in tables (with the run directory when two runs share a model)
    judge: str | None
    settings: dict
    coverage: list[dict] = field(default_factory=list)  # each task's coverage of each level's sample (`coverage.py`)

    def as_row(self) -> dict:
        """Return {"model", "run_dir", "judge", "self_judged"} as reports list each run (the judge defaults to the
        model; `self_judged`: the model judged its own reference-free pairs)."""
        return {"model": self.label, "run_dir": str(self.run_dir), "judge": self.judge or self.model,
                "self_judged": is_self_judged(self.model, self.judge)}  # fmt: skip

    def coverage_rows(self) -> list[dict]:
        """Return the run's sample coverage rows, each with the model's label under "model"."""
        return [row | {"model": self.label} for row in self.coverage]


def is_self_judged(model: str, judge: str | None) -> bool:
    """Return whether a run's reference-free pairs were judged by the model under test itself."""
    return judge is None or judge == model


def _number(text: str | None, kind: type) -> int | float | None:
    try:
        return kind(text) if text not in (None, "") else None
    except ValueError:
        return None


def read_run(run_dir: Path) -> tuple[RunInfo, list[Unit]]:
    """Return the run's info and units, reading the store read-only (no lock; a read-only folder is fine).

    Raises FileNotFoundError when `run_dir` holds no run, `BadInputError` when it holds another kind of run, and
    `StoreError` naming the file when the store cannot be read (and the table, row and column of a stored value
    that cannot be read back).
    """
    if not (Path(run_dir) / RUN_DB_NAME).is_file():
        raise FileNotFoundError(f"{run_dir} is not a run directory (no {RUN_DB_NAME})")
    store = RunStore.open_read_only(run_dir)
    try:
        kinds = store.kinds()
        if kinds and RUN_KIND not in kinds:
            raise BadInputError(f"{run_dir} holds {'+'.join(kinds)} runs, not a hallucination run")
        settings = store.get_meta("settings") or {}
        model = store.get_meta("model") or settings.get("model") or "unknown"
        coverage = store.get_meta("coverage") or []
        try:
            units = read_units(store, model)
        except sqlite3.Error as exc:
            raise store_error(store.path, exc, store.damaged_hint) from None
    finally:
        store.close()
    return RunInfo(Path(run_dir), model, model, settings.get("judge"), settings, coverage), units


def _text(value: object) -> str | None:
    """Return a stored detail value that should be text, or None (absent, or of another type)."""
    return value if isinstance(value, str) and value else None


def read_units(store: RunStore, model: str) -> list[Unit]:
    """Return the scored (or pending) units of an open run store, one per question or reference-free pair.

    One streamed pass over the unit requests (`RunStore.rows`, each row checked as the store checks it), with each
    unit's stored item (`tasks/item.py`); calibration samples, second samples and judge verdicts are left in the
    store, since their outcome is already in the `confidence` and `reference` scores.
    """
    units = []
    items = store.items()
    for row in store.rows(not_roles=SKIPPED_ROLES, scorers=(REFERENCE_SCORER, CONFIDENCE_SCORER)):
        item = item_of(store, items, row.request)
        label, detail = row.scores.get(REFERENCE_SCORER, (None, {}))
        confidence = row.scores.get(CONFIDENCE_SCORER)
        covariates = item.covariates
        units.append(
            Unit(
                model=model,
                task=item.task,
                level=item.level,
                prompt_style=item.prompt_style,
                label=label,
                detail=str(detail.get("detail", "")),
                case_id=item.case_id,
                year=_number(covariates.get("year"), int),
                circuit=covariates.get("circuit") or None,
                prominence=_number(covariates.get("prominence"), float),
                court_id=covariates.get("court_id") or None,
                answer=row.response.text if row.response is not None else "",
                reference=item.reference,
                confidence=confidence[1].get("confidence") if confidence and confidence[0] == "measured" else None,
                reader=_text(detail.get("reader")),
                reader_decision=_text(detail.get("reader_decision")),
            )
        )
    return units


def read_runs(run_dirs: list[Path]) -> tuple[list[RunInfo], list[Unit]]:
    """Read several runs; runs of the same model are labelled `model (run dir name)` so they stay apart."""
    infos, all_units = [], []
    loaded = [read_run(run_dir) for run_dir in run_dirs]
    models = [info.model for info, _ in loaded]
    for info, units in loaded:
        if models.count(info.model) > 1:
            info.label = f"{info.model} ({info.run_dir.name})"
            for unit in units:
                unit.model = info.label
        infos.append(info)
        all_units.extend(units)
    return infos, all_units


#: The answers the pooled figures and the pooled ECE use, by `--prompt-style`: "few" (the study's choice: the
#: few-shot answers, and the zero-shot answers of tasks the study asks zero-shot only), "zero", or "all".
PROMPT_STYLE_SELECTIONS = ("few", "zero", "all")
LEVEL_ORDER = ("scotus", "coa", "district")


def row_order(key: tuple[str, str, str, str]) -> tuple:
    """Return the sort key of a (model, task, level, prompt style) row: task registry order, level, zero-shot first."""
    model, task, level, style = key
    task_index = list(TASKS).index(task) if task in TASKS else len(TASKS)
    level_index = LEVEL_ORDER.index(level) if level in LEVEL_ORDER else len(LEVEL_ORDER)
    return (task_index, level_index, style != "zero", model)


def true_premise_reference_based(unit: Unit) -> bool:
    """The units the study's pooled figures use: reference-based tasks with a true premise."""
    return not unit.reference_free and unit.complexity != FALSE_PREMISE


def in_prompt_style(unit: Unit, selection: str) -> bool:
    """Whether a unit belongs to the answers `selection` (see `PROMPT_STYLE_SELECTIONS`) picks for the pooled
    figures: "few" takes the few-shot answers, and the zero-shot answers of a task the study asks zero-shot only
    (reference-free and contra-factual tasks, which Figures 1 and 7 show); "zero" the zero-shot answers; "all"
    every answer. Raises ValueError on another selection."""
    if selection == "all":
        return True
    if selection == "zero":
        return unit.prompt_style == "zero"
    if selection == "few":
        spec = TASKS.get(unit.task)
        zero_only = spec is not None and "few" not in spec.styles
        return unit.prompt_style == "few" or (zero_only and unit.prompt_style == "zero")
    raise ValueError(f"prompt style must be one of {', '.join(PROMPT_STYLE_SELECTIONS)}, not {selection!r}")
