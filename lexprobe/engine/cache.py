"""The response cache shared by all runs: one SQLite file keyed by `Request.cache_key()`.

It lives in `~/.cache/lexprobe` unless `LEXPROBE_CACHE` names another folder. Sampled requests (temperature > 0)
carry their sample index in the key, so K samples of one question stay K distinct answers.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable
from pathlib import Path

from lexprobe.engine.sqlite_util import connect, transaction
from lexprobe.models.types import Response

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
        self.conn = connect(self.path)
        self.conn.execute(
            "CREATE TABLE IF NOT EXISTS responses ("
            " key TEXT PRIMARY KEY, model TEXT NOT NULL, body TEXT NOT NULL, created_at REAL NOT NULL)"
        )

    def close(self) -> None:
        """Close the connection."""
        self.conn.close()

    def get_many(self, keys: Iterable[str]) -> dict[str, Response]:
        """Return the cached responses among `keys`, marked `cached=True` and costing nothing this time."""
        found: dict[str, Response] = {}
        keys = list(keys)
        for start in range(0, len(keys), 500):
            chunk = keys[start : start + 500]
            marks = ",".join("?" * len(chunk))
            rows = self.conn.execute(f"SELECT key, body FROM responses WHERE key IN ({marks})", chunk)
            for key, body in rows:
                found[key] = as_cache_hit(Response.model_validate_json(body))
        return found

    def get(self, key: str) -> Response | None:
        """Return the cached response for `key`, or None."""
        return self.get_many([key]).get(key)

    def put(self, key: str, model: str, response: Response) -> None:
        """Store `response` under `key` (first answer wins; a concurrent duplicate is ignored)."""
        with transaction(self.conn) as conn:
            conn.execute(
                "INSERT OR IGNORE INTO responses VALUES (?, ?, ?, ?)",
                (key, model, response.model_dump_json(), time.time()),
            )

    def __len__(self) -> int:
        (count,) = self.conn.execute("SELECT COUNT(*) FROM responses").fetchone()
        return count


def as_cache_hit(response: Response) -> Response:
    """Return `response` as served from the cache: `cached=True`, and a cost of 0 since nothing was paid."""
    return response.model_copy(update={"cached": True, "cost_usd": 0.0})
