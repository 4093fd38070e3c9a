"""CourtListener bulk data (the CSV tables at storage.courtlistener.com/bulk-data/) → one case bundle per cluster.

Input: bulk files or folders of them, recognized by name (`courts-`, `dockets-`, `opinion-clusters-`,
`citations-`, `opinions-`, `citation-map-`, each optionally dated `YYYY-MM-DD`, `.csv` plain or `.bz2`/`.gz`/`.xz`).
The tables are streamed one after another in the order each needs the one before (`KINDS`) into a staging SQLite
file under `options.work_dir` (a temporary folder when None), filtered as they go, joined there and read back out
one cluster at a time; a rerun with the same work folder skips the tables whose files it already read to the end.
Which tables are read, the filters, the joins, the restarts and what a case becomes: see docs/caselaw.md,
"CourtListener bulk files". Rows are read in the CSV dialect each file was written in (`detect_dialect`).
"""

from __future__ import annotations

import csv
import datetime as dt
import functools
import io
import json
import lzma
import re
import shutil
import sqlite3
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import groupby
from pathlib import Path
from typing import Any

from lexprobe.caselaw.records import (
    CaseBundle,
    CaseRecord,
    CitationEdge,
    Disposition,
    EmptySourceError,
    LoadOptions,
    LoadResult,
    OpinionRecord,
    ProgressFn,
    RowIssue,
    SourceFilter,
    StreamedLoad,
)
from lexprobe.caselaw.sources.cap import court_place, parse_partial_date
from lexprobe.caselaw.sources.courtlistener_api import cluster_extra, int_of, opinion_text
from lexprobe.caselaw.sources.encoding import (
    SNIFF_BYTES,
    CountingReader,
    decompressed,
    wide_encoding,
    wide_encoding_message,
)
from lexprobe.caselaw.sources.opinions import is_majority, normalize_opinion_type
from lexprobe.errors import BadInputError, InputNotFoundError

__all__ = [
    "DIALECTS",
    "EXPECTED",
    "MAX_FIELD_CHARS",
    "MAX_ISSUES_PER_FILE",
    "SOURCE",
    "STORE_NAME",
    "BulkFile",
    "bulk_file",
    "coarse_disposition",
    "detect_dialect",
    "is_bulk_path",
    "load_files",
    "plain_author",
]

SOURCE = "courtlistener"
EXPECTED = (
    "expected CourtListener bulk CSV files (opinion-clusters-, dockets-, citations-, opinions-, courts-, "
    "citation-map-YYYY-MM-DD.csv[.bz2])"
)

_BULK_NAME = re.compile(
    r"^(?P<kind>courts|dockets|opinion-clusters|opinions|citations|citation-map)"
    r"(?:-(?P<date>\d{4}-\d{2}-\d{2}))?\.csv(?:\.(?:bz2|gz|xz))?$",
    re.IGNORECASE,
)
_ANY_CSV = re.compile(r"\.csv(?:\.(?:bz2|gz|xz))?$", re.IGNORECASE)


def bulk_file(path: Path) -> BulkFile | None:
    """The table a file name says it holds, or None when it is not one of the tables this loader reads."""
    match = _BULK_NAME.match(path.name)
    if not match:
        return None
    return BulkFile(path, match.group("kind").lower(), match.group("date"))


def is_bulk_path(path: Path) -> bool:
    """Whether `path` is a CourtListener bulk CSV file (compressed or not) or a folder holding one."""
    path = Path(path)
    if path.is_dir():
        return any(child.is_file() and bulk_file(child) is not None for child in path.iterdir())
    return bulk_file(path) is not None or _ANY_CSV.search(path.name) is not None


def load_files(paths: Sequence[Path], options: LoadOptions) -> StreamedLoad:
    """Stream CourtListener bulk files (or folders of them) into one `CaseBundle` per kept cluster.

    Raises `InputNotFoundError` for a path that does not exist and `EmptySourceError` when no opinion-clusters
    file is among the inputs (here) or no cluster is kept (while iterating); a truncated or corrupt file raises
    `BadInputError` naming it. See the module docstring for the order, filters and restarts."""
    result = LoadResult()
    files = _discover([Path(p) for p in paths], result)
    where = str(paths[0]) if len(paths) == 1 else f"{paths[0]} (and {len(paths) - 1} more)"
    if not any(f.kind == "opinion-clusters" for f in files):
        found = ", ".join(sorted({f.kind for f in files})) or _found_names(paths)
        raise EmptySourceError(f"{where}: no CourtListener case read: {EXPECTED}; found {found or 'nothing'}")
    return StreamedLoad(_bundles(files, options, result, where), result)


# --- inputs --------------------------------------------------------------------------------------------------


