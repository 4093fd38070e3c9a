"""Open SQLite files the way every lexprobe store wants them: WAL, waiting on locks, foreign keys on."""

from __future__ import annotations

import sqlite3
from pathlib import Path


def connect(path: Path | str, *, timeout_s: float = 30.0) -> sqlite3.Connection:
    """Return a connection in WAL mode with `synchronous=NORMAL`.

    In WAL mode a committed transaction survives the process being killed at any moment (even SIGKILL); NORMAL
    only risks the last transactions on a power loss, not on a crash. `isolation_level=None` leaves transaction
    boundaries to the caller (`with transaction(conn)`).
    """
    if str(path) != ":memory:":
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(str(path), timeout=timeout_s, isolation_level=None, check_same_thread=False)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute("PRAGMA foreign_keys=ON")
    conn.execute(f"PRAGMA busy_timeout={int(timeout_s * 1000)}")
    return conn


class transaction:
    """`with transaction(conn):` runs the block in BEGIN IMMEDIATE ... COMMIT, rolling back on error."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def __enter__(self) -> sqlite3.Connection:
        self.conn.execute("BEGIN IMMEDIATE")
        return self.conn

    def __exit__(self, exc_type, exc, tb) -> None:
        self.conn.execute("ROLLBACK" if exc_type else "COMMIT")
