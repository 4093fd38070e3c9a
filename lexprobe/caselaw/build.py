"""`lexprobe data build`: load every public source into one SQLite case database, atomically.

The database is written to a temporary file beside the target and renamed over it only when complete, so an
interrupted build never leaves a half database (the previous one, if any, stays in place).
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

from rapidfuzz import fuzz

from lexprobe.caselaw.citations import citation_key
from lexprobe.caselaw.merge import CaseMerger, MergedCase
from lexprobe.caselaw.records import CaseRecord, LoadResult, OpinionRecord, OverrulingRecord, TreatmentRecord
from lexprobe.caselaw.schema import RULES_VERSION, SCHEMA
from lexprobe.caselaw.sources import fowler, loc_overruled, opinions, scdb, songer, treatments

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


class BuildError(RuntimeError):
    """The build could not run (a source file is missing or unreadable). The old database is untouched."""


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
    overruling_rows = _resolve_overrulings(merger, [o for r in results.values() for o in r.overrulings], report)
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
    """Join opinions to cases by their parallel citations; a case known only from its opinion is created.

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


def _docket_index(merger: CaseMerger) -> dict[str, list[MergedCase]]:
    index: dict[str, list[MergedCase]] = {}
    for case in merger.cases.values():
        docket = case.value("docket")
        if docket:
            index.setdefault(str(docket).strip(), []).append(case)
    return index


def _match_by_docket(
    dockets: dict[str, list[MergedCase]], docket: str | None, name: str, year: int | None
) -> str | None:
    """Return the case with this docket whose name matches best (and year, when given), or None."""
    best: tuple[float, str] | None = None
    for case in dockets.get((docket or "").strip(), []):
        case_year = case.value("year")
        if year is not None and case_year is not None and abs(int(case_year) - year) > 1:
            continue
        score = fuzz.token_set_ratio(name.lower(), str(case.value("name") or "").lower())
        if score >= 60 and (best is None or score > best[0]):
            best = (score, case.case_id)
    return best[1] if best else None


def _match_by_name_and_year(merger: CaseMerger, name: str, year: int) -> str | None:
    """Return the Supreme Court case of `year` whose name is closest to `name` (similarity >= 80), or None."""
    best: tuple[float, str] | None = None
    for case in merger.cases.values():
        if case.value("year") != year or case.value("court_id") != "scotus":
            continue
        score = fuzz.token_set_ratio(name.lower(), str(case.value("name") or "").lower())
        if score >= 80 and (best is None or score > best[0]):
            best = (score, case.case_id)
    return best[1] if best else None


def _overruling_counts(merger: CaseMerger, rec: OverrulingRecord, overruling_id: str | None) -> bool:
    """Whether a link sets the overruled year: Library of Congress links always; Fowler network links only when
    SCDB marks the overruling decision as formally altering precedent (`precedentAlteration`), or SCDB does not
    cover it (before 1946). The network also codes weaker relations as overruling (it links Webster, 1989, to Roe).
    """
    if rec.source != "fowler":
        return True
    if overruling_id is None:
        return False
    altered = merger.cases[overruling_id].value("precedent_alteration")
    return altered is None or bool(altered)


@dataclass(frozen=True)
class DecisionYear:
    """The calendar year an overruling decision was decided, and where it comes from, or None with `term_at_most`
    when only a year that may be the term year is known (the decision fell in that year or the next)."""

    year: int | None
    source: str
    term_at_most: int | None = None


@dataclass(frozen=True)
class _Link:
    """One overruling record with its resolved case ids."""

    rec: OverrulingRecord
    overruled_id: str | None
    overruling_id: str | None


def _printed_years(links: list[_Link], source: str) -> dict[str, list[int]]:
    """Return, per overruling decision (case id), the years `source` prints for it: as the overruling decision of
    a link, and as an overruled decision (the Library of Congress prints both with their decision year)."""
    years: dict[str, list[int]] = {}
    for link in links:
        if link.rec.source != source:
            continue
        if link.overruling_id:
            years.setdefault(link.overruling_id, []).append(link.rec.overruling_year)
        if link.overruled_id and link.rec.overruled_year is not None:
            years.setdefault(link.overruled_id, []).append(link.rec.overruled_year)
    return years


