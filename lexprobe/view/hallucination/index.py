"""The side index of a hallucination run: `view-index.sqlite` next to the run's store (never inside it), as
docs/viewer.md ("The index file next to the store") describes: one flat `units` table with an index on every filter
and sort column, the answers apart in `texts` with an FTS5 table over them, and a `meta` table saying what it was
built from, so a changed store is indexed again; checked before use by `view.index_health`.
"""

from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from lexprobe.engine.sqlite_util import connect_read_only, store_error
from lexprobe.engine.store import RUN_DB_NAME, RunStore
from lexprobe.errors import StoreError
from lexprobe.hallucination.labels.score import CONFIDENCE_SCORER, REFERENCE_SCORER
from lexprobe.hallucination.profile.results import SKIPPED_ROLES
from lexprobe.hallucination.tasks.item import item_id_of, item_of
from lexprobe.view.index_health import build_atomically, expected_schema, index_location, index_problem

log = logging.getLogger(__name__)

INDEX_NAME = "view-index.sqlite"
#: Bumped whenever the index's tables change, so an index of an older shape is rebuilt.
INDEX_VERSION = 3
#: The columns a filter names are indexed; `item_key` finds one question across runs.
INDEXED_COLUMNS = (
    "task",
    "level",
    "style",
    "label",
    "year",
    "case_id",
    "case_name",
    "confidence",
    "item_key",
    "request_id",
)
#: Composite indexes for the filters used together most: a report cell's (task, level, style) with the label.
COMPOSITE_INDEXES = {"cell": ("task", "level", "style", "label", "year"), "level_year": ("level", "year")}
#: The columns whose distinct values the filter menus offer (kept in the index's meta).
FACET_COLUMNS = ("task", "level", "style", "label")
#: The FTS5 table over the answers.
FTS_TABLE = "answers"

_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE units (
    uid INTEGER PRIMARY KEY,
    request_id TEXT NOT NULL,
    item_key TEXT NOT NULL,
    task TEXT NOT NULL,
    level TEXT NOT NULL,
    style TEXT NOT NULL,
    case_id TEXT NOT NULL,
    case_name TEXT NOT NULL,
    citation TEXT NOT NULL,
    year INTEGER,
    label TEXT NOT NULL,
    reason TEXT NOT NULL,
    confidence REAL,
    pair INTEGER NOT NULL
);
CREATE TABLE texts (uid INTEGER PRIMARY KEY, answer TEXT NOT NULL);
CREATE TABLE cases (case_id TEXT PRIMARY KEY, case_name TEXT NOT NULL, citation TEXT NOT NULL) WITHOUT ROWID;
CREATE TEMP TABLE staged (
    uid INTEGER PRIMARY KEY, request_id, item_key, task, level, style, case_id, case_name, citation, year, label,
    reason, confidence, pair, answer
);
"""
_UNIT_COLUMNS = (
    "uid, request_id, item_key, task, level, style, case_id, case_name, citation, year, label, reason, confidence, pair"
)

_STAGED_COLUMNS = _UNIT_COLUMNS.removeprefix("uid, ") + ", answer"

#: The case names and citations of the staged units from the case database attached as `cases_db`.
_CASE_NAMES = """
UPDATE temp.staged SET
    case_name = COALESCE((SELECT k.name FROM cases_db.cases AS k WHERE k.case_id = staged.case_id), ''),
    citation = COALESCE((SELECT k.citation FROM cases_db.cases AS k WHERE k.case_id = staged.case_id), citation)
