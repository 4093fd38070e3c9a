"""Per-replica request counts of a replicated model (`openai-compatible/MODEL@URL1,URL2,...`), for the run summary.

A light module (no SDK imports): `engine/summary.py` and the executor use it whether or not a replicated model is
open. The router (`models/replicas.py`) keeps running totals; the engine takes a snapshot when a run starts and puts
what changed during the run in `RunSummary.replicas`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol


@dataclass
class ReplicaCount:
    """What one replica did: `requests` sent to it, `answered` by it, `errors` (failed attempts: refused, reset,
    timed out, HTTP errors); an attempt stopped by Ctrl-C is neither answered nor an error."""

    model: str
    url: str
    requests: int = 0
    answered: int = 0
    errors: int = 0

    @property
    def key(self) -> tuple[str, str]:
        """(model spec, replica URL): what tells two rows apart."""
        return (self.model, self.url)


class CountsReplicas(Protocol):
    """A model that reports per-replica counts (every `Model` does; only the replica router has any)."""

    def replica_counts(self) -> list[ReplicaCount]:
        """Return the running totals of every replica (empty for a model without replicas)."""
        ...


def snapshot(models: Iterable[CountsReplicas]) -> dict[tuple[str, str], ReplicaCount]:
    """Return the current totals of every replica of `models`, by (model, URL)."""
    return {row.key: row for model in models for row in model.replica_counts()}


def counts_since(models: Iterable[CountsReplicas], before: dict[tuple[str, str], ReplicaCount]) -> list[ReplicaCount]:
    """Return what each replica of `models` did since `before` was taken (a model opened since counts from zero)."""
    rows = []
    for row in snapshot(models).values():
        start = before.get(row.key) or ReplicaCount(row.model, row.url)
        requests, answered = row.requests - start.requests, row.answered - start.answered
        rows.append(ReplicaCount(row.model, row.url, requests, answered, row.errors - start.errors))
    return rows


def merge_counts(first: list[ReplicaCount], second: list[ReplicaCount]) -> list[ReplicaCount]:
    """Return the counts of two runs added per (model, URL), in the order replicas first appear."""
    merged: dict[tuple[str, str], ReplicaCount] = {}
    for row in [*first, *second]:
        total = merged.setdefault(row.key, ReplicaCount(row.model, row.url))
        total.requests += row.requests
        total.answered += row.answered
        total.errors += row.errors
    return list(merged.values())


def counts_text(rows: list[ReplicaCount]) -> str:
    """Return the counts as one line for people ("replicas: URL 12 requests, 0 errors; ..."); "" when none."""
    if not rows:
        return ""
    models = {row.model for row in rows}
    parts = []
    for row in rows:
        where = row.url if len(models) == 1 else f"{row.model}@{row.url}"
        parts.append(f"{where} {row.requests} requests, {row.errors} errors")
    return "replicas: " + "; ".join(parts)
