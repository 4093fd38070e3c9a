"""The run store: one SQLite file per run directory holding every request, response, score and telemetry row, and
the items a domain asks its requests about (`store_rows.py`).

Every completed response is committed in its own transaction before the engine moves on, so killing the process
at any moment loses nothing that had completed, and rerunning resumes with the requests that never completed.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from lexprobe.engine.lock import RunDirLock
from lexprobe.engine.run_claim import (  # re-exported: what `from lexprobe.engine.store import ...` names
    LEGACY_KIND_KEYS,
    RunClaim,
    RunConflictError,
    settings_changes,
)
from lexprobe.engine.sqlite_util import (
    DamagedRowError,
    connect,
    connect_read_only,
    select_in,
    transaction,
    translate_errors,
)
from lexprobe.engine.store_rows import ITEMS_SCHEMA, StoreRows
from lexprobe.errors import StoreError
from lexprobe.models.types import Request, Response

__all__ = [
    "EVENTS",
    "LEGACY_KIND_KEYS",
    "META_SHAPES",
    "RUN_DB_NAME",
    "RunConflictError",
    "RunStore",
    "TelemetryRow",
    "settings_changes",
]

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

#: Telemetry events: a successful call, a retried failure, a failure that outlasted its retries (pending: a rerun
#: tries again), a failure retrying cannot fix (exit 2), a cache hit, an answer that came by a provider's batch API.
EVENTS = ("ok", "retry", "failed", "failed_permanent", "cache_hit", "batch")


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


def _list_of(kind: type) -> Any:
    return lambda value: isinstance(value, list) and all(isinstance(item, kind) for item in value)


#: The shape every meta value that lexprobe reads back must have (other keys only need to be JSON), and its name.
META_SHAPES: dict[str, tuple[Any, str]] = {
    "model": (lambda value: isinstance(value, str), "a string"),
    "kinds": (_list_of(str), "a list of strings"),
    "coverage": (_list_of(dict), "a list of objects"),
    **{key: ((lambda value: isinstance(value, dict)), "an object") for key in LEGACY_KIND_KEYS},
}

#: The types of a telemetry row's columns (None allowed where the column may be NULL).
_TELEMETRY_TYPES: tuple[tuple[str, tuple[type, ...]], ...] = (
    ("request_id", (str,)),
    ("model", (str,)),
    ("attempt", (int,)),
    ("event", (str,)),
    ("error", (str, type(None))),
    ("latency_s", (int, float, type(None))),
)


def _reason(exc: Exception) -> str:
    """Return a short reason for a value that failed to parse: the first line of the error, cut to 120 chars."""
    if isinstance(exc, ValidationError):
        first = exc.errors()[0] if exc.errors() else {}
        where = ".".join(str(part) for part in first.get("loc", ()))
        text = f"{first.get('msg', 'invalid')}{' at ' + where if where else ''}"
    else:
        text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return text if len(text) <= 120 else text[:117] + "..."


@dataclass(frozen=True)
class TelemetryRow:
    """One attempt at one request."""

    request_id: str
    model: str
    attempt: int
    event: str
    error: str | None
    latency_s: float | None


class RunStore(RunClaim, StoreRows):
    """A run's SQLite file. Use `RunStore.open(run_dir)` to run (it takes the run directory's lock),
    `RunStore.open_read_only(run_dir)` to read a run (no lock; works in a read-only folder), or
    `RunStore.in_memory()` for one-off asks. Which kind of run and model the store holds, and the settings
    it was run with, are checked by the methods of `RunClaim` (`lexprobe.engine.run_claim`)."""

    damaged_hint = "move it aside or use a new --run-dir"

    def __init__(self, path: Path | str, *, read_only: bool = False, lock: RunDirLock | None = None) -> None:
        self.path = path
        self.read_only = read_only
        self.lock = lock
        if read_only:
            self.conn = connect_read_only(path, hint=self.damaged_hint)
        else:
            self.conn = connect(path, hint=self.damaged_hint)
            self._create_schema()

    @translate_errors
    def _create_schema(self) -> None:
        try:
            self.conn.executescript(_SCHEMA + ITEMS_SCHEMA)
        except Exception:
            self.conn.close()
            raise

    @classmethod
    def open(cls, run_dir: Path | str) -> RunStore:
        """Open (creating if needed) the store of the run directory `run_dir` for a run.

        Takes the run directory's lock (`lexprobe.engine.lock`) until `close`: raises `RunDirectoryLocked` while
        another process runs there, and `StoreError` (naming the file) for a directory that cannot be written or a
        damaged `run.sqlite`.
        """
        lock = RunDirLock(run_dir).acquire()
        try:
            return cls(Path(run_dir) / RUN_DB_NAME, lock=lock)
        except BaseException:
            lock.release()
            raise

    @classmethod
    def open_read_only(cls, run_dir: Path | str) -> RunStore:
        """Open an existing run's store for reading (reports): no lock, nothing written, also in a read-only
        folder. Raises `StoreError` naming the file when there is none or it cannot be read."""
        path = Path(run_dir) / RUN_DB_NAME
        if not path.is_file():
            raise StoreError(f"{run_dir} is not a run directory (no {RUN_DB_NAME})")
        return cls(path, read_only=True)

    @classmethod
    def in_memory(cls) -> RunStore:
        """Return a store that lives only as long as the process (for `lexprobe ask` without a run dir)."""
        return cls(":memory:")

    def close(self) -> None:
        """Close the connection and let go of the run directory's lock."""
        try:
            self.conn.close()
        finally:
            if self.lock is not None:
                self.lock.release()
                self.lock = None

    @translate_errors
    def add_requests(self, requests: Iterable[Request]) -> int:
        """Record `requests` (idempotently) and return how many were new.

        Set-based, for the hundreds of thousands of requests a resumed paper-size run re-plans: the ids already
        stored are looked up in chunks (`select_in`) and the new rows written with one `executemany`, in one
        transaction. Raises `RunConflictError` when an id already in the run (or twice in `requests`) names a
        request with different content; nothing is written then.
        """
        unique: dict[str, tuple[Request, str]] = {}
        for request in requests:
            key = request.cache_key()
            seen = unique.setdefault(request.request_id, (request, key))
            if seen[1] != key:
                raise self._conflict(request.request_id)
        with transaction(self.conn) as conn:
            stored = self._check_keys(conn, {request_id: key for request_id, (_, key) in unique.items()})
            (next_seq,) = conn.execute("SELECT COALESCE(MAX(seq), -1) + 1 FROM requests").fetchone()
            now = time.time()
            new = [(request_id, *value) for request_id, value in unique.items() if request_id not in stored]
            rows = [
                (request_id, next_seq + n, request.model, key, request.model_dump_json(by_alias=True),
                 json.dumps(request.tags, sort_keys=True), now)
                for n, (request_id, request, key) in enumerate(new)
            ]  # fmt: skip
            conn.executemany("INSERT INTO requests VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
        return len(rows)

    @translate_errors
    def check_keys(self, keys: Mapping[str, str]) -> None:
        """Raise `RunConflictError` naming the first id of `keys` (in its order) that the store holds with another
        cache key than `keys` gives it; ids the store does not hold are left alone. Reads only."""
        self._check_keys(self.conn, keys)

    def _check_keys(self, conn: Any, keys: Mapping[str, str]) -> dict[str, str]:
        """`check_keys` on `conn`; return the cache key the store holds for each id of `keys` it holds."""
        sql = "SELECT request_id, cache_key FROM requests WHERE request_id IN ({marks})"
        stored = dict(select_in(conn, sql, list(keys)))
        for request_id, key in keys.items():
            if request_id in stored and stored[request_id] != key:
                raise self._conflict(request_id)
        return stored

    def _conflict(self, request_id: str) -> RunConflictError:
        return RunConflictError(
            f"request {request_id!r} is already in {self.path} with different content; "
            "use a new run directory for a different job"
        )

    @translate_errors
    def completed_ids(self) -> set[str]:
        """Return the ids of every request that has a response."""
        return {row[0] for row in self.conn.execute("SELECT request_id FROM responses")}

    @translate_errors
    def completed_among(self, request_ids: Iterable[str]) -> set[str]:
        """Return those of `request_ids` that have a response: indexed lookups in chunks, not a read of every
        response (a resumed paper-size run hands the engine a few hundred requests beside a million answers)."""
        sql = "SELECT request_id FROM responses WHERE request_id IN ({marks})"
        return {row[0] for row in select_in(self.conn, sql, list(request_ids))}

    @translate_errors
    def record_response(self, request_id: str, response: Response, telemetry: TelemetryRow | None = None) -> None:
        """Commit one response (and its telemetry row) in a single transaction. A second write is ignored."""
        with transaction(self.conn) as conn:
            conn.execute(_INSERT_RESPONSE, _response_row(request_id, response, time.time()))
            if telemetry is not None:
                self._insert_telemetry(conn, telemetry)

    @translate_errors
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

    @translate_errors
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

    def damaged(self, table: str, row: Any, column: str, reason: str) -> DamagedRowError:
        """Return the one-line error for a stored value that cannot be read back: it names the file, the table, the
        row (its key) and the column, says why, and how to go on (`damaged_hint`)."""
        return DamagedRowError(
            f"{self.path} is damaged: {table} row {row!r}, column {column}: {reason}; {self.damaged_hint}",
            self.path,
            reason,
        )

    @translate_errors
    def response(self, request_id: str) -> Response | None:
        """Return the stored response of `request_id`, or None when it has none yet."""
        row = self.conn.execute("SELECT body FROM responses WHERE request_id = ?", (request_id,)).fetchone()
        return self.parse_response(request_id, row[0]) if row else None

    @translate_errors
    def responses(self) -> dict[str, Response]:
        """Return every stored response by request id (`damaged` for a row that cannot be read back)."""
        rows = self.conn.execute("SELECT request_id, body FROM responses")
        return {request_id: self.parse_response(request_id, body) for request_id, body in rows}

    @translate_errors
    def requests(self) -> list[Request]:
        """Return every request in the order it was first added (`damaged` for a row that cannot be read back)."""
        rows = self.conn.execute("SELECT request_id, body FROM requests ORDER BY seq")
        return [self.parse_request(request_id, body) for request_id, body in rows]

    def parse_request(self, request_id: Any, body: Any) -> Request:
        """Parse one `requests.body`, raising `damaged` naming the row when it is not a stored request."""
        try:
            return Request.model_validate_json(body)
        except (ValidationError, ValueError, TypeError) as exc:
            raise self.damaged("requests", request_id, "body", f"not a stored request ({_reason(exc)})") from None

    def parse_response(self, request_id: Any, body: Any) -> Response:
        """Parse one `responses.body`, raising `damaged` naming the row when it is not a stored response."""
        try:
            return Response.model_validate_json(body)
        except (ValidationError, ValueError, TypeError) as exc:
            raise self.damaged("responses", request_id, "body", f"not a stored response ({_reason(exc)})") from None

    @translate_errors
    def telemetry(self, request_id: str | None = None) -> list[TelemetryRow]:
        """Return telemetry rows in the order they were written, optionally for one request."""
        sql = "SELECT id, request_id, model, attempt, event, error, latency_s FROM telemetry"
        rows = (
            self.conn.execute(sql + " WHERE request_id = ? ORDER BY id", (request_id,))
            if request_id
            else self.conn.execute(sql + " ORDER BY id")
        )
        telemetry = []
        for row_id, *values in rows:
            for (column, types), value in zip(_TELEMETRY_TYPES, values, strict=True):
                if not isinstance(value, types) or isinstance(value, bool):
                    raise self.damaged("telemetry", row_id, column, f"holds {value!r:.60}, not {types[0].__name__}")
            telemetry.append(TelemetryRow(*values))
        return telemetry

    @translate_errors
    def scores(self) -> dict[tuple[str, str], tuple[str, dict[str, Any]]]:
        """Return every stored score as {(request id, scorer): (label, detail)}; `damaged` naming the row for a
        label that is not text or a detail that is not a JSON object."""
        scores = {}
        for request_id, scorer, label, detail in self.conn.execute(
            "SELECT request_id, scorer, label, detail FROM scores"
        ):
            scores[(request_id, scorer)] = self.score_value(request_id, scorer, label, detail)
        return scores

    def score_value(self, request_id: str, scorer: str, label: Any, detail: Any) -> tuple[str, dict[str, Any]]:
        """Return one stored `scores` row's (label, detail), `damaged` naming the row for a label that is not text
        or a detail that is not a JSON object."""
        row = f"{request_id}/{scorer}"
        if not isinstance(label, str):
            raise self.damaged("scores", row, "label", f"holds {label!r:.60}, not a label")
        try:
            value = json.loads(detail or "{}")
        except (ValueError, TypeError) as exc:
            raise self.damaged("scores", row, "detail", f"not JSON ({_reason(exc)})") from None
        if not isinstance(value, dict):
            raise self.damaged("scores", row, "detail", "not a JSON object")
        return label, value

    @translate_errors
    def counts(self) -> dict[str, int]:
        """Return {'requests', 'completed', 'pending'} for the whole run."""
        (total,) = self.conn.execute("SELECT COUNT(*) FROM requests").fetchone()
        (done,) = self.conn.execute("SELECT COUNT(*) FROM responses").fetchone()
        return {"requests": total, "completed": done, "pending": total - done}

    @translate_errors
    def record_scores(self, rows: Iterable[tuple[str, str, str, dict[str, Any]]]) -> None:
        """Commit (or replace) many (request id, scorer, label, detail) scores in one transaction."""
        now = time.time()
        with transaction(self.conn) as conn:
            conn.executemany(
                "INSERT OR REPLACE INTO scores VALUES (?, ?, ?, ?, ?)",
                [(rid, scorer, label, json.dumps(detail, sort_keys=True), now) for rid, scorer, label, detail in rows],
            )

    @translate_errors
    def set_meta(self, key: str, value: Any) -> None:
        """Store one JSON-serializable value describing the run (command, config, versions)."""
        with transaction(self.conn) as conn:
            conn.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, json.dumps(value, sort_keys=True)))

    @translate_errors
    def get_meta(self, key: str) -> Any:
        """Return a value stored with `set_meta`, or None; `damaged` naming the row when the stored value is not
        JSON, or not of the shape lexprobe wrote (`META_SHAPES`)."""
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        try:
            value = json.loads(row[0])
        except (ValueError, TypeError) as exc:
            raise self.damaged("meta", key, "value", f"not JSON ({_reason(exc)})") from None
        check, shape = META_SHAPES.get(key, (None, ""))
        if value is not None and check is not None and not check(value):
            raise self.damaged("meta", key, "value", f"holds {json.dumps(value)[:60]}, not {shape}")
        return value

    @property
    def run_dir(self) -> Path:
        """The run directory this store belongs to."""
        return Path(self.path).parent
