"""The run store: one SQLite file per run directory holding every request, response, score and telemetry row.

Every completed response is committed in its own transaction before the engine moves on, so killing the process
at any moment loses nothing that had completed, and rerunning resumes with the requests that never completed.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lexprobe.engine.sqlite_util import connect, transaction
from lexprobe.models.types import Request, Response

RUN_DB_NAME = "run.sqlite"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS requests (
    request_id TEXT PRIMARY KEY,
    seq INTEGER NOT NULL,
    model TEXT NOT NULL,
    cache_key TEXT NOT NULL,
    body TEXT NOT NULL,
    tags TEXT NOT NULL,
    created_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS responses (
    request_id TEXT PRIMARY KEY REFERENCES requests(request_id),
    body TEXT NOT NULL,
    cached INTEGER NOT NULL,
    input_tokens INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL,
    cost_usd REAL,
    completed_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS scores (
    request_id TEXT NOT NULL REFERENCES requests(request_id),
    scorer TEXT NOT NULL,
    label TEXT NOT NULL,
    detail TEXT NOT NULL,
    scored_at REAL NOT NULL,
    PRIMARY KEY (request_id, scorer)
);
CREATE TABLE IF NOT EXISTS telemetry (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    request_id TEXT NOT NULL,
    model TEXT NOT NULL,
    attempt INTEGER NOT NULL,
    event TEXT NOT NULL,
    error TEXT,
    latency_s REAL,
    at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS telemetry_request ON telemetry(request_id);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""

#: Telemetry events: a successful call, a retried failure, a final failure, a cache hit.
EVENTS = ("ok", "retry", "failed", "cache_hit")


_INSERT_RESPONSE = "INSERT OR IGNORE INTO responses VALUES (?, ?, ?, ?, ?, ?, ?)"


def _response_row(request_id: str, response: Response, completed_at: float) -> tuple:
    """Return the `responses` row of one answer (a second write of the same id is ignored)."""
    usage = response.usage
    return (
        request_id,
        response.model_dump_json(),
        int(response.cached),
        usage.input_tokens,
        usage.output_tokens,
        response.cost_usd,
        completed_at,
    )


class RunConflictError(ValueError):
    """A request id is already in the run with different content (two different jobs share a run directory)."""


@dataclass(frozen=True)
class TelemetryRow:
    """One attempt at one request."""

    request_id: str
    model: str
    attempt: int
    event: str
    error: str | None
    latency_s: float | None


class RunStore:
    """A run's SQLite file. Use `RunStore.open(run_dir)`, or `RunStore.in_memory()` for one-off asks."""

    def __init__(self, path: Path | str) -> None:
        self.path = path
        self.conn = connect(path)
        self.conn.executescript(_SCHEMA)

    @classmethod
    def open(cls, run_dir: Path | str) -> RunStore:
        """Open (creating if needed) the store of the run directory `run_dir`."""
        return cls(Path(run_dir) / RUN_DB_NAME)

    @classmethod
    def in_memory(cls) -> RunStore:
        """Return a store that lives only as long as the process (for `lexprobe ask` without a run dir)."""
        return cls(":memory:")

    def close(self) -> None:
        """Close the connection."""
        self.conn.close()

    def add_requests(self, requests: Iterable[Request]) -> int:
        """Record `requests` (idempotently) and return how many were new.

        Raises `RunConflictError` when an id already in the run names a request with different content.
        """
        added = 0
        with transaction(self.conn) as conn:
            (next_seq,) = conn.execute("SELECT COALESCE(MAX(seq), -1) + 1 FROM requests").fetchone()
            for request in requests:
                key = request.cache_key()
                row = conn.execute(
                    "SELECT cache_key FROM requests WHERE request_id = ?", (request.request_id,)
                ).fetchone()
                if row is not None:
                    if row[0] != key:
                        raise RunConflictError(
                            f"request {request.request_id!r} is already in {self.path} with different content; "
                            "use a new run directory for a different job"
                        )
                    continue
                conn.execute(
                    "INSERT INTO requests VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (
                        request.request_id,
                        next_seq,
                        request.model,
                        key,
                        request.model_dump_json(by_alias=True),
                        json.dumps(request.tags, sort_keys=True),
                        time.time(),
                    ),
                )
                next_seq += 1
                added += 1
        return added

    def completed_ids(self) -> set[str]:
        """Return the ids of every request that has a response."""
        return {row[0] for row in self.conn.execute("SELECT request_id FROM responses")}

    def record_response(self, request_id: str, response: Response, telemetry: TelemetryRow | None = None) -> None:
        """Commit one response (and its telemetry row) in a single transaction. A second write is ignored."""
        with transaction(self.conn) as conn:
            conn.execute(_INSERT_RESPONSE, _response_row(request_id, response, time.time()))
            if telemetry is not None:
                self._insert_telemetry(conn, telemetry)

    def record_responses(self, rows: list[tuple[str, Response, TelemetryRow]]) -> None:
        """Commit many (request id, response, telemetry) rows in one transaction.

        Meant for cache replays, which cost nothing to redo: batching them makes replaying 10,000 cached
        answers take a fraction of a second.
        """
        now = time.time()
        with transaction(self.conn) as conn:
            conn.executemany(_INSERT_RESPONSE, [_response_row(rid, response, now) for rid, response, _ in rows])
            for _, _, telemetry in rows:
                self._insert_telemetry(conn, telemetry)

    def record_telemetry(self, row: TelemetryRow) -> None:
        """Commit one telemetry row (a retry or a final failure)."""
        with transaction(self.conn) as conn:
            self._insert_telemetry(conn, row)

    @staticmethod
    def _insert_telemetry(conn: Any, row: TelemetryRow) -> None:
        conn.execute(
            "INSERT INTO telemetry (request_id, model, attempt, event, error, latency_s, at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (row.request_id, row.model, row.attempt, row.event, row.error, row.latency_s, time.time()),
        )

    def response(self, request_id: str) -> Response | None:
        """Return the stored response of `request_id`, or None when it has none yet."""
        row = self.conn.execute("SELECT body FROM responses WHERE request_id = ?", (request_id,)).fetchone()
        return Response.model_validate_json(row[0]) if row else None

    def responses(self) -> dict[str, Response]:
        """Return every stored response by request id."""
        rows = self.conn.execute("SELECT request_id, body FROM responses")
        return {request_id: Response.model_validate_json(body) for request_id, body in rows}

    def requests(self) -> list[Request]:
        """Return every request in the order it was first added."""
        rows = self.conn.execute("SELECT body FROM requests ORDER BY seq")
        return [Request.model_validate_json(body) for (body,) in rows]

    def telemetry(self, request_id: str | None = None) -> list[TelemetryRow]:
        """Return telemetry rows in the order they were written, optionally for one request."""
        sql = "SELECT request_id, model, attempt, event, error, latency_s FROM telemetry"
        rows = (
            self.conn.execute(sql + " WHERE request_id = ? ORDER BY id", (request_id,))
            if request_id
            else self.conn.execute(sql + " ORDER BY id")
        )
        return [TelemetryRow(*row) for row in rows]

    def counts(self) -> dict[str, int]:
        """Return {'requests', 'completed', 'pending'} for the whole run."""
        (total,) = self.conn.execute("SELECT COUNT(*) FROM requests").fetchone()
        (done,) = self.conn.execute("SELECT COUNT(*) FROM responses").fetchone()
        return {"requests": total, "completed": done, "pending": total - done}

    def record_score(self, request_id: str, scorer: str, label: str, detail: dict[str, Any]) -> None:
        """Commit (or replace) the score one scorer gave one request."""
        with transaction(self.conn) as conn:
            conn.execute(
                "INSERT OR REPLACE INTO scores VALUES (?, ?, ?, ?, ?)",
                (request_id, scorer, label, json.dumps(detail, sort_keys=True), time.time()),
            )

    def set_meta(self, key: str, value: Any) -> None:
        """Store one JSON-serializable value describing the run (command, config, versions)."""
        with transaction(self.conn) as conn:
            conn.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, json.dumps(value, sort_keys=True)))

    def get_meta(self, key: str) -> Any:
        """Return a value stored with `set_meta`, or None."""
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return json.loads(row[0]) if row else None
