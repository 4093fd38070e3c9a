"""Verdicts for extracted citations against the case database. The rules are in docs/check.md; in short:

- verified: the citation is a case in the database, the case name given (if any) matches one of the names the
  sources give that case (`names_match`), and the year given (if any) is one of the case's years;
- mismatch: the citation is in the database but the name or year disagrees, or the page lies inside the case the
  document names (a pin page given as the first page), or a parallel citation differs from the database's;
- not_found: a U.S. Reports citation in a volume the database covers completely (`Reference.us_volume`) whose page
  is not the first page of any decision there, but lies inside the run of opinions: likely fabricated;
- unverifiable: anything the database cannot judge (another reporter, an uncovered volume, a page after the last
  opinion of the volume, an order cited as subsequent history, a short form with nothing to resolve to). Never a
  guess.

Short forms, "Id." and "supra" take the verdict of their full citation; a bare page of a case the document cited
earlier ("261 U.S. 553" after "Adkins v. Children's Hospital, 261 U.S. 525") is read as a pin cite to it.

Notes: "overruled by X (year)" from the database's overruling facts, and "pin cite outside the opinion's page
range" when the pin precedes the first page or lies after the first page of the next decision in the same volume.
"""

from __future__ import annotations

import bisect
import datetime as dt
import re
import weakref
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from lexprobe.caselaw.query import CaseDatabase
from lexprobe.check.extract import FULL, FoundCitation
from lexprobe.check.names import NAME_THRESHOLD, display_name, is_popular_name, names_match

VERIFIED, MISMATCH, NOT_FOUND, UNVERIFIABLE = "verified", "mismatch", "not_found", "unverifiable"
VERDICTS = (VERIFIED, MISMATCH, NOT_FOUND, UNVERIFIABLE)

#: A U.S. Reports volume counts as covered only when the database lists at least this many decisions in it.
MIN_DECISIONS_PER_VOLUME = 10
#: Opinions in a volume are printed in date order; an entry dated more than this before the latest date so far
#: starts the orders section.
ORDERS_DATE_SLACK = dt.timedelta(days=45)
#: An SCDB case without a U.S. page may sit in any volume printed within this many days of its decision.
UNCITED_DATE_SLACK = dt.timedelta(days=30)

US = "U.S."
_US_KEY = re.compile(r"^(\d+) U\.S\. (\d+)$")


@dataclass(frozen=True)
class CaseSummary:
    """The database case a citation resolves to."""

    case_id: str
    name: str | None
    citation: str | None
    year: int | None

    def to_json(self) -> dict[str, Any]:
        return {"case_id": self.case_id, "name": self.name, "citation": self.citation, "year": self.year}


@dataclass(frozen=True)
class CitationVerdict:
    """The verdict on one citation: `text` and `span` (character offsets in the checked text) say where it is,
    `case` which database case it resolves to (None when none), `reason` why, and `notes` what else is known
    (overruled, pin cite outside the opinion)."""

    text: str
    span: tuple[int, int]
    verdict: str
    case: CaseSummary | None
    reason: str
    notes: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """The JSON object of `lexprobe check --json`: exactly text, span, verdict, case, reason, notes."""
        return {
            "text": self.text,
            "span": [self.span[0], self.span[1]],
            "verdict": self.verdict,
            "case": self.case.to_json() if self.case else None,
            "reason": self.reason,
            "notes": list(self.notes),
        }


# --- the database, read for checking ----------------------------------------------------------------------------