def _discover(paths: list[Path], result: LoadResult) -> list[BulkFile]:
    chosen: list[BulkFile] = []
    for path in paths:
        if not path.exists():
            raise InputNotFoundError(f"{path}: not found")
        candidates = sorted(p for p in path.iterdir() if p.is_file()) if path.is_dir() else [path]
        found = []
        for candidate in candidates:
            item = bulk_file(candidate)
            if item is not None:
                found.append(item)
            elif _ANY_CSV.search(candidate.name):
                message = "not a table this loader reads (it reads " + ", ".join(KINDS) + "); skipped"
                result.issues.append(RowIssue(SOURCE, str(candidate), message))
            elif re.search(r"\.(?:json|jsonl|ndjson)(?:\.(?:gz|bz2|xz))?$", candidate.name, re.IGNORECASE):
                message = (
                    "an API file in a folder of bulk files: skipped (pass it as a --courtlistener path of its own)"
                )
                result.issues.append(RowIssue(SOURCE, str(candidate), message))
        chosen.extend(_newest_snapshots(found, result) if path.is_dir() else found)
    unique = {item.path.resolve(): item for item in chosen}
    return sorted(unique.values(), key=lambda f: (KINDS.index(f.kind), f.path.name))


def _newest_snapshots(found: list[BulkFile], result: LoadResult) -> list[BulkFile]:
    """Of a folder's dated snapshots of one table, keep the newest (undated files are all kept)."""
    kept = []
    for kind in KINDS:
        of_kind = [f for f in found if f.kind == kind]
        newest = max((f.date for f in of_kind if f.date), default=None)
        for item in of_kind:
            if item.date is None or item.date == newest:
                kept.append(item)
            else:
                message = f"an older snapshot ({item.date}) of {kind}: the folder's newest ({newest}) is read"
                result.issues.append(RowIssue(SOURCE, str(item.path), message))
    return kept


def _found_names(paths: Sequence[Path]) -> str:
    names: list[str] = []
    for path in map(Path, paths):
        names.extend(p.name for p in sorted(path.iterdir())[:5]) if path.is_dir() else names.append(path.name)
    return ", ".join(repr(name) for name in names[:5]) + (" ..." if len(names) > 5 else "")


# --- staging -------------------------------------------------------------------------------------------------


def _bundles(files: list[BulkFile], options: LoadOptions, result: LoadResult, where: str) -> Iterator[CaseBundle]:
    temporary = None
    work_dir = options.work_dir
    if work_dir is None:
        temporary = tempfile.mkdtemp(prefix="lexprobe-courtlistener-")
        work_dir = Path(temporary)
    work_dir.mkdir(parents=True, exist_ok=True)
    store = StagingStore(work_dir / STORE_NAME, options.filter)
    try:
        _stage(store, files, options, result)
        yielded = yield from _read_out(store, options, result)
        if not yielded:
            raise EmptySourceError(f"{where}: no CourtListener case read: {EXPECTED}; found {_staged(store, options)}")
    finally:
        store.close()
        if temporary is not None:
            shutil.rmtree(temporary, ignore_errors=True)


def _stage(store: StagingStore, files: list[BulkFile], options: LoadOptions, result: LoadResult) -> None:
    """Read every table not already finished in the store, from the first one that changed on."""
    by_kind = {kind: [f for f in files if f.kind == kind] for kind in KINDS}
    signatures = {kind: {signature(f.path) for f in by_kind[kind]} for kind in KINDS}
    first_changed = next((i for i, kind in enumerate(KINDS) if store.finished(kind) != signatures[kind]), len(KINDS))
    for kind in KINDS[:first_changed]:
        result.issues.extend(store.stored_issues(kind))
        result.rows_read += store.finished_rows(kind)
        for item in by_kind[kind]:
            if options.progress is not None:
                size = item.path.stat().st_size
                options.progress(f"{item.path.name} (read before, skipped)", size, size)
    store.clear(KINDS[first_changed:])
    for kind in KINDS[first_changed:]:
        for item in by_kind[kind]:
            READERS[kind](store, options).read(item, result)
    if options.filter.courts is not None:
        return
    courtless = store.db.execute("SELECT COUNT(*) FROM clusters WHERE court_id IS NULL").fetchone()[0]
    if courtless:
        why = "their dockets are not in the dockets- file" if by_kind["dockets"] else "pass the dockets- file too"
        message = f"{courtless:,} clusters without a court (a cluster's court is its docket's): {why}"
        result.issues.append(RowIssue(SOURCE, str(by_kind["opinion-clusters"][0].path), message))


def _staged(store: StagingStore, options: LoadOptions) -> str:
    """What the store holds, for the message of a load that kept no cluster."""
    rows = store.finished_rows("opinion-clusters")
    dockets = store.db.execute("SELECT COUNT(*) FROM dockets").fetchone()[0]
    wanted = []
    if options.filter.courts is not None:
        wanted.append("courts " + ",".join(sorted(options.filter.courts)))
    if options.filter.years is not None:
        wanted.append(f"years {options.filter.years[0]}-{options.filter.years[1]}")
    kept = f", none of {' in '.join(wanted)} ({dockets:,} dockets of those courts)" if wanted else ""
    return f"{rows:,} cluster rows{kept}"


