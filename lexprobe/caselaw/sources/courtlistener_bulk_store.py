"""The staging store of the CourtListener bulk loader: a SQLite file under the load's work folder.

Bulk tables are far too large to hold (tens of millions of dockets, tens of gigabytes of opinions), and each needs
the one before it: a cluster's court is its docket's, an opinion is kept when its cluster is. So every table is
read into this store, filtered by joins against what is already there, and the cases are read back out at the end.

Restarts: the store records each finished input file (path, size, modification time) with its row count and row
issues. A table's rows are committed in batches and its files marked finished in the same transaction as the last
batch, so a run killed midway leaves that table unfinished, and the next run clears and re-reads it (and the
tables after it, which were filtered against it) while skipping the finished tables before it. A different
court/year filter or store version clears everything.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Sequence
from pathlib import Path

from lexprobe.caselaw.records import RowIssue, SourceFilter

STORE_NAME = "courtlistener-bulk-staging.sqlite"
STORE_VERSION = "1"

#: The tables read, in the order each needs the one before it; citations and the citation map are optional.
KINDS = ("courts", "dockets", "opinion-clusters", "citations", "opinions", "citation-map")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS files (
    kind TEXT NOT NULL, path TEXT NOT NULL, size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL,
    rows INTEGER NOT NULL, PRIMARY KEY (kind, path));
CREATE TABLE IF NOT EXISTS issues (kind TEXT NOT NULL, location TEXT NOT NULL, message TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS courts (id TEXT PRIMARY KEY, full_name TEXT, jurisdiction TEXT);
CREATE TABLE IF NOT EXISTS dockets (id INTEGER PRIMARY KEY, court_id TEXT, docket_number TEXT);
CREATE TABLE IF NOT EXISTS clusters (
    id INTEGER PRIMARY KEY, docket_id INTEGER, court_id TEXT, docket_number TEXT, date_filed TEXT, name TEXT,
    name_full TEXT, judges TEXT, disposition TEXT, precedential_status TEXT, scdb_id TEXT, citation_count TEXT,
    approximate INTEGER, votes_majority INTEGER, votes_minority INTEGER);
CREATE TABLE IF NOT EXISTS citations (cluster_id INTEGER NOT NULL, rank INTEGER NOT NULL, cite TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS citations_by_cluster ON citations (cluster_id, rank);
CREATE TABLE IF NOT EXISTS best_cite (cluster_id INTEGER PRIMARY KEY, rank INTEGER NOT NULL, cite TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS opinion_cluster (opinion_id INTEGER PRIMARY KEY, cluster_id INTEGER, kept INTEGER);
CREATE TABLE IF NOT EXISTS opinions (
    id INTEGER PRIMARY KEY, cluster_id INTEGER NOT NULL, type TEXT, author TEXT, per_curiam INTEGER, text TEXT,
    location TEXT);
CREATE INDEX IF NOT EXISTS opinions_by_cluster ON opinions (cluster_id, id);
CREATE TABLE IF NOT EXISTS edges (citing_cluster INTEGER NOT NULL, cited_opinion INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS edges_by_citing ON edges (citing_cluster);
"""

#: The tables each kind fills (cleared before that kind is read again).
TABLES = {
    "courts": ("courts",),
    "dockets": ("dockets",),
    "opinion-clusters": ("clusters",),
    "citations": ("citations", "best_cite"),
    "opinions": ("opinion_cluster", "opinions"),
    "citation-map": ("edges",),
}

FileSignature = tuple[str, int, int]  # (resolved path, size, mtime_ns)


def signature(path: Path) -> FileSignature:
    """The identity of an input file for restarts: its resolved path, size and modification time."""
    stat = path.stat()
    return str(path.resolve()), stat.st_size, stat.st_mtime_ns


def filter_key(source_filter: SourceFilter) -> str:
    """A stable text form of the court/year filter (the staged rows depend on it)."""
    courts = sorted(source_filter.courts) if source_filter.courts is not None else None
    return json.dumps({"courts": courts, "years": source_filter.years})


class StagingStore:
    """The SQLite staging file: open, bookkeeping of finished files, clearing a kind's rows."""

    def __init__(self, path: Path, source_filter: SourceFilter) -> None:
        self.path = path
        try:
            self.db = self._open()
        except sqlite3.DatabaseError:  # not a store (or a damaged one): it holds nothing worth keeping
            for leftover in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
                leftover.unlink(missing_ok=True)
            self.db = self._open()
        settings = {"version": STORE_VERSION, "filter": filter_key(source_filter)}
        stored = dict(self.db.execute("SELECT key, value FROM meta").fetchall())
        if stored and stored != settings:
            self.clear(KINDS)
        self.db.execute("BEGIN")
        self.db.execute("DELETE FROM meta")
        self.db.executemany("INSERT INTO meta VALUES (?, ?)", settings.items())
        self.db.execute("COMMIT")

    def _open(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, isolation_level=None)
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            db.execute("PRAGMA temp_store=FILE")
            db.execute("PRAGMA cache_size=-65536")  # 64 MiB of page cache, whatever the tables' size
            db.executescript(_SCHEMA)
            db.execute("SELECT COUNT(*) FROM files").fetchone()
        except sqlite3.DatabaseError:
            db.close()
            raise
        return db

    def close(self) -> None:
        """Close the connection (the file stays for the next attempt)."""
        self.db.close()

    def finished(self, kind: str) -> set[FileSignature]:
        """The files of `kind` a past run read to the end."""
        rows = self.db.execute("SELECT path, size, mtime_ns FROM files WHERE kind = ?", (kind,))
        return {(path, size, mtime) for path, size, mtime in rows}

    def finished_rows(self, kind: str) -> int:
        """How many rows the finished files of `kind` held."""
        return int(self.db.execute("SELECT COALESCE(SUM(rows), 0) FROM files WHERE kind = ?", (kind,)).fetchone()[0])

    def stored_issues(self, kind: str) -> list[RowIssue]:
        """The row issues recorded when the files of `kind` were read."""
        rows = self.db.execute("SELECT location, message FROM issues WHERE kind = ? ORDER BY rowid", (kind,))
        return [RowIssue("courtlistener", location, message) for location, message in rows]

    def clear(self, kinds: Iterable[str]) -> None:
        """Forget what was read for `kinds`: their rows, finished files and issues."""
        self.db.execute("BEGIN")
        for kind in kinds:
            for table in TABLES[kind]:
                self.db.execute(f"DELETE FROM {table}")
            self.db.execute("DELETE FROM files WHERE kind = ?", (kind,))
            self.db.execute("DELETE FROM issues WHERE kind = ?", (kind,))
        self.db.execute("COMMIT")

    def mark_finished(self, kind: str, file: FileSignature, rows: int, issues: Sequence[RowIssue]) -> None:
        """Record one file of `kind` as read to the end (inside the caller's open transaction)."""
        self.db.execute("INSERT OR REPLACE INTO files VALUES (?, ?, ?, ?, ?)", (kind, *file, rows))
        self.db.executemany(
            "INSERT INTO issues VALUES (?, ?, ?)", [(kind, issue.location, issue.message) for issue in issues]
        )
