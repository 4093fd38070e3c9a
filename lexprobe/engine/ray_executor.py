"""Model calls on a Ray cluster's workers (`--ray ADDRESS`; docs/scale.md, "A Ray cluster"): the driver stays the
only writer of the run store.

`WorkerPool` is the pool of Ray actors (`ModelWorker`, one open model client each, checked on start: node, lexprobe
version, model file, the caller's `node_check`): its sizing and placement, the least busy actor for each call, a dead
actor replaced. It serves `RayModel`, the `Model` the engine opens under `EngineConfig.ray`, whose unit of work is one
request (the engine on the driver keeps the store, the cache, retries and telemetry exactly as in a local run), and
`ray_units.RayUnits`, whole units of work. A worker that dies fails the calls it held with `WorkerLost`, a transient
error the engine retries as a dropped connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import logging
import os
import pickle
import socket
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

from lexprobe.engine.ray_setup import join_ray
from lexprobe.models.base import Model
from lexprobe.models.errors import (
    CallInterrupted,
    ModelConfigError,
    ModelError,
    TransientModelError,
    UnreachableError,
)
from lexprobe.models.identity import model_identity
from lexprobe.models.registry import BACKENDS, check_model, open_model
from lexprobe.models.spec import ModelSpec
from lexprobe.models.types import Request, Response

logger = logging.getLogger(__name__)

#: How long the driver waits for a worker to start (schedule, import lexprobe, open its client) before it fails.
START_TIMEOUT_S = 600.0


def _lexprobe_version() -> str:
    import lexprobe

    return str(lexprobe.__version__)


#: The errors a worker sends back as plain data, the most specific first: (kind, type, the keyword its detail is).
PACKED_ERRORS: tuple[tuple[str, type[BaseException], str | None], ...] = (
    ("unreachable", UnreachableError, "url"),
    ("transient", TransientModelError, "retry_after_s"),
    ("interrupted", CallInterrupted, None),
    ("config", ModelConfigError, None),
    ("final", ModelError, None),
    ("timeout", TimeoutError, None),
)


def pack_error(exc: BaseException) -> tuple[str, str, Any]:
    """Return a worker's failure as plain data (kind, message, detail) that `unpack_error` turns back into the same
    lexprobe error on the driver (their constructors take keywords that pickling drops)."""
    for kind, error_type, keyword in PACKED_ERRORS:
        if isinstance(exc, error_type):
            return (kind, str(exc), getattr(exc, keyword) if keyword else None)
    try:
        pickle.loads(pickle.dumps(exc))
    except Exception:  # an exception that does not survive pickling travels as its text
        return ("other", f"{type(exc).__name__}: {exc}", None)
    return ("exception", str(exc), exc)


def unpack_error(kind: str, message: str, detail: Any) -> BaseException:
    """Return the exception `pack_error` described."""
    if kind == "exception":
        return detail
    for packed, error_type, keyword in PACKED_ERRORS:
        if packed == kind:
            return error_type(message, **({keyword: detail} if keyword else {}))
    return RuntimeError(message)


def placement(workers: list[dict[str, Any]]) -> str:
    """Return where the workers run, as one line: "3 workers on 2 nodes (host 5f2a01c3: 2, host 9b7e44d0: 1)"."""
    counts: dict[tuple[str, str], int] = {}
    for info in workers:
        key = (str(info.get("node", "?")), str(info.get("node_id") or "?")[:8])
        counts[key] = counts.get(key, 0) + 1
    nodes = ", ".join(f"{host} {node}: {n}" for (host, node), n in counts.items())
    return f"{len(workers)} workers on {len(counts)} node{'s' if len(counts) != 1 else ''} ({nodes})"


def worker_place(info: dict[str, Any]) -> str:
    """Where a worker ran, from its start report (`ModelWorker.describe`): "node HOST (id 5f2a01c3, pid 4242)"."""
    node_id, pid = str(info.get("node_id") or "")[:8], info.get("pid")
    detail = ", ".join(part for part in (f"id {node_id}" if node_id else "", f"pid {pid}" if pid else "") if part)
    return f"node {info.get('node') or 'unknown'}" + (f" ({detail})" if detail else "")


class ModelWorker:
    """A Ray actor's state: one open model. Created with `ray.remote(ModelWorker)`; never raises from `__init__`
    (a problem is reported by `describe`, which names the node)."""

    def __init__(self, spec: str, threads: int | None, node_check: Callable[[], str | None] | None = None) -> None:
        self.spec = spec
        self.model: Model | None = None
        self.problem: str | None = None
        self.node_check = node_check  # what else the node needs: a function returning what is missing, or None
        try:
            check_model(spec)
            self.model = open_model(spec)
        except ModelConfigError as exc:
            self.problem = str(exc)
            return
        if threads and hasattr(self.model, "n_threads"):  # the embedded model: as many threads as CPUs granted
            self.model.n_threads = threads  # type: ignore[attr-defined]

    def describe(self) -> dict[str, Any]:
        """Return where this worker runs and what it serves: node, pid, lexprobe version, model identity, problem,
        and what `node_check` found missing."""
        import ray

        return {
            "node": socket.gethostname(),
            "node_id": ray.get_runtime_context().get_node_id(),  # one machine can hold several nodes (raylets)
            "pid": os.getpid(),
            "version": _lexprobe_version(),
            "identity": model_identity(self.spec) if self.problem is None else None,
            "problem": self.problem,
            "missing": self.node_check() if self.node_check is not None else None,
        }

    async def generate(self, request: Request) -> tuple[str, Any]:
        """Answer `request`: ("ok", Response) or ("error", `pack_error(...)`)."""
        if self.model is None:
            return ("error", ("config", self.problem or "the model did not open", None))
        try:
            return ("ok", await self.model.generate(request))
        except asyncio.CancelledError:
            self.model.interrupt()
            raise
        except Exception as exc:
            return ("error", pack_error(exc))

    async def aclose(self) -> None:
        """Release the model."""
        if self.model is not None:
            await self.model.aclose()


@dataclass
class Slot:
    """One actor of the pool: its handle, its start check, the calls it holds, and how many times it was
    replaced (so that several calls failing on one dead actor replace it once)."""

    actor: Any
    ready: Any
    generation: int = 0
    outstanding: int = 0
    info: dict[str, Any] = field(default_factory=dict)


class WorkerLost(TransientModelError):
    """The worker holding a call died (its process killed, its node lost); it was replaced. Transient: the engine
    retries the call as it would after a dropped connection."""


def lost_errors() -> tuple[type[BaseException], ...]:
    """The Ray errors that mean an actor or its node is gone."""
    import ray.exceptions

    return (ray.exceptions.RayActorError, ray.exceptions.WorkerCrashedError, ray.exceptions.NodeDiedError,
            ray.exceptions.ObjectLostError)  # fmt: skip


async def ray_result(ref: Any) -> Any:
    """Await a Ray task's result (also a Ray Client ref, which has no `__await__`)."""
    return await asyncio.wrap_future(ref.future())


