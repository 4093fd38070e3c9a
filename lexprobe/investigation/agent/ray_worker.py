"""The Ray worker side of `--ray` for investigation runs: whole episodes and QA questions on a worker's node.

`UnitWorker` is a Ray actor (a `ModelWorker`: one open model, loaded once per worker) that runs `RunUnit`s: the
agent's turns, its tools over the environment's texts on that node, `shell` in that node's bubblewrap sandbox. It
never writes the run directory. Each unit runs through an `Engine` of its own over a `StreamingStore`: an in-memory
run store seeded with the answers the driver already holds for the unit (so a resumed unit replays them, as a local
rerun does), which keeps every row written to it as an event. The driver fetches the events (`events`, a long
poll) and commits each to the real run store as it arrives: the requests, each answer with its `ok` row, the retry
and failure rows, and at the end the unit's result.

The worker checks, before a unit runs, that the environment is at the same path on its node and holds the same
corpus (its hash); `describe` says whether the node has the sandbox. A problem comes back as an error naming it,
which the driver names the node in.
"""

from __future__ import annotations

import asyncio
import contextlib
import tempfile
from pathlib import Path
from typing import Any

from lexprobe.engine.config import EngineConfig
from lexprobe.engine.executor import Engine
from lexprobe.engine.ray_executor import ModelWorker, pack_error
from lexprobe.engine.store import RunStore, TelemetryRow
from lexprobe.errors import Interrupted
from lexprobe.investigation.agent.corpus_view import CorpusView
from lexprobe.investigation.agent.run_unit import RunUnit
from lexprobe.investigation.environment.corpus_digest import corpus_hash
from lexprobe.investigation.shell.sandbox import sandbox_available
from lexprobe.models.base import Model
from lexprobe.models.errors import ModelConfigError
from lexprobe.models.types import Request, Response

#: The events a unit ends with.
FINAL_EVENTS = ("done", "stopped", "error")


class StreamingStore(RunStore):
    """An in-memory run store that also keeps, as events, every row written to it once `streaming` is on."""

    def __init__(self) -> None:
        super().__init__(":memory:")
        self.events: list[tuple[Any, ...]] = []
        self.changed = asyncio.Event()
        self.streaming = False

    def emit(self, event: tuple[Any, ...]) -> None:
        """Keep `event` for the driver and wake a waiting `UnitWorker.events`."""
        if self.streaming:
            self.events.append(event)
            self.changed.set()

    def seed(self, answered: list[tuple[Request, Response]]) -> None:
        """Hold `answered` (the driver's stored answers of the unit) without emitting them."""
        for request, response in answered:
            super().add_requests([request])
            super().record_response(request.request_id, response)

    def add_requests(self, requests: Any) -> int:
        """`RunStore.add_requests`, kept as an event."""
        requests = list(requests)
        added = super().add_requests(requests)
        self.emit(("requests", requests))
        return added

    def record_response(self, request_id: str, response: Response, telemetry: TelemetryRow | None = None) -> None:
        """`RunStore.record_response`, kept as an event."""
        super().record_response(request_id, response, telemetry)
        self.emit(("response", request_id, response, telemetry))

    def record_responses(self, rows: list[tuple[str, Response, TelemetryRow]]) -> None:
        """`RunStore.record_responses`, kept as one event per row."""
        super().record_responses(rows)
        for request_id, response, telemetry in rows:
            self.emit(("response", request_id, response, telemetry))

    def record_telemetry(self, row: TelemetryRow) -> None:
        """`RunStore.record_telemetry`, kept as an event."""
        super().record_telemetry(row)
        self.emit(("telemetry", row))


class _UnitRun:
    """A unit running on this worker: its task, store and engine."""

    def __init__(self, task: asyncio.Task, store: StreamingStore, engine: Engine) -> None:
        self.task, self.store, self.engine = task, store, engine


