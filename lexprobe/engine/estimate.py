"""`--dry-run`: how many requests a job would send, how many tokens, and what that would cost, in total and per
model (a hallucination profile's judge requests are priced at the judge's model); with `--batch`, the batches the
pending requests make and their cost at the batch price. Sends nothing and imports no SDK."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from lexprobe.engine.cache import ResponseCache
from lexprobe.engine.store import RUN_DB_NAME, RunStore
from lexprobe.models.identity import pinned_identities
from lexprobe.models.pricing import BATCH_DISCOUNT, cost_usd, price_for
from lexprobe.models.registry import check_model
from lexprobe.models.spec import parse_model_spec
from lexprobe.models.types import Request, Usage

#: Rough characters per token of English text, for estimates only.
CHARS_PER_TOKEN = 4
#: Bytes a provider's batch entry adds to a request's JSON (custom id, method, url, params wrapper), an upper bound.
ENTRY_OVERHEAD_BYTES = 200


def estimate_input_tokens(request: Request) -> int:
    """Return an estimate of the prompt tokens of `request` (characters / 4, tools and schema included)."""
    chars = sum(len(m.content) + len(m.role) + 4 for m in request.messages)
    chars += sum(len(json.dumps(t.model_dump())) for t in request.tools)
    if request.schema_ is not None:
        chars += len(json.dumps(request.schema_))
    return max(1, chars // CHARS_PER_TOKEN)


def _cost_text(cost: float | None) -> str:
    """Return an upper bound of cost as the estimate lines print it ("$0.0123", or why there is none)."""
    return "unknown (no price for this model)" if cost is None else f"${cost:.4f}"


@dataclass
class ModelEstimate:
    """The part of an estimate sent to one model, priced at that model's price."""

    model: str
    requests: int = 0
    already_done: int = 0
    cache_hits: int = 0
    to_send: int = 0
    input_tokens: int = 0
    max_output_tokens: int = 0
    max_cost_usd: float | None = 0.0

    def one_line(self) -> str:
        """Return this model's share as one line."""
        cost = _cost_text(self.max_cost_usd)
        return (
            f"  {self.model}: {self.requests:,} requests, {self.to_send:,} to send; ~{self.input_tokens:,} input "
            f"tokens, at most {self.max_output_tokens:,} output tokens; at most {cost}"
        )


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
    by_model: list[ModelEstimate] = field(default_factory=list)
    batch: dict | None = None  # with --batch: batches, requests and cost at the batch price (`batch_estimate`)

    def to_dict(self) -> dict:
        """Return the estimate as JSON-ready data."""
        return asdict(self)

    def one_line(self) -> str:
        """Return the estimate as one human-readable line."""
        cost = _cost_text(self.max_cost_usd)
        return (
            f"dry run: {self.requests} requests, {self.already_done} already done, {self.cache_hits} in cache, "
            f"{self.to_send} to send; ~{self.input_tokens:,} input tokens, at most {self.max_output_tokens:,} "
            f"output tokens; at most {cost}"
        )

    def lines(self) -> str:
        """Return the total line followed by one line per model."""
        lines = [self.one_line(), *(model.one_line() for model in self.by_model)]
        if self.batch is not None:
            lines += batch_lines(self.batch)
        return "\n".join(lines)


def dry_run_store(run_dir: Path | str | None) -> RunStore:
    """Return the store a dry run reads: the run directory's `run.sqlite` opened read-only when there is one (its
    done requests count as done; no lock is taken), else an empty in-memory store. A dry run creates no folder and
    no file. Raises `StoreError` when an existing `run.sqlite` cannot be read."""
    if run_dir is not None and (Path(run_dir) / RUN_DB_NAME).is_file():
        return RunStore.open_read_only(run_dir)
    return RunStore.in_memory()


def _add_cost(total: float | None, cost: float | None) -> float | None:
    return None if cost is None or total is None else total + cost


