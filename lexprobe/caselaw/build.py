"""`lexprobe data build`: load every public source into one SQLite case database, atomically.

The database is written to a temporary file beside the target and renamed over it only when complete, so an
interrupted build never leaves a half database (the previous one, if any, stays in place). The in-memory sources'
opinions, treatments and citation edges are joined to the merged cases here (a case known only from its opinion is
created); the overruling links and overruled years are resolved in `lexprobe.caselaw.overrulings`; the report, the
progress events and `BuildError` are `build_report`.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import shutil
import sqlite3
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from lexprobe.caselaw.build_report import BuildError, BuildProgress, BuildReport
from lexprobe.caselaw.build_stream import (
    StreamCounts,
    StreamWriter,
    best_majority,
    opinion_row,
    write_cases,
    write_issues,
)
from lexprobe.caselaw.citations import citation_key, citation_parts
from lexprobe.caselaw.merge import CaseMerger
from lexprobe.caselaw.opinion_index import write_parts, write_text_index
from lexprobe.caselaw.overrulings import resolve_overrulings
from lexprobe.caselaw.records import (
    CaseBundle,
    CaseRecord,
    EmptySourceError,
    LoadOptions,
    LoadResult,
    OpinionRecord,
    SourceFilter,
    StreamedLoad,
    TreatmentRecord,
)
from lexprobe.caselaw.schema import RULES_VERSION, SCHEMA
from lexprobe.caselaw.sources import fowler, loc_overruled, opinions, scdb, songer, treatments

__all__ = [
    "ExtraSource",
    "SourceSpec",
    "build_database",
    "default_work_dir",
    "offline_sources",
    "remove_stale_builds",
]

Loader = Callable[[Path], LoadResult]
#: What a user-supplied source is read with: the options of the build in, a small or a streamed load out.
SourceLoad = Callable[[LoadOptions], "LoadResult | StreamedLoad"]

#: The reporters that print only the Supreme Court, compared exactly with a citation key's reporter: "U.S. LEXIS"
#: is the Court's LEXIS series, "U.S. App. LEXIS" and "U.S. App. D.C." are not.
SUPREME_COURT_REPORTERS = frozenset({"U.S.", "S. Ct.", "L. Ed.", "L. Ed. 2d", "U.S. LEXIS"})


@dataclass(frozen=True)
class SourceSpec:
    """One source of the offline build: where it lives under the data root and how to load it."""

    name: str
    relative_path: str
    loader: Loader
    description: str


@dataclass(frozen=True)
class ExtraSource:
    """A source the user names on the command line (`--cap`, `--courtlistener`, `--scdb-zip`): its files and how
    to read them all together. `load` returns a `LoadResult` (small: merged in memory) or a `StreamedLoad` (large:
    written as it is read, see `build_stream`)."""

    name: str
    paths: tuple[Path, ...]
    load: SourceLoad
    description: str = ""


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
        SourceSpec(
            "opinions",
            "opinions/scotus",
            partial(opinions.load, page_marks=True),
            "CourtListener Supreme Court opinions",
        ),
        SourceSpec("treatments", "treatment", treatments.load, "Free Law Project citator treatments"),
    ]


def default_work_dir(db_path: Path) -> Path:
    """Return where restartable loaders keep their state between attempts: `<db>.staging` beside the database."""
    return db_path.with_name(db_path.name + ".staging")


def _safe_name(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name)[:80] or "source"


def build_database(
    source_dir: Path,
    db_path: Path,
    *,
    overruled_edition: str = "2025",
    extra_sources: Iterable[ExtraSource] = (),
    progress: BuildProgress | None = None,
    source_filter: SourceFilter | None = None,
    work_dir: Path | None = None,
) -> BuildReport:
    """Build the case database at `db_path` from the public data in `source_dir` plus any `extra_sources` such as
    CAP volumes or CourtListener bulk files; return a report.

    `source_filter` (`--courts` / `--years`) is handed to the loaders of the extra sources, which apply it while
    they read; the builder applies it again to what they return. `work_dir` (default `<db>.staging`) holds the
    loaders' restart state, one folder per source; it is removed after a successful build.

    Raises `BuildError` when a source is missing, unreadable or yields no case. The target is replaced only by a
    complete database.
    """
    started = time.perf_counter()
    build = _Build(source_filter or SourceFilter(), progress or BuildProgress(), BuildReport(db_path=str(db_path)))
    extras = list(extra_sources)
    core_specs = [
        (s.name, source_dir / s.relative_path, s.loader, s.description) for s in offline_sources(overruled_edition)
    ]
    missing = [str(path) for _, path, _, _ in core_specs if not path.exists()]
    missing += [str(path) for extra in extras for path in extra.paths if not path.exists()]
    if missing:
        raise BuildError(f"missing source file(s): {', '.join(missing)} (set LEXPROBE_DATA or --source)")
    work_root = work_dir or default_work_dir(db_path)
    # the user's files first: a junk file fails before the offline data is read
    extra_results = build.load_extras(extras, work_root)
    results: dict[str, LoadResult] = {}
    for name, path, loader, description in core_specs:
        results[name] = build.timed(name, description, lambda loader=loader, path=path: loader(path))
    results.update(extra_results)  # merged after the offline data, which is trusted first
    extra_results.clear()  # `results` alone holds them, cleared once written (their memory is the streams')
    build.write_database(db_path, build.merge(results), results)
    for extra in extras:  # the build is complete: nothing is left to restart
        shutil.rmtree(work_root / _safe_name(extra.name), ignore_errors=True)
    if extras and work_root.is_dir() and not any(work_root.iterdir()):
        work_root.rmdir()
    build.report.elapsed_s = round(time.perf_counter() - started, 3)
    return build.report


@dataclass
class _Links:
    """The in-memory sources' rows linked to merged cases, ready to write."""

    opinions: list[tuple]
    overrulings: list[tuple]
    treatments: list[tuple]
    edges: list[tuple]


