"""Whole units of work on Ray workers (`--ray` for investigation runs), this process the only writer of the store.

A unit (`RemoteUnit`: an investigation episode, a QA question) is plain data that runs itself through an engine;
every request it makes has an id starting `<name>|`. It runs on a `UnitWorker` (a `ModelWorker`: one open model per
worker) through an `Engine` of its own over a `StreamingStore`, an in-memory store seeded with the answers the run
store holds for the unit (so a resumed unit replays them, as a local rerun does) that keeps every row written to it
as an event. The driver (`RayUnits`, on `ray_executor.WorkerPool`) fetches the events (a long poll) and commits each
as it arrives: requests, answers with their `ok` rows, retry and failure rows, the response cache's entries (the
workers' engines read no cache). A worker that dies costs only the unit's calls in flight: their `retry` rows name
it, it is replaced, and the unit runs again, replaying what was committed; more than `--max-retries` deaths end the
run (exit 1). Ctrl-C asks every worker to stop its units at their next model call.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol, TypeVar

from lexprobe.engine.cache import ResponseCache
from lexprobe.engine.config import EngineConfig
from lexprobe.engine.executor import Engine
from lexprobe.engine.interrupt import STOP
from lexprobe.engine.ray_executor import ModelWorker, WorkerLost, WorkerPool, pack_error, ray_result
from lexprobe.engine.store import RunStore, TelemetryRow
from lexprobe.errors import Interrupted, LexprobeError
from lexprobe.models.base import Model
from lexprobe.models.types import Request, Response

logger = logging.getLogger(__name__)

T = TypeVar("T")

#: How long one `events` call waits on the worker (the driver looks for Ctrl-C between calls).
POLL_S = 1.0
#: Units one worker runs at once, at most (a unit mostly waits on its model).
UNITS_PER_WORKER = 32
#: The events a unit ends with.
FINAL_EVENTS = ("done", "stopped", "error")


class RemoteUnit(Protocol[T]):
    """What runs whole on a worker: picklable, named, every request id starting `<name>|`."""

    name: str

    async def run_on_worker(self, engine: Engine, scratch: Path) -> T:
        """Run (or resume, replaying what `engine.store` holds) on this node, writing files only under `scratch`."""
        ...


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


class UnitWorker(ModelWorker):
    """A Ray actor that runs whole units (see the module docstring); it never writes the run directory."""

    def __init__(self, spec: str, threads: int | None, node_check: Callable[[], str | None] | None = None) -> None:
        super().__init__(spec, threads, node_check)
        # every unit's engine shares these: the worker's model stays open across units (a judge opens once too)
        self.open_models: dict[str, Model] = {spec: self.model} if self.model is not None else {}
        self.units: dict[str, tuple[asyncio.Task, StreamingStore, Engine]] = {}

    async def start(self, unit: RemoteUnit, answered: list[tuple[Request, Response]], config: EngineConfig) -> None:
        """Start running `unit` (its stored answers `answered` replay); its events come from `events`."""
        if unit.name in self.units:
            raise RuntimeError(f"unit {unit.name} is already running on this worker")
        store = StreamingStore()
        store.seed(answered)
        store.streaming = True
        engine = Engine(store, None, config)
        engine.models = self.open_models
        self.units[unit.name] = (asyncio.ensure_future(self._run(unit, store, engine)), store, engine)

    async def _run(self, unit: RemoteUnit, store: StreamingStore, engine: Engine) -> None:
        try:
            with tempfile.TemporaryDirectory(prefix="lexprobe-unit-") as scratch:
                result = await unit.run_on_worker(engine, Path(scratch))
            store.emit(("done", result, dict(engine.permanent_failures)))
        except (Interrupted, asyncio.CancelledError):
            store.emit(("stopped",))
        except Exception as exc:
            store.emit(("error", pack_error(exc)))

    async def events(self, name: str, wait_s: float) -> list[tuple[Any, ...]]:
        """Return the events of unit `name` since the last call, waiting up to `wait_s` seconds for one; the last
        event of a unit is one of `FINAL_EVENTS`."""
        if name not in self.units:
            return [("error", ("other", f"unit {name} is not running on this worker", None))]
        store = self.units[name][1]
        if not store.events:
            store.changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(store.changed.wait(), wait_s)
        events, store.events = store.events, []
        if events and events[-1][0] in FINAL_EVENTS:
            del self.units[name]
            store.close()
        return events

    async def stop(self, name: str) -> None:
        """Stop unit `name` at its next model call, as Ctrl-C stops a local run (what completed is kept)."""
        if name in self.units:
            self.units[name][2].request_stop()

    async def aclose(self) -> None:
        """Stop every unit, then release the models."""
        for task, _, _ in list(self.units.values()):
            task.cancel()
        for model in list(self.open_models.values()):
            if model is not self.model:
                await model.aclose()
        await super().aclose()


class RayUnits:
    """Runs units of `model` on a pool of `UnitWorker`s and commits what they write (see the module docstring);
    `node_check` runs on each worker at its start (what the node lacks, or None)."""

    def __init__(self, store: RunStore, cache: ResponseCache | None, config: EngineConfig, model: str,
                 node_check: Callable[[], str | None] | None = None) -> None:  # fmt: skip
        assert config.ray is not None
        self.pool = WorkerPool(model, config.ray, UnitWorker, workers=config.ray_workers, concurrency=1,
                               max_concurrency=UNITS_PER_WORKER + 4, node_check=node_check)  # fmt: skip
        self.store, self.cache, self.config = store, cache, config
        # the workers' engines: no Ray, no batch, no cache (the driver writes it), no progress bar
        self.worker_config = config.model_copy(update={"ray": None, "ray_workers": None, "batch": False,
                                                       "use_cache": False, "progress": False})  # fmt: skip
        self.permanent_failures: dict[str, str] = {}
        self.stop_requested = False

    @property
    def stopping(self) -> bool:
        """Whether Ctrl-C or `request_stop` asked the units to stop."""
        return self.stop_requested or STOP.requested

    def request_stop(self) -> None:
        """Stop every unit at its next model call."""
        self.stop_requested = True

    async def run(self, unit: RemoteUnit[T]) -> T:
        """Run `unit` to its end on some worker, again on another when its worker dies; return its result. Every
        worker is checked before the first unit (`WorkerPool.check_all`)."""
        await self.pool.check_all()
        deaths = 0
        while True:
            pending: dict[str, Request] = {}
            try:
                async with self.pool.lease() as (actor, info):
                    return await self._on(actor, info, unit, pending)
            except WorkerLost as lost:
                for request in pending.values():  # the calls it held: retried, as a dropped connection is
                    self.store.record_telemetry(TelemetryRow(request.request_id, request.model, 1, "retry", str(lost),
                                                             None))  # fmt: skip
                deaths += 1
                if deaths > self.config.max_retries:
                    raise LexprobeError(f"{unit.name}: {lost}, {deaths} times; rerun the same command to resume",
                                        exit_code=1) from None  # fmt: skip
                logger.warning("%s: %s; it runs again on another worker, replaying what was stored", unit.name, lost)

    async def _on(self, actor: Any, info: dict[str, Any], unit: RemoteUnit[T], pending: dict[str, Request]) -> T:
        """Run `unit` on `actor` (its start report `info`) and commit its events until it ends."""
        stored = self.store.requests_under(f"{unit.name}|")
        answered = [(request, answer) for request, answer in stored if answer is not None]
        await ray_result(actor.start.remote(unit, answered, self.worker_config))
        stop_sent = False
        while True:
            if self.stopping and not stop_sent:
                stop_sent = True
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(ray_result(actor.stop.remote(unit.name)), 30)
            for event in await ray_result(actor.events.remote(unit.name, POLL_S)):
                kind = event[0]
                if kind == "done":
                    self.permanent_failures.update(event[2])
                    return event[1]
                if kind == "stopped":
                    raise Interrupted(f"{unit.name} stopped")
                if kind == "error":
                    raise self.pool.error(event[1], info)
                self._commit(event, pending)

    def _commit(self, event: tuple[Any, ...], pending: dict[str, Request]) -> None:
        """Write one row a worker's engine wrote into the run store (and an answer into the cache)."""
        kind = event[0]
        if kind == "requests":
            requests: list[Request] = event[1]
            self.store.add_requests(requests)
            done = self.store.completed_among(request.request_id for request in requests)
            pending.update({r.request_id: r for r in requests if r.request_id not in done})
        elif kind == "response":
            _, request_id, response, telemetry = event
            request = pending.pop(request_id, None)
            if self.cache is not None and request is not None and not response.cached:
                self.cache.put(request.response_key(), request.model, response)
            self.store.record_response(request_id, response, telemetry)
        elif kind == "telemetry":
            self.store.record_telemetry(event[1])

    async def aclose(self) -> None:
        """End the workers (the caller closes the store)."""
        await self.pool.aclose()


__all__ = ["RayUnits", "RemoteUnit", "StreamingStore", "UnitWorker"]