def estimate_run(
    requests: Sequence[Request],
    store: RunStore | None = None,
    cache: ResponseCache | None = None,
    *,
    alike: Mapping[str, Sequence[str]] | None = None,
) -> Estimate:
    """Estimate the work of running `requests` without sending or storing anything, in total and per model (each
    request priced at its own model's price).

    `alike` maps a request's id to the ids of more requests that are the same for an estimate (model, messages,
    tools, schema and max_tokens: the K calibration samples of a question), counted and priced as that request
    without building them; it needs `cache` None (their answers would have other keys). The estimate is the one of
    the full list of requests.

    Raises `ModelConfigError` when a model spec cannot be used, as the real run would; a missing API key is no
    error here, since nothing is sent.
    """
    if alike and cache is not None:
        raise ValueError("estimate_run: `alike` requests have keys of their own: build them to look up a cache")
    unique: dict[str, Request] = {}
    for request in requests:
        unique[request.request_id] = request
        others = alike.get(request.request_id) if alike else None
        if others:
            unique.update(dict.fromkeys(others, request))
    # Requests that are one object (an `alike` group: a question's K samples) are estimated once and counted as
    # many times as they have ids: a paper-size plan is ~450,000 ids but ~45,000 distinct requests.
    objects = {id(request): request for request in requests}
    counts = Counter(map(id, unique.values()))
    models = {spec: ModelEstimate(spec) for spec in sorted({objects[key].model for key in counts})}
    prices = {}
    for name in models:
        spec = check_model(name, credentials=False)  # a dry run sends nothing: no API key needed
        prices[name] = price_for(spec.backend, spec.name)
    done = store.completed_ids() if store is not None else set()
    lefts = counts if not done else Counter(id(unique[rid]) for rid in unique.keys() - done)
    groups = [(objects[key], count, lefts.get(key, 0)) for key, count in counts.items()]
    for request, count, left in groups:
        models[request.model].requests += count
        models[request.model].already_done += count - left
    pending = [(request, left) for request, _, left in groups if left]
    keys: list[str | None] = [None] * len(pending)  # without a cache no key is looked up: none is computed
    hits: dict = {}
    if cache is not None:  # (no `alike` then: every pending request is its own object, counted once)
        with pinned_identities():  # one identity per model spec for the whole pass
            keys = [request.response_key() for request, _ in pending]
        hits = cache.get_many(keys)
    _add_pending(models, prices, pending, keys, hits)
    return _summed(len(unique), list(models.values()))


def _add_pending(
    models: dict[str, ModelEstimate],
    prices: dict,
    pending: list[tuple[Request, int]],
    keys: list[str | None],
    hits: dict,
) -> None:
    """Add each pending request to its model's share: a cache hit, or tokens and the most it may cost, `left` times."""
    # the greedy request of a question and its K samples share their messages (and so their token estimate) and
    # mostly their price: each is computed once per set of messages, and per (model, tokens)
    tokens_of: dict[tuple[int, ...], int] = {}  # by the ids of the messages (alive: `pending` holds them)
    priced: dict[tuple[str, int, int | None], tuple[Usage, float | None]] = {}
    for (request, left), key in zip(pending, keys, strict=True):
        share = models[request.model]
        if key in hits:
            share.cache_hits += left
            continue
        memo = tuple(map(id, request.messages)) if not request.tools and request.schema_ is None else None
        input_tokens = tokens_of.get(memo) if memo else None
        if input_tokens is None:
            input_tokens = estimate_input_tokens(request)
            if memo:
                tokens_of[memo] = input_tokens
        price_key = (request.model, input_tokens, request.max_tokens)
        if price_key not in priced:
            usage = Usage(input_tokens=input_tokens, output_tokens=request.max_tokens)
            priced[price_key] = usage, cost_usd(prices[request.model], usage)
        usage, cost = priced[price_key]
        share.to_send += left
        share.input_tokens += usage.input_tokens * left
        share.max_output_tokens += usage.output_tokens * left
        total = share.max_cost_usd
        if cost is None or total is None:
            share.max_cost_usd = None
            continue
        for _ in range(left):  # added one by one, as a request at a time would: the same float sum
            total += cost
        share.max_cost_usd = total


def _summed(requests: int, shares: list[ModelEstimate]) -> Estimate:
    """The estimate of the whole run: the models' shares added up."""
    total_cost: float | None = 0.0
    for share in shares:
        total_cost = _add_cost(total_cost, share.max_cost_usd)
    return Estimate(
        requests=requests,
        already_done=sum(share.already_done for share in shares),
        cache_hits=sum(share.cache_hits for share in shares),
        to_send=sum(share.to_send for share in shares),
        input_tokens=sum(share.input_tokens for share in shares),
        max_output_tokens=sum(share.max_output_tokens for share in shares),
        max_cost_usd=total_cost,
        by_model=shares,
    )


def batch_estimate(
    estimate: Estimate, requests: Sequence[Request], store: RunStore | None, cache: ResponseCache | None
) -> dict[str, Any]:
    """Return the batch part of a dry run of `requests` (already estimated in `estimate`): per model with a batch
    API, the requests to send, the batches they make and the cost at the batch price; the requests that stay
    synchronous (models without a batch API)."""
    from lexprobe.engine.batch.providers import BATCH_BACKENDS, AnthropicBatches, OpenAIBatches, split_batches

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
        limits = AnthropicBatches if backend == "anthropic" else OpenAIBatches
        batches = len(split_batches(sizes.get(share.model, []), limits.max_requests, limits.max_bytes))
        discount = BATCH_DISCOUNT.get(backend)
        cost = None if share.max_cost_usd is None or discount is None else share.max_cost_usd * discount
        rows.append({"model": share.model, "requests": share.to_send, "batches": batches, "max_cost_usd": cost})
        total_batches += batches
        total_requests += share.to_send
        total_cost = _add_cost(total_cost, cost)
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