@dataclass(frozen=True)
class CaseFacts:
    """What checking needs to know about one database case."""

    case_id: str
    name: str | None
    names: tuple[str, ...]
    citation: str | None
    year: int | None
    years: frozenset[int]
    dated: bool  # the year comes from a decision date (SCDB, CourtListener), not only from Fowler's year column
    court_id: str | None
    keys: frozenset[str]
    overruled_year: int | None
    overruling_case_id: str | None
    overruled_in_part: bool
    overrulings: tuple[dict[str, Any], ...]

    def summary(self) -> CaseSummary:
        return CaseSummary(self.case_id, self.name, self.citation, self.year)

    def label(self) -> str:
        """'Brown v. Board of Education, 347 U.S. 483 (1954)', or the citation alone for a nameless case."""
        citation = self.citation
        if not citation or "LEXIS" in citation:
            official = sorted(k for k in self.keys if "LEXIS" not in k)
            citation = official[0] if official else (citation or self.case_id)
        parts = [display_name(self.name) or "an unnamed case", citation]
        return ", ".join(parts) + (f" ({self.year})" if self.year else "")


@dataclass
class VolumeCoverage:
    """Whether the database lists every decision with an opinion in one U.S. Reports volume, and where."""

    volume: int
    covered: bool
    reason: str  # why not covered (empty when covered)
    decisions: int
    section_end: int | None  # the last first page of the run of opinions (the orders section follows)
    years: tuple[int, int] | None
    entries: list[tuple[int, str]] = field(default_factory=list)  # (first page, case id), sorted