# --- reading the cases back out ------------------------------------------------------------------------------

_CLUSTER_COLUMNS = (
    "id, docket_id, court_id, docket_number, date_filed, name, name_full, judges, disposition, precedential_status, "
    "scdb_id, citation_count, approximate, votes_majority, votes_minority"
)


def _read_out(store: StagingStore, options: LoadOptions, result: LoadResult) -> Iterator[CaseBundle]:
    """Yield the bundles, merging four id-ordered cursors (clusters, citations, opinions, edges); return how many."""
    db = store.db
    total = db.execute("SELECT COUNT(*) FROM clusters").fetchone()[0]
    clusters = db.execute(f"SELECT {_CLUSTER_COLUMNS} FROM clusters ORDER BY id")
    citations = _Grouped(db.execute("SELECT cluster_id, cite FROM citations ORDER BY cluster_id, rank, rowid"))
    opinions = _Grouped(
        db.execute(
            "SELECT cluster_id, id, type, author, per_curiam, text, location FROM opinions ORDER BY cluster_id, id"
        )
    )
    edges = _Grouped(
        db.execute(
            "SELECT e.citing_cluster, m.cluster_id, k.id, b.cite FROM edges e "
            "LEFT JOIN opinion_cluster m ON m.opinion_id = e.cited_opinion "
            "LEFT JOIN clusters k ON k.id = m.cluster_id LEFT JOIN best_cite b ON b.cluster_id = m.cluster_id "
            "ORDER BY e.citing_cluster"
        )
    )
    done = 0
    unresolved = 0
    for row in clusters:
        cluster_id = row[0]
        cites = tuple(dict.fromkeys(cite for _, cite in citations.take(cluster_id)))
        bundle, missing = _bundle(row, cites, opinions.take(cluster_id), edges.take(cluster_id))
        unresolved += missing
        done += 1
        yield bundle
        if options.progress is not None and (done % 10_000 == 0 or done == total):
            options.progress("courtlistener cases", done, total)
    if unresolved:
        message = f"{unresolved:,} cited opinions are not in the opinions file: those citation edges are left out"
        result.issues.append(RowIssue(SOURCE, str(store.path), message))
    return done


class _Grouped:
    """Rows of a cursor ordered by their first column, taken one key at a time in increasing key order."""

    def __init__(self, cursor: Any) -> None:
        self._groups = groupby(cursor, key=lambda row: row[0])
        self._pending = next(self._groups, None)

    def take(self, key: int) -> list[tuple]:
        """The rows of `key` (skipping smaller keys, which have no cluster)."""
        while self._pending is not None and self._pending[0] < key:
            self._pending = next(self._groups, None)
        if self._pending is None or self._pending[0] != key:
            return []
        rows = list(self._pending[1])
        self._pending = next(self._groups, None)
        return rows


def _bundle(
    row: tuple, cites: tuple[str, ...], opinion_rows: list[tuple], edge_rows: list[tuple]
) -> tuple[CaseBundle, int]:
    (cluster_id, docket_id, court_id, docket_number, date_filed, name, name_full, judges, disposition_raw,
     status, scdb_id, citation_count, approximate, votes_majority, votes_minority) = row  # fmt: skip
    decision_date, year = filed_date(date_filed)
    circuit, state = cached_place(court_id, decision_date or (str(year) if year else None))
    types = [row[2] for row in opinion_rows]
    opinions = tuple(
        OpinionRecord(
            source=SOURCE,
            opinion_id=str(opinion_id),
            cluster_id=str(cluster_id),
            case_name=name,
            citations=cites,
            opinion_type=kind,
            is_majority=is_majority(kind, types),
            author=author,
            text=text,
            source_file=location,
            year=year,
        )
        for _, opinion_id, kind, author, _per_curiam, text, location in opinion_rows
    )
    author = next((op.author for op in opinions if op.is_majority and op.author), None) or sole_judge(judges)
    edges, missing = _edges(cluster_id, edge_rows)
    case = CaseRecord(
        source=SOURCE,
        source_id=str(cluster_id),
        court_id=court_id,
        name=name,
        citations=cites,
        decision_date=decision_date,
        year=year,
        docket=docket_number,
        author=author,
        disposition=coarse_disposition(disposition_raw),
        disposition_raw=(disposition_raw or "")[:300] or None,
        majority_votes=votes_majority,
        minority_votes=votes_minority,
        state=state,
        circuit=circuit,
        extra=cluster_extra(name, name_full, (status, scdb_id, citation_count, judges, docket_id), approximate),
    )
    return CaseBundle(case, opinions, edges), missing


