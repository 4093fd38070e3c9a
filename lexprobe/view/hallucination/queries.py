"""Filter, sort, page and search the units of one or more run indexes (`index.py`), all in SQLite.

Each run's index is attached read-only to one connection; a query runs the same filtered SELECT on every index the
filters allow (UNION ALL), sorts and pages the result with LIMIT/OFFSET, so the server holds one page of rows. The
search text becomes a quoted FTS5 query: the user's words are never read as FTS5 syntax.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Mapping
from contextlib import closing
from dataclasses import dataclass, field

from lexprobe.engine.sqlite_util import connect_read_only
from lexprobe.engine.store import RUN_DB_NAME
from lexprobe.errors import BadInputError, LexprobeError
from lexprobe.terminal import safe_text
from lexprobe.view.hallucination.index import RunIndex, store_fingerprint
from lexprobe.view.index_health import file_signature
from lexprobe.view.run_gone import RunChangedError, RunGoneError, run_changed_message, run_gone_message
from lexprobe.view.security import MAX_FIELD_CHARS

#: Sortable columns: the name the API takes -> the SQL expression in the union.
SORT_COLUMNS = {
    name: {"case": "case_name"}.get(name, name)
    for name in ("task", "level", "style", "model", "case", "citation", "year", "label", "reason", "confidence")
}
#: Filters on exact values (a parameter may be given several times: any of them).
EXACT_FILTERS = {"task": "task", "level": "level", "style": "style", "label": "label"}
#: Every query parameter the units API understands.
PARAMETERS = frozenset({*EXACT_FILTERS, "model", "year_from", "year_to", "case", "q", "sort", "dir", "page", "size"})
MAX_PAGE_SIZE = 500
DEFAULT_PAGE_SIZE = 50
MAX_TEXT = 200
#: Matching rows are counted up to this many ("more than N"); a search, whose matches come from the FTS5 index one by
#: one, up to `SEARCH_COUNT_CAP`.
COUNT_CAP = 100_000
SEARCH_COUNT_CAP = 10_000
_WORD = re.compile(r"\S+")

#: The columns one row of a page carries (the answer is cut to a preview).
PREVIEW_CHARS = 240
#: A whole answer as read for one unit: no more than `security.visible` sends (it cuts the rest with a note).
_ANSWER = f"substr(t.answer, 1, {MAX_FIELD_CHARS + 1}) AS answer"
_ROW_COLUMNS = (
    "u.uid, u.request_id, u.item_key, u.task, u.level, u.style, u.case_id, u.case_name, u.citation, u.year, u.label, "
    "u.reason, u.confidence, u.pair"
)


def _stamp(index: RunIndex) -> tuple[tuple[int, int, int, int], tuple[int, int, int, int]]:
    """The run's store file and index file, each as (device, inode, size, mtime_ns); raises OSError when gone."""
    return file_signature(index.run_dir / RUN_DB_NAME), file_signature(index.path)


def _holds_other_answers(index: RunIndex) -> bool:
    """Return whether the run's store now differs from what its index was built from (counts and largest rowids of
    requests, responses and scores); a store that cannot be read differs."""
    try:
        conn = connect_read_only(index.run_dir / RUN_DB_NAME)
    except LexprobeError:
        return True
    try:
        fingerprint = store_fingerprint(conn)
    except sqlite3.Error:
        return True
    finally:
        conn.close()
    return any(index.built_from.get(key) != value for key, value in fingerprint.items())


@dataclass(frozen=True)
class UnitQuery:
    """A validated request for one page of units."""

    exact: dict[str, tuple[str, ...]] = field(default_factory=dict)
    models: tuple[str, ...] = ()
    year_from: int | None = None
    year_to: int | None = None
    case: str = ""
    search: str = ""
    sort: str = ""
    descending: bool = False
    page: int = 1
    size: int = DEFAULT_PAGE_SIZE