@dataclass
class _Build:
    """A build under way: the filter of the user's sources, the merger of the cases held in memory, the streamed
    sources waiting to be written, and where the build tells what it does."""

    keep: SourceFilter
    progress: BuildProgress
    report: BuildReport
    merger: CaseMerger = field(default_factory=CaseMerger)
    streams: list[tuple[ExtraSource, StreamedLoad]] = field(default_factory=list)

    def load_extras(self, extras: list[ExtraSource], work_root: Path) -> dict[str, LoadResult]:
        """Load the user's sources: a small load's cases filtered and kept in memory (returned by name), a streamed
        load's first bundle read now (so junk fails early) and the stream kept in `streams` for the writing step."""
        keep = self.keep
        results: dict[str, LoadResult] = {}
        for extra in extras:
            options = LoadOptions(
                filter=keep,
                progress=lambda label, done, total, name=extra.name: self.progress.advance(name, label, done, total),
                work_dir=work_root / _safe_name(extra.name),
            )
            loaded = self.timed(extra.name, extra.description, lambda extra=extra, o=options: extra.load(o))
            if isinstance(loaded, StreamedLoad):
                loaded.bundles = _first_read(extra.name, loaded.bundles)
                self.streams.append((extra, loaded))
                continue
            kept = [c for c in loaded.cases if keep.keeps_court(c.court_id) and keep.keeps_year(c.year)]
            self.report.filtered[extra.name] = len(loaded.cases) - len(kept)
            if not kept:
                raise BuildError(_empty_message(extra, loaded.rows_read, len(loaded.cases)))
            loaded.cases = kept
            results[extra.name] = loaded
        return results

    def timed(self, name: str, description: str, call: Callable[[], object]):
        """Run one loader call, turning what it raises into a one-line `BuildError` naming the source."""
        self.progress.source_started(name, description)
        began = time.perf_counter()
        with _reading(name):
            loaded = call()
        if isinstance(loaded, LoadResult):
            self.finished(name, loaded, len(loaded.issues), time.perf_counter() - began)
        return loaded

    def finished(self, name: str, result: LoadResult, issues: int, seconds: float) -> None:
        """Record a source's reading time, rows read and row issues, and tell `progress` it finished."""
        self.report.source_seconds[name] = round(seconds, 3)
        self.report.rows_read[name] = result.rows_read
        self.report.issues[name] = issues
        self.progress.source_finished(name, result, seconds)

    def merge(self, results: dict[str, LoadResult]) -> _Links:
        """Merge the in-memory sources' cases in order, then resolve their opinions, overrulings, treatments and
        edges to the merged cases."""
        merger, report = self.merger, self.report
        self.progress.step("merging")
        for name, result in results.items():
            before = len(merger.cases)
            for record in result.cases:
                merger.add(record)
            report.cases_added[name] = len(merger.cases) - before
            report.cases_joined[name] = len(result.cases) - report.cases_added[name]
        before = len(merger.cases)
        opinion_rows = attach_opinions(merger, [op for r in results.values() for op in r.opinions], report)
        report.cases_added["opinions"] = report.cases_added.get("opinions", 0) + len(merger.cases) - before
        return _Links(
            opinion_rows,
            resolve_overrulings(merger, [o for r in results.values() for o in r.overrulings], report),
            resolve_treatments(merger, [t for r in results.values() for t in r.treatments], report),
            resolve_edges(merger, results, report),
        )

    def write_database(self, db_path: Path, links: _Links, results: dict[str, LoadResult]) -> None:
        """Write the database to a temporary file beside `db_path` and rename it over the target once complete."""
        merger = self.merger
        db_path.parent.mkdir(parents=True, exist_ok=True)
        remove_stale_builds(db_path)
        tmp_path = db_path.with_name(f".{db_path.name}.{os.getpid()}.building")
        stage_path = tmp_path.with_name(tmp_path.name + ".stage")
        try:
            conn = _create(tmp_path)
            try:
                self.progress.step("writing")
                _write_core_links(conn, links, results)
                for written in (links.opinions, links.overrulings, links.treatments, links.edges):
                    written.clear()  # written out: their memory (opinion texts above all) is free for the streams
                results.clear()
                if self.streams:
                    self.stream(conn, stage_path)
                conn.execute("BEGIN")
                if not self.streams:
                    write_cases(conn, merger, merger.cases.values(), merger.facts, merger.conflicts)
                self.progress.step("splitting and indexing opinions")
                write_parts(conn)  # the combined opinion texts split into their parts, every opinion's words indexed
                write_text_index(conn)
                conn.execute("COMMIT")
                self.report.shared_citations = merger.shared_citations
                self.report.conflicts = dict(Counter(row[1] for row in merger.conflicts))
                _finish(conn, self.report)
            finally:
                conn.close()
            os.replace(tmp_path, db_path)
        finally:
            tmp_path.unlink(missing_ok=True)
            stage_path.unlink(missing_ok=True)

    def stream(self, conn: sqlite3.Connection, stage_path: Path) -> None:
        """Read every streamed source into the database, then write the core's cases and resolve streamed edges."""
        merger, report = self.merger, self.report
        writer = StreamWriter.open(conn, stage_path, merger)
        for extra, loaded in self.streams:
            self.progress.step(f"reading {extra.name}")
            counts = StreamCounts()
            began = time.perf_counter()
            with _reading(extra.name):
                writer.consume(self.watched(loaded.bundles, counts, extra.name), loaded.result, self.keep, counts)
            report.cases_added[extra.name] = counts.added
            report.cases_joined[extra.name] = counts.joined
            report.filtered[extra.name] = counts.filtered
            report.unmatched[f"duplicate_opinion_ids:{extra.name}"] = counts.duplicate_opinions
            self.finished(extra.name, loaded.result, counts.issues, time.perf_counter() - began)
            if counts.added + counts.joined == 0:
                raise BuildError(_empty_message(extra, loaded.result.rows_read, counts.filtered))
        self.progress.step("writing cases")
        conn.execute("BEGIN")
        write_cases(conn, merger, merger.cases.values(), merger.facts, merger.conflicts)
        writer.register_core_ids()
        report.unmatched["streamed_edges"] = writer.resolve_edges()
        conn.execute("COMMIT")
        writer.close(stage_path)

    def watched(self, bundles: Iterable[CaseBundle], counts: StreamCounts, name: str) -> Iterator[CaseBundle]:
        """Pass the bundles on, telling `progress` every few thousand how many cases were added and joined."""
        for seen, bundle in enumerate(bundles, start=1):
            yield bundle
            if seen % 2000 == 0:
                self.progress.streamed(name, counts.added, counts.joined)
        self.progress.streamed(name, counts.added, counts.joined)


