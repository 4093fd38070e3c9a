"""`lexprobe export RUN_DIR --format inspect`: a lexprobe run (hallucination, investigation or QA) as an Inspect
`.eval` log, written by Inspect's own `.eval` writer so `inspect view`, `read_eval_log` and `samples_df` read it.

Streamed. `inspect_ai.log.write_eval_log` takes a whole `EvalLog`, every sample in memory, and hands its samples to
the `.eval` recorder behind it without flushing, which keeps them all buffered. Inspect has no public API that
writes samples one at a time, so this module drives that same recorder (`inspect_ai.log._recorders`, the private
package `write_eval_log` and `inspect log convert --stream` use: `log_init`, `log_start`, `log_sample`, `flush`,
`log_finish`) and flushes its buffer every `FLUSH_EVERY` samples. What stays in memory grows only by Inspect's
per-sample summary (the `summaries.json` index of a `.eval` file, about 11 KiB an item: BENCHMARKS.md) and
lexprobe's per-item label for the rates.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from lexprobe import __version__
from lexprobe.engine.store import RUN_DB_NAME, RunStore
from lexprobe.errors import BadInputError, InputNotFoundError

__all__ = ["FLUSH_EVERY", "RUN_KINDS", "InspectExport", "eval_spec", "export_inspect_log", "run_kind"]

#: The kinds of run an Inspect log can be made of, and the Inspect task name each is logged under.
RUN_KINDS = {"hallucination": "lexprobe/hallucination", "investigation": "lexprobe/investigation",
             "qa": "lexprobe/investigation_qa"}  # fmt: skip
#: Samples buffered by the recorder between two writes into the log's zip (a write costs a copy of the zip so far:
#: about the square root of a paper-size run keeps both the buffer and the copies small).
FLUSH_EVERY = 500


@dataclass
class InspectExport:
    """What one export wrote."""

    out: Path
    kind: str
    model: str
    samples: int
    scored: int
    pending: int
    seconds: float
    metrics: dict[str, float] = field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        """The export as the command's --json prints it."""
        return {"format": "inspect", "out": str(self.out), "kind": self.kind, "model": self.model,
                "samples": self.samples, "scored": self.scored, "pending": self.pending,
                "seconds": round(self.seconds, 3), "metrics": self.metrics}  # fmt: skip


def _stored_kinds(run_dir: Path) -> list[str]:
    if not (run_dir / RUN_DB_NAME).is_file():
        return []
    store = RunStore.open_read_only(run_dir)
    try:
        return store.kinds()
    finally:
        store.close()


def run_kind(run_dir: Path, kind: str | None = None) -> str:
    """Return which kind of run `run_dir` holds (`kind` chooses where one directory holds an investigation and a
    QA run). Raises `InputNotFoundError` for a missing directory and `BadInputError` for one that holds no run
    lexprobe can export, or two kinds and no `kind`."""
    from lexprobe.interop.investigation_samples import episode_files, qa_files

    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        raise InputNotFoundError(f"run directory {run_dir} does not exist")
    found = [k for k in _stored_kinds(run_dir) if k in RUN_KINDS]
    found += [
        k for k, files in (("investigation", episode_files), ("qa", qa_files)) if k not in found and files(run_dir)
    ]
    if kind is not None:
        if kind not in RUN_KINDS:
            raise BadInputError(f"unknown run kind {kind!r}; valid: {', '.join(RUN_KINDS)}")
        if kind not in found:
            raise BadInputError(f"{run_dir} holds no {kind} run (it holds: {', '.join(found) or 'none'})")
        return kind
    if not found:
        raise BadInputError(f"{run_dir} is not a lexprobe run (no {RUN_DB_NAME} of a hallucination run, no episodes/ "
                            "or qa/ records)")  # fmt: skip
    if len(found) > 1:
        raise BadInputError(f"{run_dir} holds {' and '.join(found)} runs; choose one with --kind")
    return found[0]


def eval_spec(kind: str, model: str, run_dir: Path, count: int, task_args: dict[str, Any]) -> Any:
    """The log's `EvalSpec`: the Inspect task a `kind` run is logged under, its model, its settings as task
    arguments, the run directory as the dataset (`count` items)."""
    from inspect_ai.log import EvalConfig, EvalDataset, EvalSpec

    return EvalSpec(
        created=datetime.now(UTC).isoformat(), task=RUN_KINDS[kind], task_registry_name=RUN_KINDS[kind],
        task_args=task_args, dataset=EvalDataset(name=f"lexprobe {kind} run {run_dir.name}", location=str(run_dir),
                                                 samples=count),
        model=model, config=EvalConfig(), packages={"lexprobe": __version__},
        metadata={"exported_by": "lexprobe export", "run_dir": str(run_dir), "run_kind": kind},
    )  # fmt: skip