def _integer(name: str, text: str, low: int, high: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise BadInputError(f"{name} must be a whole number, not {text[:40]!r}") from None
    if not low <= value <= high:
        raise BadInputError(f"{name} must be between {low} and {high}")
    return value


def _text(name: str, value: str) -> str:
    if len(value) > MAX_TEXT:
        raise BadInputError(f"{name} is longer than {MAX_TEXT} characters")
    return value


def parse_query(params: Mapping[str, list[str]]) -> UnitQuery:
    """Return the `UnitQuery` of the request's parameters (each name -> its values).

    Raises `BadInputError` naming the parameter for an unknown parameter, column or direction, a page size over
    `MAX_PAGE_SIZE`, a number that is not one, or text over `MAX_TEXT` characters."""
    unknown = sorted(set(params) - PARAMETERS)
    if unknown:
        raise BadInputError(f"unknown parameter {unknown[0]!r}; known: {', '.join(sorted(PARAMETERS))}")

    def one(name: str) -> str:
        values = params.get(name) or [""]
        return _text(name, values[-1].strip())

    sort = one("sort")
    if sort and sort not in SORT_COLUMNS:
        raise BadInputError(f"cannot sort by {sort[:40]!r}; columns: {', '.join(SORT_COLUMNS)}")
    direction = one("dir") or "asc"
    if direction not in ("asc", "desc"):
        raise BadInputError("dir must be asc or desc")
    exact = {name: tuple(_text(name, v) for v in params[name] if v) for name in EXACT_FILTERS if params.get(name)}
    return UnitQuery(
        exact={name: values for name, values in exact.items() if values},
        models=tuple(_text("model", v) for v in params.get("model", []) if v),
        year_from=_integer("year_from", one("year_from"), -9999, 9999) if one("year_from") else None,
        year_to=_integer("year_to", one("year_to"), -9999, 9999) if one("year_to") else None,
        case=one("case"),
        search=one("q"),
        sort=sort,
        descending=direction == "desc",
        page=_integer("page", one("page"), 1, 10_000_000) if one("page") else 1,
        size=_integer("size", one("size"), 1, MAX_PAGE_SIZE) if one("size") else DEFAULT_PAGE_SIZE,
    )


def fts_query(text: str) -> str:
    """Return the FTS5 query for the user's search text: every word quoted as a phrase (quotes doubled), all of
    them required; a trailing * on a word keeps its prefix search. Raises `BadInputError` when no word is left."""
    terms = []
    for word in _WORD.findall(text):
        prefix = word.endswith("*") and len(word) > 1
        core = word[:-1] if prefix else word
        if not re.search(r"\w", core):
            continue
        terms.append('"' + core.replace('"', '""') + '"' + ("*" if prefix else ""))
    if not terms:
        raise BadInputError("the search has no word to look for (letters or digits)")
    return " AND ".join(terms)


class UnitStore:
    """The indexes of the runs being viewed, opened read-only; one connection per call (thread-safe)."""

    def __init__(self, indexes: list[RunIndex], labels: list[str]) -> None:
        self.indexes = indexes
        self.labels = labels  # the model name shown for each run (the run directory added when two share a model)
        self.stamps = [_stamp(index) for index in indexes]  # each store and index file as it was when indexed

    def check(self) -> None:
        """Raise `RunGoneError` / `RunChangedError` naming the run when a run's store or index file was deleted,
        replaced or changed since the store was opened (the index no longer shows that run); else return.

        Costs two `stat` calls a run; a store changed in place (same file, other size or time) is read once to tell
        a change of its answers (refused) from one of SQLite's housekeeping (accepted)."""
        for number, index in enumerate(self.indexes):
            try:
                store = file_signature(index.run_dir / RUN_DB_NAME)
            except OSError:
                raise RunGoneError(run_gone_message(index.run_dir)) from None
            then = self.stamps[number]
            if store[:2] != then[0][:2]:
                raise RunChangedError(run_changed_message(index.run_dir, "its store was replaced"))
            try:
                now = (store, file_signature(index.path))
            except OSError:
                raise RunChangedError(run_changed_message(index.run_dir, "its viewer index was removed")) from None
            if now == then:
                continue
            if now[1] != then[1]:
                raise RunChangedError(run_changed_message(index.run_dir, "its viewer index was rebuilt or replaced"))
            if _holds_other_answers(index):
                raise RunChangedError(run_changed_message(index.run_dir, "its store holds answers not indexed"))
            self.stamps[number] = now

    @staticmethod
    def wanted(label: str, models: tuple[str, ...]) -> bool:
        """Return whether the run labelled `label` passes the model filter: by its name, or by the name as the page
        shows it (control and bidi characters as escapes, `lexprobe.terminal.safe_text`)."""
        return not models or label in models or safe_text(label) in models

    def connect(self) -> sqlite3.Connection:
        """Return a fresh in-memory connection with every run's index attached read-only as i0, i1, ..., after
        `check` (which raises when a run changed since it was indexed)."""
        self.check()
        conn = sqlite3.connect(":memory:", uri=True, check_same_thread=False)
        conn.row_factory = sqlite3.Row
        conn.execute(f"PRAGMA cache_size = -{16 * 1024}")
        for number, index in enumerate(self.indexes):
            conn.execute(f"ATTACH DATABASE ? AS i{number}", (f"{index.path.absolute().as_uri()}?mode=ro",))
        return conn

    def _arms(self, query: UnitQuery, columns: str) -> tuple[list[str], list[object]]:
        """Return one SELECT per run the model filter allows, and their parameters in order."""
        arms, params = [], []
        for number, label in enumerate(self.labels):
            if not self.wanted(label, query.models):
                continue
            where, values = ["1"], []
            for name, options in query.exact.items():
                where.append(f"u.{EXACT_FILTERS[name]} IN ({', '.join('?' * len(options))})")
                values.extend(options)
            if query.year_from is not None:
                where.append("u.year >= ?")
                values.append(query.year_from)
            if query.year_to is not None:
                where.append("u.year <= ?")
                values.append(query.year_to)
            if query.case:
                where.append(
                    f"u.case_id IN (SELECT case_id FROM i{number}.cases WHERE case_name LIKE ? ESCAPE '\\' "
                    "OR citation LIKE ? ESCAPE '\\' OR case_id = ?)"
                )
                pattern = "%" + re.sub(r"([%_\\])", r"\\\1", query.case) + "%"
                values.extend([pattern, pattern, query.case])
            source = f"i{number}.units AS u"
            if query.search and len(where) == 1:  # a search alone: walk the FTS5 matches in rowid order
                source = f"i{number}.answers AS f JOIN i{number}.units AS u ON u.uid = f.rowid"
                where.append("f.answers MATCH ?")
                values.append(fts_query(query.search))
            elif query.search:  # with filters: their indexes narrow the rows, the matches are looked up as a set
                where.append(f"u.uid IN (SELECT rowid FROM i{number}.answers WHERE answers MATCH ?)")
                values.append(fts_query(query.search))
            arms.append(f"SELECT {number} AS run, ? AS model, {columns} FROM {source} WHERE {' AND '.join(where)}")
            params.extend([label, *values])
        return arms, params

    def page(self, query: UnitQuery) -> dict:
        """Return {"rows": [...], "total": n, "total_capped": bool, "page", "size"} for one page of the query.

        Raises `BadInputError` when SQLite refuses the search (the message says why)."""
        arms, params = self._arms(query, _ROW_COLUMNS)
        if not arms:
            return {"rows": [], "total": 0, "total_capped": False, "page": query.page, "size": query.size}
        union = " UNION ALL ".join(arms)
        order = SORT_COLUMNS.get(query.sort, "")
        direction = "DESC" if query.descending else "ASC"
        order_by = f"{order} {direction}, run {direction}, uid {direction}" if order else "run, uid"
        offset = (query.page - 1) * query.size
        sql = f"SELECT * FROM ({union}) ORDER BY {order_by} LIMIT ? OFFSET ?"
        cap = SEARCH_COUNT_CAP if query.search else COUNT_CAP
        count_sql = f"SELECT COUNT(*) FROM (SELECT 1 FROM ({union}) LIMIT {cap + 1})"
        if len(arms) == 1 and not order:  # one run in its own order: let SQLite walk the table or the FTS index
            walk = "f.rowid" if " AS f JOIN " in arms[0] else "u.uid"
            sql = f"{arms[0]} ORDER BY {walk} LIMIT ? OFFSET ?"
        elif len(arms) == 1:
            sql = f"{arms[0]} ORDER BY u.{order} {direction}, u.uid {direction} LIMIT ? OFFSET ?"  # the index's order
        try:
            with closing(self.connect()) as conn:
                rows = [dict(row) for row in conn.execute(sql, [*params, query.size, offset])]
                for row in rows:  # the answers' previews, for this page only
                    (row["answer"],) = conn.execute(
                        f"SELECT substr(answer, 1, {PREVIEW_CHARS}) FROM i{row['run']}.texts WHERE uid = ?",
                        (row["uid"],),
                    ).fetchone() or ("",)
                if query.exact or query.year_from or query.year_to or query.case or query.search:
                    (total,) = conn.execute(count_sql, params).fetchone()
                else:
                    total = sum(index.units for index, label in zip(self.indexes, self.labels, strict=True)
                                if self.wanted(label, query.models))  # fmt: skip
        except sqlite3.OperationalError as exc:
            raise BadInputError(f"the search cannot be run: {exc}") from None
        return {"rows": rows, "total": min(total, cap), "total_capped": total > cap, "page": query.page,
                "size": query.size}  # fmt: skip

    def unit(self, run: int, uid: int) -> dict | None:
        """Return the full row of one unit (its whole answer), or None when there is none."""
        if not 0 <= run < len(self.indexes):
            return None
        with closing(self.connect()) as conn:
            row = conn.execute(
                f"SELECT u.*, {_ANSWER} FROM i{run}.units AS u JOIN i{run}.texts AS t ON t.uid = u.uid WHERE u.uid = ?",
                (uid,),
            ).fetchone()
        return dict(row) | {"run": run, "model": self.labels[run]} if row else None

    def same_question(self, item_key: str) -> list[dict]:
        """Return the unit of `item_key` (one question: task, level, style and case) in every run that has it."""
        found = []
        with closing(self.connect()) as conn:
            for number, label in enumerate(self.labels):
                sql = (f"SELECT u.*, {_ANSWER} FROM i{number}.units AS u JOIN i{number}.texts AS t ON t.uid = u.uid "
                       "WHERE u.item_key = ?")  # fmt: skip
                found += [dict(row) | {"run": number, "model": label} for row in conn.execute(sql, (item_key,))]
        return found