class Reference:
    """Read-only lookups on a `CaseDatabase`, cached for one database: citation keys, case facts, first pages of a
    reporter volume, and U.S. Reports coverage (`us_volume`)."""

    def __init__(self, db: CaseDatabase) -> None:
        self.db = db
        self.conn = db.conn
        self._cases: dict[str, CaseFacts] = {}
        self._starts: dict[tuple[str, str], list[tuple[int, str]]] = {}
        self._us: dict[int, VolumeCoverage] | None = None
        self._reporter_counts: dict[str, int] = {}
        self._names_like: dict[str, list[CaseFacts]] = {}

    def case_ids(self, key: str) -> list[str]:
        rows = self.conn.execute("SELECT DISTINCT case_id FROM case_citations WHERE citation_key = ?", (key,))
        return [row[0] for row in rows]

    def case(self, case_id: str) -> CaseFacts | None:
        if case_id in self._cases:
            return self._cases[case_id]
        row = self.conn.execute(
            "SELECT case_id, name, citation, year, decision_date, court_id, overruled_year, overruling_case_id,"
            " overruled_in_part FROM cases WHERE case_id = ?",
            (case_id,),
        ).fetchone()
        if row is None:
            return None
        names: list[str] = [row["name"]] if row["name"] else []
        years = {row["year"]} if row["year"] else set()
        if row["decision_date"] and row["decision_date"][:4].isdigit():
            years.add(int(row["decision_date"][:4]))
        dated = bool(row["decision_date"])
        for field_name, value in self.conn.execute(
            "SELECT field, value FROM facts WHERE case_id = ? AND field IN ('name', 'year', 'decision_date')",
            (case_id,),
        ):
            if field_name == "name" and value not in names:
                names.append(value)
            elif value[:4].isdigit():
                years.add(int(value[:4]))
                dated = dated or field_name == "decision_date"
        keys = frozenset(
            r[0] for r in self.conn.execute("SELECT citation_key FROM case_citations WHERE case_id = ?", (case_id,))
        )
        overrulings = tuple(
            dict(r)
            for r in self.conn.execute(
                "SELECT overruling_name, overruling_citation, overruling_year, overruling_case_id, in_part, source"
                " FROM overrulings WHERE overruled_case_id = ? ORDER BY overruling_year",
                (case_id,),
            )
        )
        facts = CaseFacts(
            case_id=row["case_id"],
            name=row["name"] or (names[0] if names else None),
            names=tuple(names),
            citation=row["citation"],
            year=row["year"],
            years=frozenset(years),
            dated=dated,
            court_id=row["court_id"],
            keys=keys,
            overruled_year=row["overruled_year"],
            overruling_case_id=row["overruling_case_id"],
            overruled_in_part=bool(row["overruled_in_part"]),
            overrulings=overrulings,
        )
        self._cases[case_id] = facts
        return facts

    def starts(self, reporter: str, volume: str) -> list[tuple[int, str]]:
        """Sorted (first page, case id) of the cases the database cites in one reporter volume that have a name or
        a decision date: Fowler's bare entries (no name, no date) are orders or misplaced and mark no case's end."""
        key = (reporter, volume)
        if key not in self._starts:
            prefix = f"{volume} {reporter} "
            rows = self.conn.execute(
                "SELECT k.citation_key, k.case_id FROM case_citations k JOIN cases c ON c.case_id = k.case_id"
                " WHERE k.citation_key >= ? AND k.citation_key < ?"
                " AND ((c.name IS NOT NULL AND c.name != '') OR c.decision_date IS NOT NULL)",
                (prefix, prefix[:-1] + "!"),
            )
            found = []
            for citation_key, case_id in rows:
                page = citation_key[len(prefix) :]
                if page.isdigit():
                    found.append((int(page), case_id))
            self._starts[key] = sorted(found)
        return self._starts[key]

    def reporter_count(self, reporter: str) -> int:
        """How many citations of `reporter` the database holds (any volume)."""
        if reporter not in self._reporter_counts:
            (count,) = self.conn.execute(
                "SELECT COUNT(*) FROM case_citations WHERE citation_key LIKE ?", (f"% {reporter} %",)
            ).fetchone()
            self._reporter_counts[reporter] = count
        return self._reporter_counts[reporter]

    def names_like(self, name: str, limit: int = 3) -> list[CaseFacts]:
        """Cases whose name matches `name` (`CaseDatabase.find_by_name`, then `names_match`)."""
        if name not in self._names_like:
            found = []
            for case_id in self.db.find_by_name(name, limit=limit * 3):
                facts = self.case(case_id)
                if facts is not None and names_match(name, facts.names)[0]:
                    found.append(facts)
            self._names_like[name] = found
        return self._names_like[name][:limit]

    def year_volume_note(self, volume: int, year: int | None) -> str | None:
        """A note when a U.S. Reports volume cannot hold a decision of `year` (volumes are printed in date order):
        the volume's decisions are all more than a year away, or, for a volume the database lacks, the volumes
        holding decisions of that year (and the years next to it) are all elsewhere."""
        if year is None:
            return None
        coverage = self.us_volume(volume)
        if coverage.years:
            low, high = coverage.years
            if low - 1 <= year <= high + 1:
                return None
            span = str(low) if low == high else f"{low}-{high}"
            return f"{volume} U.S. holds decisions of {span}, but the citation gives {year}"
        assert self._us is not None
        before = [v for v, cov in self._us.items() if cov.years and cov.years[1] < year - 1]
        after = [v for v, cov in self._us.items() if cov.years and cov.years[0] > year + 1]
        low, high = (max(before) if before else 0), (min(after) if after else None)
        if volume <= low or (high is not None and volume >= high):
            where = f"after {low} U.S." if high is None else f"between {low} U.S. and {high} U.S."
            return (
                f"{volume} U.S. cannot hold a decision of {year}: volumes are printed in date order, and the "
                f"database's volumes place {year} {where}"
            )
        return None

    def us_volume(self, volume: int) -> VolumeCoverage:
        if self._us is None:
            self._us = _us_coverage(self.conn)
        coverage = self._us.get(volume)
        if coverage is None:
            return VolumeCoverage(volume, False, f"the database lists no decision in {volume} U.S.", 0, None, None)
        return coverage


_references: weakref.WeakKeyDictionary[CaseDatabase, Reference] = weakref.WeakKeyDictionary()


def reference_for(db: CaseDatabase) -> Reference:
    """Return the (cached) `Reference` of an open case database."""
    reference = _references.get(db)
    if reference is None:
        reference = _references[db] = Reference(db)
    return reference


def _date(text: str | None) -> dt.date | None:
    try:
        return dt.date.fromisoformat(text[:10]) if text else None
    except ValueError:
        return None