def _edges(cluster_id: int, edge_rows: list[tuple]) -> tuple[tuple[CitationEdge, ...], int]:
    """A cluster's citation edges, each cited case once (by its cluster when kept, else its best citation), and the
    number of references to no known cluster."""
    citing = f"{SOURCE}:{cluster_id}"
    refs: dict[str, None] = {}
    missing = 0
    for _, cited_cluster, kept, best in edge_rows:
        if cited_cluster is None:
            missing += 1
        elif cited_cluster != cluster_id:
            refs[f"{SOURCE}:{cited_cluster}" if kept is not None or best is None else best] = None
    return tuple(CitationEdge(SOURCE, citing, ref) for ref in refs), missing


# --- reading one file ----------------------------------------------------------------------------------------
# The files are PostgreSQL `COPY ... TO STDOUT WITH (FORMAT csv, ENCODING utf8, HEADER, ...)` dumps, compressed with
# bzip2 (freelawproject/courtlistener `scripts/make_bulk_data.sh`), in one of three quotings (`DIALECTS`, told from
# the file by `detect_dialect`; see docs/caselaw.md, "Dialect"). In all three an unquoted empty value is NULL and
# booleans are `t`/`f`. Rows come back as dicts by column name, empty values (NULL or "") as None; a row whose
# field count differs from the header's is a `RowIssue` (the first `MAX_ISSUES_PER_FILE` of them, then a count).

MAX_ISSUES_PER_FILE = 1000
#: The largest single value read (an opinion's HTML can run to megabytes; anything beyond this is not a value).
MAX_FIELD_CHARS = 256 * 1024 * 1024
_SAMPLE_CHARS = 512 * 1024
_PROGRESS_STEP = 4 * 1024 * 1024
_BACKTICK_SINCE = "2024-08-07"
_DATE_IN_NAME = re.compile(r"(\d{4}-\d{2}-\d{2})")


def _dialect(quotechar: str, escapechar: str | None) -> type[csv.Dialect]:
    """One quoting of the export: comma-separated rows, a quote inside a value escaped or else doubled."""
    attributes = {
        "delimiter": ",",
        "quotechar": quotechar,
        "escapechar": escapechar,
        "doublequote": escapechar is None,
        "lineterminator": "\n",
        "quoting": csv.QUOTE_MINIMAL,
        "skipinitialspace": False,
        "strict": False,
    }
    return type("BulkDialect", (csv.Dialect,), attributes)


#: The three quotings (see the module docstring): 2025 on `\\"` and `\\\\` inside double quotes (ESCAPE '\\'),
#: 2024-08-07 to 2025-01-23 values in backticks (a backtick inside doubled), before standard CSV (quotes doubled).
DIALECTS: dict[str, type[csv.Dialect]] = {
    "escape": _dialect('"', "\\"),
    "backtick": _dialect("`", None),
    "doubled": _dialect('"', None),
}


def _refuse_wide_encoding(path: Path) -> None:
    """Raise `BadInputError` naming the encoding when the file's text is UTF-16 or UTF-32 (not "unreadable")."""
    with open(path, "rb") as raw, decompressed(path, raw) as stream:
        try:
            head = stream.read(SNIFF_BYTES)
        except (OSError, EOFError, lzma.LZMAError):
            return  # a damaged file: reading it proper reports the damage with its line
    if encoding := wide_encoding(head):
        raise BadInputError(f"{path}: {wide_encoding_message(encoding)}")


def detect_dialect(path: Path) -> str:
    """Name the dialect ("escape", "backtick" or "doubled") one bulk file was written in.

    The first data value tells a backtick file. For double quotes, the first ~512 KB are parsed both ways and the
    reading that gives more rows of the header's width wins; a tie (no quote inside any value yet) goes by the date
    in the file name (before 2024-08-07 doubled, else escaped)."""
    chunks: list[bytes] = []
    with open(path, "rb") as raw, decompressed(path, raw) as stream:
        try:
            while sum(map(len, chunks)) < _SAMPLE_CHARS and (chunk := stream.read(256 * 1024)):
                chunks.append(chunk)
        except (OSError, EOFError, lzma.LZMAError):
            pass  # a damaged file: decide on what was readable; reading it proper reports the damage
    sample = b"".join(chunks).decode("utf-8", errors="replace")
    header, _, body = sample.partition("\n")
    width = len(next(csv.reader([header]), []))
    if body.startswith("`"):
        return "backtick"
    scores = {name: _complete_rows(body, DIALECTS[name], width) for name in ("escape", "doubled")}
    if scores["escape"] != scores["doubled"]:
        return max(scores, key=lambda name: scores[name])
    match = _DATE_IN_NAME.search(path.name)
    if match and match.group(1) < _BACKTICK_SINCE:
        return "doubled"
    return "escape"


def _complete_rows(body: str, dialect: type[csv.Dialect], width: int) -> int:
    """How many rows of the sample (its last, maybe cut-off row left out) parse to the header's width."""
    rows = list(csv.reader(io.StringIO(body, newline=""), dialect))[:-1]
    return sum(len(row) == width for row in rows) - sum(len(row) != width for row in rows)


