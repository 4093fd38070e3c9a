"""Merge the records of every source into one set of cases, keeping the source of each fact.

Cases are identified by their citations: a record whose citation (normalized by `citations.citation_key`) is
already known joins that case; otherwise it starts a new one. Every field a source states becomes a fact row
`(case_id, field, value, source)`; the case's own column takes the value of the most trusted source
(`SOURCE_PRIORITY`). Where two sources disagree on the name (fuzzy) or the year, both facts are kept and the
disagreement is recorded in `conflicts`.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import Any

from rapidfuzz import fuzz

from lexprobe.caselaw.citations import citation_key, citation_parts, is_vendor_reporter
from lexprobe.caselaw.records import CaseRecord

#: Lower is more trusted. Unknown sources rank last.
SOURCE_PRIORITY: dict[str, int] = {
    "scdb": 0,
    "cap": 1,
    "courtlistener": 2,
    "songer": 3,
    "fowler": 4,
    "opinions": 5,
}

#: The reporters of an official citation, most preferred first (compared exactly with a citation key's reporter).
OFFICIAL_REPORTERS: tuple[str, ...] = ("U.S.", "F.3d", "F.2d", "F.", "F. Supp. 2d", "F. Supp.", "F. Supp. 3d", "F.4th")

#: CaseRecord fields that become case columns (same names) and fact rows: all but its identity, citations and extras.
MERGED_FIELDS: tuple[str, ...] = tuple(
    f.name for f in fields(CaseRecord) if f.name not in ("source", "source_id", "citations", "extra")
)

#: Two names for one case count as a conflict below this rapidfuzz token-set similarity (0-100).
NAME_CONFLICT_BELOW = 60.0

_ID_UNSAFE = re.compile(r"[^0-9A-Za-z.]+")


def priority(source: str) -> int:
    """Return the trust rank of `source` (lower is more trusted)."""
    return SOURCE_PRIORITY.get(source, len(SOURCE_PRIORITY))


def make_case_id(court_id: str | None, key: str | None, source: str, source_id: str) -> str:
    """Return a stable, readable case id: '<court>:<vol>_<reporter>_<page>' or '<source>:<source id>'."""
    if key:
        return f"{court_id or 'unknown'}:{_ID_UNSAFE.sub('_', key).strip('_')}"
    return f"{source}:{source_id}"


def names_conflict(a: str, b: str) -> bool:
    """True when two case names are too different to be the same case's name."""
    return fuzz.token_set_ratio(a.lower(), b.lower()) < NAME_CONFLICT_BELOW


def file_under(index: dict[str, list[str]], key: str, case_id: str) -> None:
    """File `case_id` under citation `key` in `index` (citation key -> case ids), once."""
    owners = index.setdefault(key, [])
    if case_id not in owners:
        owners.append(case_id)


def _is_shouting(name: str) -> bool:
    """True for names set mostly in capitals, as SCDB prints them ("BROWN et al. v. BOARD OF EDUCATION")."""
    letters = [c for c in name if c.isalpha()]
    return bool(letters) and sum(c.isupper() for c in letters) >= 0.7 * len(letters)


@dataclass
class MergedCase:
    """One case under construction: preferred values with their sources, and all facts."""

    case_id: str
    values: dict[str, tuple[Any, str]] = field(default_factory=dict)
    citations: list[tuple[str, str, str]] = field(default_factory=list)  # (key, as printed, source)
    sources: list[str] = field(default_factory=list)

    def value(self, name: str) -> Any:
        """Return the preferred value of a field, or None."""
        entry = self.values.get(name)
        return entry[0] if entry else None