def _backend_class(parsed: ModelSpec) -> type[Model]:
    """Return the class of the model a worker opens for `parsed` (for its defaults, without opening it): the
    `openai-compatible` backend opens through a function, a plain client for one URL or a router over several."""
    if parsed.backend == "openai-compatible":
        from lexprobe.models.openai_chat import OpenAIModel
        from lexprobe.models.replicas import ReplicaRouter

        return ReplicaRouter if parsed.replicated else OpenAIModel
    backend = BACKENDS[parsed.backend]
    return getattr(importlib.import_module(backend.module), backend.class_name)


def _default_concurrency(parsed: ModelSpec, inner: type[Model]) -> int:
    """Return the calls one worker of `parsed` keeps in flight by default: a router's default is per replica."""
    if parsed.replicated:
        from lexprobe.models.openai_chat import OpenAIModel

        return OpenAIModel.default_concurrency * len(parsed.replica_urls)
    return inner.default_concurrency


class WorkerPool:
    """Ray actors (`worker_class`: a `ModelWorker`), each with its own client of `spec` (see the module docstring).
    `per_actor` calls run on each actor at once (`concurrency`, else the model's default); an actor takes
    `max_concurrency` calls at once, `per_actor` and one for `describe` unless given."""

    def __init__(self, spec: str, address: str, worker_class: type[ModelWorker] = ModelWorker, *,
                 workers: int | None = None, concurrency: int | None = None, max_concurrency: int | None = None,
                 node_check: Callable[[], str | None] | None = None) -> None:  # fmt: skip
        self.spec = check_model(spec)
        join_ray(address)
        import ray

        self.inner = _backend_class(self.spec)
        # The embedded model computes: one CPU per actor, and as many actors as the cluster has free CPUs. An
        # endpoint client only waits on its server: no CPU reserved, one actor per node.
        self.cpus = 1 if self.spec.backend == "local" else 0
        if workers is None:
            if self.cpus:
                workers = int(ray.available_resources().get("CPU", 1))
            else:
                workers = sum(1 for node in ray.nodes() if node.get("Alive"))
        self.size = max(1, workers)
        total = int(ray.cluster_resources().get("CPU", 0))
        if self.cpus and self.size * self.cpus > total:
            raise ModelConfigError(f"{spec}: {self.size} Ray workers need {self.size * self.cpus} CPUs; the cluster "
                                   f"has {total}")  # fmt: skip
        if self.cpus and workers == 0:
            raise ModelConfigError(f"{spec}: no free CPU in the Ray cluster for its workers (other workers hold all "
                                   f"{total}): use one spec for the model and its judge, or add nodes")  # fmt: skip
        self.per_actor = concurrency or _default_concurrency(self.spec, self.inner)
        self.max_concurrency = max_concurrency or max(2, self.per_actor + 1)
        self.node_check = node_check
        self.identity = model_identity(spec)
        self._remote = ray.remote(worker_class)
        self._nodes = [node["NodeID"] for node in ray.nodes() if node.get("Alive")]
        self._started = 0
        self.slots = [self._start() for _ in range(self.size)]
        self._checked = False
        self._check_lock = asyncio.Lock()

    def _start(self) -> Slot:
        actor = self._remote.options(
            num_cpus=self.cpus,
            max_concurrency=self.max_concurrency,
            max_restarts=0,
            max_task_retries=0,
            scheduling_strategy=self._placement(),
        ).remote(self.spec.raw, self.cpus or None, self.node_check)
        self._started += 1
        return Slot(actor, actor.describe.remote())

    def _placement(self) -> Any:
        """Where the next actor goes. The embedded model reserves a CPU, so Ray's SPREAD spreads it over the nodes'
        free CPUs; an endpoint client reserves nothing, which SPREAD leaves on one node, so it is pinned to the
        nodes alive when it starts, in turn."""
        import ray

        if not self.cpus:
            self._nodes = [node["NodeID"] for node in ray.nodes() if node.get("Alive")] or self._nodes
        if self.cpus or not self._nodes:
            return "SPREAD"
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        # strict: a node that joined a moment ago is waited for, not skipped (soft affinity falls back to another node
        # while the new node's resources are not yet known); a replacement takes the nodes alive then
        return NodeAffinitySchedulingStrategy(node_id=self._nodes[self._started % len(self._nodes)], soft=False)

    async def _check(self, slot: Slot) -> None:
        """Await `slot`'s start; raise `ModelConfigError` naming the node when it cannot serve this model as the
        driver would, or lacks what `node_check` looks for."""
        if slot.info:
            return
        import ray.exceptions

        try:
            info = await asyncio.wait_for(ray_result(slot.ready), START_TIMEOUT_S)
        except TimeoutError:
            raise ModelConfigError(
                f"{self.spec.raw}: no Ray worker started within {START_TIMEOUT_S:g}s (does the cluster have "
                f"{self.cpus or 'any'} free CPU for it?)"
            ) from None
        except ray.exceptions.RayError as exc:  # e.g. lexprobe does not import there: the traceback's last line
            lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
            raise ModelConfigError(f"{self.spec.raw}: a Ray worker could not start: "
                                   f"{lines[-1] if lines else type(exc).__name__}") from None  # fmt: skip
        where = f"{self.spec.raw}: Ray worker on node {info['node']}"
        if info["problem"]:
            raise ModelConfigError(f"{where}: {info['problem']}")
        if info["version"] != _lexprobe_version():
            raise ModelConfigError(f"{where} runs lexprobe {info['version']}, the driver {_lexprobe_version()}; "
                                   "install the same version on every node")  # fmt: skip
        if info["identity"] != self.identity:
            raise ModelConfigError(f"{where} sees another model file than the driver ({info['identity']} there, "
                                   f"{self.identity} here)")  # fmt: skip
        if info["missing"]:
            raise ModelConfigError(f"{where}: {info['missing']}")
        slot.info = info

    async def workers(self) -> list[dict[str, Any]]:
        """Return each actor's `describe()` record (node, pid, ...), once it has started and passed its checks."""
        for slot in self.slots:
            await self._check(slot)
        return [dict(slot.info) for slot in self.slots]

    async def check_all(self) -> None:
        """Before the first call: wait for every actor and check it (a bad node fails the run now), and log where
        they run."""
        if not self._checked:
            async with self._check_lock:
                if not self._checked:
                    logger.info("ray: %s", placement(await self.workers()))
                    self._checked = True

    @contextlib.asynccontextmanager
    async def lease(self) -> AsyncIterator[tuple[Any, dict[str, Any]]]:
        """The actor with the fewest calls outstanding, started and checked, and its start report, for one call; a
        worker that dies under the call is replaced and `WorkerLost` raised naming it."""
        slot = min(self.slots, key=lambda s: s.outstanding)
        generation = slot.generation
        slot.outstanding += 1
        info = slot.info  # this call's worker: `_replace` gives the slot a new record when another call saw it die
        try:
            await self._check(slot)  # a replacement's start
            info = slot.info
            yield slot.actor, info
        except lost_errors() as exc:
            self._replace(slot, generation)
            raise WorkerLost(f"Ray worker on {worker_place(info)} died ({type(exc).__name__})") from None
        finally:
            slot.outstanding -= 1

    def error(self, packed: tuple[str, str, Any], info: dict[str, Any]) -> BaseException:
        """The error a worker (its start report `info`) sent back as `pack_error`, the node named when the model
        does not load there."""
        error = unpack_error(*packed)
        if isinstance(error, ModelConfigError):
            return ModelConfigError(f"{self.spec.raw}: Ray worker on node {info.get('node', 'unknown')}: {error}")
        return error

    def _replace(self, slot: Slot, generation: int) -> None:
        """Replace `slot`'s dead actor by a new one, unless another failed call already did."""
        if slot.generation != generation:
            return
        import ray

        with contextlib.suppress(Exception):
            ray.kill(slot.actor, no_restart=True)
        fresh = self._start()
        slot.actor, slot.ready, slot.info = fresh.actor, fresh.ready, {}
        slot.generation += 1

    async def aclose(self) -> None:
        """Release every worker's model, then end the actors."""
        import ray

        closing = []
        for slot in self.slots:
            with contextlib.suppress(Exception):
                closing.append(slot.actor.aclose.remote())
        if closing:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(asyncio.gather(*closing, return_exceptions=True), 30)
        for slot in self.slots:
            with contextlib.suppress(Exception):
                ray.kill(slot.actor, no_restart=True)
        self.slots = []