@dataclass
class FileReport:
    """What reading one file produced besides its rows."""

    rows: int = 0
    issues: list[RowIssue] = field(default_factory=list)
    unlisted_issues: int = 0
    dialect: str = ""

    def add_issue(self, location: str, message: str) -> None:
        """Keep the first `MAX_ISSUES_PER_FILE` issues; count the rest."""
        if len(self.issues) < MAX_ISSUES_PER_FILE:
            self.issues.append(RowIssue(SOURCE, location, message))
        else:
            self.unlisted_issues += 1


def read_rows(
    path: Path, kind: str, report: FileReport, progress: ProgressFn | None
) -> Iterator[tuple[int, dict[str, str | None]]]:
    """Yield (line number, row) for every data row of a bulk CSV file of table `kind`: the `USED` columns its header
    has, by name, empty values as None.

    Raises `BadInputError` (one line naming the file) when the header lacks a `REQUIRED` column or the file is
    truncated, corrupt or not UTF-8; rows of the wrong width become issues in `report`."""
    _refuse_wide_encoding(path)
    report.dialect = detect_dialect(path)
    dialect = DIALECTS[report.dialect]
    if csv.field_size_limit() < MAX_FIELD_CHARS:
        csv.field_size_limit(MAX_FIELD_CHARS)
    size = path.stat().st_size
    label = path.name
    with open(path, "rb", buffering=0) as plain:
        counting = CountingReader(plain)
        buffered = io.BufferedReader(counting, buffer_size=1024 * 1024)
        with io.TextIOWrapper(decompressed(path, buffered), encoding="utf-8", newline="") as text:  # type: ignore[arg-type]
            reader = csv.reader(text, dialect)
            try:
                header = next(reader, None)
                if header is None:
                    return
                _check_header(path, header, REQUIRED[kind])
                picks = [(name, header.index(name)) for name in USED[kind] if name in header]
                next_report = 0
                for start, row in _well_formed(reader, path, len(header), report):
                    yield start, {name: (row[index] or None) for name, index in picks}
                    if progress is not None and counting.count >= next_report:
                        progress(label, counting.count, size)
                        next_report = counting.count + _PROGRESS_STEP
            except (OSError, EOFError, UnicodeDecodeError, lzma.LZMAError) as exc:
                raise BadInputError(
                    f"{path}:{reader.line_num + 1}: unreadable after {counting.count:,} of {size:,} bytes "
                    f"({_reason(exc)}): the file is truncated or corrupt; download it again"
                ) from None
    if progress is not None:
        progress(label, size, size)
    if report.unlisted_issues:
        report.issues.append(
            RowIssue(SOURCE, str(path), f"{report.unlisted_issues:,} more malformed rows not listed one by one")
        )


def _check_header(path: Path, header: list[str], required: tuple[str, ...]) -> None:
    """Raise `BadInputError` naming the file when its header lacks a required column."""
    missing = [name for name in required if name not in header]
    if missing:
        shown = ",".join(header[:8]) + (",..." if len(header) > 8 else "")
        kind = path.name.split(".")[0].rstrip("0123456789-") or "bulk"
        raise BadInputError(
            f"{path}:1: not a CourtListener {kind} file: the header lacks {', '.join(missing)} (found {shown[:200]!r})"
        )


def _well_formed(reader: Any, path: Path, width: int, report: FileReport) -> Iterator[tuple[int, list[str]]]:
    """Yield (first line number, fields) of each row as wide as the header; an unreadable or wrongly wide row is an
    issue in `report` instead."""
    while True:
        start = reader.line_num + 1  # a row's first line (a value may hold newlines)
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            report.add_issue(f"{path}:{start}", f"unreadable CSV row: {exc}")
            continue
        report.rows += 1
        if len(row) != width:
            report.add_issue(
                f"{path}:{start}",
                f"expected {width} fields (the header's), found {len(row)}: "
                f"the row's quoting does not match the file's ({report.dialect}) dialect",
            )
            continue
        yield start, row


def _reason(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0][:200]


# --- the staging store -------------------------------------------------------------------------------------
# Every table is read into a SQLite file, filtered by joins against what is already there. The store records each
# finished input file (path, size, modification time) with its row count and row issues; a table's rows are
# committed in batches and its files marked finished with the last batch, so a run killed midway leaves that
# table unfinished and the next run re-reads it and the tables after it. Another filter or version clears all.

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
        return [RowIssue(SOURCE, location, message) for location, message in rows]

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


# --- the tables' readers -------------------------------------------------------------------------------------

#: Columns each table must have (the rest of the export's columns are read by name when present).
REQUIRED = {
    "courts": ("id",),
    "dockets": ("id", "court_id"),
    "opinion-clusters": ("id", "docket_id"),
    "citations": ("volume", "reporter", "page", "type", "cluster_id"),
    "opinions": ("id", "cluster_id"),
    "citation-map": ("citing_opinion_id", "cited_opinion_id"),
}