class UnitWorker(ModelWorker):
    """A Ray actor that runs whole investigation units (see the module docstring). Created by `ray_units.UnitPool`."""

    def __init__(self, spec: str, threads: int | None) -> None:
        super().__init__(spec, threads)
        # every unit's engine shares these: the worker's model stays open across units (a judge opens once too)
        self.open_models: dict[str, Model] = {spec: self.model} if self.model is not None else {}
        self.views: dict[tuple[str, str], CorpusView] = {}
        self.units: dict[str, _UnitRun] = {}

    def describe(self) -> dict[str, Any]:
        """`ModelWorker.describe`, and whether this node has the shell tool's sandbox (bubblewrap)."""
        return super().describe() | {"sandbox": sandbox_available()}

    async def start(self, unit: RunUnit, answered: list[tuple[Request, Response]], config: EngineConfig) -> None:
        """Start running `unit` (its stored answers `answered` replay); its events come from `events`."""
        if unit.name in self.units:
            raise RuntimeError(f"unit {unit.name} is already running on this worker")
        store = StreamingStore()
        store.seed(answered)
        store.streaming = True
        engine = Engine(store, None, config)
        engine.models = self.open_models
        task = asyncio.ensure_future(self._run(unit, store, engine))
        self.units[unit.name] = _UnitRun(task, store, engine)

    async def _run(self, unit: RunUnit, store: StreamingStore, engine: Engine) -> None:
        try:
            view = self._view(unit)
            with tempfile.TemporaryDirectory(prefix="lexprobe-unit-") as scratch:
                result = await unit.run(engine, view, Path(scratch))
            store.emit(("done", result, dict(engine.permanent_failures)))
        except Interrupted:
            store.emit(("stopped",))
        except asyncio.CancelledError:
            store.emit(("stopped",))
        except Exception as exc:
            store.emit(("error", pack_error(exc)))

    def _view(self, unit: RunUnit) -> CorpusView:
        """Open (once) the unit's environment on this node; refuse one that is missing or holds another corpus."""
        key = (unit.env_dir, unit.corpus_hash)
        if key not in self.views:
            path = Path(unit.env_dir)
            if not path.is_dir():
                raise ModelConfigError(f"environment {unit.env_dir} is not on this node: put every environment at "
                                       "the same path on every node")  # fmt: skip
            view = CorpusView.open(path)
            digest = corpus_hash(view.env_dir, view.environment) or ""
            if digest != unit.corpus_hash:
                here, there = digest[:12] or "-", unit.corpus_hash[:12] or "-"
                raise ModelConfigError(f"environment {unit.env_dir} holds another corpus on this node (hash {here} "
                                       f"here, {there} on the driver)")  # fmt: skip
            self.views[key] = view
        return self.views[key]

    async def events(self, name: str, wait_s: float) -> list[tuple[Any, ...]]:
        """Return the events of unit `name` since the last call, waiting up to `wait_s` seconds for one; the last
        event of a unit is one of `FINAL_EVENTS`."""
        run = self.units.get(name)
        if run is None:
            return [("error", ("other", f"unit {name} is not running on this worker", None))]
        if not run.store.events:
            run.store.changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(run.store.changed.wait(), wait_s)
        events, run.store.events = run.store.events, []
        if events and events[-1][0] in FINAL_EVENTS:
            del self.units[name]
            run.store.close()
        return events

    async def stop(self, name: str) -> None:
        """Stop unit `name` at its next model call, as Ctrl-C stops a local run (what completed is kept)."""
        run = self.units.get(name)
        if run is not None:
            run.engine.request_stop()

    async def aclose(self) -> None:
        """Stop every unit, then release the models."""
        for run in list(self.units.values()):
            run.task.cancel()
        for model in list(self.open_models.values()):
            if model is not self.model:
                await model.aclose()
        await super().aclose()


__all__ = ["FINAL_EVENTS", "StreamingStore", "UnitWorker"]
