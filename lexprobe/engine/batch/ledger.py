"""The batch ledger: every batch a run submitted and the custom id of every request in it, in the run store.

Protocol (what makes a rerun never submit a request twice): a batch and all its items are written in one
transaction, state `submitting`, before the provider is asked to create it; the provider's batch id is recorded as
soon as the create call returns. A rerun that finds a `submitting` batch without a provider id first looks for it
on the provider (`providers.BatchProvider.find`) and creates it only when it is not there. A batch whose results
have been stored is `collected`; until then the rerun polls it again.
"""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass
from typing import Any

from lexprobe.engine.sqlite_util import select_in, transaction
from lexprobe.engine.store import RunStore

SCHEMA = """
CREATE TABLE IF NOT EXISTS batches (
    local_id TEXT PRIMARY KEY,
    provider TEXT NOT NULL,
    model TEXT NOT NULL,
    provider_id TEXT,
    state TEXT NOT NULL,
    round INTEGER NOT NULL,
    requests INTEGER NOT NULL,
    succeeded INTEGER NOT NULL DEFAULT 0,
    failed INTEGER NOT NULL DEFAULT 0,
    created_at REAL NOT NULL,
    submitted_at REAL,
    ended_at REAL,
    collected INTEGER NOT NULL DEFAULT 0,
    note TEXT NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS batch_items (
    custom_id TEXT PRIMARY KEY,
    local_id TEXT NOT NULL REFERENCES batches(local_id),
    request_id TEXT NOT NULL,
    state TEXT NOT NULL,
    reason TEXT
);
CREATE INDEX IF NOT EXISTS batch_items_request ON batch_items(request_id);
CREATE INDEX IF NOT EXISTS batch_items_batch ON batch_items(local_id);
"""


@dataclass(frozen=True)
class BatchRow:
    """One row of `batches`."""

    local_id: str
    provider: str
    model: str
    provider_id: str | None
    state: str
    round: int
    requests: int
    succeeded: int
    failed: int
    created_at: float
    submitted_at: float | None
    ended_at: float | None
    collected: bool
    note: str

    def as_dict(self, now: float | None = None) -> dict[str, Any]:
        """The row as JSON-ready data, with its age in seconds."""
        data = dict(self.__dict__)
        data["age_s"] = round((now or time.time()) - self.created_at, 1)
        return data


def new_local_id() -> str:
    """Return a fresh local batch id (letters and digits only, so custom ids built on it suit both providers)."""
    return "lx" + uuid.uuid4().hex[:16]


def custom_id(local_id: str, index: int) -> str:
    """Return the custom id of the `index`-th request of a batch: `<local id>-<index>`, at most 64 characters of
    `[A-Za-z0-9_-]` as Anthropic requires; it names its batch, which is how a batch found again is verified."""
    return f"{local_id}-{index}"


