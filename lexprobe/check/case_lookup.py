"""The case database as the citation checker reads it: `CaseLookup`, read-only lookups on a `CaseDatabase` cached
for one database (citation keys, the facts of a case as `CaseFacts`, the first pages of a reporter volume, U.S.
Reports coverage from `lexprobe.caselaw.coverage`), and `CaseSummary`, the database case a verdict names."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lexprobe.caselaw.case_names import display_name, names_match
from lexprobe.caselaw.coverage import VolumeCoverage, uncovered_volume, us_coverage
from lexprobe.caselaw.query import CaseDatabase

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
