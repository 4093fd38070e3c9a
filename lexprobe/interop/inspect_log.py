"""`lexprobe export RUN_DIR --format inspect`: a lexprobe run (hallucination, investigation or QA) as an Inspect
`.eval` log, written by Inspect's own `.eval` writer so `inspect view`, `read_eval_log` and `samples_df` read it.

Streamed. `inspect_ai.log.write_eval_log` takes a whole `EvalLog`, every sample in memory, and hands its samples to
the `.eval` recorder behind it without flushing, which keeps them all buffered. Inspect has no public API that
writes samples one at a time, so this module drives that same recorder (`inspect_ai.log._recorders`, the private
package `write_eval_log` and `inspect log convert --stream` use: `log_init`, `log_start`, `log_sample`, `flush`,
`log_finish`) and flushes its buffer every `FLUSH_EVERY` samples.

The recorder also keeps every sample's summary (`EvalSampleSummary`, the index `summaries.json` that `inspect view`
lists; about 9 KiB of Python objects a sample) until the end, then serialises them all in one call. `SummarySpool`
keeps them on disk instead: after each flush it moves the flushed summaries, serialised by Inspect's own
`to_json_safe` (the bytes the recorder would write), to a temporary file, and at the end streams that file into the
`summaries.json` member through the recorder's own streaming member writer. What stays in memory grows only by the
zip's directory entry per member and lexprobe's per-item label for the rates (BENCHMARKS.md).
"""

from __future__ import annotations

import asyncio
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from lexprobe import __version__
from lexprobe.engine.store import RUN_DB_NAME, RunStore
from lexprobe.errors import BadInputError, InputNotFoundError

__all__ = ["FLUSH_EVERY", "RUN_KINDS", "InspectExport", "SummarySpool", "eval_spec", "export_inspect_log", "run_kind"]

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


class SummarySpool:
    """The sample summaries of one `.eval` recorder's log kept in a temporary file, not in memory (see the module
    docstring): `take` after each flush, and the recorder's own write of `summaries.json` streams the file."""

    def __init__(self, recorder: Any, spec: Any) -> None:
        from inspect_ai.log._recorders.eval import SUMMARIES_JSON

        self.log = recorder.data[recorder._log_file_key(spec)]  # the recorder's `ZipLogFile` of this log
        self.file = tempfile.TemporaryFile()  # noqa: SIM115 (closed by `close`, after `log_finish` read it)
        self.count = 0
        write = self.log.write

        async def write_summaries_streamed(filename: str, data: Any) -> None:
            if filename != SUMMARIES_JSON:
                return await write(filename, data)
            self.take()  # the last batch, which `log_finish` has just flushed
            async with self.log._lock:
                with self.log._zip_open_write(SUMMARIES_JSON) as member:
                    self.file.seek(0)
                    member.write(b"[")
                    shutil.copyfileobj(self.file, member)
                    member.write(b"]")

        self.log.write = write_summaries_streamed

    def take(self) -> None:
        """Move the summaries the recorder holds to the file, serialised as the recorder serialises them."""
        from inspect_ai._util.json import to_json_safe

        for summary in self.log._summaries:
            self.file.write((b"," if self.count else b"") + to_json_safe(summary, indent=None))
            self.count += 1
        self.log._summaries.clear()

    def close(self) -> None:
        """Remove the temporary file."""
        self.file.close()


async def _write(out: Path, spec: Any, samples: Samples, progress: Callable[[int], None]) -> tuple[int, int, Any]:
    """Write `samples` through Inspect's `.eval` recorder (see the module docstring), then the header with the
    scores `samples.results()` gives; return (samples, pending, the results)."""
    from inspect_ai.log import EvalPlan, EvalResults, EvalStats
    from inspect_ai.log._recorders import create_recorder_for_location  # no public API writes samples one by one

    recorder = create_recorder_for_location(str(out), str(out.parent))
    await recorder.log_init(spec, str(out), clean=True)
    await recorder.log_start(spec, EvalPlan())
    spool = SummarySpool(recorder, spec)
    started = datetime.now(UTC).isoformat()
    count = pending = 0
    try:
        for sample in samples:
            await recorder.log_sample(spec, sample)
            count += 1
            pending += bool((sample.metadata or {}).get("pending"))
            if count % FLUSH_EVERY == 0:
                await recorder.flush(spec)
                spool.take()
                progress(count)
        results = EvalResults(total_samples=count, completed_samples=count - pending, scores=samples.results())
        stats = EvalStats(started_at=started, completed_at=datetime.now(UTC).isoformat())
        await recorder.log_finish(spec, "success" if not pending else "started", stats, results, None)
    finally:
        spool.close()
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
