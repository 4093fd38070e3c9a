"""Verdicts for extracted citations against the case database. The rules are in docs/check.md; in short:

- verified: the citation is a case in the database, the case name given (if any) matches one of the names the
  sources give that case (`names_match`), and the year given (if any) is one of the case's years;
- mismatch: the citation is in the database but the name or year disagrees, or the page lies inside the case the
  document names (a pin page given as the first page), or a parallel citation differs from the database's;
- not_found: a U.S. Reports citation in a volume the database covers completely (`CaseLookup.us_volume`) whose page
  is not the first page of any decision there, but lies inside the run of opinions: likely fabricated;
- unverifiable: anything the database cannot judge (another reporter, an uncovered volume, a page after the last
  opinion of the volume, an order cited as subsequent history, a short form with nothing to resolve to). Never a
  guess.

Short forms, "Id." and "supra" take the verdict of their full citation; a bare page of a case the document cited
earlier ("261 U.S. 553" after "Adkins v. Children's Hospital, 261 U.S. 525") is read as a pin cite to it.

Notes: "overruled by X (year)" from the database's overruling facts (the case is cited as if it were good law;
where the document itself says, in the citation's sentence, that the case was overruled, the note begins "the
document says it was overruled:" instead: `OVERRULING_SAID`), and "pin cite outside the opinion's page range" when
the pin precedes the first page or lies after the first page of the next decision in the same volume.
"""

from __future__ import annotations

import bisect
import re
import weakref
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from lexprobe.caselaw.case_names import NAME_THRESHOLD, display_name, is_popular_name, names_match
from lexprobe.caselaw.coverage import VolumeCoverage, uncovered_volume, us_coverage
from lexprobe.caselaw.query import CaseDatabase
from lexprobe.check.extract import FULL, FoundCitation

# --- the case database as the checker reads it -----------------------------------------------------------------

#: Cases `CaseLookup.names_like` asks `CaseDatabase.find_by_name` for before comparing names party by party: a name
#: as common as "Nicholas v. United States" is one of dozens as close by rapidfuzz ("Nichols v. United States"), ranked
#: by prominence, so a handful would often miss the case itself.
NAME_CANDIDATES = 60


@dataclass(frozen=True)
class CaseSummary:
    """The database case a citation resolves to."""

    case_id: str
    name: str | None
    citation: str | None
    year: int | None


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


