"""The engine: push requests through models with caching, per-model concurrency, retries and a resumable store.

    engine = Engine(RunStore.open(run_dir), ResponseCache(), EngineConfig())
    summary = await engine.run(requests)
    answers = engine.store.responses()

Only requests without a stored response are considered, so rerunning the same job resumes it. Each request is
looked up in the cache, then sent with bounded retries; its answer is written to the cache and then committed to
the run store. When retries are exhausted the request stays pending, and the summary says so; a request that fails
permanently (a `ModelError` that is not transient: context overflow, exhausted script, HTTP 400) is not retried and
is counted apart (`failed_permanent`, telemetry event `failed_permanent`). A model that cannot answer anything (a
`ModelConfigError` from its first call, e.g. a GGUF that does not load) ends the run: `run` raises it. So does a
server that refuses the connection (or whose host does not resolve) before it has ever answered: a wrong URL or a
server not started fails at once naming the URL, while the same fault after an answer (a restart) is retried.

Stopping: on Ctrl-C inside `stop_on_sigint()` (see `interrupt.py`), or `request_stop()`, no new request is sent,
calls in flight are stopped at a safe point (`Model.interrupt`, then cancelled), what completed is committed, and
`run` raises `RunInterrupted` with the summary. A later `run` raises it at once, before storing anything.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import defaultdict
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING

from lexprobe.engine.cache import ResponseCache
from lexprobe.engine.config import EngineConfig
from lexprobe.engine.interrupt import STOP, RunInterrupted
from lexprobe.engine.progress import RunProgress
from lexprobe.engine.store import RunStore, TelemetryRow
from lexprobe.engine.summary import RunSummary
from lexprobe.models import replica_stats
from lexprobe.models.base import Model
from lexprobe.models.errors import (
    CallInterrupted,
    ModelConfigError,
    ModelError,
    TransientModelError,
    UnreachableError,
)
from lexprobe.models.registry import check_model, open_model
from lexprobe.models.types import Request, Response

if TYPE_CHECKING:  # tenacity is imported when a request is sent: a run answered from the cache needs none of it
    from tenacity import AsyncRetrying, RetryCallState

logger = logging.getLogger(__name__)

MAX_ERRORS_KEPT = 20
REPLAY_BATCH = 1000


class Engine:
    """Runs requests against models. Models opened by the engine stay open across `run` calls until `aclose`."""

    def __init__(
        self,
        store: RunStore,
        cache: ResponseCache | None = None,
        config: EngineConfig | None = None,
        *,
        progress: RunProgress | None = None,
    ) -> None:
        self.store = store
        self.config = config or EngineConfig()
        self.cache = cache if self.config.use_cache else None
        self.progress = progress or RunProgress(enabled=self.config.progress)
        self.models: dict[str, Model] = {}
        self.permanent_failures: dict[str, str] = {}  # request id -> reason, over every run of this engine
        self.answered: set[str] = set()  # the model specs that have answered a call (not the cache) at least once
        self._fatal: ModelConfigError | None = None  # a model that cannot answer anything: every later run raises it
        self._stop_requested = False
        self._running: set[asyncio.Event] = set()  # the stop event of each run in progress

    @property
    def stopping(self) -> bool:
        """True once Ctrl-C (inside `stop_on_sigint`) or `request_stop` asked the engine to stop."""
        return self._stop_requested or STOP.requested

    def request_stop(self) -> None:
        """Stop every run of this engine as Ctrl-C does (e.g. when a sibling job failed): they raise
        `RunInterrupted` after committing what completed, and later runs raise it at once."""
        self._stop_requested = True
        for stop in list(self._running):
            stop.set()

    async def aclose(self) -> None:
        """Close every model the engine opened."""
        for model in self.models.values():
            await model.aclose()
        self.models.clear()

    def model(self, spec: str) -> Model:
        """Return the open model for `spec`, opening it on first use."""
        if spec not in self.models:
            if self.config.ray is None:
                self.models[spec] = open_model(spec)
            else:  # the calls run on Ray workers; this process still commits every answer (`ray_executor.py`)
                from lexprobe.engine.ray_executor import RayModel

                self.models[spec] = RayModel(
                    spec, self.config.ray, workers=self.config.ray_workers, concurrency=self.config.concurrency
                )
        return self.models[spec]

    async def run(self, requests: Sequence[Request], *, synchronous: bool = False, settled: int = 0) -> RunSummary:
        """Complete every request that has no stored response yet; return what happened.

        `settled` counts more requests of the same job that the caller found stored and answered (and checked:
        `hallucination.resume`) without building them: they are counted in the summary's total and done, as if
        they had been passed.

        With `config.batch`, the pending requests of models with a batch API go through it (`engine.batch`) unless
        `synchronous` (an agent's multi-turn calls, which cannot wait a batch's turnaround between turns).

        Raises `ModelConfigError` before any work when a model spec cannot be used, or once its first call shows
        that the model cannot answer anything; `RunConflictError` when a request id is already in the store with
        different content; `RunInterrupted` (exit 130, with the summary) when the run was stopped with requests
        left. Failures of single requests never raise: they leave the request without an answer and are counted in
        the summary (`failed`, and `failed_permanent` for those retrying cannot fix).
        """
        if self._fatal is not None:
            raise self._fatal
        unique: dict[str, Request] = {}
        for request in requests:
            unique.setdefault(request.request_id, request)
        summary = RunSummary(total=len(unique) + settled)
        if self.stopping:  # before storing anything: the next step of a stopped job never reaches the store
            done = self.store.completed_among(unique)
            summary.already_done = settled + len(done)
            raise RunInterrupted(summary)
        for spec in sorted({request.model for request in requests}):
            check_model(spec)
        started = time.perf_counter()
        replicas_before = replica_stats.snapshot(self.models.values())
        self.store.add_requests(requests)
        done = self.store.completed_among(unique)
        pending = {request_id: request for request_id, request in unique.items() if request_id not in done}
        summary.already_done = summary.total - len(pending)
        stop = asyncio.Event()
        unsubscribe = STOP.subscribe(_waker(asyncio.get_running_loop(), stop))
        self._running.add(stop)
        self.progress.start(summary.total, summary.already_done)
        try:
            to_send = self._replay_cached(list(pending.values()), summary)
            if self.config.batch and not synchronous and to_send:
                from lexprobe.engine.batch.runner import run_batches

                to_send = await run_batches(self, to_send, summary, stop)
            by_model: dict[str, list[Request]] = defaultdict(list)
            for request in to_send:
                by_model[request.model].append(request)
            await self._run_models(by_model, summary, stop)
        finally:
            unsubscribe()
            self._running.discard(stop)
            self.progress.stop()
            summary.elapsed_s = time.perf_counter() - started
            summary.replicas = replica_stats.counts_since(self.models.values(), replicas_before)
        if self._fatal is not None:
            raise self._fatal
        if (stop.is_set() or self.stopping) and summary.remaining > summary.failed:  # some were never answered
            raise RunInterrupted(summary)
        return summary

    async def _run_models(self, by_model: dict[str, list[Request]], summary: RunSummary, stop: asyncio.Event) -> None:
        """Run each model's requests concurrently; the first error stops the others, then is raised."""

        async def one(spec: str, batch: list[Request]) -> None:
            try:
                await self._run_model(spec, batch, summary, stop)
            except BaseException:
                stop.set()
                raise

        outcomes = await asyncio.gather(*(one(spec, batch) for spec, batch in by_model.items()), return_exceptions=True)
        for outcome in outcomes:
            if isinstance(outcome, BaseException):
                raise outcome

    def _replay_cached(self, requests: list[Request], summary: RunSummary) -> list[Request]:
        """Store cache hits (in batches: a replay costs nothing to redo); return the requests still to send."""
        if self.cache is None or not requests:
            return requests
        keys = [request.response_key() for request in requests]
        hits = self.cache.get_many(keys)
        rows = [
            (request.request_id, hits[key], TelemetryRow(request.request_id, request.model, 0, "cache_hit", None, 0.0))
            for request, key in zip(requests, keys, strict=True)
            if key in hits
        ]
        for start in range(0, len(rows), REPLAY_BATCH):
            batch = rows[start : start + REPLAY_BATCH]
            self.store.record_responses(batch)
            summary.cache_hits += len(batch)
            for _, response, _ in batch:
                self.progress.advance(response)
        return [request for request, key in zip(requests, keys, strict=True) if key not in hits]

    async def _run_model(self, spec: str, requests: list[Request], summary: RunSummary, stop: asyncio.Event) -> None:
        model = self.model(spec)
        if self.config.ray is not None:  # --concurrency counts calls per Ray worker: the pool's total
            workers = model.default_concurrency
        else:
            workers = model.concurrency_for(self.config.concurrency)  # per replica for a replicated model
        queue: asyncio.Queue[Request] = asyncio.Queue()
        for request in requests:
            queue.put_nowait(request)

        async def worker() -> None:
            while not (stop.is_set() or self.stopping):
                try:
                    request = queue.get_nowait()
                except asyncio.QueueEmpty:
                    return
                await self._complete(model, request, summary, stop)

        await asyncio.gather(*(worker() for _ in range(min(workers, len(requests)))))

    def _wait_seconds(self, state: RetryCallState) -> float:
        from tenacity.wait import wait_exponential_jitter

        backoff = wait_exponential_jitter(
            multiplier=self.config.backoff_initial_s, max=self.config.backoff_max_s, jitter=self.config.jitter_s
        )(state)
        error = state.outcome.exception() if state.outcome else None
        if isinstance(error, TransientModelError) and error.retry_after_s:
            return max(backoff, min(error.retry_after_s, self.config.backoff_max_s))
        return backoff

    async def _complete(self, model: Model, request: Request, summary: RunSummary, stop: asyncio.Event) -> None:
        """Send one request with retries; store its answer or record why it has none."""
        timeout = model.timeout_for(self.config.timeout_s)
        attempt_number = 0
        try:
            async for attempt in self._retrying(request, summary, stop):
                with attempt:
                    attempt_number = attempt.retry_state.attempt_number
                    response = await self._reachable(request.model, self._attempt(model, request, timeout, stop))
        except CallInterrupted:  # the run is stopping: the request stays pending, nothing is recorded
            return
        except ModelConfigError as exc:  # the model cannot answer anything: end the run
            self._fatal = self._fatal or exc
            stop.set()
            self._record_failure(request, attempt_number, str(exc), True, summary, log=False)  # `run` raises it
            return
        except Exception as exc:  # one request's failure never ends the run
            permanent = isinstance(exc, ModelError) and not isinstance(exc, TransientModelError)
            error = str(exc) if isinstance(exc, ModelError) else f"{type(exc).__name__}: {exc}"
            self._record_failure(request, attempt_number, error, permanent, summary)
            return
        self._record_answer(request, response, attempt_number, summary)

    def _retrying(self, request: Request, summary: RunSummary, stop: asyncio.Event) -> AsyncRetrying:
        """The retry loop of one request: transient errors retried with backoff, each retry logged and recorded; a
        stop during a pause ends it with `CallInterrupted`."""
        from tenacity import AsyncRetrying, retry_if_exception_type, stop_after_attempt

        request_id = request.request_id

        def record_retry(state: RetryCallState) -> None:
            error = state.outcome.exception() if state.outcome else None
            summary.retries += 1
            pause = state.next_action.sleep if state.next_action else 0.0
            logger.warning(
                "%s: attempt %d of %d failed (%s); retrying in %.1fs",
                request_id[:16],
                state.attempt_number,
                self.config.max_retries + 1,
                error,
                pause,
            )
            self.store.record_telemetry(
                TelemetryRow(request_id, request.model, state.attempt_number, "retry", str(error), None)
            )

        async def pause(seconds: float) -> None:
            """The backoff sleep; a stop ends it and leaves the request pending."""
            try:
                await asyncio.wait_for(stop.wait(), seconds)
            except TimeoutError:
                return
            raise CallInterrupted("stopped during a retry pause")

        return AsyncRetrying(
            sleep=pause,
            stop=stop_after_attempt(self.config.max_retries + 1),
            wait=self._wait_seconds,
            retry=retry_if_exception_type(TransientModelError),
            before_sleep=record_retry,
            reraise=True,
        )

    def _record_answer(self, request: Request, response: Response, attempt_number: int, summary: RunSummary) -> None:
        """Cache and store an answer with its `ok` telemetry row, and count it."""
        self.answered.add(request.model)
        if self.cache is not None:
            self.cache.put(request.response_key(), request.model, response)
        self.store.record_response(
            request.request_id,
            response,
            TelemetryRow(request.request_id, request.model, attempt_number, "ok", None, response.latency_s),
        )
        summary.sent += 1
        summary.usage = summary.usage + response.usage
        summary.add_cost(response.cost_usd)
        self.progress.advance(response)

    def _record_failure(
        self, request: Request, attempt: int, error: str, permanent: bool, summary: RunSummary, *, log: bool = True
    ) -> None:
        """Count a request left without an answer and commit its `failed` / `failed_permanent` telemetry row; warn
        unless `log` is False (an error that ends the run is printed once, by the command)."""
        entry = f"{request.request_id}: {error}"
        summary.failed += 1
        if len(summary.errors) < MAX_ERRORS_KEPT:
            summary.errors.append(entry)
        if permanent:
            summary.failed_permanent += 1
            self.permanent_failures.setdefault(request.request_id, error)
            if len(summary.permanent_errors) < MAX_ERRORS_KEPT:
                summary.permanent_errors.append(entry)
        event = "failed_permanent" if permanent else "failed"
        self.store.record_telemetry(TelemetryRow(request.request_id, request.model, attempt, event, error, None))
        if not log:
            return
        logger.warning(
            "%s: %s after %d attempt(s): %s",
            request.request_id[:16],
            "failed permanently" if permanent else "gave up",
            attempt,
            error,
        )

    async def _reachable(self, spec: str, call: Awaitable[Response]) -> Response:
        """Await one call; a server that could not be reached (`UnreachableError`: refused, unknown host) before
        `spec` ever answered is a wrong URL or a server not started, not a passing fault: it raises
        `ModelConfigError` naming the URL, which ends the run at once (exit 2). Once the server has answered, the
        same error stays transient (a restarting server) and is retried."""
        try:
            return await call
        except UnreachableError as exc:
            if spec in self.answered:
                raise
            raise ModelConfigError(f"{spec}: {exc}") from None

    @staticmethod
    async def _attempt(model: Model, request: Request, timeout: float | None, stop: asyncio.Event) -> Response:
        """One call, raced against the run's stop: a stop interrupts the call (at a safe point for the model) and
        raises `CallInterrupted`; an answer that arrived first is kept."""
        started = time.perf_counter()
        call = asyncio.ensure_future(asyncio.wait_for(model.generate(request), timeout))
        watch = asyncio.ensure_future(stop.wait())
        try:
            await asyncio.wait((call, watch), return_when=asyncio.FIRST_COMPLETED)
        finally:
            watch.cancel()
            if not call.done():  # stopped, or this task itself was cancelled: abandon the call
                model.interrupt()
                call.cancel()
                call.add_done_callback(_settled)
        if not call.done():
            raise CallInterrupted("stopped while the call was in flight")
        try:
            response = call.result()
        except TimeoutError:
            raise TransientModelError(f"no answer within {timeout:g}s") from None
        if not response.latency_s:
            response = response.model_copy(update={"latency_s": time.perf_counter() - started})
        return response


def _settled(task: asyncio.Future) -> None:
    """Retrieve an abandoned call's outcome, so that asyncio does not log it as never retrieved."""
    if not task.cancelled():
        task.exception()


def _waker(loop: asyncio.AbstractEventLoop, stop: asyncio.Event) -> Callable[[], None]:
    """Return a function, safe to call from a signal handler, that sets `stop` in `loop`."""

    def wake() -> None:
        with contextlib.suppress(RuntimeError):  # a loop already closed has nothing to wake
            loop.call_soon_threadsafe(stop.set)

    return wake


def run_requests(
    requests: Sequence[Request],
    store: RunStore,
    cache: ResponseCache | None = None,
    config: EngineConfig | None = None,
) -> RunSummary:
    """Run `requests` to completion in a fresh event loop (for synchronous callers); return the summary."""

    async def main() -> RunSummary:
        engine = Engine(store, cache, config)
        try:
            return await engine.run(requests)
        finally:
            await engine.aclose()

    return asyncio.run(main())
