"""The response cache shared by all runs: one SQLite file keyed by `Request.cache_key()`.

It lives in `~/.cache/lexprobe` unless `LEXPROBE_CACHE` names another folder. Sampled requests (temperature > 0)
carry their sample index in the key, so K samples of one question stay K distinct answers.

The cache only saves money: a damaged cache file (truncated, overwritten) is moved aside as
`responses.sqlite.corrupt-<time>` with a warning, and the run goes on with a fresh, empty cache; a damaged answer
in a sound file (a body that is not a stored response) is dropped with a warning and its request asked again. A
cache that cannot be written (a read-only folder) is a `StoreError` naming the file.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from lexprobe.engine.sqlite_util import CorruptStoreError, connect, select_in, store_error, transaction
from lexprobe.errors import StoreError

if TYPE_CHECKING:  # `default_cache_dir` is read at start-up (the case database lives in the cache folder)
    from lexprobe.models.types import Response

T = TypeVar("T")

logger = logging.getLogger(__name__)

CACHE_DB_NAME = "responses.sqlite"


def default_cache_dir() -> Path:
    """Return `$LEXPROBE_CACHE`, or `~/.cache/lexprobe` (honouring `$XDG_CACHE_HOME`)."""
    override = os.environ.get("LEXPROBE_CACHE")
    if override:
        return Path(override).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "lexprobe"


class ResponseCache:
    """Stores model answers so that no request is paid for twice."""

    def __init__(self, folder: Path | str | None = None) -> None:
        self.folder = Path(folder) if folder is not None else default_cache_dir()
        self.path = self.folder / CACHE_DB_NAME
        try:
            self.conn = self._open()
        except CorruptStoreError as exc:
            self._move_aside(exc)
            self.conn = self._open()

    def _open(self) -> sqlite3.Connection:
        conn = connect(self.path, hint="set LEXPROBE_CACHE to another folder or pass --no-cache")
        try:
            conn.execute(
                "CREATE TABLE IF NOT EXISTS responses ("
                " key TEXT PRIMARY KEY, model TEXT NOT NULL, body TEXT NOT NULL, created_at REAL NOT NULL)"
            )
            conn.execute("SELECT key FROM responses LIMIT 1").fetchall()
        except sqlite3.Error as exc:
            conn.close()
            raise store_error(self.path, exc, "set LEXPROBE_CACHE to another folder or pass --no-cache") from None
        return conn

    def _move_aside(self, exc: CorruptStoreError) -> None:
        """Rename the damaged cache file (and its -wal / -shm files) with a time suffix and warn."""
        suffix = time.strftime(".corrupt-%Y%m%dT%H%M%S")
        aside = self.path.with_name(self.path.name + suffix)
        try:
            for extra in ("-wal", "-shm", ""):
                part = Path(f"{self.path}{extra}")
                if part.exists():
                    part.rename(f"{aside}{extra}")
        except OSError as error:
            raise StoreError(f"{exc}; it could not be moved aside ({error.strerror or error})") from None
        logger.warning("the response cache %s was damaged (%s); moved it to %s and started a fresh cache",
                       self.path, exc.reason, aside)  # fmt: skip

    def _guarded(self, operation: Callable[[], T]) -> T:
        """Run `operation`; a damaged cache found on the way is moved aside and the operation retried once on a
        fresh cache."""
        try:
            return operation()
        except sqlite3.Error as exc:
            error = store_error(self.path, exc)
            if not isinstance(error, CorruptStoreError):
                raise error from None
            self.conn.close()
            self._move_aside(error)
            self.conn = self._open()
        try:
            return operation()
        except sqlite3.Error as exc:
            raise store_error(self.path, exc) from None

    def close(self) -> None:
        """Close the connection."""
        self.conn.close()

    def get_many(self, keys: Iterable[str]) -> dict[str, Response]:
        """Return the cached responses among `keys`, marked `cached=True` and costing nothing this time."""
        keys = list(keys)
        return self._guarded(lambda: self._get_many(keys))

    def _get_many(self, keys: list[str]) -> dict[str, Response]:
        from pydantic import ValidationError

        from lexprobe.models.types import Response

        found: dict[str, Response] = {}
        damaged: list[str] = []
        for key, body in select_in(self.conn, "SELECT key, body FROM responses WHERE key IN ({marks})", keys):
            try:
                found[key] = as_cache_hit(Response.model_validate_json(body))
            except (ValidationError, ValueError, TypeError):
                damaged.append(key)
        if damaged:
            self._drop(damaged)
        return found

    def _drop(self, keys: list[str]) -> None:
        """Delete cached rows whose body is not a stored response (their requests are asked again), and warn."""
        try:
            with transaction(self.conn) as conn:
                conn.executemany("DELETE FROM responses WHERE key = ?", [(key,) for key in keys])
        except sqlite3.Error as exc:  # e.g. a read-only cache: the rows stay, but are never served
            kept = f" (they could not be deleted: {exc})"
        else:
            kept = ""
        logger.warning("the response cache %s held %d damaged answer(s) (not a stored response); dropped them%s, "
                       "their requests are asked again", self.path, len(keys), kept)  # fmt: skip

    def put(self, key: str, model: str, response: Response) -> None:
        """Store `response` under `key` (first answer wins; a concurrent duplicate is ignored)."""
        row = (key, model, response.model_dump_json(), time.time())

        def insert() -> None:
            with transaction(self.conn) as conn:
                conn.execute("INSERT OR IGNORE INTO responses VALUES (?, ?, ?, ?)", row)

        self._guarded(insert)

    def __len__(self) -> int:
        return self._guarded(lambda: self.conn.execute("SELECT COUNT(*) FROM responses").fetchone()[0])


def as_cache_hit(response: Response) -> Response:
    """Return `response` as served from the cache: `cached=True`, and a cost of 0 since nothing was paid."""
    return response.model_copy(update={"cached": True, "cost_usd": 0.0})