def _us_coverage(conn) -> dict[int, VolumeCoverage]:
    """Per U.S. Reports volume: covered or not (and why), and where its run of opinions ends. Rules in
    docs/check.md ("Coverage")."""
    entries: dict[int, dict[int, tuple[str, bool, dt.date | None, int | None]]] = defaultdict(dict)
    for key, case_id, name, year, decision_date in conn.execute(
        "SELECT k.citation_key, c.case_id, c.name, c.year, c.decision_date FROM case_citations k"
        " JOIN cases c ON c.case_id = k.case_id WHERE k.citation_key GLOB '[0-9]* U.S. [0-9]*'"
    ):
        m = _US_KEY.match(key)
        if m is None:
            continue
        volume, page = int(m.group(1)), int(m.group(2))
        known = entries[volume].get(page)
        date = _date(decision_date)
        if known is None or (known[2] is None and date is not None):
            entries[volume][page] = (case_id, bool(name), date, year)

    uncertain = _volumes_of_uncited_scdb_cases(conn)
    coverage: dict[int, VolumeCoverage] = {}
    for volume, pages in entries.items():
        ordered = sorted(pages.items())
        years = [year for _, (_, _, _, year) in ordered if year]
        decisions = len(ordered)
        reason = ""
        if decisions < MIN_DECISIONS_PER_VOLUME:
            reason = (
                f"the database lists only {decisions} decision(s) in {volume} U.S., too few for a complete volume "
                f"(at least {MIN_DECISIONS_PER_VOLUME} needed)"
            )
        elif volume in uncertain:
            reason = (
                f"the Supreme Court Database has decisions without a U.S. Reports page ({uncertain[volume]}) that "
                f"may be printed in {volume} U.S."
            )
        coverage[volume] = VolumeCoverage(
            volume=volume,
            covered=not reason,
            reason=reason,
            decisions=decisions,
            section_end=_opinions_end(ordered),
            years=(min(years), max(years)) if years else None,
            entries=[(page, case_id) for page, (case_id, _, _, _) in ordered],
        )
    return coverage


def _opinions_end(ordered: Sequence[tuple[int, tuple[str, bool, dt.date | None, int | None]]]) -> int | None:
    """The last first page of the volume's run of opinions, before its orders section and in-chambers opinions.

    Walking the entries in page order, the run ends at the first of two consecutive entries that have neither a
    name nor a date (Fowler lists orders with dissents that way), or at the first entry dated more than 45 days
    before the latest date seen so far (opinions are printed in date order; the orders section starts the period
    again). Its end is the last dated entry before that point, or, in volumes without dates (Fowler only), the last
    named one.
    """
    dated = any(date is not None for _, (_, _, date, _) in ordered)
    end = None
    latest: dt.date | None = None
    for i, (page, (_, named, date, _)) in enumerate(ordered):
        bare = date is None and not named
        if bare and i + 1 < len(ordered) and ordered[i + 1][1][2] is None and not ordered[i + 1][1][1]:
            break
        if date is not None:
            if latest is not None and date < latest - ORDERS_DATE_SLACK:
                break
            latest = max(latest, date) if latest else date
        if (date is not None) if dated else named:
            end = page
    return end


