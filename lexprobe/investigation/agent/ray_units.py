"""`--ray` for investigation runs: episodes and QA questions as Ray tasks, this process the only writer of the store.

**The unit of work is one episode** (or one question of `investigation qa`): its turns, its tools and its sandbox run
on a Ray worker (`ray_worker.UnitWorker`), each worker with its own model client, the embedded model loaded once
per worker. The driver (this process):

- checks every worker before the first unit: the model opens there, the same lexprobe version and model file (as
  for single calls, `engine.ray_executor`), and, when the agent has the `shell` tool, that the node has the
  sandbox (bubblewrap): a node without it ends the run naming the node, exit 2;
- keeps at most `--concurrency` units in flight, each on the worker with the fewest units;
- hands each unit the answers the run store already holds for it (`RunStore.answered_under`), so a resumed episode
  replays its stored steps on the worker and sends only what is missing, exactly as a local rerun;
- commits, as they arrive, every request, answer (with its `ok` row), retry and failure row the worker's engine
  wrote, and the response cache's entries, then the unit's record (`RunUnit.save`) when it ends. The worker's
  engine reads no cache: a cached answer is replayed only by a local run.

A worker that dies (its process killed, its node lost) costs only the unit's calls in flight: their `retry` rows
name the dead worker, the worker is replaced, and the unit runs again on a worker, replaying every answer that was
committed. A unit whose worker dies more than `--max-retries` times ends the run (exit 1; rerun to resume).
Ctrl-C asks every worker to stop its units at their next model call; what completed is committed (exit 130).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from lexprobe.engine.cache import ResponseCache
from lexprobe.engine.config import EngineConfig
from lexprobe.engine.interrupt import STOP
from lexprobe.engine.ray_executor import RayModel, _Slot, placement, unpack_error, worker_place
from lexprobe.engine.store import RunStore, TelemetryRow
from lexprobe.errors import Interrupted, LexprobeError
from lexprobe.investigation.agent.ray_worker import UnitWorker
from lexprobe.investigation.agent.run import gather_gated, settled_outcomes
from lexprobe.investigation.agent.run_unit import RunUnit
from lexprobe.models.errors import ModelConfigError
from lexprobe.models.types import Request

logger = logging.getLogger(__name__)

T = TypeVar("T")

#: How long one `events` call waits on the worker (the driver looks for Ctrl-C between calls).
POLL_S = 1.0
#: Units one worker runs at once, at most (a unit mostly waits on its model).
UNITS_PER_WORKER = 32


class UnitPool(RayModel):
    """The Ray actors that run units: `RayModel`'s pool (start, placement, checks, replacement) of `UnitWorker`s,
    with the sandbox check on each when the agent has the shell tool."""

    worker_class = UnitWorker

    def __init__(self, spec: str, address: str, *, workers: int | None, needs_shell: bool) -> None:
        self.needs_shell = needs_shell
        super().__init__(spec, address, workers=workers, concurrency=1)

    def max_concurrency(self) -> int:
        """Each unit holds one `events` call at a time; `start`, `stop` and `describe` need room beside them."""
        return UNITS_PER_WORKER + 4

    async def _check(self, slot: _Slot) -> None:
        await super()._check(slot)
        if self.needs_shell and not slot.info.get("sandbox"):
            node = slot.info.get("node", "?")
            slot.info = {}
            raise ModelConfigError(
                f"{self.spec.raw}: Ray worker on node {node}: the shell tool's sandbox is missing there (bubblewrap, "
                "`bwrap`, is not installed): install it on every node, or run with --no-shell"
            )

    def least_busy(self) -> _Slot:
        """The worker with the fewest units."""
        return min(self.slots, key=lambda slot: slot.outstanding)


async def _result(ref: Any) -> Any:
    """Await a Ray task's result (a Ray Client ref too, which has no `__await__`)."""
    return await asyncio.wrap_future(ref.future())


