"""Open SQLite files the way every lexprobe store wants them: WAL, waiting on locks, foreign keys on; read-only
opening that works in a read-only folder; and SQLite failures turned into one-line `StoreError`s naming the file.
"""

from __future__ import annotations

import functools
import os
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar

from lexprobe.errors import StoreError

F = TypeVar("F", bound=Callable[..., Any])

_CORRUPT = {"SQLITE_CORRUPT", "SQLITE_NOTADB"}
#: Values bound per query by `select_in` (below SQLite's limit of bound parameters).
LOOKUP_CHUNK = 500


class CorruptStoreError(StoreError):
    """An SQLite file that is damaged or not an SQLite database at all (exit 2)."""

    def __init__(self, message: str, path: Path | str, reason: str) -> None:
        super().__init__(message)
        self.path = Path(path)
        self.reason = reason  # SQLite's own words, e.g. "file is not a database"


class DamagedRowError(StoreError):
    """A row of a sound SQLite file whose stored value cannot be read back (not JSON, not the shape lexprobe
    wrote): the message names the file, table, row and column (exit 2)."""

    def __init__(self, message: str, path: Path | str, reason: str) -> None:
        super().__init__(message)
        self.path = Path(path)
        self.reason = reason


def error_kind(exc: BaseException) -> str:
    """Classify an SQLite failure: "corrupt", "read_only", "cant_open", "full", "busy" or "other"."""
    base = "_".join((getattr(exc, "sqlite_errorname", "") or "").split("_")[:2])  # SQLITE_READONLY_DBMOVED
    text = str(exc).lower()
    for kind, names, words in (
        # "could not decode to utf-8": a text value whose bytes were overwritten (Python's sqlite3 reading it)
        ("corrupt", _CORRUPT, ("malformed", "not a database", "could not decode to utf-8")),
        ("read_only", {"SQLITE_READONLY", "SQLITE_PERM", "SQLITE_AUTH"}, ("readonly", "read-only")),
        ("cant_open", {"SQLITE_CANTOPEN"}, ("unable to open",)),
        ("full", {"SQLITE_FULL"}, ("disk is full",)),
        ("busy", {"SQLITE_BUSY", "SQLITE_LOCKED"}, ("database is locked",)),
    ):
        if base in names or any(word in text for word in words):
            return kind
    return "other"


