"""The tables of a CourtListener bulk export and their readers: the columns each table must have and the ones read,
the citation ranks, and one reader per table that stages its rows in batches into the `StagingStore`. Part of
`courtlistener_bulk`, which finds the files and reads the cases back out."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lexprobe.caselaw.records import (
    LoadOptions,
    LoadResult,
)
from lexprobe.caselaw.sources.courtlistener_api import opinion_text
from lexprobe.caselaw.sources.courtlistener_bulk_csv import FileReport, read_rows
from lexprobe.caselaw.sources.courtlistener_bulk_store import StagingStore, signature
from lexprobe.caselaw.sources.courtlistener_bulk_values import digits_int, filed_date, plain_author
from lexprobe.caselaw.sources.opinions import normalize_opinion_type

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
        value = digits_int(row.get(column))
        if value is None:
            report.add_issue(location, f"{column} is {row.get(column)!r}, not a number")
        return value


class CourtsReader(_TableReader):
    kind = "courts"

    def row(self, row: dict[str, str | None], location: str, report: FileReport) -> None:
        if row.get("id"):
            self.batch.append((row["id"], row.get("full_name"), row.get("jurisdiction")))
        else:
            report.add_issue(location, "court without an id")

    def flush(self) -> None:
        self.db.executemany("INSERT OR REPLACE INTO courts VALUES (?, ?, ?)", self.batch)
        self.batch.clear()


class DocketsReader(_TableReader):
    kind = "dockets"

    def row(self, row: dict[str, str | None], location: str, report: FileReport) -> None:
        docket_id = self._id(row, "id", location, report)
        if docket_id is not None and self.options.filter.keeps_court(row.get("court_id")):
            self.batch.append((docket_id, row.get("court_id"), row.get("docket_number")))

    def flush(self) -> None:
        self.db.executemany("INSERT OR REPLACE INTO dockets VALUES (?, ?, ?)", self.batch)
        self.batch.clear()


class ClustersReader(_TableReader):
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
        year = filed_date(row.get("date_filed"))[1]
        if not self.options.filter.keeps_year(year):
            return
        name = row.get("case_name") or row.get("case_name_short") or row.get("case_name_full")
        self.batch.append((
            cluster_id, digits_int(row.get("docket_id")), row.get("date_filed"), name, row.get("case_name_full"),
            row.get("judges"), row.get("disposition"), row.get("precedential_status"), row.get("scdb_id"),
            row.get("citation_count"), row.get("date_filed_is_approximate") == "t",
            digits_int(row.get("scdb_votes_majority")), digits_int(row.get("scdb_votes_minority")),
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


class CitationsReader(_TableReader):
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
        rank = CITATION_RANK.get(digits_int(row.get("type")) or 0, _UNKNOWN_TYPE_RANK)
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


class OpinionsReader(_TableReader):
    kind = "opinions"

    def __init__(self, store: StagingStore, options: LoadOptions) -> None:
        super().__init__(store, options)
        self.links: list[tuple[int, int | None, bool]] = []

    def row(self, row: dict[str, str | None], location: str, report: FileReport) -> None:
        opinion_id = self._id(row, "id", location, report)
        if opinion_id is None:
            return
        cluster_id = digits_int(row.get("cluster_id"))
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


class CitationMapReader(_TableReader):
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
