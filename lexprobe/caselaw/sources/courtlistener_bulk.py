"""CourtListener bulk data (the CSV tables at storage.courtlistener.com/bulk-data/) → one case bundle per cluster.

Input: bulk files or folders of them, recognized by name (`courts-`, `dockets-`, `opinion-clusters-`,
`citations-`, `opinions-`, `citation-map-`, each optionally dated `YYYY-MM-DD`, `.csv` plain or `.bz2`/`.gz`/`.xz`).
Other bulk tables (people, parentheticals, ...) are noted and skipped; of several dated snapshots of one table in a
folder, the newest is read. Only `opinion-clusters` is required: without `dockets` a cluster's court is unknown.

The tables are streamed one after another in the order each needs the one before (see
`courtlistener_bulk_store.KINDS`) into a staging SQLite file under `options.work_dir` (a temporary folder when
None), filtering as they go: dockets by `--courts` (a cluster has no court column; its court is its docket's
`court_id`), clusters by `--years` (their `date_filed`) and by having a kept docket, citations, opinions and
citation-map rows by belonging to a kept cluster. Memory stays bounded whatever the files' size: rows are read one
at a time (`courtlistener_bulk_csv`), inserted in batches, and joined in SQLite. A rerun with the same work folder
skips the tables whose files it already read to the end.

Output: for each kept cluster, in id order, a `CaseBundle` of its case (court, circuit, state, name, citations with
official reporters first and vendor cites — West, Lexis — last, date, docket number, author without titles,
disposition where unambiguous), its opinions (`plain_text`, else the first HTML/XML field as text) and its
citation edges (cited opinions resolved to `courtlistener:<cluster id>` when that cluster is kept, else to the
cited cluster's official citation).
"""

from __future__ import annotations

import datetime as dt
import functools
import re
import shutil
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
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
    RowIssue,
    StreamedLoad,
)
from lexprobe.caselaw.sources.cap import court_place, parse_partial_date
from lexprobe.caselaw.sources.courtlistener_api import opinion_text
from lexprobe.caselaw.sources.courtlistener_bulk_csv import FileReport, read_rows
from lexprobe.caselaw.sources.courtlistener_bulk_store import KINDS, STORE_NAME, StagingStore, signature
from lexprobe.caselaw.sources.opinions import MAJORITY_TYPES, normalize_opinion_type
from lexprobe.errors import InputNotFoundError

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
    where = _describe_paths(paths)
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


def _describe_paths(paths: Sequence[Path]) -> str:
    return str(paths[0]) if len(paths) == 1 else f"{paths[0]} (and {len(paths) - 1} more)"


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
    readers = {
        "courts": _CourtsReader,
        "dockets": _DocketsReader,
        "opinion-clusters": _ClustersReader,
        "citations": _CitationsReader,
        "opinions": _OpinionsReader,
        "citation-map": _CitationMapReader,
    }
    for kind in KINDS[first_changed:]:
        for item in by_kind[kind]:
            readers[kind](store, options).read(item, result)
    if options.filter.courts is not None:
        return
    courtless = store.db.execute("SELECT COUNT(*) FROM clusters WHERE court_id IS NULL").fetchone()[0]
    if courtless:
        why = "their dockets are not in the dockets- file" if by_kind["dockets"] else "pass the dockets- file too"
        message = f"{courtless:,} clusters without a court (a cluster's court is its docket's): {why}"
        result.issues.append(RowIssue(SOURCE, str(by_kind["opinion-clusters"][0].path), message))


class _TableReader:
    """Reads one bulk file into the store in batches; subclasses say what a row becomes."""

    kind = ""

    def __init__(self, store: StagingStore, options: LoadOptions) -> None:
        self.db = store.db
        self.store = store
        self.options = options
        self.batch: list[tuple[Any, ...]] = []
        self.batch_chars = 0

    def read(self, item: BulkFile, result: LoadResult) -> None:
        """Stage one file; mark it finished in the transaction of its last batch."""
        report = FileReport()
        self.db.execute("BEGIN")
        since_commit = 0
        for line, row in read_rows(item.path, REQUIRED[self.kind], report, self.options.progress, USED[self.kind]):
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
        raise NotImplementedError

    def _id(self, row: dict[str, str | None], column: str, location: str, report: FileReport) -> int | None:
        value = _int(row.get(column))
        if value is None:
            report.add_issue(location, f"{column} is {row.get(column)!r}, not a number")
        return value


class _CourtsReader(_TableReader):
    kind = "courts"

    def row(self, row: dict[str, str | None], location: str, report: FileReport) -> None:
        if row.get("id"):
            self.batch.append((row["id"], row.get("full_name"), row.get("jurisdiction")))
        else:
            report.add_issue(location, "court without an id")

    def flush(self) -> None:
        self.db.executemany("INSERT OR REPLACE INTO courts VALUES (?, ?, ?)", self.batch)
        self.batch.clear()