class Samples(Protocol):
    """A run's samples, iterated once, and afterwards the log's scores (`hallucination_samples`,
    `investigation_samples`)."""

    def __iter__(self) -> Iterator[Any]: ...

    def results(self) -> list[Any]: ...


async def _write(out: Path, spec: Any, samples: Samples, progress: Callable[[int], None]) -> tuple[int, int, Any]:
    """Write `samples` through Inspect's `.eval` recorder (see the module docstring), then the header with the
    scores `samples.results()` gives; return (samples, pending, the results)."""
    from inspect_ai.log import EvalPlan, EvalResults, EvalStats
    from inspect_ai.log._recorders import create_recorder_for_location  # no public API writes samples one by one

    recorder = create_recorder_for_location(str(out), str(out.parent))
    await recorder.log_init(spec, str(out), clean=True)
    await recorder.log_start(spec, EvalPlan())
    started = datetime.now(UTC).isoformat()
    count = pending = 0
    for sample in samples:
        await recorder.log_sample(spec, sample)
        count += 1
        pending += bool((sample.metadata or {}).get("pending"))
        if count % FLUSH_EVERY == 0:
            await recorder.flush(spec)
            progress(count)
    results = EvalResults(total_samples=count, completed_samples=count - pending, scores=samples.results())
    stats = EvalStats(started_at=started, completed_at=datetime.now(UTC).isoformat())
    await recorder.log_finish(spec, "success" if not pending else "started", stats, results, None)
    progress(count)
    return count, pending, results


def _source(kind: str, run_dir: Path) -> tuple[Samples, str, int, dict[str, Any], RunStore | None]:
    """The samples of a `kind` run, its model, how many items it holds, its settings, and the store to close."""
    from lexprobe.interop.investigation_samples import EpisodeSamples, QASamples, episode_files, qa_files

    store = RunStore.open_read_only(run_dir) if (run_dir / RUN_DB_NAME).is_file() else None
    model = (store.get_meta("model") if store is not None else None) or ""
    if kind == "hallucination":
        from lexprobe.interop.hallucination_samples import HallucinationSamples

        assert store is not None  # a hallucination run is told by its store
        settings = store.get_meta("settings") or {}
        model = model or settings.get("model") or "unknown"
        return HallucinationSamples(store, model), model, store.item_count(), settings, store
    if kind == "investigation":
        settings = (store.get_meta("investigation_settings") if store is not None else None) or {}
        return (
            EpisodeSamples(run_dir),
            model or settings.get("model", "unknown"),
            len(episode_files(run_dir)),
            settings,
            store,
        )
    settings = (store.get_meta("qa_settings") if store is not None else None) or {}
    return QASamples(run_dir), model or settings.get("model", "unknown"), len(qa_files(run_dir)), settings, store


def _metrics(results: Any) -> dict[str, float]:
    return {name: metric.value for score in results.scores for name, metric in score.metrics.items()}


def export_inspect_log(run_dir: Path, out: Path, *, kind: str | None = None, force: bool = False,
                       progress: Callable[[int], None] = lambda done: None) -> InspectExport:  # fmt: skip
    """Write the run in `run_dir` as the Inspect log `out` (a `.eval` file), one sample per item, episode or
    question; `progress` hears how many samples are written so far. Raises `InputNotFoundError` for a missing run
    directory, `BadInputError` for one that is no lexprobe run, an `out` that is not a `.eval` file, or one that
    exists without `force`."""
    run_dir, out = Path(run_dir), Path(out)
    if out.suffix != ".eval":
        raise BadInputError(f"--out {out}: an Inspect log file ends in .eval")
    if out.exists() and not force:
        raise BadInputError(f"--out {out} already exists; pass --force to replace it")
    found = run_kind(run_dir, kind)
    began = time.monotonic()
    samples, model, count, settings, store = _source(found, run_dir)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        spec = eval_spec(found, model, run_dir, count, settings)
        written, pending, results = asyncio.run(_write(out, spec, samples, progress))
    finally:
        if store is not None:
            store.close()
    scored = max((score.scored_samples or 0 for score in results.scores), default=0)
    return InspectExport(out, found, model, written, scored, pending, time.monotonic() - began, _metrics(results))
