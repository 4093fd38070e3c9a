"""The one interface every backend implements, and the `Response` every backend builds from an answer."""

from __future__ import annotations

from abc import ABC, abstractmethod

from lexprobe.models.pricing import Price, cost_usd, price_for
from lexprobe.models.replica_stats import ReplicaCount
from lexprobe.models.spec import ModelSpec
from lexprobe.models.types import FinishReason, Request, Response, ToolCall, Usage


class Model(ABC):
    """A model that answers `Request`s.

    Subclasses set `default_concurrency` (how many requests the engine sends at once) and
    `default_timeout_s` (per-request limit; None where a call cannot be interrupted).
    """

    default_concurrency: int = 8
    default_timeout_s: float | None = 120.0

    def __init__(self, spec: ModelSpec) -> None:
        self.spec = spec
        self.price: Price | None = price_for(spec.backend, spec.name)

    @abstractmethod
    async def generate(self, request: Request) -> Response:
        """Answer one request.

        Raises `TransientModelError` for failures worth retrying and `ModelError` for the rest.
        """

    def cost(self, usage: Usage) -> float | None:
        """Return the dollar cost of `usage` for this model, or None when its price is unknown."""
        return cost_usd(self.price, usage)

    def concurrency_for(self, requested: int | None) -> int:
        """Return how many of this model's requests the engine keeps in flight when `--concurrency` is `requested`
        (None: the backend's default). A replicated model reads it per replica and returns replicas x that."""
        return requested or self.default_concurrency

    def timeout_for(self, requested: float | None) -> float | None:
        """Return the engine's time limit on one `generate` call when `--timeout` is `requested` (None: the
        backend's default). A replicated model applies it to each attempt on a replica itself and returns None."""
        return requested if requested is not None else self.default_timeout_s

    def replica_counts(self) -> list[ReplicaCount]:
        """Return the running request counts of each replica; empty for a model that is not replicated."""
        return []

    def interrupt(self) -> None:  # noqa: B027 - optional hook
        """Ask the calls in flight to stop at the next safe point (Ctrl-C); each then raises `CallInterrupted`.

        Only backends whose calls run in a thread need this: the engine cancels async calls itself. The default
        does nothing."""

    async def aclose(self) -> None:  # noqa: B027 - optional hook
        """Release clients, files or weights. The default does nothing."""


def finished_response(
    model: Model,
    *,
    text: str,
    calls: tuple[ToolCall, ...],
    finish: FinishReason,
    usage: Usage,
    latency_s: float,
    served_by: str | None,
) -> Response:
    """Return the `Response` of one call to `model`: its cost from `usage`, and `served_by` (the model name the
    server reports; the spec's name when it reports none)."""
    return Response(
        text=text,
        tool_calls=calls,
        finish_reason=finish,
        usage=usage,
        latency_s=latency_s,
        cost_usd=model.cost(usage),
        model=served_by or model.spec.name,
    )