@dataclass
class CaseMerger:
    """Accumulates case records from all sources.

    Identity: a record joins a case that shares one of its citations, unless that case already holds a record of
    the same source (a source never describes one case twice: SCDB prints some memorandum decisions on one U.S.
    Reports page, and they stay separate cases). Among several candidates the closest name wins.
    """

    cases: dict[str, MergedCase] = field(default_factory=dict)
    by_key: dict[str, list[str]] = field(default_factory=dict)
    by_source_id: dict[tuple[str, str], str] = field(default_factory=dict)
    facts: list[tuple[str, str, str, str]] = field(default_factory=list)
    conflicts: list[tuple[str, str, str, str, str, str]] = field(default_factory=list)
    #: Whether a case id is already used outside this merger (the cases a streamed build wrote to its database).
    id_taken: Callable[[str], bool] = lambda case_id: False

    def adopt(self, case: MergedCase) -> None:
        """Take in a case built elsewhere (read back from a database being built) so that records can join it."""
        self.cases[case.case_id] = case
        for key, _, _ in case.citations:
            file_under(self.by_key, key, case.case_id)

    @property
    def shared_citations(self) -> int:
        """How many citation keys name more than one case (e.g. memorandum decisions on one page)."""
        return sum(1 for ids in self.by_key.values() if len(ids) > 1)

    def candidates(self, citations: tuple[str, ...] | list[str]) -> list[str]:
        """Return the ids of cases sharing any of `citations`, most shared keys first."""
        counts: dict[str, int] = {}
        for text in citations:
            key = citation_key(text) if text else None
            for case_id in self.by_key.get(key, ()) if key else ():
                counts[case_id] = counts.get(case_id, 0) + 1
        return sorted(counts, key=lambda case_id: -counts[case_id])

    def _closest(self, candidates: list[str], name: str | None) -> str | None:
        if not candidates:
            return None
        if len(candidates) == 1 or not name:
            return candidates[0]
        return max(
            candidates,
            key=lambda case_id: fuzz.token_set_ratio(
                name.lower(), str(self.cases[case_id].value("name") or "").lower()
            ),
        )

    def find(self, citations: tuple[str, ...] | list[str], name: str | None = None) -> str | None:
        """Return the case any of `citations` belongs to (the closest name among several), or None."""
        return self._closest(self.candidates(citations), name)

    def add_citations(self, case_id: str, citations: tuple[str, ...] | list[str], source: str) -> None:
        """Record on a case the parallel citations another source gives it (an opinion's CourtListener cluster
        matched to the case by one of them): each new key is kept under `source` and finds the case from then on."""
        case = self.cases[case_id]
        for text in citations:
            key = citation_key(text) if text else None
            if not key:
                continue
            file_under(self.by_key, key, case_id)
            if all(existing_key != key or src != source for existing_key, _, src in case.citations):
                case.citations.append((key, text, source))

    def add(self, record: CaseRecord) -> str:
        """Merge one record; return the id of the case it joined or started."""
        open_cases = [c for c in self.candidates(record.citations) if record.source not in self.cases[c].sources]
        case_id = self._closest(open_cases, record.name)
        if case_id is None:
            key = next(
                (key for key in (citation_key(text) if text else None for text in record.citations) if key), None
            )
            case_id = make_case_id(record.court_id, key, record.source, record.source_id)
            fallback = make_case_id(None, None, record.source, record.source_id)
            # another case owns this citation's id: use the source id; a source that repeats an id numbers them
            others = itertools.chain([fallback], (f"{fallback}#{n}" for n in itertools.count(2)))
            while case_id in self.cases or self.id_taken(case_id):
                case_id = next(others)
            self.cases[case_id] = MergedCase(case_id)
        case = self.cases[case_id]
        if record.source not in case.sources:
            case.sources.append(record.source)
        self.by_source_id[(record.source, record.source_id)] = case_id
        self.add_citations(case_id, record.citations, record.source)
        for raw in record.citations:
            self.facts.append((case_id, "citation", raw, record.source))
        self._merge_disposition(case, record)
        for name in MERGED_FIELDS:
            value = getattr(record, name)
            if value is None or value == "" or name in ("disposition", "disposition_raw"):
                continue
            self._merge_value(case, name, value, record.source)
        for name, value in record.extra:
            self.facts.append((case_id, name, str(value), record.source))
        return case_id

    def _merge_disposition(self, case: MergedCase, record: CaseRecord) -> None:
        """Disposition and its raw code travel together, from the most trusted source that states a code."""
        if record.disposition_raw is None and record.disposition is None:
            return
        self.facts.append((case.case_id, "disposition_raw", str(record.disposition_raw), record.source))
        if record.disposition is not None:
            self.facts.append((case.case_id, "disposition", record.disposition, record.source))
        current = case.values.get("disposition_raw")
        if current is None or priority(record.source) < priority(current[1]):
            case.values["disposition_raw"] = (record.disposition_raw, record.source)
            case.values["disposition"] = (record.disposition, record.source)

    def _merge_value(self, case: MergedCase, name: str, value: Any, source: str) -> None:
        self.facts.append((case.case_id, name, str(value), source))
        current = case.values.get(name)
        if current is None:
            case.values[name] = (value, source)
            return
        current_value, current_source = current
        if current_source != source and (
            (name == "name" and names_conflict(str(current_value), str(value)))
            or (name == "year" and current_value != value)
        ):
            self.conflicts.append((case.case_id, name, str(current_value), current_source, str(value), source))
        better = priority(source) < priority(current_source)
        if name == "name" and _is_shouting(str(current_value)) != _is_shouting(str(value)):
            better = not _is_shouting(str(value))  # prefer a name in normal case for display
        if better:
            case.values[name] = (value, source)

    def official_citation(self, case: MergedCase) -> str | None:
        """Return the case's official citation: the first of its citations in the first of `OFFICIAL_REPORTERS`
        (U.S. for the Supreme Court, F.3d ... F. Supp. for the lower federal courts), else its first citation in
        any other reporter. The reporter of a citation key is compared exactly (volume, reporter, page), so
        "1997 U.S. App. LEXIS 22161" or "80 U.S. App. D.C. 67" is not a U.S. Reports citation; a vendor citation
        (LEXIS, Westlaw) is never the official one: a case cited only by vendors has none (None)."""
        reporters = [citation_parts(key) for key, _, _ in case.citations]
        for preferred in OFFICIAL_REPORTERS:
            for (key, _, _), parts in zip(case.citations, reporters, strict=True):
                if parts is not None and parts[1] == preferred:
                    return key
        for (key, _, _), parts in zip(case.citations, reporters, strict=True):
            if parts is not None and not is_vendor_reporter(parts[1]):
                return key
        return None
