"""`--dry-run`: how many requests a job would send, how many tokens, and what that would cost. Sends nothing."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass

from lexprobe.engine.cache import ResponseCache
from lexprobe.engine.store import RunStore
from lexprobe.models.pricing import cost_usd, price_for
from lexprobe.models.registry import check_model
from lexprobe.models.types import Request, Usage

#: Rough characters per token of English text, for estimates only.
CHARS_PER_TOKEN = 4


def estimate_input_tokens(request: Request) -> int:
    """Return an estimate of the prompt tokens of `request` (characters / 4, tools and schema included)."""
    chars = sum(len(m.content) + len(m.role) + 4 for m in request.messages)
    chars += sum(len(json.dumps(t.model_dump())) for t in request.tools)
    if request.schema_ is not None:
        chars += len(json.dumps(request.schema_))
    return max(1, chars // CHARS_PER_TOKEN)


@dataclass
class Estimate:
    """What a run would do. Output tokens are an upper bound (each request's max_tokens)."""

    requests: int
    already_done: int
    cache_hits: int
    to_send: int
    input_tokens: int
    max_output_tokens: int
    max_cost_usd: float | None

    def to_dict(self) -> dict:
        """Return the estimate as JSON-ready data."""
        return asdict(self)

    def one_line(self) -> str:
        """Return the estimate as one human-readable line."""
        cost = "unknown (no price for this model)" if self.max_cost_usd is None else f"${self.max_cost_usd:.4f}"
        return (
            f"dry run: {self.requests} requests, {self.already_done} already done, {self.cache_hits} in cache, "
            f"{self.to_send} to send; ~{self.input_tokens:,} input tokens, at most {self.max_output_tokens:,} "
            f"output tokens; at most {cost}"
        )


def estimate_run(
    requests: Sequence[Request], store: RunStore | None = None, cache: ResponseCache | None = None
) -> Estimate:
    """Estimate the work of running `requests` without sending or storing anything.

    Raises `ModelConfigError` when a model spec cannot be used, as the real run would; a missing API key is no
    error here, since nothing is sent.
    """
    unique = {request.request_id: request for request in requests}
    for spec in sorted({request.model for request in unique.values()}):
        check_model(spec, credentials=False)  # a dry run sends nothing: no API key needed
    done = store.completed_ids() if store is not None else set()
    pending = [r for rid, r in unique.items() if rid not in done]
    keys = [r.response_key() for r in pending]
    hits = cache.get_many(keys) if cache is not None else {}
    to_send = [r for r, key in zip(pending, keys, strict=True) if key not in hits]
    input_tokens = output_tokens = 0
    total_cost: float | None = 0.0
    for request in to_send:
        usage = Usage(input_tokens=estimate_input_tokens(request), output_tokens=request.max_tokens)
        input_tokens += usage.input_tokens
        output_tokens += usage.output_tokens
        spec = check_model(request.model, credentials=False)
        cost = cost_usd(price_for(spec.backend, spec.name), usage)
        total_cost = None if cost is None or total_cost is None else total_cost + cost
    return Estimate(
        requests=len(unique),
        already_done=len(unique) - len(pending),
        cache_hits=len(pending) - len(to_send),
        to_send=len(to_send),
        input_tokens=input_tokens,
        max_output_tokens=output_tokens,
        max_cost_usd=total_cost,
    )
