"""Opening a built case database: read-only, refusing a file that is damaged, not a case database
(`REQUIRED_TABLES`) or built under other truth rules (`StaleCaseDatabase`, exit 2: rebuild). `query.CaseDatabase`
opens through it."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from lexprobe.caselaw.schema import RULES_VERSION
from lexprobe.errors import StoreError


class CaseDatabaseMissing(FileNotFoundError):
    """No case database where one was expected."""


#: Tables every built case database has; a file without them is not one.
REQUIRED_TABLES = ("cases", "case_citations", "facts")
_REBUILD = "rebuild it with `lexprobe data build` or pass another --db"


def open_read_only(path: Path) -> sqlite3.Connection:
    """Open a built case database read-only; raises `StoreError` naming the file when it is damaged, truncated or
    not a case database at all."""
    from lexprobe.engine.sqlite_util import check_sqlite_header, store_error  # the SQLite error model, not the engine

    check_sqlite_header(path, hint=_REBUILD)
    try:
        conn = sqlite3.connect(f"{Path(path).absolute().as_uri()}?mode=ro", uri=True, check_same_thread=False)
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    except sqlite3.Error as exc:
        raise store_error(path, exc, _REBUILD) from None
    missing = [table for table in REQUIRED_TABLES if table not in tables]
    if missing:
        conn.close()
        raise StoreError(f"{path} is not a lexprobe case database (no table {', '.join(missing)}); {_REBUILD}")
    version = _rules_version(conn)
    if version != RULES_VERSION:
        conn.close()
        raise StaleCaseDatabase(
            f"{path} was built under older truth rules (version {version}, now {RULES_VERSION}: overruling years "
            f"are the overruling decision's calendar year, cases keep their opinions' parallel citations, and the "
            f"official citation is matched by exact reporter, never a LEXIS or WL one, and combined opinion texts are "
            f"split into their opinions and every opinion's words indexed for `lexprobe check`); "
            f"{_REBUILD}"
        )
    return conn


def _rules_version(conn: sqlite3.Connection) -> int:
    try:
        row = conn.execute("SELECT value FROM build_info WHERE key = 'rules_version'").fetchone()
    except sqlite3.Error:
        return 1
    return int(row[0]) if row and str(row[0]).isdigit() else 1


class StaleCaseDatabase(StoreError):
    """A case database built by an older lexprobe whose truths differ from today's rules (exit 2: rebuild it)."""
