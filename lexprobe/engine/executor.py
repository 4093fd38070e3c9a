"""The engine: push requests through models with caching, per-model concurrency, retries and a resumable store.

    engine = Engine(RunStore.open(run_dir), ResponseCache(), EngineConfig())
    summary = await engine.run(requests)
    answers = engine.store.responses()

Only requests without a stored response are considered, so rerunning the same job resumes it. Each request is
looked up in the cache, then sent with bounded retries; its answer is written to the cache and then committed to
the run store. When retries are exhausted the request stays pending, and the summary says so.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import defaultdict
from collections.abc import Sequence

from tenacity import AsyncRetrying, RetryCallState, retry_if_exception_type, stop_after_attempt
from tenacity.wait import wait_exponential_jitter

from lexprobe.engine.cache import ResponseCache
from lexprobe.engine.config import EngineConfig
from lexprobe.engine.progress import RunProgress
from lexprobe.engine.store import RunStore, TelemetryRow
from lexprobe.engine.summary import RunSummary
from lexprobe.models.base import Model
from lexprobe.models.errors import ModelError, TransientModelError
from lexprobe.models.registry import check_model, open_model
from lexprobe.models.types import Request, Response

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

    async def aclose(self) -> None:
        """Close every model the engine opened."""
        for model in self.models.values():
            await model.aclose()
        self.models.clear()

    def model(self, spec: str) -> Model:
        """Return the open model for `spec`, opening it on first use."""
        if spec not in self.models:
            self.models[spec] = open_model(spec)
        return self.models[spec]

    async def run(self, requests: Sequence[Request]) -> RunSummary:
        """Complete every request that has no stored response yet; return what happened.

        Raises `ModelConfigError` before any work when a model spec cannot be used, and `RunConflictError` when a
        request id is already in the store with different content. Model failures never raise: they leave the
        request pending and are counted in the summary.
        """
        for spec in sorted({request.model for request in requests}):
            check_model(spec)
        started = time.perf_counter()
        summary = RunSummary(total=len({r.request_id for r in requests}))
        self.store.add_requests(requests)
        done = self.store.completed_ids()
        pending: dict[str, Request] = {}
        for request in requests:
            if request.request_id not in done:
                pending.setdefault(request.request_id, request)
        summary.already_done = summary.total - len(pending)
        self.progress.start(summary.total, summary.already_done)
        try:
            to_send = self._replay_cached(list(pending.values()), summary)
            by_model: dict[str, list[Request]] = defaultdict(list)
            for request in to_send:
                by_model[request.model].append(request)
            await asyncio.gather(*(self._run_model(spec, batch, summary) for spec, batch in by_model.items()))
        finally:
            self.progress.stop()
            summary.elapsed_s = time.perf_counter() - started
        return summary

    def _replay_cached(self, requests: list[Request], summary: RunSummary) -> list[Request]:
        """Store cache hits (in batches: a replay costs nothing to redo); return the requests still to send."""
        if self.cache is None or not requests:
            return requests
        hits = self.cache.get_many(request.cache_key() for request in requests)
        misses = []
        batch: list[tuple[str, Response, TelemetryRow]] = []
        for request in requests:
            response = hits.get(request.cache_key())
            if response is None:
                misses.append(request)
                continue
            batch.append(
                (
                    request.request_id,
                    response,
                    TelemetryRow(request.request_id, request.model, 0, "cache_hit", None, 0.0),
                )
            )
            if len(batch) >= REPLAY_BATCH:
                self._commit_replays(batch, summary)
                batch = []
        self._commit_replays(batch, summary)
        return misses

    def _commit_replays(self, batch: list[tuple[str, Response, TelemetryRow]], summary: RunSummary) -> None:
        if not batch:
            return
        self.store.record_responses(batch)
        summary.cache_hits += len(batch)
        for _, response, _ in batch:
            self.progress.advance(response)

    async def _run_model(self, spec: str, requests: list[Request], summary: RunSummary) -> None:
        model = self.model(spec)
        workers = self.config.concurrency or model.default_concurrency
        queue: asyncio.Queue[Request] = asyncio.Queue()
        for request in requests:
            queue.put_nowait(request)

        async def worker() -> None:
            while True:
                try:
                    request = queue.get_nowait()
                except asyncio.QueueEmpty:
                    return
                await self._complete(model, request, summary)

        await asyncio.gather(*(worker() for _ in range(min(workers, len(requests)))))

    def _wait_seconds(self, state: RetryCallState) -> float:
        backoff = wait_exponential_jitter(
            multiplier=self.config.backoff_initial_s, max=self.config.backoff_max_s, jitter=self.config.jitter_s
        )(state)
        error = state.outcome.exception() if state.outcome else None
        if isinstance(error, TransientModelError) and error.retry_after_s:
            return max(backoff, min(error.retry_after_s, self.config.backoff_max_s))
        return backoff

    async def _complete(self, model: Model, request: Request, summary: RunSummary) -> None:
        """Send one request with retries; store its answer or record why it stays pending."""
        timeout = self.config.timeout_s if self.config.timeout_s is not None else model.default_timeout_s
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

        retrying = AsyncRetrying(
            stop=stop_after_attempt(self.config.max_retries + 1),
            wait=self._wait_seconds,
            retry=retry_if_exception_type(TransientModelError),
            before_sleep=record_retry,
            reraise=True,
        )
        attempt_number = 0
        try:
            async for attempt in retrying:
                with attempt:
                    attempt_number = attempt.retry_state.attempt_number
                    response = await self._attempt(model, request, timeout)
        except Exception as exc:  # every failure leaves the request pending, never ends the run
            error = str(exc) if isinstance(exc, ModelError) else f"{type(exc).__name__}: {exc}"
            summary.failed += 1
            if len(summary.errors) < MAX_ERRORS_KEPT:
                summary.errors.append(f"{request_id}: {error}")
            self.store.record_telemetry(TelemetryRow(request_id, request.model, attempt_number, "failed", error, None))
            logger.warning("%s: gave up after %d attempt(s): %s", request_id[:16], attempt_number, error)
            return
        if self.cache is not None:
            self.cache.put(request.cache_key(), request.model, response)
        self.store.record_response(
            request_id,
            response,
            TelemetryRow(request_id, request.model, attempt_number, "ok", None, response.latency_s),
        )
        summary.sent += 1
        summary.usage = summary.usage + response.usage
        summary.add_cost(response.cost_usd)
        self.progress.advance(response)

    @staticmethod
    async def _attempt(model: Model, request: Request, timeout: float | None) -> Response:
        started = time.perf_counter()
        try:
            response = await asyncio.wait_for(model.generate(request), timeout)
        except TimeoutError:
            raise TransientModelError(f"no answer within {timeout:g}s") from None
        if not response.latency_s:
            response = response.model_copy(update={"latency_s": time.perf_counter() - started})
        return response


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
