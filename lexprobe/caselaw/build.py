"""`lexprobe data build`: load every public source into one SQLite case database, atomically.

The database is written to a temporary file beside the target and renamed over it only when complete, so an
interrupted build never leaves a half database (the previous one, if any, stays in place). The overruling links
and overruled years are resolved in `lexprobe.caselaw.overrulings`.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from lexprobe.caselaw.citations import citation_key
from lexprobe.caselaw.merge import CaseMerger, MergedCase
from lexprobe.caselaw.overrulings import resolve_overrulings
from lexprobe.caselaw.records import CaseRecord, LoadResult, OpinionRecord, TreatmentRecord
from lexprobe.caselaw.schema import RULES_VERSION, SCHEMA
from lexprobe.caselaw.sources import fowler, loc_overruled, opinions, scdb, songer, treatments
from lexprobe.errors import LexprobeError

Loader = Callable[[Path], LoadResult]


@dataclass(frozen=True)
class SourceSpec:
    """One source of the offline build: where it lives under the data root and how to load it."""

    name: str
    relative_path: str
    loader: Loader
    description: str


def offline_sources(overruled_edition: str = "2025") -> list[SourceSpec]:
    """Return the sources read from `LEXPROBE_DATA`, in merge order (most trusted case facts first)."""
    return [
        SourceSpec("scdb", "scdb/SCDB_2024_01_caseCentered_Citation.csv.gz", scdb.load, "Supreme Court Database"),
        SourceSpec("fowler", "network/fowler_judicial.csv.gz", fowler.load, "Fowler & Jeon citation network"),
        SourceSpec("fowler-edges", "network/fowler_allcites.txt.gz", fowler.load_edges, "Fowler citation edges"),
        SourceSpec("songer", "coa/cta02.csv.gz", songer.load, "Courts of Appeals Database update 1997-2002"),
        SourceSpec(
            "loc-overruled",
            f"overruled/loc_overruled_{overruled_edition}.csv",
            loc_overruled.load,
            f"Library of Congress overruled decisions ({overruled_edition})",
        ),
        SourceSpec("opinions", "opinions/scotus", opinions.load, "CourtListener Supreme Court opinions"),
        SourceSpec("treatments", "treatment", treatments.load, "Free Law Project citator treatments"),
    ]


class BuildError(LexprobeError, RuntimeError):
    """The build could not run (a source file is missing or unreadable). The old database is untouched (exit 2)."""


@dataclass
class BuildReport:
    """What a build read and wrote."""

    db_path: str
    elapsed_s: float = 0.0
    source_seconds: dict[str, float] = field(default_factory=dict)
    rows_read: dict[str, int] = field(default_factory=dict)
    issues: dict[str, int] = field(default_factory=dict)
    tables: dict[str, int] = field(default_factory=dict)
    conflicts: dict[str, int] = field(default_factory=dict)
    shared_citations: int = 0
    unmatched: dict[str, int] = field(default_factory=dict)
    overruling_years: dict = field(default_factory=dict)  # see `overruling_year_sources`

    def to_dict(self) -> dict:
        """Return the report as JSON-ready data."""
        return dict(self.__dict__)


class BuildProgress:
    """Receives build events; the CLI shows them as a progress bar per source. The default is silent."""

    def source_started(self, name: str, description: str) -> None:
        """A source began loading."""

    def source_finished(self, name: str, result: LoadResult, seconds: float) -> None:
        """A source finished loading."""

    def step(self, name: str) -> None:
        """A merge or write step began."""


def build_database(
    source_dir: Path,
    db_path: Path,
    *,
    overruled_edition: str = "2025",
    extra_sources: Iterable[tuple[str, Path, Loader]] = (),
    progress: BuildProgress | None = None,
) -> BuildReport:
    """Build the case database at `db_path` from the public data in `source_dir` plus any `extra_sources`
    (name, path, loader) such as CAP bulk files; return a report.

    Raises `BuildError` when a source is missing. The target is replaced only by a complete database.
    """
    progress = progress or BuildProgress()
    started = time.perf_counter()
    report = BuildReport(db_path=str(db_path))
    specs = [
        (s.name, source_dir / s.relative_path, s.loader, s.description) for s in offline_sources(overruled_edition)
    ]
    specs += [(name, path, loader, f"{name} ({path})") for name, path, loader in extra_sources]
    missing = [str(path) for _, path, _, _ in specs if not path.exists()]
    if missing:
        raise BuildError(f"missing source file(s): {', '.join(missing)} (set LEXPROBE_DATA or --source)")
    results: dict[str, LoadResult] = {}
    for name, path, loader, description in specs:
        progress.source_started(name, description)
        began = time.perf_counter()
        try:
            result = loader(path)
        except (OSError, ValueError, UnicodeDecodeError) as exc:
            raise BuildError(f"could not read {name} at {path}: {exc}") from exc
        seconds = time.perf_counter() - began
        results[name] = result
        report.source_seconds[name] = round(seconds, 3)
        report.rows_read[name] = result.rows_read
        report.issues[name] = len(result.issues)
        progress.source_finished(name, result, seconds)

    progress.step("merging")
    merger = CaseMerger()
    for result in results.values():
        for record in result.cases:
            merger.add(record)
    all_opinions = [op for r in results.values() for op in r.opinions]
    opinion_rows = _attach_opinions(merger, all_opinions, report)
    overruling_rows = resolve_overrulings(merger, [o for r in results.values() for o in r.overrulings], report)
    treatment_rows = _resolve_treatments(merger, [t for r in results.values() for t in r.treatments], report)
    edge_rows = _resolve_edges(merger, results, report)
    report.shared_citations = merger.shared_citations
    report.conflicts = dict(Counter(row[1] for row in merger.conflicts))

    progress.step("writing")
    db_path.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_builds(db_path)
    tmp_path = db_path.with_name(f".{db_path.name}.{os.getpid()}.building")
    try:
        _write(tmp_path, merger, opinion_rows, overruling_rows, treatment_rows, edge_rows, results, report)
        os.replace(tmp_path, db_path)
    finally:
        tmp_path.unlink(missing_ok=True)
    report.elapsed_s = round(time.perf_counter() - started, 3)
    return report


def remove_stale_builds(db_path: Path) -> list[Path]:
    """Delete temporary files left beside `db_path` by builds whose process is gone (killed); return them."""
    removed = []
    for candidate in db_path.parent.glob(f".{db_path.name}.*.building"):
        pid_text = candidate.name.removeprefix(f".{db_path.name}.").removesuffix(".building")
        try:
            os.kill(int(pid_text), 0)
            continue  # that build is still running
        except (ValueError, ProcessLookupError):
            pass
        except PermissionError:
            continue
        candidate.unlink(missing_ok=True)
        removed.append(candidate)
    return removed


SUPREME_COURT_REPORTERS = (" U.S. ", " S. Ct. ", " L. Ed. ", " L. Ed. 2d ")


def _attach_opinions(merger: CaseMerger, records: list[OpinionRecord], report: BuildReport) -> list[tuple]:
    """Join opinions to cases by their parallel citations; a case known only from its opinion is created, and a case
    an opinion joins takes the opinion's parallel citations it lacked (so an S. Ct. or L. Ed. citation of a case the
    other sources know only by its U.S. citation finds it).

    An opinion id met twice (the same opinion in the plain-text and the raw folder) keeps its first record; the
    number of such duplicates is reported. A created case is a Supreme Court case only when one of its citations
    is in a Supreme Court reporter (the cited opinions include some lower-court decisions).
    """
    rows = []
    seen: set[str] = set()
    majority: dict[str, tuple[int, str]] = {}
    type_rank = {"lead": 0, "combined": 1}
    unmatched = duplicates = 0
    for op in records:
        if op.opinion_id in seen:
            duplicates += 1
            continue
        seen.add(op.opinion_id)
        case_id = merger.find(op.citations, op.case_name)
        if case_id is not None:  # the cluster's parallel citations (S. Ct., L. Ed., Lexis) are the case's too
            merger.add_citations(case_id, op.citations, "courtlistener")
        if case_id is None and op.citations:
            keys = [citation_key(c) or "" for c in op.citations]
            supreme = any(f" {key} ".find(r) >= 0 for key in keys for r in SUPREME_COURT_REPORTERS)
            case_id = merger.add(
                CaseRecord(
                    source="courtlistener",
                    source_id=op.cluster_id or op.opinion_id,
                    court_id="scotus" if supreme else None,
                    name=op.case_name,
                    citations=op.citations,
                    year=op.year,
                )
            )
        if case_id is None:
            unmatched += 1
        rows.append(
            (op.opinion_id, case_id, op.cluster_id, op.opinion_type, int(op.is_majority), op.author, op.text,
             op.source_file, op.source)
        )  # fmt: skip
        if case_id and op.is_majority:
            rank = type_rank.get(op.opinion_type, 9)
            if case_id not in majority or rank < majority[case_id][0]:
                majority[case_id] = (rank, op.opinion_id)
    for case_id, (_, opinion_id) in majority.items():
        merger.cases[case_id].values["majority_opinion_id"] = (opinion_id, "opinions")
    report.unmatched["opinions"] = unmatched
    report.unmatched["duplicate_opinion_ids"] = duplicates
    return rows


def _resolve_treatments(merger: CaseMerger, records: list[TreatmentRecord], report: BuildReport) -> list[tuple]:
    rows = []
    unmatched = 0
    for rec in records:
        citing = merger.find(rec.citing_citations, rec.citing_name)
        cited = merger.find(rec.cited_citations, rec.cited_name)
        unmatched += citing is None or cited is None
        rows.append(
            (citing, cited, rec.citing_name, rec.cited_name, rec.label, rec.agreement, int(rec.expert_reviewed),
             rec.source, rec.location)
        )  # fmt: skip
    report.unmatched["treatments"] = unmatched
    return rows


def _resolve_edges(merger: CaseMerger, results: dict[str, LoadResult], report: BuildReport) -> list[tuple]:
    """Turn edges named by source ids ('fowler:123') or citations into case-id pairs."""
    rows = []
    unmatched = 0

    def resolve(ref: str) -> str | None:
        source, _, source_id = ref.partition(":")
        if (source, source_id) in merger.by_source_id:
            return merger.by_source_id[(source, source_id)]
        return merger.find([ref])

    for result in results.values():
        for edge in result.edges:
            citing, cited = resolve(edge.citing), resolve(edge.cited)
            if citing is None or cited is None:
                unmatched += 1
                continue
            rows.append((citing, cited, edge.source))
    report.unmatched["citation_edges"] = unmatched
    return rows


CASE_COLUMNS = (
    "case_id", "court_id", "level", "name", "citation", "decision_date", "year", "term", "docket", "author",
    "disposition", "disposition_raw", "party_winning", "precedent_alteration", "issue_area", "majority_votes",
    "minority_votes", "circuit", "state", "prominence", "authority_score", "hub_score", "overruled_year",
    "overruling_case_id", "overruled_in_part", "majority_opinion_id", "sources",
)  # fmt: skip


def _case_row(merger: CaseMerger, case: MergedCase) -> tuple:
    values = []
    for column in CASE_COLUMNS:
        if column == "case_id":
            values.append(case.case_id)
        elif column == "level":
            values.append(merger.level(case))
        elif column == "citation":
            values.append(merger.official_citation(case))
        elif column == "sources":
            values.append(",".join(case.sources))
        else:
            value = case.value(column)
            values.append(int(value) if isinstance(value, bool) else value)
    return tuple(values)


def _write(
    path: Path,
    merger: CaseMerger,
    opinion_rows: list[tuple],
    overruling_rows: list[tuple],
    treatment_rows: list[tuple],
    edge_rows: list[tuple],
    results: dict[str, LoadResult],
    report: BuildReport,
) -> None:
    path.unlink(missing_ok=True)
    conn = sqlite3.connect(path)
    try:
        conn.execute("PRAGMA journal_mode=OFF")
        conn.execute("PRAGMA synchronous=OFF")
        conn.executescript(SCHEMA)
        marks = ",".join("?" * len(CASE_COLUMNS))
        conn.executemany(f"INSERT INTO cases VALUES ({marks})", (_case_row(merger, c) for c in merger.cases.values()))
        conn.executemany(
            "INSERT OR IGNORE INTO case_citations VALUES (?, ?, ?, ?)",
            (
                (key, case.case_id, text, source)
                for case in merger.cases.values()
                for key, text, source in case.citations
            ),
        )
        conn.executemany("INSERT INTO facts VALUES (?, ?, ?, ?)", merger.facts)
        conn.executemany("INSERT INTO conflicts VALUES (?, ?, ?, ?, ?, ?)", merger.conflicts)
        conn.executemany("INSERT INTO opinions VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", opinion_rows)
        conn.executemany("INSERT INTO overrulings VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", overruling_rows)
        conn.executemany("INSERT INTO treatments VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", treatment_rows)
        conn.executemany("INSERT INTO citation_edges VALUES (?, ?, ?)", edge_rows)
        conn.executemany(
            "INSERT INTO build_issues VALUES (?, ?, ?)",
            ((i.source, i.location, i.message) for r in results.values() for i in r.issues),
        )
        for table in ("cases", "case_citations", "facts", "conflicts", "opinions", "overrulings", "treatments",
                      "citation_edges", "build_issues"):  # fmt: skip
            (report.tables[table],) = conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()
        info = {
            "built_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "rows_read": json.dumps(report.rows_read),
            "issues": json.dumps(report.issues),
            "conflicts": json.dumps(report.conflicts),
            "unmatched": json.dumps(report.unmatched),
            "overruling_years": json.dumps(report.overruling_years),
            "rules_version": str(RULES_VERSION),
        }
        conn.executemany("INSERT INTO build_info VALUES (?, ?)", info.items())
        conn.commit()
    finally:
        conn.close()