#: Columns the loader reads from each table (the others are never turned into values).
USED = {
    "courts": ("id", "full_name", "jurisdiction"),
    "dockets": ("id", "court_id", "docket_number"),
    "opinion-clusters": (
        "id", "docket_id", "date_filed", "case_name", "case_name_short", "case_name_full", "judges", "disposition",
        "precedential_status", "scdb_id", "citation_count", "date_filed_is_approximate", "scdb_votes_majority",
        "scdb_votes_minority",
    ),
    "citations": ("volume", "reporter", "page", "type", "cluster_id"),
    "opinions": (
        "id", "cluster_id", "type", "author_str", "per_curiam", "plain_text", "html_with_citations", "html",
        "html_lawbox", "html_columbia", "xml_harvard", "html_anon_2020",
    ),
    "citation-map": ("citing_opinion_id", "cited_opinion_id"),
}  # fmt: skip

#: CourtListener citation types (cl/search/models.py Citation): 1 federal, 2 state, 3 state regional, 4 specialty,
#: 5 early Supreme Court, 6 Lexis, 7 West(law), 8 neutral, 9 journal. Rank: official reporters first, vendors last.
#: "U.S. App. D.C." (type 1 too) comes after F./F.2d: it is the D.C. Circuit's parallel, not its official, reporter.
CITATION_RANK = {1: 0, 5: 0, 2: 20, 8: 30, 3: 40, 4: 50, 9: 60, 7: 80, 6: 90}
_UNKNOWN_TYPE_RANK = 70
_DC_APP_REPORTER = "u.s. app. d.c."
VENDOR_RANK = 80  # ranks from here on (West, Lexis) are never a case's official citation

_BATCH_ROWS = 20_000
_BATCH_TEXT_CHARS = 16 * 1024 * 1024
_COMMIT_ROWS = 200_000


@dataclass(frozen=True)
class BulkFile:
    """One input file: its path, the table it holds and the date in its name (if any)."""

    path: Path
    kind: str
    date: str | None


class _TableReader:
    """Reads one bulk file into the store in batches: a subclass says what a row becomes (`row`), the statement that
    inserts a batch (`insert`, into its temporary `stage` table where the batch is joined) and the ones run after."""

    kind = ""
    stage = ""
    insert = ""
    after: tuple[str, ...] = ()

    def __init__(self, store: StagingStore, options: LoadOptions) -> None:
        self.db = store.db
        self.store = store
        self.options = options
        self.batch: list[tuple[Any, ...]] = []
        self.batch_chars = 0
        if self.stage:
            self.db.execute(self.stage)

    def read(self, item: BulkFile, result: LoadResult) -> None:
        """Stage one file; mark it finished in the transaction of its last batch."""
        report = FileReport()
        self.db.execute("BEGIN")
        since_commit = 0
        for line, row in read_rows(item.path, self.kind, report, self.options.progress):
            self.row(row, f"{item.path}:{line}", report)
            since_commit += 1
            if len(self.batch) >= _BATCH_ROWS or self.batch_chars >= _BATCH_TEXT_CHARS:
                self.flush()
            if since_commit >= _COMMIT_ROWS:
                self.flush()
                self.db.execute("COMMIT")
                self.db.execute("BEGIN")
                since_commit = 0
        self.flush()
        self.store.mark_finished(self.kind, signature(item.path), report.rows, report.issues)
        self.db.execute("COMMIT")
        result.rows_read += report.rows
        result.issues.extend(report.issues)

    def row(self, row: dict[str, str | None], location: str, report: FileReport) -> None:
        """Turn one row into a batch entry (or an issue)."""
        raise NotImplementedError

    def flush(self) -> None:
        """Write the batch."""
        self.db.executemany(self.insert, self.batch)
        for statement in self.after:
            self.db.execute(statement)
        self.batch.clear()
        self.batch_chars = 0

    def _id(self, row: dict[str, str | None], column: str, location: str, report: FileReport) -> int | None:
        value = int_of(row.get(column))
        if value is None:
            report.add_issue(location, f"{column} is {row.get(column)!r}, not a number")
        return value


class CourtsReader(_TableReader):
    kind = "courts"
    insert = "INSERT OR REPLACE INTO courts VALUES (?, ?, ?)"

    def row(self, row: dict[str, str | None], location: str, report: FileReport) -> None:
        if row.get("id"):
            self.batch.append((row["id"], row.get("full_name"), row.get("jurisdiction")))
        else:
            report.add_issue(location, "court without an id")


class DocketsReader(_TableReader):
    kind = "dockets"
    insert = "INSERT OR REPLACE INTO dockets VALUES (?, ?, ?)"

    def row(self, row: dict[str, str | None], location: str, report: FileReport) -> None:
        docket_id = self._id(row, "id", location, report)
        if docket_id is not None and self.options.filter.keeps_court(row.get("court_id")):
            self.batch.append((docket_id, row.get("court_id"), row.get("docket_number")))