class CaseLookup:
    """Read-only lookups on a `CaseDatabase`, cached for one database: citation keys, case facts, first pages of a
    reporter volume, and U.S. Reports coverage (`us_volume`)."""

    def __init__(self, db: CaseDatabase) -> None:
        self.db = db
        self._cases: dict[str, CaseFacts] = {}
        self._starts: dict[tuple[str, str], list[tuple[int, str]]] = {}
        self._us: dict[int, VolumeCoverage] | None = None
        self._reporter_counts: dict[str, int] = {}
        self._names_like: dict[str, list[CaseFacts]] = {}

    def case_ids(self, key: str) -> list[str]:
        return self.db.case_ids_by_key(key)

    def case(self, case_id: str) -> CaseFacts | None:
        if case_id in self._cases:
            return self._cases[case_id]
        row = self.db.get_case(case_id)
        if row is None:
            return None
        names: list[str] = [row.name] if row.name else []
        years = {row.year} if row.year else set()
        if row.decision_date and row.decision_date[:4].isdigit():
            years.add(int(row.decision_date[:4]))
        dated = bool(row.decision_date)
        for fact in self.db.facts(case_id, ("name", "year", "decision_date")):
            if fact.field == "name" and fact.value not in names:
                names.append(fact.value)
            elif fact.value[:4].isdigit():
                years.add(int(fact.value[:4]))
                dated = dated or fact.field == "decision_date"
        keys = frozenset(self.db.citation_keys(case_id))
        overrulings = tuple(link.as_dict() for link in self.db.overrulings_of(case_id))
        facts = CaseFacts(
            case_id=row.case_id,
            name=row.name or (names[0] if names else None),
            names=tuple(names),
            citation=row.citation,
            year=row.year,
            years=frozenset(years),
            dated=dated,
            court_id=row.court_id,
            keys=keys,
            overruled_year=row.overruled_year,
            overruling_case_id=row.overruling_case_id,
            overruled_in_part=bool(row.overruled_in_part),
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
            found = []
            for entry in self.db.volume_entries(reporter, volume):
                page = entry.citation_key[len(prefix) :]
                if page.isdigit():
                    found.append((int(page), entry.case_id))
            self._starts[key] = sorted(found)
        return self._starts[key]

    def reporter_count(self, reporter: str) -> int:
        """How many citations of `reporter` the database holds (any volume)."""
        if reporter not in self._reporter_counts:
            self._reporter_counts[reporter] = self.db.reporter_count(reporter)
        return self._reporter_counts[reporter]

    def names_like(self, name: str, limit: int = 3) -> list[CaseFacts]:
        """Cases whose name matches `name` (the `NAME_CANDIDATES` closest by `CaseDatabase.find_by_name`, then
        `names_match`), at most `limit`."""
        if name not in self._names_like:
            found = []
            for case_id in self.db.find_by_name(name, limit=NAME_CANDIDATES):
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
            self._us = us_coverage(self.db)
        coverage = self._us.get(volume)
        if coverage is None:
            return uncovered_volume(volume)
        return coverage


VERIFIED, MISMATCH, NOT_FOUND, UNVERIFIABLE = "verified", "mismatch", "not_found", "unverifiable"
VERDICTS = (VERIFIED, MISMATCH, NOT_FOUND, UNVERIFIABLE)

US = "U.S."
#: The start of an overruling note when the document itself says, next to the citation, that the case was overruled
#: (`FoundCitation.overruling_said`); an overruling note without it ("overruled by ...") is a case cited as good law.
OVERRULING_SAID = "the document says it was overruled: "
#: Parenthetical court ids that say nothing against a Supreme Court case ("(U.S. 2023)" reads as "usjc").
_SUPREME_COURT_PARENS = frozenset({"scotus", "usjc"})


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
    pin: str | None = None  # the pin cite as written ("16", "16-17", "*3"), None without one

    def to_json(self) -> dict[str, Any]:
        """The JSON object of `lexprobe check --json`: exactly text, span, verdict, case, reason, notes, pin."""
        return {**asdict(self), "span": list(self.span), "notes": list(self.notes)}


_lookups: weakref.WeakKeyDictionary[CaseDatabase, CaseLookup] = weakref.WeakKeyDictionary()


def case_lookup_for(db: CaseDatabase) -> CaseLookup:
    """Return the (cached) `CaseLookup` of an open case database, the second argument of `verify_citations`."""
    lookup = _lookups.get(db)
    if lookup is None:
        lookup = _lookups[db] = CaseLookup(db)
    return lookup


# --- verdicts ----------------------------------------------------------------------------------------------------


_OVERRULING_SOURCES = {"loc": "Library of Congress table", "fowler": "Fowler network"}


def _listed_overrulings(rows: list[dict]) -> str:
    return "; ".join(
        f"{r['overruling_name']} ({r['overruling_year']}{', in part' if r['in_part'] else ''}, "
        f"{_OVERRULING_SOURCES.get(r['source'], r['source'])})"
        for r in rows
    )


def _overruled_note(lookup: CaseLookup, facts: CaseFacts, said: bool = False) -> str | None:
    """The overruling note of a case (None when never overruled); with `said` (the document says so itself), begun
    by `OVERRULING_SAID`."""
    lead = OVERRULING_SAID if said else ""
    if not facts.overruled_year:  # overruled, but the sources do not settle by which decision or when
        return f"{lead}overruled: {_listed_overrulings(facts.overrulings)}" if facts.overrulings else None
    how = lead + ("overruled in part" if facts.overruled_in_part else "overruled")
    by = lookup.case(facts.overruling_case_id) if facts.overruling_case_id else None
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


def _pin_note(lookup: CaseLookup, reporter: str, volume: str, first: int, pin: int | None) -> str | None:
    """The pin-cite rule: a pin before the first page, or after the first page of the next decision the database
    lists in the same volume (strictly after: the next decision may begin on the page this one ends)."""
    if pin is None:
        return None
    if pin < first:
        return f"pin cite {pin} is before the opinion's first page ({volume} {reporter} {first})"
    starts = lookup.starts(reporter, volume)
    index = bisect.bisect_right(starts, (first, "\uffff"))
    if index < len(starts) and pin > starts[index][0]:
        next_page, next_id = starts[index]
        facts = lookup.case(next_id)
        label = display_name(facts.name) if facts and facts.name else "the next decision"
        return (
            f"pin cite {pin} is outside the opinion's page range: {label} begins at {volume} {reporter} {next_page}, "
            f"so this opinion ends by page {next_page}"
        )
    return None


def _best_case(lookup: CaseLookup, ids: Sequence[str], name: str | None) -> tuple[CaseFacts, float | None]:
    cases = [facts for facts in (lookup.case(i) for i in ids) if facts is not None]
    if name:
        scored = [(names_match(name, facts.names)[1] if facts.names else -1.0, facts) for facts in cases]
        score, facts = max(scored, key=lambda item: item[0])
        return facts, (score if score >= 0 else None)
    return max(cases, key=lambda facts: bool(facts.names)), None


def _elsewhere(
    lookup: CaseLookup, name: str | None, year: int | None, exclude: str | None = None, any_year: bool = False
) -> str | None:
    """'“X” is in the database as ...' for a document's case name found at another citation: one decided within a
    year of the year given (any year with `any_year`, when the year given belongs to the citation's own case)."""
    if not name:
        return None
    found = [f for f in lookup.names_like(name, limit=NAME_CANDIDATES) if f.case_id != exclude]
    if year is not None and not any_year:
        found = [f for f in found if f.years and any(abs(y - year) <= 1 for y in f.years)]
    if not found:
        return None
    return f"the database has “{name}” as " + "; ".join(f.label() for f in found[:2])


def _join(*parts: str | None) -> str:
    return "; ".join(part for part in parts if part)


class _Judge:
    def __init__(self, lookup: CaseLookup, found: Sequence[FoundCitation]) -> None:
        self.lookup = lookup
        self.found = found
        self.group_case: dict[int, CaseFacts] = {}
        self.verdicts: list[CitationVerdict] = []

    def run(self) -> list[CitationVerdict]:
        # First the database case of each parallel group (any member found), so that a member the database lacks
        # can be compared with its siblings.
        for citation in self.found:
            if citation.kind == FULL and citation.key and citation.group not in self.group_case:
                ids = self.lookup.case_ids(citation.key)
                if ids:
                    facts, score = _best_case(self.lookup, ids, citation.name)
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
            pin=citation.pin_text,
        )

    def full(self, c: FoundCitation) -> CitationVerdict:
        reporter, volume = c.reporter or "", c.volume or ""
        if c.page is None:
            return self.make(c, UNVERIFIABLE, None, f"no page number ({c.text}): a slip-opinion or unpaginated cite")
        key = c.key or ""
        ids = self.lookup.case_ids(key)
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
        held = self.lookup.reporter_count(reporter)
        coverage = (
            f"the database does not cover {reporter} completely (it holds {held:,} {reporter} citations, parallel "
            "citations of Supreme Court cases or a sample of cases), so a citation it lacks may still be real"
            if held
            else f"the database has no {reporter or 'such'} citations"
        )
        return self.make(
            c, UNVERIFIABLE, None, _join(coverage, f"parallel citation of {sibling.label()}" if sibling else None)
        )

    def disagreements(
        self, c: FoundCitation, facts: CaseFacts, score: float | None
    ) -> tuple[list[str], list[str | None]]:
        """What the citation gives that the database's case does not (name, year, court), and the notes on what
        differs but is not held against it."""
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
                        _elsewhere(self.lookup, c.name, c.year, exclude=facts.case_id, any_year=True),
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
        elif c.court and facts.court_id == "scotus" and c.court not in _SUPREME_COURT_PARENS:
            problems.append(
                f"the court given ({c.court}) is not the database's: {facts.label()} is a Supreme Court case"
            )
        return problems, notes

    def found_case(self, c: FoundCitation, ids: Sequence[str]) -> CitationVerdict:
        facts, score = _best_case(self.lookup, ids, c.name)
        problems, notes = self.disagreements(c, facts, score)
        notes.append(_overruled_note(self.lookup, facts, c.overruling_said))
        if c.page and c.page.isdigit():
            notes.append(_pin_note(self.lookup, c.reporter or "", c.volume or "", int(c.page), c.pin))
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
        coverage = self.lookup.us_volume(volume)
        elsewhere = _elsewhere(self.lookup, c.name, c.year)
        year_note = self.lookup.year_volume_note(volume, c.year)
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
        reliable = self.lookup.starts(US, str(volume)) or coverage.entries
        index = bisect.bisect_left([p for p, _ in reliable], page) - 1
        inside_page, inside_id = reliable[max(index, 0)]
        inside = self.lookup.case(inside_id)
        if c.name and inside is not None and inside.names and names_match(c.name, inside.names)[0]:
            return self.make(
                c,
                MISMATCH,
                inside,
                f"wrong first page: {inside.label()} begins at {volume} U.S. {inside_page}; page {page} is inside it",
                [_overruled_note(self.lookup, inside, c.overruling_said)],
            )
        earlier = self.page_of_earlier(c, f"{volume} U.S. {inside_page}", page)
        if earlier is not None:
            return earlier
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

    def page_of_earlier(self, c: FoundCitation, key: str, page: int) -> CitationVerdict | None:
        """A nameless citation of a page inside the case at `key` that the document cited earlier: a pin cite
        written as a full citation, with that citation's verdict; else None."""
        if c.name or c.history:
            return None
        earlier = self.earlier_citation_of(key, c.index)
        if earlier is None:
            return None
        verdict = self.verdicts[earlier]
        reason = (
            f"page {page} of {self.found[earlier].text}, cited earlier, written as a full citation ({c.key}): "
            f"{verdict.reason}"
        )
        return CitationVerdict(c.text, c.span, verdict.verdict, verdict.case, reason, verdict.notes, c.pin_text)

    def in_orders_section(self, c: FoundCitation) -> bool:
        """A U.S. Reports page after the volume's run of opinions (`caselaw.coverage.opinions_end`)."""
        if c.reporter != US or not (c.volume or "").isdigit() or not (c.page or "").isdigit():
            return False
        end = self.lookup.us_volume(int(c.volume or 0)).section_end
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
        notes: list[str | None] = [
            n for n in verdict.notes if n.startswith(("overruled", OVERRULING_SAID, "checked online"))
        ]
        case = self.lookup.case(verdict.case.case_id) if verdict.case else None
        if target.page and target.page.isdigit():
            notes.append(_pin_note(self.lookup, target.reporter or "", target.volume or "", int(target.page), c.pin))
        return CitationVerdict(
            text=c.text,
            span=c.span,
            verdict=verdict.verdict,
            case=case.summary() if case else verdict.case,
            reason=f"{kind} of {target.text}: {verdict.reason}",
            notes=tuple(n for n in notes if n),
            pin=c.pin_text,
        )


def verify_citations(found: Sequence[FoundCitation], lookup: CaseLookup) -> list[CitationVerdict]:
    """Return one verdict per extracted citation, in the same order."""
    return _Judge(lookup, found).run()


def summarize(verdicts: Iterable[Any], kinds: Sequence[str] = VERDICTS) -> dict[str, int]:
    """Count the verdicts, every kind present: {"verified": n, "mismatch": n, "not_found": n, "unverifiable": n}
    (the quotation or holding verdicts with their `kinds`)."""
    counts = dict.fromkeys(kinds, 0)
    for verdict in verdicts:
        counts[verdict.verdict] += 1
    return counts