class RayModel(Model):
    """`spec` served by a `WorkerPool` of `ModelWorker`s, one request a call (see the module docstring).
    `default_concurrency` is the number of calls the engine keeps in flight: actors x per-actor concurrency."""

    def __init__(self, spec: str, address: str, *, workers: int | None = None, concurrency: int | None = None):
        self.pool = WorkerPool(spec, address, workers=workers, concurrency=concurrency)
        super().__init__(self.pool.spec)
        self.default_timeout_s = self.pool.inner.default_timeout_s
        self.default_concurrency = self.pool.size * self.pool.per_actor

    async def workers(self) -> list[dict[str, Any]]:
        """Each worker's start report (`WorkerPool.workers`)."""
        return await self.pool.workers()

    async def generate(self, request: Request) -> Response:
        """Send `request` to the actor with the fewest calls outstanding and return its answer; a worker that died
        raises `WorkerLost` (transient: the engine retries) and is replaced."""
        import ray.exceptions

        await self.pool.check_all()
        try:
            async with self.pool.lease() as (actor, info):
                ref = actor.generate.remote(request)
                try:
                    status, value = await ray_result(ref)
                except asyncio.CancelledError:
                    with contextlib.suppress(Exception):
                        ray.cancel(ref)
                    raise
        except ray.exceptions.TaskCancelledError:
            raise CallInterrupted("the Ray task was cancelled") from None
        if status == "ok":
            return value
        raise self.pool.error(value, info)

    def interrupt(self) -> None:
        """Nothing to do here: the engine cancels each call it abandons (Ctrl-C, a timeout), and `generate` cancels
        that call's Ray task, which interrupts the worker's model as a local call would be."""

    async def aclose(self) -> None:
        """Release every worker's model, then end the actors."""
        await self.pool.aclose()