def decision_year(merger: CaseMerger, link: _Link, loc_years: dict[str, list[int]]) -> DecisionYear:
    """Return the calendar year of a link's overruling decision, never a term year:

    1. the year of the decision's date (SCDB `dateDecision`, or another source's full date) when the case database
       has one;
    2. else the year the Library of Congress table prints for that decision (in this row, else its most frequent
       year for the decision anywhere in the table);
    3. else no year: the only other year, the Fowler network's, is the decision's term for cases before 1946
       (December terms ran into the next calendar year), so the decision fell in that year or the next
       (`term_at_most`).
    """
    if link.overruling_id:
        case = merger.cases[link.overruling_id]
        dated = case.values.get("decision_date")
        if dated and len(str(dated[0])) >= 10:
            return DecisionYear(int(str(dated[0])[:4]), dated[1])
    if link.rec.source == loc_overruled.SOURCE:
        return DecisionYear(link.rec.overruling_year, loc_overruled.SOURCE)
    printed = loc_years.get(link.overruling_id or "", [])
    if printed:
        year = max(sorted(set(printed)), key=printed.count)
        return DecisionYear(year, loc_overruled.SOURCE)
    return DecisionYear(None, link.rec.source, term_at_most=link.rec.overruling_year)


def earliest_overruling(years: list[tuple[DecisionYear, _Link]]) -> tuple[DecisionYear, _Link] | None:
    """Return the earliest dated link among a case's counted links (a Library of Congress link among those of the
    same year), or None when there is none or an undated link might be earlier (its term year is before the
    earliest dated year, so the first overruling's year is unknown)."""
    dated = [(year, link) for year, link in years if year.year is not None]
    if not dated:
        return None
    # among links of the same year the Library of Congress's wins: only it says whether a decision overruled in part
    first = min(dated, key=lambda entry: (entry[0].year, entry[1].rec.source != loc_overruled.SOURCE))  # type: ignore
    undated = [year.term_at_most for year, _ in years if year.year is None and year.term_at_most is not None]
    if any(term < first[0].year for term in undated):  # type: ignore[operator]
        return None
    return first


def _resolve_overrulings(merger: CaseMerger, records: list[OverrulingRecord], report: BuildReport) -> list[tuple]:
    """Link overruled and overruling decisions to cases; set each overruled case's overruling year.

    The overruling decision is found by citation, else (slip cites) by docket and name, else by name and year
    (the Library of Congress misprints some dockets, e.g. Dobbs as 19-1391 for 19-1392). Every link is kept in
    `overrulings` with the year its source prints. The case's `overruled_year` is the calendar year of its first
    overruling decision among the links that count (see `_overruling_counts`), dated by `decision_year` (the
    decision's SCDB date, else the Library of Congress year; never a term year). Sources that disagree on that year
    are recorded as conflicts, and `report.overruling_years` counts the cases where sources date one overruling
    decision differently (`overruling_year_sources`).
    """
    dockets = _docket_index(merger)
    rows = []
    links = []
    for rec in records:
        overruled_id = merger.find([rec.overruled_citation], rec.overruled_name) if rec.overruled_citation else None
        overruling_id = merger.find([rec.overruling_citation], rec.overruling_name) if rec.overruling_citation else None
        if overruling_id is None and rec.overruling_docket:
            overruling_id = _match_by_docket(dockets, rec.overruling_docket, rec.overruling_name, rec.overruling_year)
        if overruling_id is None and rec.overruling_citation is None:
            overruling_id = _match_by_name_and_year(merger, rec.overruling_name, rec.overruling_year)
        links.append(_Link(rec, overruled_id, overruling_id))
        rows.append(
            (overruled_id, rec.overruled_name, rec.overruled_citation, rec.overruled_year, overruling_id,
             rec.overruling_name, rec.overruling_citation, rec.overruling_docket, rec.overruling_year,
             int(rec.in_part), rec.note, rec.source, rec.location)
        )  # fmt: skip
    report.unmatched["overrulings"] = sum(link.overruled_id is None for link in links)
    loc_years = _printed_years(links, loc_overruled.SOURCE)
    counted: dict[str, list[tuple[DecisionYear, _Link]]] = {}
    years: dict[str, dict[int, str]] = {}
    for link in links:
        if link.overruled_id is None or not _overruling_counts(merger, link.rec, link.overruling_id):
            continue
        counted.setdefault(link.overruled_id, []).append((decision_year(merger, link, loc_years), link))
        years.setdefault(link.overruled_id, {}).setdefault(link.rec.overruling_year, link.rec.source)
        merger.facts.append((link.overruled_id, "overruled_year", str(link.rec.overruling_year), link.rec.source))
    dated_by: Counter[str] = Counter()
    for case_id, entries in counted.items():
        first = earliest_overruling(entries)
        if first is None:
            dated_by["undated"] += 1
            continue
        year, link = first
        case = merger.cases[case_id]
        case.values["overruled_year"] = (year.year, year.source)
        case.values["overruling_case_id"] = (link.overruling_id, link.rec.source)
        case.values["overruled_in_part"] = (int(link.rec.in_part), link.rec.source)
        if year.source != link.rec.source or year.year != link.rec.overruling_year:
            merger.facts.append((case_id, "overruled_year", str(year.year), year.source))
        dated_by[year.source] += 1
    for case_id, by_year in years.items():
        sources_by_year = sorted(by_year.items())
        if len({source for _, source in sources_by_year}) > 1 and len(sources_by_year) > 1:
            (year_a, source_a), (year_b, source_b) = sources_by_year[0], sources_by_year[-1]
            merger.conflicts.append((case_id, "overruled_year", str(year_a), source_a, str(year_b), source_b))
    report.overruling_years = overruling_year_sources(merger, links) | {"dated_by": dict(sorted(dated_by.items()))}
    return rows


