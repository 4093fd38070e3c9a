"""Replicas of one model on several OpenAI-compatible servers: `openai-compatible/MODEL@URL1,URL2,...` (docs/scale.md,
"Replicated OpenAI-compatible servers").

`ReplicaRouter` holds one `OpenAIModel` client per URL and sends each request to the replica with the fewest requests
outstanding, never more than the per-replica concurrency. A replica that fails (refused, reset, timed out, 5xx, an
answer that is not a chat completion) is counted, marked down (1 s, doubling up to `DOWN_MAX_S`) and the request goes
to another replica at once; only when every replica failed it does its last error reach the engine (an
`UnreachableError` only when every replica refused). A 429 or another 4xx goes to the engine as from one server.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from dataclasses import dataclass, replace
from typing import Any

import openai

from lexprobe.models.base import Model
from lexprobe.models.errors import ModelError, TransientModelError, UnreachableError
from lexprobe.models.openai_chat import OpenAIModel
from lexprobe.models.replica_stats import ReplicaCount
from lexprobe.models.spec import ModelSpec
from lexprobe.models.types import Request, Response

logger = logging.getLogger(__name__)

DOWN_FIRST_S = 1.0  # how long a replica stays down after its first failure in a row
DOWN_MAX_S = 30.0  # the longest it stays down (the period doubles with each failure in a row)
ATTEMPT_TIMEOUT_S = 120.0  # the time limit on one attempt when --timeout is not given


@dataclass
class Replica:
    """One server of a replicated model, with its client and its routing state."""

    index: int
    url: str
    model: OpenAIModel
    count: ReplicaCount
    outstanding: int = 0
    failures: int = 0  # failures in a row (0 after an answer)
    down_until: float = 0.0  # time.monotonic() before which the replica is not used

    def is_down(self, now: float) -> bool:
        """True while the replica is marked down."""
        return now < self.down_until


def open_openai_compatible(spec: ModelSpec, *, http_client: Any = None) -> Model:
    """Return the model for an `openai-compatible/...` spec: one `OpenAIModel` for one URL, a `ReplicaRouter` over
    several."""
    if spec.replicated:
        return ReplicaRouter(spec, http_client=http_client)
    return OpenAIModel(spec, http_client=http_client)


def replica_fault(error: TransientModelError) -> bool:
    """True when a retryable error is the replica's fault (a dropped or refused connection, a timeout, HTTP 5xx, an
    answer that is not a chat completion), False for an HTTP answer below 500 (a rate limit: the request, not the
    server, should wait)."""
    cause = error.__cause__
    if isinstance(cause, openai.APIStatusError):
        return cause.status_code >= 500
    return True


class ReplicaRouter(Model):
    """`openai-compatible/MODEL@URL1,URL2,...`: one model served by several replicas (see the module docstring)."""

    default_timeout_s = None  # the router times each attempt itself (`timeout_for`)

    def __init__(self, spec: ModelSpec, *, http_client: Any = None) -> None:
        super().__init__(spec)
        self.replicas = [
            Replica(
                index,
                url,
                OpenAIModel(
                    replace(spec, raw=f"openai-compatible/{spec.name}@{url}", base_url=url, replica_urls=()),
                    http_client=http_client,
                ),
                ReplicaCount(spec.raw, url),
            )
            for index, url in enumerate(spec.replica_urls)
        ]
        self.per_replica = self.replicas[0].model.default_concurrency
        self.default_concurrency = self.per_replica * len(self.replicas)
        self.attempt_timeout_s: float | None = ATTEMPT_TIMEOUT_S
        self._wake: asyncio.Event | None = None  # set (and replaced) whenever a slot frees

    def concurrency_for(self, requested: int | None) -> int:
        """`requested` (or the compatible server's default, 4) is per replica: keep replicas x that in flight."""
        self.per_replica = requested or self.replicas[0].model.default_concurrency
        return self.per_replica * len(self.replicas)

    def timeout_for(self, requested: float | None) -> float | None:
        """Time each attempt on a replica with `requested` (default `ATTEMPT_TIMEOUT_S`); the engine sets none."""
        self.attempt_timeout_s = requested if requested is not None else ATTEMPT_TIMEOUT_S
        return None

    def replica_counts(self) -> list[ReplicaCount]:
        """Return a copy of every replica's running totals."""
        return [replace(replica.count) for replica in self.replicas]

    async def generate(self, request: Request) -> Response:
        """Send `request` to the least busy replica, and to the next one at once when a replica fails."""
        tried: set[int] = set()
        faults: list[tuple[Replica, TransientModelError]] = []
        while True:
            replica = await self._acquire(tried)
            if replica is None:
                raise self._every_replica_failed(faults)
            tried.add(replica.index)
            try:
                return await self._send(replica, request)
            except TransientModelError as exc:
                if not replica_fault(exc):
                    raise
                self._mark_down(replica, exc, more=len(tried) < len(self.replicas))
                faults.append((replica, exc))

    async def _acquire(self, tried: set[int]) -> Replica | None:
        """Take a slot on the best replica not in `tried`, waiting while every candidate is at its concurrency;
        return None when every replica has been tried."""
        while True:
            candidates = [replica for replica in self.replicas if replica.index not in tried]
            if not candidates:
                return None
            now = time.monotonic()
            up = [replica for replica in candidates if not replica.is_down(now)]
            pool = up or [min(candidates, key=lambda replica: replica.down_until)]  # all down: probe the first back
            free = [replica for replica in pool if replica.outstanding < self.per_replica]
            if free:
                chosen = min(free, key=lambda replica: (replica.outstanding, replica.count.requests, replica.index))
                chosen.outstanding += 1
                chosen.count.requests += 1
                return chosen
            back = [replica.down_until - now for replica in candidates if replica.is_down(now)]
            await self._wait_for_slot(min(back) if back and up else None)

    async def _wait_for_slot(self, timeout: float | None) -> None:
        """Wait until a slot frees on some replica, or `timeout` seconds (a down replica comes back up)."""
        if self._wake is None:
            self._wake = asyncio.Event()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._wake.wait(), timeout)

    def _release(self, replica: Replica) -> None:
        replica.outstanding -= 1
        if self._wake is not None:
            self._wake.set()
            self._wake = None

    async def _send(self, replica: Replica, request: Request) -> Response:
        """One attempt on `replica`, counted in its totals; its slot is released however the attempt ends."""
        try:
            response = await asyncio.wait_for(replica.model.generate(request), self.attempt_timeout_s)
        except TimeoutError:
            replica.count.errors += 1
            raise TransientModelError(f"{replica.url}: no answer within {self.attempt_timeout_s:g}s") from None
        except ModelError:
            replica.count.errors += 1
            raise
        finally:
            self._release(replica)
        replica.count.answered += 1
        replica.failures = 0
        replica.down_until = 0.0
        return response

    def _mark_down(self, replica: Replica, error: TransientModelError, *, more: bool) -> None:
        """Mark `replica` down after `error`, for twice as long as last time in a row (capped)."""
        replica.failures += 1
        period = min(DOWN_FIRST_S * 2 ** (replica.failures - 1), DOWN_MAX_S)
        replica.down_until = time.monotonic() + period
        then = "trying another replica" if more else "every replica tried"
        level = logging.WARNING if replica.failures == 1 else logging.INFO
        logger.log(level, "replica %s failed (%s); down for %gs, %s", replica.url, error, period, then)

    def _every_replica_failed(self, faults: list[tuple[Replica, TransientModelError]]) -> TransientModelError:
        """Return the error the engine gets when every replica failed one request: an `UnreachableError` when every
        one refused the connection (the engine's wrong-URL rule then applies to the whole model), else retryable."""
        reasons = "; ".join(f"{replica.url}: {error}" for replica, error in faults)
        message = f"every replica of {self.spec.name} failed ({reasons})"
        if faults and all(isinstance(error, UnreachableError) for _, error in faults):
            return UnreachableError(message, url=", ".join(replica.url for replica, _ in faults))
        return TransientModelError(message)

    async def aclose(self) -> None:
        """Close every replica's client."""
        for replica in self.replicas:
            await replica.model.aclose()