def attach_opinions(merger: CaseMerger, records: list[OpinionRecord], report: BuildReport) -> list[tuple]:
    """Join opinions to cases by their parallel citations; a case known only from its opinion is created, and a case
    an opinion joins takes the opinion's parallel citations it lacked (so an S. Ct. or L. Ed. citation of a case the
    other sources know only by its U.S. citation finds it).

    An opinion id met twice (the same opinion in the plain-text and the raw folder) keeps its first record; the
    number of such duplicates is reported. A created case is a Supreme Court case only when one of its citations
    is in a Supreme Court reporter (the cited opinions include some lower-court decisions).
    """
    rows = []
    seen: set[str] = set()
    majority: dict[str, list[OpinionRecord]] = {}
    unmatched = duplicates = 0
    for op in records:
        if op.opinion_id in seen:
            duplicates += 1
            continue
        seen.add(op.opinion_id)
        # an opinion of a cluster a source described joins that cluster's case first (an unpublished decision's
        # cluster often has no citation to join by), else any case sharing one of its citations
        case_id = merger.by_source_id.get(("courtlistener", op.cluster_id)) if op.cluster_id else None
        case_id = case_id or merger.find(op.citations, op.case_name)
        if case_id is not None:  # the cluster's parallel citations (S. Ct., L. Ed., Lexis) are the case's too
            merger.add_citations(case_id, op.citations, "courtlistener")
        if case_id is None and op.citations:
            parts = [citation_parts(key) for key in (citation_key(c) for c in op.citations) if key]
            supreme = any(p is not None and p[1] in SUPREME_COURT_REPORTERS for p in parts)
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
        unmatched += case_id is None
        rows.append(opinion_row(op, case_id))
        if case_id and op.is_majority:
            majority.setdefault(case_id, []).append(op)
    for case_id, majority_opinions in majority.items():
        merger.cases[case_id].values["majority_opinion_id"] = (best_majority(majority_opinions), "opinions")
    report.unmatched["opinions"] = unmatched
    report.unmatched["duplicate_opinion_ids"] = duplicates
    return rows