class _DocketsReader(_TableReader):
    kind = "dockets"

    def row(self, row: dict[str, str | None], location: str, report: FileReport) -> None:
        docket_id = self._id(row, "id", location, report)
        if docket_id is not None and self.options.filter.keeps_court(row.get("court_id")):
            self.batch.append((docket_id, row.get("court_id"), row.get("docket_number")))

    def flush(self) -> None:
        self.db.executemany("INSERT OR REPLACE INTO dockets VALUES (?, ?, ?)", self.batch)
        self.batch.clear()


class _ClustersReader(_TableReader):
    kind = "opinion-clusters"

    def __init__(self, store: StagingStore, options: LoadOptions) -> None:
        super().__init__(store, options)
        self.db.execute(
            "CREATE TEMP TABLE IF NOT EXISTS stage_clusters (id, docket_id, date_filed, name, name_full, judges, "
            "disposition, precedential_status, scdb_id, citation_count, approximate, votes_majority, votes_minority)"
        )
        # Without a court filter a cluster whose docket is missing is kept (court unknown); with one it is not.
        self.join = "JOIN" if options.filter.courts is not None else "LEFT JOIN"

    def row(self, row: dict[str, str | None], location: str, report: FileReport) -> None:
        cluster_id = self._id(row, "id", location, report)
        if cluster_id is None:
            return
        year = _date(row.get("date_filed"))[1]
        if not self.options.filter.keeps_year(year):
            return
        name = row.get("case_name") or row.get("case_name_short") or row.get("case_name_full")
        self.batch.append((
            cluster_id, _int(row.get("docket_id")), row.get("date_filed"), name, row.get("case_name_full"),
            row.get("judges"), row.get("disposition"), row.get("precedential_status"), row.get("scdb_id"),
            row.get("citation_count"), row.get("date_filed_is_approximate") == "t",
            _int(row.get("scdb_votes_majority")), _int(row.get("scdb_votes_minority")),
        ))  # fmt: skip

    def flush(self) -> None:
        self.db.executemany(f"INSERT INTO stage_clusters VALUES ({', '.join('?' * 13)})", self.batch)
        self.db.execute(
            "INSERT OR REPLACE INTO clusters SELECT t.id, t.docket_id, d.court_id, d.docket_number, t.date_filed, "
            "t.name, t.name_full, t.judges, t.disposition, t.precedential_status, t.scdb_id, t.citation_count, "
            f"t.approximate, t.votes_majority, t.votes_minority FROM stage_clusters t {self.join} dockets d "
            "ON d.id = t.docket_id"
        )
        self.db.execute("DELETE FROM stage_clusters")
        self.batch.clear()


class _CitationsReader(_TableReader):
    kind = "citations"

    def __init__(self, store: StagingStore, options: LoadOptions) -> None:
        super().__init__(store, options)
        self.db.execute("CREATE TEMP TABLE IF NOT EXISTS stage_citations (cluster_id, rank, cite)")

    def row(self, row: dict[str, str | None], location: str, report: FileReport) -> None:
        cluster_id = self._id(row, "cluster_id", location, report)
        volume, reporter, page = row.get("volume"), row.get("reporter"), row.get("page")
        if cluster_id is None:
            return
        if not (volume and reporter and page):
            report.add_issue(location, "citation without a volume, reporter or page")
            return
        rank = CITATION_RANK.get(_int(row.get("type")) or 0, _UNKNOWN_TYPE_RANK)
        rank += 10 if " ".join(reporter.lower().split()) == _DC_APP_REPORTER else 0
        self.batch.append((cluster_id, rank, f"{volume.strip()} {reporter.strip()} {page.strip()}"))

    def flush(self) -> None:
        self.db.executemany("INSERT INTO stage_citations VALUES (?, ?, ?)", self.batch)
        self.db.execute(
            "INSERT INTO citations SELECT t.cluster_id, t.rank, t.cite FROM stage_citations t "
            "JOIN clusters c ON c.id = t.cluster_id"
        )
        # Every cluster's best official citation, kept or not: the cited side of citation edges.
        self.db.execute(
            "INSERT INTO best_cite SELECT cluster_id, rank, cite FROM stage_citations WHERE rank < ? "
            "ON CONFLICT (cluster_id) DO UPDATE SET rank = excluded.rank, cite = excluded.cite "
            "WHERE excluded.rank < best_cite.rank",
            (VENDOR_RANK,),
        )
        self.db.execute("DELETE FROM stage_citations")
        self.batch.clear()