class _UnitDriver:
    """Runs units on the pool and commits what they write (see the module docstring)."""

    def __init__(self, pool: UnitPool, store: RunStore, cache: ResponseCache | None, config: EngineConfig) -> None:
        self.pool, self.store, self.cache, self.config = pool, store, cache, config
        # the workers' engines: no Ray, no batch, no cache (the driver writes it), no progress bar
        self.worker_config = config.model_copy(update={"ray": None, "ray_workers": None, "batch": False,
                                                       "use_cache": False, "progress": False})  # fmt: skip
        self.permanent_failures: dict[str, str] = {}
        self.stop_requested = False

    @property
    def stopping(self) -> bool:
        return self.stop_requested or STOP.requested

    async def run(self, unit: RunUnit[T]) -> T:
        """Run `unit` to its end on some worker, again on another when its worker dies; return its result."""
        import ray.exceptions

        lost = (ray.exceptions.RayActorError, ray.exceptions.WorkerCrashedError, ray.exceptions.NodeDiedError,
                ray.exceptions.ObjectLostError)  # fmt: skip
        deaths = 0
        while True:
            slot = self.pool.least_busy()
            generation = slot.generation
            slot.outstanding += 1
            pending: dict[str, Request] = {}
            info = slot.info  # this unit's worker: `_replace` gives the slot a new record when another unit saw it die
            try:
                await self.pool._check(slot)  # a replacement's start
                info = slot.info
                return await self._on(slot, info, unit, pending)
            except lost as exc:
                self.pool._replace(slot, generation)
                reason = f"Ray worker on {worker_place(info)} died ({type(exc).__name__})"
                for request in pending.values():  # the calls it held: retried, as a dropped connection is
                    self.store.record_telemetry(TelemetryRow(request.request_id, request.model, 1, "retry", reason,
                                                             None))  # fmt: skip
                deaths += 1
                if deaths > self.config.max_retries:
                    raise LexprobeError(f"{unit.name}: {reason}, {deaths} times; rerun the same command to resume",
                                        exit_code=1) from None  # fmt: skip
                logger.warning("%s: %s; it runs again on another worker, replaying what was stored", unit.name, reason)
            finally:
                slot.outstanding -= 1

    async def _on(self, slot: _Slot, info: dict[str, Any], unit: RunUnit[T], pending: dict[str, Request]) -> T:
        """Run `unit` on `slot`'s worker (its start report `info`) and commit its events until it ends."""
        answered = self.store.answered_under(unit.request_prefix)
        await _result(slot.actor.start.remote(unit, answered, self.worker_config))
        stop_sent = False
        while True:
            if self.stopping and not stop_sent:
                stop_sent = True
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(_result(slot.actor.stop.remote(unit.name)), 30)
            for event in await _result(slot.actor.events.remote(unit.name, POLL_S)):
                kind = event[0]
                if kind == "done":
                    _, result, permanent = event
                    self.permanent_failures.update(permanent)
                    return result
                if kind == "stopped":
                    raise Interrupted(f"{unit.name} stopped")
                if kind == "error":
                    error = unpack_error(*event[1])
                    if isinstance(error, ModelConfigError):
                        node = info.get("node", "unknown")
                        raise ModelConfigError(f"{self.pool.spec.raw}: Ray worker on node {node}: {error}")
                    raise error
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


async def run_units_on_ray(
    store: RunStore,
    cache: ResponseCache | None,
    config: EngineConfig,
    units: Sequence[RunUnit[T]],
    concurrency: int,
    on_done: Callable[[T], None] | None = None,
    *,
    unit: str = "job(s)",
    permanent_failures: dict[str, str] | None = None,
) -> list[T]:
    """`run_gated` on Ray workers: run `units` (at most `concurrency` at a time) and return their results in order,
    each saved into its run directory and passed to `on_done` as it ends. Closes the store.

    Raises `ModelConfigError` (exit 2) before any unit runs when a worker cannot serve (naming its node: the model,
    the version, the model file, the sandbox), or when a unit's environment is missing or differs on a node; the
    first unit's error otherwise; `Interrupted` (exit 130) on Ctrl-C, saying how many `unit` finished."""
    assert config.ray is not None
    settings = units[0].settings
    try:
        pool = UnitPool(settings.model, config.ray, workers=config.ray_workers, needs_shell=settings.shell)
    except BaseException:
        store.close()
        raise
    driver = _UnitDriver(pool, store, cache, config)

    async def run_one(job: RunUnit[T]) -> T:
        result = await driver.run(job)
        job.save(result, Path(job.run_dir))
        return result

    def stop_all() -> None:
        driver.stop_requested = True

    try:
        logger.info("ray: %s", placement(await pool.workers()))  # every worker checked before the first unit
        outcomes = await gather_gated(units, concurrency, run_one, lambda: driver.stopping, stop_all, on_done)
    finally:
        await pool.aclose()
        store.close()
    results = settled_outcomes(outcomes, unit)
    if permanent_failures is not None:
        permanent_failures.update(driver.permanent_failures)
    return results


__all__ = ["UnitPool", "run_units_on_ray"]
