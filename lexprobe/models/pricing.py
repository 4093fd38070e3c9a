"""Prices of the common hosted models, and the cost of one call.

Prices are list prices in US dollars per million tokens, as published by the providers (checked 2025). A model
missing from the table has an unknown price: its cost is `None`, shown as "n/a", never guessed. Dated snapshots
('gpt-4o-2024-08-06', 'claude-3-5-sonnet-20241022') and '-latest' aliases take the price of their family; any
other name that merely starts with a family ('o3-pro', 'claude-opus-4-5') is a different model, so unknown.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lexprobe.models.types import Usage


@dataclass(frozen=True)
class Price:
    """USD per million tokens. `cache_read`/`cache_write` default to the input price where a provider has none."""

    input: float
    output: float
    cache_read: float | None = None
    cache_write: float | None = None


#: (backend, model family) -> price.
PRICES: dict[tuple[str, str], Price] = {
    ("openai", "gpt-4o"): Price(2.50, 10.00, cache_read=1.25),
    ("openai", "gpt-4o-mini"): Price(0.15, 0.60, cache_read=0.075),
    ("openai", "gpt-4.1"): Price(2.00, 8.00, cache_read=0.50),
    ("openai", "gpt-4.1-mini"): Price(0.40, 1.60, cache_read=0.10),
    ("openai", "gpt-4.1-nano"): Price(0.10, 0.40, cache_read=0.025),
    ("openai", "gpt-4-turbo"): Price(10.00, 30.00),
    ("openai", "gpt-4"): Price(30.00, 60.00),
    ("openai", "gpt-3.5-turbo"): Price(0.50, 1.50),
    ("openai", "o1"): Price(15.00, 60.00, cache_read=7.50),
    ("openai", "o3"): Price(2.00, 8.00, cache_read=0.50),
    ("openai", "o3-mini"): Price(1.10, 4.40, cache_read=0.55),
    ("openai", "o4-mini"): Price(1.10, 4.40, cache_read=0.275),
    ("anthropic", "claude-3-haiku"): Price(0.25, 1.25, cache_read=0.03, cache_write=0.30),
    ("anthropic", "claude-3-opus"): Price(15.00, 75.00, cache_read=1.50, cache_write=18.75),
    ("anthropic", "claude-3-5-haiku"): Price(0.80, 4.00, cache_read=0.08, cache_write=1.00),
    ("anthropic", "claude-3-5-sonnet"): Price(3.00, 15.00, cache_read=0.30, cache_write=3.75),
    ("anthropic", "claude-3-7-sonnet"): Price(3.00, 15.00, cache_read=0.30, cache_write=3.75),
    ("anthropic", "claude-sonnet-4"): Price(3.00, 15.00, cache_read=0.30, cache_write=3.75),
    ("anthropic", "claude-sonnet-4-5"): Price(3.00, 15.00, cache_read=0.30, cache_write=3.75),
    ("anthropic", "claude-opus-4"): Price(15.00, 75.00, cache_read=1.50, cache_write=18.75),
    ("anthropic", "claude-opus-4-1"): Price(15.00, 75.00, cache_read=1.50, cache_write=18.75),
    ("anthropic", "claude-haiku-4-5"): Price(1.00, 5.00, cache_read=0.10, cache_write=1.25),
}

#: What may follow a family name in a snapshot of that same model: a date ('-2024-08-06', '-20241022',
#: '-0613') or '-latest'.
_SNAPSHOT_SUFFIX = re.compile(r"-(?:latest|\d{8}|\d{4}(?:-\d{2}-\d{2})?)")

#: Backends that run on the user's own machine cost nothing per token.
FREE_BACKENDS = frozenset({"local", "scripted"})


def price_for(backend: str, model_name: str) -> Price | None:
    """Return the price of `model_name` on `backend`, or None when it is unknown."""
    if backend in FREE_BACKENDS:
        return Price(0.0, 0.0, 0.0, 0.0)
    best: tuple[int, Price] | None = None
    for (price_backend, family), price in PRICES.items():
        if price_backend != backend:
            continue
        is_snapshot = model_name.startswith(family) and _SNAPSHOT_SUFFIX.fullmatch(model_name[len(family) :])
        if (model_name == family or is_snapshot) and (best is None or len(family) > best[0]):
            best = (len(family), price)
    return best[1] if best else None


#: The share of the synchronous price a provider's batch API charges, by backend: OpenAI's Batch API and Anthropic's
#: Message Batches both bill 50% of the standard price on every token kind (input, output, cache reads and writes).
BATCH_DISCOUNT: dict[str, float] = {"openai": 0.5, "anthropic": 0.5}


def batch_price(backend: str, model_name: str) -> Price | None:
    """Return the batch price of `model_name` on `backend`: `price_for` times `BATCH_DISCOUNT`, or None when either
    the price or the discount is unknown (an `openai-compatible/` server's batch endpoints have no list price)."""
    price = price_for(backend, model_name)
    share = BATCH_DISCOUNT.get(backend)
    if price is None or share is None:
        return None

    def scaled(value: float | None) -> float | None:
        return None if value is None else value * share

    return Price(price.input * share, price.output * share, scaled(price.cache_read), scaled(price.cache_write))


def cost_usd(price: Price | None, usage: Usage) -> float | None:
    """Return the dollar cost of `usage` at `price`, or None when the price is unknown.

    `usage.input_tokens` counts uncached input only; cached reads and writes are priced separately.
    """
    if price is None:
        return None
    read = price.cache_read if price.cache_read is not None else price.input
    write = price.cache_write if price.cache_write is not None else price.input
    total = (
        usage.input_tokens * price.input
        + usage.output_tokens * price.output
        + usage.cache_read_tokens * read
        + usage.cache_write_tokens * write
    )
    return round(total / 1_000_000, 10)