class _OpinionsReader(_TableReader):
    kind = "opinions"

    def __init__(self, store: StagingStore, options: LoadOptions) -> None:
        super().__init__(store, options)
        self.links: list[tuple[int, int | None, bool]] = []

    def row(self, row: dict[str, str | None], location: str, report: FileReport) -> None:
        opinion_id = self._id(row, "id", location, report)
        if opinion_id is None:
            return
        cluster_id = _int(row.get("cluster_id"))
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
        self.db.executemany("INSERT OR REPLACE INTO opinions VALUES (?, ?, ?, ?, ?, ?, ?)", self.batch)
        self.links.clear()
        self.batch.clear()
        self.batch_chars = 0


class _CitationMapReader(_TableReader):
    kind = "citation-map"

    def __init__(self, store: StagingStore, options: LoadOptions) -> None:
        super().__init__(store, options)
        self.db.execute("CREATE TEMP TABLE IF NOT EXISTS stage_edges (citing, cited)")

    def row(self, row: dict[str, str | None], location: str, report: FileReport) -> None:
        citing = self._id(row, "citing_opinion_id", location, report)
        cited = self._id(row, "cited_opinion_id", location, report)
        if citing is not None and cited is not None:
            self.batch.append((citing, cited))

    def flush(self) -> None:
        self.db.executemany("INSERT INTO stage_edges VALUES (?, ?)", self.batch)
        self.db.execute(
            "INSERT INTO edges SELECT m.cluster_id, t.cited FROM stage_edges t "
            "JOIN opinion_cluster m ON m.opinion_id = t.citing WHERE m.kept = 1"
        )
        self.db.execute("DELETE FROM stage_edges")
        self.batch.clear()


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
        self._pending: tuple[int, list[tuple]] | None = None
        self._advance()

    def _advance(self) -> None:
        try:
            key, rows = next(self._groups)
            self._pending = (key, list(rows))
        except StopIteration:
            self._pending = None

    def take(self, key: int) -> list[tuple]:
        """The rows of `key` (skipping smaller keys, which have no cluster)."""
        while self._pending is not None and self._pending[0] < key:
            self._advance()
        if self._pending is not None and self._pending[0] == key:
            rows = self._pending[1]
            self._advance()
            return rows
        return []


def _bundle(
    row: tuple, cites: tuple[str, ...], opinion_rows: list[tuple], edge_rows: list[tuple]
) -> tuple[CaseBundle, int]:
    (cluster_id, docket_id, court_id, docket_number, date_filed, name, name_full, judges, disposition_raw,
     status, scdb_id, citation_count, approximate, votes_majority, votes_minority) = row  # fmt: skip
    decision_date, year = _date(date_filed)
    circuit, state = _place(court_id, decision_date or (str(year) if year else None))
    has_lead = any(op[2] in MAJORITY_TYPES for op in opinion_rows)
    opinions = tuple(
        OpinionRecord(
            source=SOURCE,
            opinion_id=str(opinion_id),
            cluster_id=str(cluster_id),
            case_name=name,
            citations=cites,
            opinion_type=kind,
            is_majority=kind in MAJORITY_TYPES or (kind == "combined" and not has_lead),
            author=author,
            text=text,
            source_file=location,
            year=year,
        )
        for _, opinion_id, kind, author, _per_curiam, text, location in opinion_rows
    )
    author = next((op.author for op in opinions if op.is_majority and op.author), None) or _sole_judge(judges)
    citing = f"{SOURCE}:{cluster_id}"
    refs: dict[str, None] = {}
    missing = 0
    for _, cited_cluster, kept, best in edge_rows:
        if cited_cluster is None:
            missing += 1
        elif cited_cluster != cluster_id:
            refs[f"{SOURCE}:{cited_cluster}" if kept is not None or best is None else best] = None
    extra = [
        (key, str(value))
        for key, value in (
            ("case_name_full", name_full if name_full != name else None),
            ("precedential_status", status), ("scdb_id", scdb_id), ("citation_count", citation_count),
            ("judges", judges), ("docket_id", docket_id),
            ("date_filed_is_approximate", "true" if approximate else None),
        )
        if value is not None
    ]  # fmt: skip
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
        extra=tuple(extra),
    )
    edges = tuple(CitationEdge(SOURCE, citing, ref) for ref in refs)
    return CaseBundle(case, opinions, edges), missing


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


def _sole_judge(judges: str | None) -> str | None:
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


def _date(text: str | None) -> tuple[str | None, int | None]:
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


def _place(court_id: str | None, when: str | None) -> tuple[str | None, str | None]:
    """`court_place`, cached by court and year (a court's circuit and state change at most at a split)."""
    if when and when[:4] in _SPLIT_YEARS:
        return court_place(court_id, when)
    return _place_in_year(court_id, when[:4] if when else None)


@functools.lru_cache(maxsize=16384)
def _place_in_year(court_id: str | None, year: str | None) -> tuple[str | None, str | None]:
    return court_place(court_id, year)


def _int(value: str | None) -> int | None:
    if value is None:
        return None
    value = value.strip()
    return int(value) if value.isdigit() else None