def _volumes_of_uncited_scdb_cases(conn) -> dict[int, str]:
    """Volumes that may hold an SCDB case the database has no U.S. page for -> a description of those cases.

    Such a case, decided on date d, may be in any volume from the last volume holding a cited case decided more
    than 30 days before d to the first volume holding one decided more than 30 days after d.
    """
    cited: list[tuple[dt.date, int]] = []
    uncited: list[tuple[dt.date, int]] = []  # (date, term)
    for case_id, term, decision_date in conn.execute(
        "SELECT case_id, term, decision_date FROM cases WHERE term IS NOT NULL"
    ):
        date = _date(decision_date) or dt.date(int(term), 10, 1)
        volumes = [
            int(m.group(1))
            for (key,) in conn.execute(
                "SELECT citation_key FROM case_citations WHERE case_id = ? AND citation_key GLOB '[0-9]* U.S. [0-9]*'",
                (case_id,),
            )
            if (m := _US_KEY.match(key))
        ]
        if volumes:
            cited.extend((date, volume) for volume in volumes)
        else:
            uncited.append((date, int(term)))
    if not cited or not uncited:
        return {}
    cited.sort()
    dates = [date for date, _ in cited]
    prefix_max: list[int] = []
    for _, volume in cited:
        prefix_max.append(max(volume, prefix_max[-1]) if prefix_max else volume)
    suffix_min = [0] * len(cited)
    low = None
    for i in range(len(cited) - 1, -1, -1):
        low = cited[i][1] if low is None else min(low, cited[i][1])
        suffix_min[i] = low
    last_volume = max(volume for _, volume in cited)
    terms: dict[int, set[int]] = defaultdict(set)
    for date, term in uncited:
        before = bisect.bisect_left(dates, date - UNCITED_DATE_SLACK) - 1
        after = bisect.bisect_right(dates, date + UNCITED_DATE_SLACK)
        lo = prefix_max[before] if before >= 0 else 1
        hi = suffix_min[after] if after < len(cited) else last_volume + 1
        for volume in range(lo, hi + 1):
            terms[volume].add(term)
    return {
        volume: "terms " + ", ".join(str(t) for t in sorted(found)) if len(found) > 1 else f"term {min(found)}"
        for volume, found in terms.items()
    }


# --- verdicts ----------------------------------------------------------------------------------------------------


_OVERRULING_SOURCES = {"loc": "Library of Congress table", "fowler": "Fowler network"}


def _listed_overrulings(rows: list[dict]) -> str:
    return "; ".join(
        f"{r['overruling_name']} ({r['overruling_year']}{', in part' if r['in_part'] else ''}, "
        f"{_OVERRULING_SOURCES.get(r['source'], r['source'])})"
        for r in rows
    )


def _overruled_note(reference: Reference, facts: CaseFacts) -> str | None:
    if not facts.overruled_year:  # overruled, but the sources do not settle by which decision or when
        return f"overruled: {_listed_overrulings(facts.overrulings)}" if facts.overrulings else None
    how = "overruled in part" if facts.overruled_in_part else "overruled"
    by = reference.case(facts.overruling_case_id) if facts.overruling_case_id else None
    if by is not None:
        note = f"{how} by {by.name or by.citation}{', ' + by.citation if by.name and by.citation else ''}"
    else:
        first = next((r for r in facts.overrulings if r["overruling_year"] == facts.overruled_year), None)
        label = (first or {}).get("overruling_name") or "a later decision"
        citation = (first or {}).get("overruling_citation")
        note = f"{how} by {label}{', ' + citation if citation else ''}"
    note += f" ({facts.overruled_year})"
    others = [  # other decisions only: the same decision dated differently by another source is not news
        r
        for r in facts.overrulings
        if (r["overruling_case_id"] or None) != (facts.overruling_case_id or None)
        or (facts.overruling_case_id is None and r["overruling_year"] != facts.overruled_year)
    ]
    if others:
        note += f"; also listed as overruled by {_listed_overrulings(others)}"
    return note


def _pin_note(reference: Reference, reporter: str, volume: str, first: int, pin: int | None) -> str | None:
    """The pin-cite rule: a pin before the first page, or after the first page of the next decision the database
    lists in the same volume (strictly after: the next decision may begin on the page this one ends)."""
    if pin is None:
        return None
    if pin < first:
        return f"pin cite {pin} is before the opinion's first page ({volume} {reporter} {first})"
    starts = reference.starts(reporter, volume)
    index = bisect.bisect_right(starts, (first, "\uffff"))
    if index < len(starts) and pin > starts[index][0]:
        next_page, next_id = starts[index]
        facts = reference.case(next_id)
        label = display_name(facts.name) if facts and facts.name else "the next decision"
        return (
            f"pin cite {pin} is outside the opinion's page range: {label} begins at {volume} {reporter} {next_page}, "
            f"so this opinion ends by page {next_page}"
        )
    return None