def overruling_year_sources(merger: CaseMerger, links: list[_Link]) -> dict[str, int]:
    """Compare, for every overruled case, the years the sources give each of its overruling decisions: the year of
    SCDB's `dateDecision`, every year the Library of Congress table prints for the decision, and the Fowler
    network's year. Return the number of overruled cases (`overruled_cases`), of cases where any two sources
    disagree on the year of one of their overruling decisions (`disagree`), that count per pair of sources
    (`scdb_vs_loc`, `scdb_vs_fowler`, `loc_vs_fowler`), and of cases whose overruling decision's SCDB term differs
    from its calendar year (`term_differs`: where a term year would be a wrong answer)."""
    by_case: dict[str, dict[str, dict[str, set[int]]]] = {}
    for link in links:
        if link.overruled_id is None or link.overruling_id is None:
            continue
        decision = by_case.setdefault(link.overruled_id, {}).setdefault(link.overruling_id, {})
        decision.setdefault(link.rec.source, set()).add(link.rec.overruling_year)
        case = merger.cases[link.overruling_id]
        dated = case.values.get("decision_date")
        if dated and dated[1] == "scdb" and len(str(dated[0])) >= 10:
            decision.setdefault("scdb", set()).add(int(str(dated[0])[:4]))
            term = case.value("term")
            if term is not None and int(term) != int(str(dated[0])[:4]):
                decision.setdefault("term", set()).add(int(term))
    pairs = (("scdb", "loc"), ("scdb", "fowler"), ("loc", "fowler"))
    counts = {"overruled_cases": len(by_case), "disagree": 0, "term_differs": 0} | {f"{a}_vs_{b}": 0 for a, b in pairs}
    for decisions in by_case.values():
        differing = {
            (a, b)
            for years in decisions.values()
            for a, b in pairs
            if a in years and b in years and years[a] != years[b]
        }
        differing |= {("loc", "loc") for years in decisions.values() if len(years.get("loc", ())) > 1}
        counts["disagree"] += bool(differing)
        for a, b in differing - {("loc", "loc")}:
            counts[f"{a}_vs_{b}"] += 1
        counts["term_differs"] += any("term" in years for years in decisions.values())
    return counts


def describe_overruling_years(counts: dict) -> str:
    """Return one line about `BuildReport.overruling_years` for a terminal ("" for a build that predates it)."""
    if not counts:
        return ""
    dated = counts.get("dated_by", {})
    return (
        f"overruling years: {counts['overruled_cases']:,} overruled cases; sources date an overruling decision "
        f"differently for {counts['disagree']:,} (SCDB vs LoC {counts['scdb_vs_loc']}, SCDB vs Fowler "
        f"{counts['scdb_vs_fowler']}, LoC vs Fowler {counts['loc_vs_fowler']}); the year used is dated by the SCDB "
        f"decision date for {dated.get('scdb', 0):,}, by the LoC table for {dated.get('loc', 0):,}, and unknown for "
        f"{dated.get('undated', 0):,} (only a Fowler year, possibly the term); {counts['term_differs']:,} were "
        "overruled by a decision whose SCDB term is not its calendar year"
    )


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