"""


def _year(text: str | None) -> int | None:
    try:
        return int(text) if text else None
    except ValueError:
        return None


def _unit_rows(store: RunStore) -> Iterator[tuple]:
    """Yield the staged row of every unit of the store (as `read_units` counts them), in the order they were added;
    without a case database the citation is read from the case id ("scotus:347_U.S._483" -> "347 U.S. 483")."""
    items = store.items()
    for row in store.rows(not_roles=SKIPPED_ROLES, scorers=(REFERENCE_SCORER, CONFIDENCE_SCORER)):
        item = item_of(store, items, row.request)
        label, detail = row.scores.get(REFERENCE_SCORER, ("pending", {}))
        measured = row.scores.get(CONFIDENCE_SCORER, ("", {}))
        confidence = measured[1].get("confidence") if measured[0] == "measured" else None
        citation = item.case_id.split(":", 1)[-1].replace("_", " ")
        yield (row.request.request_id, item_id_of(row.request), item.task, item.level, item.prompt_style,
               item.case_id, "", citation, _year(item.covariates.get("year")), label, str(detail.get("detail") or ""),
               confidence, row.role == "sample0", row.response.text if row.response is not None else "")  # fmt: skip


@dataclass(frozen=True)
class RunIndex:
    """A built index: where it is, the run it indexes, the run's model and how many units it holds."""

    run_dir: Path
    path: Path
    model: str
    units: int
    facets: dict[str, list[str]]
    years: tuple[int | None, int | None]
    built_from: dict[str, object] = field(default_factory=dict)  # the meta the index was built from (`_wanted_meta`)


def store_fingerprint(conn: sqlite3.Connection) -> dict[str, int]:
    """Return the counts and largest rowids of the store's requests, responses and scores (what a change moves)."""
    fingerprint = {}
    for table in ("requests", "responses", "scores"):
        count, top = conn.execute(f"SELECT COUNT(*), COALESCE(MAX(rowid), 0) FROM {table}").fetchone()
        fingerprint[f"{table}_count"], fingerprint[f"{table}_max_rowid"] = count, top
    return fingerprint


def _read_meta(path: Path) -> dict[str, object] | None:
    if not path.is_file():
        return None
    try:
        conn = connect_read_only(path)
        try:
            return {key: json.loads(value) for key, value in conn.execute("SELECT key, value FROM meta")}
        finally:
            conn.close()
    except (StoreError, sqlite3.Error, ValueError):
        return None


def _wanted_meta(run_dir: Path, case_db: Path | None) -> dict[str, object]:
    store = Path(run_dir) / RUN_DB_NAME
    conn = connect_read_only(store)
    try:
        fingerprint = store_fingerprint(conn)
        row = conn.execute("SELECT value FROM meta WHERE key = 'model'").fetchone()
    except sqlite3.Error as exc:
        raise store_error(store, exc, "") from None
    finally:
        conn.close()
    try:
        model = json.loads(row[0]) if row else "unknown"
    except ValueError:
        model = "unknown"
    return {
        "version": INDEX_VERSION,
        "store": str(store.resolve()),
        "case_db": str(case_db.resolve()) if case_db else "",
        "model": model if isinstance(model, str) else "unknown",
        **fingerprint,
    }


def _create_indexes(conn: sqlite3.Connection) -> None:
    """Create the indexes of `units` and the FTS5 table over `texts` (after the rows are in: faster)."""
    for column in INDEXED_COLUMNS:
        conn.execute(f"CREATE INDEX units_{column} ON units({column})")
    for name, columns in COMPOSITE_INDEXES.items():
        conn.execute(f"CREATE INDEX units_{name} ON units({', '.join(columns)})")
    conn.execute(f"CREATE VIRTUAL TABLE {FTS_TABLE} USING fts5(answer, content='texts', content_rowid='uid')")


def _create_all(conn: sqlite3.Connection) -> None:
    conn.executescript(_SCHEMA)
    _create_indexes(conn)


@cache
def _expected() -> frozenset:
    return expected_schema(_create_all)