def _best_case(reference: Reference, ids: Sequence[str], name: str | None) -> tuple[CaseFacts, float | None]:
    cases = [facts for facts in (reference.case(i) for i in ids) if facts is not None]
    if name:
        scored = [(names_match(name, facts.names)[1] if facts.names else -1.0, facts) for facts in cases]
        score, facts = max(scored, key=lambda item: item[0])
        return facts, (score if score >= 0 else None)
    return max(cases, key=lambda facts: bool(facts.names)), None


def _elsewhere(
    reference: Reference, name: str | None, year: int | None, exclude: str | None = None, any_year: bool = False
) -> str | None:
    """'“X” is in the database as ...' for a document's case name found at another citation: one decided within a
    year of the year given (any year with `any_year`, when the year given belongs to the citation's own case)."""
    if not name:
        return None
    found = [f for f in reference.names_like(name) if f.case_id != exclude]
    if year is not None and not any_year:
        found = [f for f in found if f.years and any(abs(y - year) <= 1 for y in f.years)]
    if not found:
        return None
    return f"the database has “{name}” as " + "; ".join(f.label() for f in found[:2])


def _join(*parts: str | None) -> str:
    return "; ".join(part for part in parts if part)


class _Judge:
    def __init__(self, reference: Reference, found: Sequence[FoundCitation]) -> None:
        self.reference = reference
        self.found = found
        self.group_case: dict[int, CaseFacts] = {}
        self.verdicts: list[CitationVerdict] = []

    def run(self) -> list[CitationVerdict]:
        # First the database case of each parallel group (any member found), so that a member the database lacks
        # can be compared with its siblings.
        for citation in self.found:
            if citation.kind == FULL and citation.key and citation.group not in self.group_case:
                ids = self.reference.case_ids(citation.key)
                if ids:
                    facts, score = _best_case(self.reference, ids, citation.name)
                    if citation.name is None or score is None or score >= NAME_THRESHOLD:
                        self.group_case[citation.group] = facts
        verdicts = self.verdicts = []
        for citation in self.found:
            verdicts.append(self.full(citation) if citation.kind == FULL else self.reference_form(citation, verdicts))
        return verdicts

    def make(
        self, citation: FoundCitation, verdict: str, case: CaseFacts | None, reason: str, notes=()
    ) -> CitationVerdict:
        return CitationVerdict(
            text=citation.text,
            span=citation.span,
            verdict=verdict,
            case=case.summary() if case else None,
            reason=reason,
            notes=tuple(note for note in notes if note),
        )

    def full(self, c: FoundCitation) -> CitationVerdict:
        reporter, volume = c.reporter or "", c.volume or ""
        if c.page is None:
            return self.make(c, UNVERIFIABLE, None, f"no page number ({c.text}): a slip-opinion or unpaginated cite")
        key = c.key or ""
        ids = self.reference.case_ids(key)
        if ids:
            return self.found_case(c, ids)
        sibling = self.group_case.get(c.group)
        if sibling is not None:
            own = sorted(k for k in sibling.keys if re.fullmatch(rf"\d+ {re.escape(reporter)} \d+", k))
            if own:
                return self.make(
                    c,
                    MISMATCH,
                    sibling,
                    f"{key} is not in the database; its parallel citation names {sibling.label()}, whose "
                    f"{reporter} citation is {', '.join(own)}",
                )
        if reporter == US and volume.isdigit():
            return self.us_missing(c, int(volume), int(c.page))
        held = self.reference.reporter_count(reporter)
        coverage = (
            f"the database does not cover {reporter} completely (it holds {held:,} {reporter} citations, parallel "
            "citations of Supreme Court cases or a sample of cases), so a citation it lacks may still be real"
            if held
            else f"the database has no {reporter or 'such'} citations"
        )
        return self.make(
            c, UNVERIFIABLE, None, _join(coverage, f"parallel citation of {sibling.label()}" if sibling else None)
        )

    def found_case(self, c: FoundCitation, ids: Sequence[str]) -> CitationVerdict:
        facts, score = _best_case(self.reference, ids, c.name)
        problems = []
        notes: list[str | None] = []
        if c.name and facts.names and score is not None and score < NAME_THRESHOLD:
            if is_popular_name(c.name):
                notes.append(
                    f"the name given, “{c.name}”, has no “v.” (a popular or short name) and is not the database's "
                    f"({display_name(facts.name)}); not held against the citation"
                )
            else:
                problems.append(
                    _join(
                        f"{c.key} is {facts.label()} in the database, not “{c.name}” (name similarity {score:.0f}/100)",
                        _elsewhere(self.reference, c.name, c.year, exclude=facts.case_id, any_year=True),
                    )
                )
        if c.year is not None and facts.years and c.year not in facts.years:
            known = ", ".join(str(y) for y in sorted(facts.years))
            if not facts.dated and any(abs(c.year - y) == 1 for y in facts.years):
                notes.append(
                    f"year {c.year} accepted: the database's year ({known}) is the Fowler network's, which often "
                    "gives the term's year, one year before the decision"
                )
            else:
                problems.append(f"the year given, {c.year}, is not the database's ({known}) for {facts.label()}")
        if c.court and facts.court_id and c.court != facts.court_id and facts.court_id != "scotus":
            problems.append(f"the court given ({c.court}) is not the database's ({facts.court_id})")
        notes.append(_overruled_note(self.reference, facts))
        if c.page and c.page.isdigit():
            notes.append(_pin_note(self.reference, c.reporter or "", c.volume or "", int(c.page), c.pin))
        if problems and self.in_orders_section(c) and not (c.year is not None and c.year not in facts.years):
            return self.make(
                c,
                UNVERIFIABLE,
                None,
                f"{c.key} lies in the orders section of {c.volume} U.S., where many orders share a page; the "
                f"database lists only {facts.label()} there, not “{c.name}”",
            )
        if problems:
            return self.make(c, MISMATCH, facts, "; ".join(problems), notes)
        if c.name and not facts.names:
            court = f"a {facts.court_id} case" if facts.court_id else "a case"
            return self.make(
                c,
                UNVERIFIABLE,
                facts,
                f"{c.key} is {court} of {facts.year} in the database, which has no name for it to compare with "
                f"“{c.name}”",
                notes,
            )
        if c.name:
            reason = f"{c.key} is {facts.label()}"
        elif facts.names:
            reason = f"{c.key} is {facts.label()} (the document gives no case name to compare)"
        else:
            reason = f"{c.key} is in the database ({facts.court_id or 'court unknown'}, {facts.year or 'year unknown'})"
        if c.year is not None:
            reason += f"; year {c.year} matches"
        return self.make(c, VERIFIED, facts, reason, notes)

    def us_missing(self, c: FoundCitation, volume: int, page: int) -> CitationVerdict:
        coverage = self.reference.us_volume(volume)
        elsewhere = _elsewhere(self.reference, c.name, c.year)
        year_note = self.reference.year_volume_note(volume, c.year)
        if c.history and re.search(r"denied|dismiss|granted|mem", c.history, re.I):
            return self.make(
                c,
                UNVERIFIABLE,
                None,
                f"{c.key} is cited as subsequent history ({c.history}); orders are not in the database",
            )
        if not coverage.covered:
            return self.make(c, UNVERIFIABLE, None, _join(f"{c.key}: {coverage.reason}", year_note, elsewhere))
        end = coverage.section_end
        if end is None or page > end:
            return self.make(
                c,
                UNVERIFIABLE,
                None,
                _join(
                    f"page {page} lies after the last opinion the database lists in {volume} U.S. (page {end}); "
                    "order lists and in-chambers opinions printed there are not in the database",
                    year_note,
                    elsewhere,
                ),
            )
        reliable = self.reference.starts(US, str(volume)) or coverage.entries
        index = bisect.bisect_left([p for p, _ in reliable], page) - 1
        inside_page, inside_id = reliable[max(index, 0)]
        inside = self.reference.case(inside_id)
        if c.name and inside is not None and inside.names and names_match(c.name, inside.names)[0]:
            return self.make(
                c,
                MISMATCH,
                inside,
                f"wrong first page: {inside.label()} begins at {volume} U.S. {inside_page}; page {page} is inside it",
                [_overruled_note(self.reference, inside)],
            )
        if not c.name and not c.history:
            earlier = self.earlier_citation_of(f"{volume} U.S. {inside_page}", c.index)
            if earlier is not None:
                verdict = self.verdicts[earlier]
                return CitationVerdict(
                    text=c.text,
                    span=c.span,
                    verdict=verdict.verdict,
                    case=verdict.case,
                    reason=(
                        f"page {page} of {self.found[earlier].text}, cited earlier, written as a full citation "
                        f"({c.key}): {verdict.reason}"
                    ),
                    notes=verdict.notes,
                )
        label = inside.label() if inside is not None else f"{volume} U.S. {inside_page}"
        return self.make(
            c,
            NOT_FOUND,
            None,
            _join(
                f"no decision in the database begins at {c.key}: the database lists every decision with an opinion "
                f"in {volume} U.S. up to page {end} ({coverage.decisions} entries), and page {page} falls inside "
                f"{label}",
                year_note,
                elsewhere,
            ),
        )

    def in_orders_section(self, c: FoundCitation) -> bool:
        """A U.S. Reports page after the volume's run of opinions (`_opinions_end`)."""
        if c.reporter != US or not (c.volume or "").isdigit() or not (c.page or "").isdigit():
            return False
        end = self.reference.us_volume(int(c.volume or 0)).section_end
        return end is not None and int(c.page or 0) > end

    def earlier_citation_of(self, key: str, before: int) -> int | None:
        """The index of the latest full citation of `key` before citation `before`, if any."""
        for index in range(before - 1, -1, -1):
            if self.found[index].kind == FULL and self.found[index].key == key:
                return index
        return None

    def reference_form(self, c: FoundCitation, verdicts: Sequence[CitationVerdict]) -> CitationVerdict:
        kind = {"short": "short form", "id": "“Id.”", "supra": "“supra”"}.get(c.kind, c.kind)
        if c.refers_to is None:
            what = f"{c.volume} {c.reporter}" if c.volume else "it"
            return self.make(
                c, UNVERIFIABLE, None, f"{kind} with no earlier full citation of {what} in the document to refer to"
            )
        target = self.found[c.refers_to]
        verdict = verdicts[c.refers_to]
        notes: list[str | None] = [n for n in verdict.notes if n.startswith(("overruled", "checked online"))]
        case = self.reference.case(verdict.case.case_id) if verdict.case else None
        if target.page and target.page.isdigit():
            notes.append(_pin_note(self.reference, target.reporter or "", target.volume or "", int(target.page), c.pin))
        return CitationVerdict(
            text=c.text,
            span=c.span,
            verdict=verdict.verdict,
            case=case.summary() if case else verdict.case,
            reason=f"{kind} of {target.text}: {verdict.reason}",
            notes=tuple(n for n in notes if n),
        )


def verify_citations(found: Sequence[FoundCitation], reference: Reference) -> list[CitationVerdict]:
    """Return one verdict per extracted citation, in the same order."""
    return _Judge(reference, found).run()


def summarize(verdicts: Iterable[CitationVerdict]) -> dict[str, int]:
    """Count the verdicts: {"verified": n, "mismatch": n, "not_found": n, "unverifiable": n}."""
    counts = dict.fromkeys(VERDICTS, 0)
    for verdict in verdicts:
        counts[verdict.verdict] += 1
    return counts