def resolve_treatments(merger: CaseMerger, records: list[TreatmentRecord], report: BuildReport) -> list[tuple]:
    """Turn citator treatments named by citations into case-id rows (an unmatched side is None, and counted)."""
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


def resolve_edges(merger: CaseMerger, results: dict[str, LoadResult], report: BuildReport) -> list[tuple]:
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


@contextlib.contextmanager
def _reading(name: str) -> Iterator[None]:
    """Turn what a source's loader raises into a one-line `BuildError` naming the source."""
    try:
        yield
    except EmptySourceError as exc:
        raise BuildError(f"{name}: {exc}") from exc
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        raise BuildError(f"could not read {name}: {exc}") from exc


def _first_read(name: str, bundles: Iterator[CaseBundle]) -> Iterator[CaseBundle]:
    """Read a stream's first bundle now, so a source that is junk (the loader raises as it finds no case) fails
    before the offline data is read; return the stream with that bundle put back in front."""
    with _reading(name):
        first = next(bundles, None)
    return bundles if first is None else itertools.chain([first], bundles)


def _empty_message(extra: ExtraSource, rows_read: int, cases: int) -> str:
    where = ", ".join(str(p) for p in extra.paths[:3]) + (" ..." if len(extra.paths) > 3 else "")
    if cases:
        return f"{extra.name}: no case kept from {where}: all {cases:,} cases read fall outside --courts/--years"
    return (
        f"{extra.name}: no case read from {where} ({rows_read:,} rows read); see the loader's format in docs/caselaw.md"
    )


def _create(path: Path) -> sqlite3.Connection:
    """Create an empty case database at `path`, opened for a build (transactions managed by hand)."""
    path.unlink(missing_ok=True)
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode=OFF")
    conn.execute("PRAGMA synchronous=OFF")
    conn.executescript(SCHEMA)
    return conn


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


def _write_core_links(conn: sqlite3.Connection, links: _Links, results: dict[str, LoadResult]) -> None:
    """Write what the in-memory sources link to cases (opinions, overrulings, treatments, edges) and their row
    issues; the cases themselves follow once every streamed source has had the chance to join them."""
    conn.execute("BEGIN")
    conn.executemany("INSERT INTO opinions VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", links.opinions)
    conn.executemany("INSERT INTO overrulings VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", links.overrulings)
    conn.executemany("INSERT INTO treatments VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", links.treatments)
    conn.executemany("INSERT INTO citation_edges VALUES (?, ?, ?)", links.edges)
    write_issues(conn, [issue for result in results.values() for issue in result.issues])
    conn.execute("COMMIT")


def _finish(conn: sqlite3.Connection, report: BuildReport) -> None:
    """Count every table and write `build_info`."""
    for table in ("cases", "case_citations", "facts", "conflicts", "opinions", "opinion_parts", "overrulings",
                  "treatments", "citation_edges", "build_issues"):  # fmt: skip
        (report.tables[table],) = conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()
    info = {
        "built_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "rows_read": json.dumps(report.rows_read),
        "issues": json.dumps(report.issues),
        "cases_added": json.dumps(report.cases_added),
        "cases_joined": json.dumps(report.cases_joined),
        "conflicts": json.dumps(report.conflicts),
        "unmatched": json.dumps(report.unmatched),
        "overruling_years": json.dumps(report.overruling_years),
        "rules_version": str(RULES_VERSION),
    }
    conn.execute("BEGIN")
    conn.executemany("INSERT INTO build_info VALUES (?, ?)", info.items())
    conn.execute("COMMIT")