def _build(run_dir: Path, target: Path, wanted: dict[str, object], case_db: Path | None) -> None:
    """Write the index to `target` (a new file, `index_health.build_atomically`'s temporary)."""
    conn = sqlite3.connect(target)
    try:
        conn.execute("PRAGMA journal_mode = OFF")
        conn.execute("PRAGMA synchronous = OFF")
        conn.executescript(_SCHEMA)
        if case_db is not None:  # before the rows: no database is attached inside a transaction
            conn.execute("ATTACH DATABASE ? AS cases_db", (f"{case_db.absolute().as_uri()}?mode=ro",))
        store = RunStore.open_read_only(run_dir)
        try:
            marks = ", ".join("?" * len(_STAGED_COLUMNS.split(",")))
            conn.executemany(f"INSERT INTO temp.staged ({_STAGED_COLUMNS}) VALUES ({marks})", _unit_rows(store))
        finally:
            store.close()
        with conn:
            if case_db is not None:
                conn.execute(_CASE_NAMES)
            conn.execute(f"INSERT INTO units ({_UNIT_COLUMNS}) SELECT {_UNIT_COLUMNS} FROM temp.staged ORDER BY uid")
            conn.execute("INSERT INTO texts (uid, answer) SELECT uid, answer FROM temp.staged ORDER BY uid")
            conn.execute("DROP TABLE temp.staged")
            conn.execute("INSERT OR IGNORE INTO cases SELECT case_id, case_name, citation FROM units")
            _create_indexes(conn)
            conn.execute("INSERT INTO answers(rowid, answer) SELECT uid, answer FROM texts")
            facets = {
                column: [value for (value,) in conn.execute(f"SELECT DISTINCT {column} FROM units ORDER BY 1")]
                for column in FACET_COLUMNS
            }
            count, low, high = conn.execute("SELECT COUNT(*), MIN(year), MAX(year) FROM units").fetchone()
            meta = {**wanted, "facets": facets, "units": count, "years": [low, high]}
            conn.executemany("INSERT INTO meta VALUES (?, ?)", [(k, json.dumps(v)) for k, v in meta.items()])
        if case_db is not None:
            conn.execute("DETACH DATABASE cases_db")
        conn.execute("ANALYZE")  # statistics for the planner: which index narrows a filter most
    except sqlite3.Error as exc:
        raise store_error(Path(run_dir) / RUN_DB_NAME, exc, "") from None
    finally:
        conn.close()


def _usable(found: dict[str, object]) -> bool:
    """Return whether the meta row holds what `ensure_index` reads, in the shapes it reads."""
    shapes = {"units": int, "facets": dict, "model": str, "years": list}
    return all(isinstance(found.get(key), shape) for key, shape in shapes.items()) and len(found["years"]) == 2


def ensure_index(run_dir: Path, case_db: Path | None = None, *, notify=None) -> RunIndex:
    """Return the run's index, building it first when there is none, the store changed since it was built, or the
    file fails the checks of `index_health.index_problem` (schema, quick check, FTS5 integrity check).

    `notify(message)` hears where the index goes when it is built (and when that is the cache folder because the
    run directory cannot be written). Raises `StoreError` naming the file when the store cannot be read.
    """
    run_dir = Path(run_dir)
    path, fallback = index_location(run_dir, INDEX_NAME)
    wanted = _wanted_meta(run_dir, case_db)
    found = _read_meta(path)
    stale = found is None or any(found.get(key) != value for key, value in wanted.items()) or not _usable(found)
    damage = None if stale else index_problem(path, _expected(), (FTS_TABLE,))
    if stale or damage:
        if notify is not None:
            where = f" (the run directory is not writable: in the cache folder, {path})" if fallback else f" ({path})"
            why = f"; the index there {damage}, so it is built again" if damage else ""
            notify(f"indexing {run_dir} for the viewer{where}{why}")
        build_atomically(path, lambda temporary: _build(run_dir, temporary, wanted, case_db))
        found = _read_meta(path)
        if found is None:
            raise StoreError(f"cannot read the viewer index {path} just built")
    years = found.get("years") or [None, None]
    return RunIndex(
        run_dir=run_dir,
        path=path,
        built_from={key: found[key] for key in wanted},
        model=str(found["model"]),
        units=int(found["units"]),  # type: ignore[arg-type]
        facets=dict(found["facets"]),  # type: ignore[arg-type]
        years=(years[0], years[1]),
    )
