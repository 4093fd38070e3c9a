"""Where a viewer side index lives and how it is built (into a temporary file moved into place), and whether one
built earlier can still be trusted before it is used: `index_problem` compares its schema with the one lexprobe
builds, runs SQLite's quick check and each FTS5 table's integrity check (docs/viewer.md); a file that passed is not
checked again in the same process while its inode, size and modification time stay the same.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import tempfile
from collections.abc import Callable
from pathlib import Path

from lexprobe.engine.cache import default_cache_dir

#: Files that passed, by path: the (device, inode, size, mtime_ns) they had then.
_PASSED: dict[str, tuple[int, int, int, int]] = {}


def index_location(run_dir: Path, name: str) -> tuple[Path, bool]:
    """Return where the side index `name` of `run_dir` lives, and whether that is the fallback in the user cache
    folder (`LEXPROBE_CACHE/view-index/`, when the run directory cannot be written)."""
    run_dir = Path(run_dir)
    if os.access(run_dir, os.W_OK):
        return run_dir / name, False
    digest = hashlib.sha256(str(run_dir.resolve()).encode()).hexdigest()[:24]
    return default_cache_dir() / "view-index" / f"{digest}-{name}", True


def build_atomically(target: Path, write: Callable[[Path], None]) -> None:
    """Run `write(temporary)` on a new temporary file beside `target`, then move it into place (readers never see
    half an index); the temporary file is removed when `write` fails."""
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=".view-index-", suffix=".tmp", dir=target.parent)
    os.close(handle)
    try:
        write(Path(temporary))
        os.replace(temporary, target)
    finally:
        Path(temporary).unlink(missing_ok=True)


def schema_of(conn: sqlite3.Connection) -> frozenset[tuple[str, str, str, str]]:
    """Return the (type, name, table, SQL) of every table, index, view and trigger of the main database, SQLite's
    own (`sqlite_*`: automatic indexes, ANALYZE's statistics) left out."""
    rows = conn.execute(
        "SELECT type, name, tbl_name, COALESCE(sql, '') FROM main.sqlite_master WHERE name NOT LIKE 'sqlite\\_%' "
        "ESCAPE '\\'"
    )
    return frozenset(rows)


def expected_schema(create: Callable[[sqlite3.Connection], None]) -> frozenset[tuple[str, str, str, str]]:
    """Return the schema `create(conn)` makes in an empty in-memory database (what a good index file has)."""
    conn = sqlite3.connect(":memory:")
    try:
        create(conn)
        return schema_of(conn)
    finally:
        conn.close()


def file_signature(path: Path) -> tuple[int, int, int, int]:
    """Return the (device, inode, size, mtime_ns) of the file at `path`; raises OSError when it is gone."""
    stat = path.stat()
    return stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns


def index_problem(path: Path, expected: frozenset, fts_tables: tuple[str, ...] = ()) -> str | None:
    """Return why the index file at `path` cannot be trusted (None when it passes the checks above).

    The file is opened read-write (FTS5's integrity-check is an INSERT; it changes nothing, and the transaction is
    rolled back)."""
    key = str(Path(path).absolute())
    try:
        signature = file_signature(Path(path))
    except OSError as exc:
        return f"it cannot be read ({exc.strerror or exc})"
    if _PASSED.get(key) == signature:
        return None
    try:
        conn = sqlite3.connect(key, timeout=5)
    except sqlite3.Error as exc:
        return f"it cannot be opened ({exc})"
    try:
        if schema_of(conn) != expected:
            return "its tables are not the ones lexprobe builds (a table replaced, or an index or table missing)"
        result = conn.execute("PRAGMA quick_check").fetchone()
        if not result or result[0] != "ok":
            return f"SQLite's quick check fails ({str(result[0] if result else 'no answer')[:200]})"
        for table in fts_tables:
            conn.execute(f"INSERT INTO {table}({table}, rank) VALUES ('integrity-check', 1)")
    except sqlite3.Error as exc:
        return f"it is damaged ({str(exc)[:200]})"
    finally:
        conn.rollback()
        conn.close()
    try:
        if os.path.exists(key):
            _PASSED[key] = file_signature(Path(path))
    except OSError:
        pass
    return None
