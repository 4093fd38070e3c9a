"""`--dry-run --batch`: how many batches the pending requests make, and their cost at the batch price. Sends
nothing and imports no SDK: an entry's size is estimated from the request's own JSON (the provider's entry adds a
few fields around the same messages), so the number of batches is the one the run would make up to that estimate."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lexprobe.engine.cache import ResponseCache
from lexprobe.engine.estimate import Estimate
from lexprobe.engine.store import RunStore
from lexprobe.models.pricing import BATCH_DISCOUNT
from lexprobe.models.spec import parse_model_spec
from lexprobe.models.types import Request

#: Bytes a provider's entry adds to a request's JSON (custom id, method, url, params wrapper), an upper bound.
ENTRY_OVERHEAD_BYTES = 200


def _limits(backend: str) -> tuple[int, int]:
    from lexprobe.engine.batch.providers import AnthropicBatches, OpenAIBatches

    cls = AnthropicBatches if backend == "anthropic" else OpenAIBatches
    return cls.max_requests, cls.max_bytes


def batch_estimate(
    estimate: Estimate, requests: Sequence[Request], store: RunStore | None, cache: ResponseCache | None
) -> dict[str, Any]:
    """Return the batch part of a dry run of `requests` (already estimated in `estimate`): per model with a batch
    API, the requests to send, the batches they make and the cost at the batch price; the requests that stay
    synchronous (models without a batch API)."""
    from lexprobe.engine.batch.providers import BATCH_BACKENDS, split_batches

    done = store.completed_ids() if store is not None else set()
    unique = {request.request_id: request for request in requests if request.request_id not in done}
    pending = list(unique.values())
    hits = cache.get_many([request.response_key() for request in pending]) if cache is not None else {}
    sizes: dict[str, list[int]] = {}
    for request in pending:
        if request.response_key() not in hits:
            sizes.setdefault(request.model, []).append(len(request.model_dump_json()) + ENTRY_OVERHEAD_BYTES)
    rows, synchronous = [], 0
    total_batches, total_requests, total_cost = 0, 0, 0.0
    for share in estimate.by_model:
        backend = parse_model_spec(share.model).backend
        if backend not in BATCH_BACKENDS:
            synchronous += share.to_send
            continue
        max_requests, max_bytes = _limits(backend)
        batches = len(split_batches(sizes.get(share.model, []), max_requests, max_bytes))
        discount = BATCH_DISCOUNT.get(backend)
        cost = None if share.max_cost_usd is None or discount is None else share.max_cost_usd * discount
        rows.append({"model": share.model, "requests": share.to_send, "batches": batches, "max_cost_usd": cost})
        total_batches += batches
        total_requests += share.to_send
        total_cost = None if cost is None or total_cost is None else total_cost + cost
    return {
        "batches": total_batches,
        "requests": total_requests,
        "max_cost_usd": total_cost,
        "synchronous": synchronous,
        "by_model": rows,
    }


def batch_lines(batch: dict[str, Any]) -> list[str]:
    """The dry run's batch lines."""
    cost = "unknown (no batch price for a model)" if batch["max_cost_usd"] is None else f"${batch['max_cost_usd']:.4f}"
    lines = [
        f"batch: {batch['requests']:,} requests in {batch['batches']:,} batch(es), at most {cost} at the batch price"
        f"; {batch['synchronous']:,} request(s) of models without a batch API stay synchronous"
    ]
    for row in batch["by_model"]:
        row_cost = "unknown" if row["max_cost_usd"] is None else f"${row['max_cost_usd']:.4f}"
        name, count, batches = row["model"], row["requests"], row["batches"]
        lines.append(f"  {name}: {count:,} requests, {batches:,} batch(es), at most {row_cost}")
    return lines
