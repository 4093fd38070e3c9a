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

import re
import shutil
import tempfile
from collections.abc import Iterator, Sequence
from itertools import groupby
from pathlib import Path
from typing import Any

from lexprobe.caselaw.records import (
    CaseBundle,
    CaseRecord,
    CitationEdge,
    EmptySourceError,
    LoadOptions,
    LoadResult,
    OpinionRecord,
    RowIssue,
    StreamedLoad,
)
from lexprobe.caselaw.sources.courtlistener_bulk_readers import (
    BulkFile,
    CitationMapReader,
    CitationsReader,
    ClustersReader,
    CourtsReader,
    DocketsReader,
    OpinionsReader,
)
from lexprobe.caselaw.sources.courtlistener_bulk_store import KINDS, STORE_NAME, StagingStore, signature
from lexprobe.caselaw.sources.courtlistener_bulk_values import (
    cached_place,
    coarse_disposition,
    filed_date,
    sole_judge,
)
from lexprobe.caselaw.sources.opinions import MAJORITY_TYPES
from lexprobe.errors import InputNotFoundError

__all__ = [
    "EXPECTED",
    "SOURCE",
    "BulkFile",
    "bulk_file",
    "coarse_disposition",
    "is_bulk_path",
    "load_files",
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
        "courts": CourtsReader,
        "dockets": DocketsReader,
        "opinion-clusters": ClustersReader,
        "citations": CitationsReader,
        "opinions": OpinionsReader,
        "citation-map": CitationMapReader,
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
    decision_date, year = filed_date(date_filed)
    circuit, state = cached_place(court_id, decision_date or (str(year) if year else None))
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
    author = next((op.author for op in opinions if op.is_majority and op.author), None) or sole_judge(judges)
    edges, missing = _edges(cluster_id, edge_rows)
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