class BatchLedger:
    """The `batches` and `batch_items` tables on a run store's connection (created on first use)."""

    def __init__(self, store: RunStore) -> None:
        self.store = store
        self.conn = store.conn
        if not store.read_only:
            self.conn.executescript(SCHEMA)

    def exists(self) -> bool:
        """True when the store has a batch ledger (a read-only store of a run that never batched has none)."""
        row = self.conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'batches'").fetchone()
        return row is not None

    def add_intent(self, provider: str, model: str, request_ids: list[str], round_: int) -> tuple[str, list[str]]:
        """Record a batch about to be created, and its items, in one transaction (state `submitting`); return its
        local id and the custom ids, in the order of `request_ids`."""
        local_id = new_local_id()
        ids = [custom_id(local_id, index) for index in range(len(request_ids))]
        with transaction(self.conn) as conn:
            conn.execute(
                "INSERT INTO batches (local_id, provider, model, state, round, requests, created_at) "
                "VALUES (?, ?, ?, 'submitting', ?, ?, ?)",
                (local_id, provider, model, round_, len(request_ids), time.time()),
            )
            conn.executemany(
                "INSERT INTO batch_items (custom_id, local_id, request_id, state) VALUES (?, ?, ?, 'submitted')",
                [(cid, local_id, rid) for cid, rid in zip(ids, request_ids, strict=True)],
            )
        return local_id, ids

    def set_submitted(self, local_id: str, provider_id: str, state: str) -> None:
        """Record the provider's id of a batch it created."""
        with transaction(self.conn) as conn:
            conn.execute(
                "UPDATE batches SET provider_id = ?, state = ?, submitted_at = ? WHERE local_id = ?",
                (provider_id, state, time.time(), local_id),
            )

    def set_state(self, local_id: str, state: str, counts: tuple[int, int], note: str = "") -> None:
        """Record the state and (succeeded, failed) counts the provider last reported."""
        with transaction(self.conn) as conn:
            conn.execute(
                "UPDATE batches SET state = ?, succeeded = ?, failed = ?, note = CASE WHEN ? = '' THEN note ELSE ? END "
                "WHERE local_id = ?",
                (state, counts[0], counts[1], note, note, local_id),
            )

    def set_collected(self, local_id: str, counts: tuple[int, int], note: str = "") -> None:
        """Mark a batch's results stored: it is never polled again."""
        with transaction(self.conn) as conn:
            conn.execute(
                "UPDATE batches SET collected = 1, ended_at = COALESCE(ended_at, ?), succeeded = ?, failed = ?, "
                "note = CASE WHEN ? = '' THEN note ELSE ? END WHERE local_id = ?",
                (time.time(), counts[0], counts[1], note, note, local_id),
            )

    def set_items(self, rows: list[tuple[str, str | None, str]]) -> None:
        """Record (state, reason, custom id) of many items in one transaction. An item is `submitted` (in a batch not
        collected yet), `succeeded` (its response is stored), or not answered: `errored`, `expired`, `canceled`,
        `missing`."""
        with transaction(self.conn) as conn:
            conn.executemany("UPDATE batch_items SET state = ?, reason = ? WHERE custom_id = ?", rows)

    def batches(self, *, open_only: bool = False, model: str | None = None) -> list[BatchRow]:
        """Every batch in creation order; `open_only`: those whose results are not stored yet; `model`: one spec's."""
        sql = (
            "SELECT local_id, provider, model, provider_id, state, round, requests, succeeded, failed, created_at, "
            "submitted_at, ended_at, collected, note FROM batches"
        )
        where, args = [], []
        if open_only:
            where.append("collected = 0")
        if model is not None:
            where.append("model = ?")
            args.append(model)
        if where:
            sql += " WHERE " + " AND ".join(where)
        rows = self.conn.execute(sql + " ORDER BY created_at, local_id", args)
        return [BatchRow(*row[:12], bool(row[12]), row[13]) for row in rows]

    def items(self, local_id: str) -> list[tuple[str, str, str]]:
        """(custom id, request id, state) of every item of a batch, in submission order."""
        rows = self.conn.execute(
            "SELECT custom_id, request_id, state FROM batch_items WHERE local_id = ? ORDER BY rowid", (local_id,)
        )
        return list(rows)

    def round_of(self, request_ids: list[str]) -> int:
        """The next submission round of a group of requests: one more than the most batches any of them was in."""
        sql = ("SELECT COALESCE(MAX(n), 0) FROM (SELECT COUNT(*) AS n FROM batch_items WHERE request_id IN ({marks}) "
               "GROUP BY request_id)")  # fmt: skip
        return max((count for (count,) in select_in(self.conn, sql, request_ids)), default=0) + 1

    def last_reasons(self) -> dict[str, str]:
        """Request id -> the reason its latest unanswered item gave (for the report of exhausted requests)."""
        rows = self.conn.execute(
            "SELECT request_id, state, reason FROM batch_items WHERE state NOT IN ('submitted', 'succeeded') "
            "ORDER BY rowid"
        )
        return {request_id: f"{state}: {reason}" if reason else state for request_id, state, reason in rows}