def _shorten(text: str, limit: int = 160) -> str:
    """Return `text` on one line, cut to `limit` characters."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def store_error(path: Path | str, exc: BaseException, hint: str = "") -> StoreError:
    """Return the one-line `StoreError` for an SQLite (or OS) failure on the file at `path`; `hint` says what to do
    about a damaged file."""
    if isinstance(exc, StoreError):
        return exc
    if isinstance(exc, OSError):
        return StoreError(f"cannot use {path}: {exc.strerror or exc}")
    kind = error_kind(exc)
    if kind == "corrupt":
        reason = _shorten(str(exc))  # a decode error quotes the damaged text: keep the line short
        message = f"{path} is damaged or not an SQLite database ({reason}){'; ' + hint if hint else ''}"
        return CorruptStoreError(message, path, reason)
    if kind == "read_only":
        return StoreError(f"cannot write {path}: the file or its folder is read-only ({exc})")
    if kind == "cant_open":
        return StoreError(f"cannot open {path} ({exc}): check that its folder exists and can be written")
    if kind == "full":
        return StoreError(f"cannot write {path}: the disk is full")
    if kind == "busy":
        return StoreError(f"{path} is locked by another process ({exc}); try again when it has finished")
    return StoreError(f"{path}: {exc}")


def translate_errors(method: F) -> F:
    """Decorate a store method so that SQLite failures raise `store_error(self.path, ..., self.damaged_hint)`."""

    @functools.wraps(method)
    def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        except sqlite3.Error as exc:
            raise store_error(self.path, exc, getattr(self, "damaged_hint", "")) from exc

    return wrapper  # type: ignore[return-value]


def connect(path: Path | str, *, timeout_s: float = 30.0, hint: str = "") -> sqlite3.Connection:
    """Return a connection in WAL mode with `synchronous=NORMAL`.

    In WAL mode a committed transaction survives the process being killed at any moment (even SIGKILL); NORMAL
    only risks the last transactions on a power loss, not on a crash. `isolation_level=None` leaves transaction
    boundaries to the caller (`with transaction(conn)`). Raises `StoreError` naming the file (`CorruptStoreError`
    for a damaged one, with `hint` appended) when it cannot be opened.
    """
    conn = None
    try:
        if str(path) != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(str(path), timeout=timeout_s, isolation_level=None, check_same_thread=False)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute("PRAGMA foreign_keys=ON")
        conn.execute(f"PRAGMA busy_timeout={int(timeout_s * 1000)}")
    except (sqlite3.Error, OSError) as exc:
        if conn is not None:
            conn.close()
        raise store_error(path, exc, hint) from None
    return conn


def connect_read_only(path: Path | str, *, hint: str = "") -> sqlite3.Connection:
    """Open an existing SQLite file for reading only, also where its folder cannot be written.

    `mode=ro` reads a WAL database, its `-wal` file included, but needs the `-shm` file to exist or be creatable;
    in a read-only folder without a `-wal` file (a store closed cleanly, so every commit is in the main file) the
    file is opened `immutable`, which needs neither. Raises `StoreError` naming the file when it cannot be read.
    """
    path = Path(path)
    if not path.is_file():
        raise StoreError(f"cannot read {path}: no such file")
    wal = Path(f"{path}-wal")
    has_wal = wal.is_file() and wal.stat().st_size > 0
    modes = ["mode=ro"] if has_wal or os.access(path.parent, os.W_OK) else ["immutable=1"]
    if not has_wal and modes == ["mode=ro"]:
        modes.append("immutable=1")  # a folder that says it is writable but is not (a read-only mount seen as root)
    for number, mode in enumerate(modes, start=1):
        try:
            conn = sqlite3.connect(f"{path.absolute().as_uri()}?{mode}", uri=True, check_same_thread=False)
            conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
            return conn
        except sqlite3.Error as exc:
            if number == len(modes) or error_kind(exc) not in ("read_only", "cant_open"):
                raise store_error(path, exc, hint) from None
    raise AssertionError("unreachable")


_MAGIC = b"SQLite format 3\x00"


def check_sqlite_header(path: Path | str, *, hint: str = "") -> None:
    """Raise `CorruptStoreError` when the file at `path` is not an SQLite database or is shorter than its header
    says (a truncated copy or download), before SQLite reads a page that is not there.

    Meant for databases written once and then only read (the case database): a store in WAL mode may lag its
    header until a checkpoint.
    """
    path = Path(path)
    try:
        with path.open("rb") as handle:
            header = handle.read(100)
        size = path.stat().st_size
    except OSError as exc:
        raise StoreError(f"cannot read {path}: {exc.strerror or exc}") from None
    if not header:
        return  # an empty file is an empty database
    if len(header) < 100 or not header.startswith(_MAGIC):
        reason = "file is not a database"
    else:
        page_size = int.from_bytes(header[16:18], "big")
        page_size = 65536 if page_size == 1 else page_size
        pages = int.from_bytes(header[28:32], "big")
        valid = header[24:28] == header[92:96] and pages > 0  # the in-header size is only valid then
        if not valid or size >= pages * page_size:
            return
        reason = f"truncated: {size} bytes where the header says {pages * page_size}"
    raise CorruptStoreError(
        f"{path} is damaged or not an SQLite database ({reason}){'; ' + hint if hint else ''}", path, reason
    )


def select_in(conn: sqlite3.Connection, sql: str, values: Sequence[Any]) -> Iterator[Any]:
    """Yield the rows of `sql`, whose `{marks}` stands for the placeholders of `values`, run on `values` in chunks of
    `LOOKUP_CHUNK` (indexed lookups, not a scan)."""
    for start in range(0, len(values), LOOKUP_CHUNK):
        chunk = values[start : start + LOOKUP_CHUNK]
        yield from conn.execute(sql.format(marks=",".join("?" * len(chunk))), chunk)


class transaction:
    """`with transaction(conn):` runs the block in BEGIN IMMEDIATE ... COMMIT, rolling back on error."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def __enter__(self) -> sqlite3.Connection:
        self.conn.execute("BEGIN IMMEDIATE")
        return self.conn

    def __exit__(self, exc_type, exc, tb) -> None:
        self.conn.execute("ROLLBACK" if exc_type else "COMMIT")