class ClustersReader(_TableReader):
    kind = "opinion-clusters"
    stage = (
        "CREATE TEMP TABLE IF NOT EXISTS stage_clusters (id, docket_id, date_filed, name, name_full, judges, "
        "disposition, precedential_status, scdb_id, citation_count, approximate, votes_majority, votes_minority)"
    )
    insert = f"INSERT INTO stage_clusters VALUES ({', '.join('?' * 13)})"

    def __init__(self, store: StagingStore, options: LoadOptions) -> None:
        super().__init__(store, options)
        # Without a court filter a cluster whose docket is missing is kept (court unknown); with one it is not.
        join = "JOIN" if options.filter.courts is not None else "LEFT JOIN"
        self.after = (
            "INSERT OR REPLACE INTO clusters SELECT t.id, t.docket_id, d.court_id, d.docket_number, t.date_filed, "
            "t.name, t.name_full, t.judges, t.disposition, t.precedential_status, t.scdb_id, t.citation_count, "
            f"t.approximate, t.votes_majority, t.votes_minority FROM stage_clusters t {join} dockets d "
            "ON d.id = t.docket_id",
            "DELETE FROM stage_clusters",
        )

    def row(self, row: dict[str, str | None], location: str, report: FileReport) -> None:
        cluster_id = self._id(row, "id", location, report)
        if cluster_id is None:
            return
        year = filed_date(row.get("date_filed"))[1]
        if not self.options.filter.keeps_year(year):
            return
        name = row.get("case_name") or row.get("case_name_short") or row.get("case_name_full")
        self.batch.append((
            cluster_id, int_of(row.get("docket_id")), row.get("date_filed"), name, row.get("case_name_full"),
            row.get("judges"), row.get("disposition"), row.get("precedential_status"), row.get("scdb_id"),
            row.get("citation_count"), row.get("date_filed_is_approximate") == "t",
            int_of(row.get("scdb_votes_majority")), int_of(row.get("scdb_votes_minority")),
        ))  # fmt: skip


class CitationsReader(_TableReader):
    kind = "citations"
    stage = "CREATE TEMP TABLE IF NOT EXISTS stage_citations (cluster_id, rank, cite)"
    insert = "INSERT INTO stage_citations VALUES (?, ?, ?)"
    after = (
        "INSERT INTO citations SELECT t.cluster_id, t.rank, t.cite FROM stage_citations t "
        "JOIN clusters c ON c.id = t.cluster_id",
        # Every cluster's best official citation, kept or not: the cited side of citation edges.
        f"INSERT INTO best_cite SELECT cluster_id, rank, cite FROM stage_citations WHERE rank < {VENDOR_RANK} "
        "ON CONFLICT (cluster_id) DO UPDATE SET rank = excluded.rank, cite = excluded.cite "
        "WHERE excluded.rank < best_cite.rank",
        "DELETE FROM stage_citations",
    )

    def row(self, row: dict[str, str | None], location: str, report: FileReport) -> None:
        cluster_id = self._id(row, "cluster_id", location, report)
        volume, reporter, page = row.get("volume"), row.get("reporter"), row.get("page")
        if cluster_id is None:
            return
        if not (volume and reporter and page):
            report.add_issue(location, "citation without a volume, reporter or page")
            return
        rank = CITATION_RANK.get(int_of(row.get("type")) or 0, _UNKNOWN_TYPE_RANK)
        rank += 10 if " ".join(reporter.lower().split()) == _DC_APP_REPORTER else 0
        self.batch.append((cluster_id, rank, f"{volume.strip()} {reporter.strip()} {page.strip()}"))


class OpinionsReader(_TableReader):
    kind = "opinions"
    insert = "INSERT OR REPLACE INTO opinions VALUES (?, ?, ?, ?, ?, ?, ?)"

    def __init__(self, store: StagingStore, options: LoadOptions) -> None:
        super().__init__(store, options)
        self.links: list[tuple[int, int | None, bool]] = []

    def row(self, row: dict[str, str | None], location: str, report: FileReport) -> None:
        opinion_id = self._id(row, "id", location, report)
        if opinion_id is None:
            return
        cluster_id = int_of(row.get("cluster_id"))
        kept = cluster_id is not None and self._kept(cluster_id)
        self.links.append((opinion_id, cluster_id, kept))
        if len(self.links) >= _BATCH_ROWS:
            self.flush()
        if not kept:
            return
        text = opinion_text(row)
        if not text:
            report.add_issue(location, f"opinion {opinion_id} has no text")
            return
        kind = normalize_opinion_type((row.get("type") or "").strip().lower()) or "unknown"
        author = plain_author(row.get("author_str"))
        self.batch.append((opinion_id, cluster_id, kind, author, row.get("per_curiam") == "t", text, location))
        self.batch_chars += len(text)

    def _kept(self, cluster_id: int) -> bool:
        return self.db.execute("SELECT 1 FROM clusters WHERE id = ?", (cluster_id,)).fetchone() is not None

    def flush(self) -> None:
        self.db.executemany("INSERT OR REPLACE INTO opinion_cluster VALUES (?, ?, ?)", self.links)
        self.links.clear()
        super().flush()


