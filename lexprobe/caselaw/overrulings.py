"""The overruling links of `lexprobe data build`: match each overruled and overruling decision to a case (citation,
else docket and name, else name and year), and date each overruled case's first overruling decision
(`decision_year`: the decision's SCDB date, else the Library of Congress year; never a term year)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from rapidfuzz import fuzz

from lexprobe.caselaw.build_report import BuildReport
from lexprobe.caselaw.merge import CaseMerger, MergedCase
from lexprobe.caselaw.records import OverrulingRecord
from lexprobe.caselaw.sources import loc_overruled


def _docket_index(merger: CaseMerger) -> dict[str, list[MergedCase]]:
    index: dict[str, list[MergedCase]] = {}
    for case in merger.cases.values():
        docket = case.value("docket")
        if docket:
            index.setdefault(str(docket).strip(), []).append(case)
    return index


def _closest_named(cases: Iterable[MergedCase], name: str, at_least: float) -> str | None:
    """Return the id of the case whose name is closest to `name` (rapidfuzz token-set similarity at least
    `at_least`; the first of equals), or None."""
    best: tuple[float, str] | None = None
    for case in cases:
        score = fuzz.token_set_ratio(name.lower(), str(case.value("name") or "").lower())
        if score >= at_least and (best is None or score > best[0]):
            best = (score, case.case_id)
    return best[1] if best else None


def _match_by_docket(
    dockets: dict[str, list[MergedCase]], docket: str | None, name: str, year: int | None
) -> str | None:
    """Return the case with this docket whose name matches best (similarity >= 60; within a year of `year`, when
    given), or None."""
    cases = dockets.get((docket or "").strip(), [])
    near = [c for c in cases if year is None or c.value("year") is None or abs(int(c.value("year")) - year) <= 1]
    return _closest_named(near, name, 60)


def _match_by_name_and_year(merger: CaseMerger, name: str, year: int) -> str | None:
    """Return the Supreme Court case of `year` whose name is closest to `name` (similarity >= 80), or None."""
    cases = merger.cases.values()
    return _closest_named((c for c in cases if c.value("year") == year and c.value("court_id") == "scotus"), name, 80)


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


def resolve_overrulings(merger: CaseMerger, records: list[OverrulingRecord], report: BuildReport) -> list[tuple]:
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