class CitationMapReader(_TableReader):
    kind = "citation-map"
    stage = "CREATE TEMP TABLE IF NOT EXISTS stage_edges (citing, cited)"
    insert = "INSERT INTO stage_edges VALUES (?, ?)"
    after = (
        "INSERT INTO edges SELECT m.cluster_id, t.cited FROM stage_edges t "
        "JOIN opinion_cluster m ON m.opinion_id = t.citing WHERE m.kept = 1",
        "DELETE FROM stage_edges",
    )

    def row(self, row: dict[str, str | None], location: str, report: FileReport) -> None:
        citing = self._id(row, "citing_opinion_id", location, report)
        cited = self._id(row, "cited_opinion_id", location, report)
        if citing is not None and cited is not None:
            self.batch.append((citing, cited))


READERS: dict[str, type[_TableReader]] = {
    reader.kind: reader
    for reader in (CourtsReader, DocketsReader, ClustersReader, CitationsReader, OpinionsReader, CitationMapReader)
}


# --- small normalizations ------------------------------------------------------------------------------------

_TITLE_BEFORE = re.compile(
    r"^(?:(?:the\s+)?(?:hon(?:orable)?\.?|mr\.?|mrs\.?|ms\.?)\s+)*"
    r"(?:(?:chief|senior|associate|circuit|district|magistrate|bankruptcy|presiding|acting)\s+)*"
    r"(?:judge|justice)\s+",
    re.IGNORECASE,
)
_TITLE_AFTER = re.compile(
    r"[,\s]+(?:(?:(?:u\.\s?s\.\s?)?(?:chief|senior|associate|circuit|district|magistrate|bankruptcy|presiding|"
    r"acting|united states)\s+)*(?:judge|justice)s?|c\.?\s?j|j|p\.?\s?j)\.?$",
    re.IGNORECASE,
)


def plain_author(text: str | None) -> str | None:
    """An author as a name without titles ("Circuit Judge Posner" / "POSNER, Circuit Judge." → "Posner"/"POSNER");
    None for an empty value or "per curiam"."""
    if not text:
        return None
    name = " ".join(text.split()).strip(" .,:;")
    for _ in range(2):
        name = _TITLE_AFTER.sub("", _TITLE_BEFORE.sub("", name)).strip(" .,:;")
    if not name or re.fullmatch(r"(?i)per\s+curiam|unknown|none", name):
        return None
    return name


def sole_judge(judges: str | None) -> str | None:
    """The cluster's `judges` as an author only when it names one person (a panel list names no author)."""
    if not judges or re.search(r",|;|\band\b|&", plain_author(judges) or ",", re.IGNORECASE):
        return None
    return plain_author(judges)


_AFFIRM = re.compile(r"\baffirm", re.IGNORECASE)
_REVERSE = re.compile(r"\b(?:revers|vacat)", re.IGNORECASE)
_MIXED = re.compile(r"\bin\s+part\b|\bmodif|\bdismiss|\bdenied\b|\bgranted\b", re.IGNORECASE)


def coarse_disposition(text: str | None) -> Disposition | None:
    """The study's affirm/reverse from a cluster's free-text disposition, only when unambiguous: "Affirmed" →
    affirm; "Reversed", "Reversed and remanded", "Vacated and remanded" → reverse; anything mixed ("affirmed in
    part", "affirmed and reversed", "modified", "dismissed") → None."""
    if not text or _MIXED.search(text):
        return None
    affirm, reverse = bool(_AFFIRM.search(text)), bool(_REVERSE.search(text))
    if affirm and not reverse:
        return "affirm"
    if reverse and not affirm:
        return "reverse"
    return None


def filed_date(text: str | None) -> tuple[str | None, int | None]:
    """(ISO date, year) of a `date_filed` value; the common "YYYY-MM-DD" without a regular expression."""
    if text and len(text) >= 10 and text[4] == "-" and text[7] == "-":
        try:
            day = dt.date.fromisoformat(text[:10])
            return day.isoformat(), day.year
        except ValueError:
            pass
    return parse_partial_date((text or "")[:10])


#: Years in which a district court's circuit changed (the 10th and 11th Circuits split off): no caching there.
_SPLIT_YEARS = frozenset({"1929", "1981"})


def cached_place(court_id: str | None, when: str | None) -> tuple[str | None, str | None]:
    """`court_place`, cached by court and year (a court's circuit and state change at most at a split)."""
    if when and when[:4] in _SPLIT_YEARS:
        return court_place(court_id, when)
    return _place_in_year(court_id, when[:4] if when else None)


@functools.lru_cache(maxsize=16384)
def _place_in_year(court_id: str | None, year: str | None) -> tuple[str | None, str | None]:
    return court_place(court_id, year)
