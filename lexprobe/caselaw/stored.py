"""What the case database holds, as the frozen records `query.CaseDatabase` returns.

One record per shape a reader needs: a whole `Case` row, an `Overruling` link, an `AgreementPair` of the treatment
data, and the narrow rows the fabricator and the citation checker scan in bulk. Fields carry the column names of
`schema.SCHEMA`, so a record reads like the table it comes from; `as_dict` gives the plain mapping where a caller
passes the row on as data (task templates, `lexprobe data show`).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class _Record:
    def as_dict(self) -> dict[str, Any]:
        """Return the record as a plain dict keyed by column name."""
        return asdict(self)


@dataclass(frozen=True)
class Case(_Record):
    """One row of `cases`: the merged facts of one decision (see `schema.SCHEMA` for each column)."""

    case_id: str
    court_id: str | None
    level: str | None
    name: str | None
    citation: str | None
    decision_date: str | None
    year: int | None
    term: int | None
    docket: str | None
    author: str | None
    disposition: str | None
    disposition_raw: str | None
    party_winning: int | None
    precedent_alteration: int | None
    issue_area: int | None
    majority_votes: int | None
    minority_votes: int | None
    circuit: str | None
    state: str | None
    prominence: float | None
    authority_score: float | None
    hub_score: float | None
    overruled_year: int | None
    overruling_case_id: str | None
    overruled_in_part: int | None
    majority_opinion_id: str | None
    sources: str


@dataclass(frozen=True)
class Overruling(_Record):
    """One row of `overrulings`: a decision one source records as overruled (in full or `in_part`) by another."""

    overruled_case_id: str | None
    overruled_name: str
    overruled_citation: str | None
    overruled_year: int | None
    overruling_case_id: str | None
    overruling_name: str
    overruling_citation: str | None
    overruling_docket: str | None
    overruling_year: int
    in_part: int
    note: str | None
    source: str
    location: str


@dataclass(frozen=True)
class CaseRef(_Record):
    """The identity of a case as a question names it: id, name, official citation and year."""

    case_id: str
    name: str | None
    citation: str | None
    year: int | None


@dataclass(frozen=True)
class AgreementPair(_Record):
    """A citing and a cited case whose treatment carries an agree/disagree label (`treatments.agreement`)."""

    agreement: str  # "agree" | "disagree"
    citing: CaseRef  # the later case, whose opinion treats the cited one
    cited: CaseRef


@dataclass(frozen=True)
class Fact(_Record):
    """One value one source gives one field of a case (`facts`)."""

    field: str  # "name", "year", "decision_date", "author", ... (a `cases` column or a source's extra fact)
    value: str  # as the source gives it, as text
    source: str  # "scdb", "fowler", "cap", ...


@dataclass(frozen=True)
class CaseName(_Record):
    """A name any source gives a case, with the case's year (the fabricator's pool of real names)."""

    case_id: str
    year: int  # the case's decision year (`cases.year`)
    name: str  # as that source prints it


@dataclass(frozen=True)
class CitedCase(_Record):
    """A citation key of a case with the case's year and court (the fabricator's pool of real citations)."""

    citation_key: str
    case_id: str
    year: int
    court_id: str | None


@dataclass(frozen=True)
class VolumeEntry(_Record):
    """A citation key in a reporter volume and what the case tells about its place there: named, decision date,
    year (the citation checker's first pages and U.S. Reports coverage)."""

    citation_key: str
    case_id: str
    name: str | None
    year: int | None
    decision_date: str | None


@dataclass(frozen=True)
class TermCase(_Record):
    """A case with a Supreme Court term (SCDB), its decision date and its U.S. Reports citation keys (maybe none)."""

    case_id: str
    term: int
    decision_date: str | None
    us_keys: tuple[str, ...]


@dataclass(frozen=True)
class SampleRow(_Record):
    """A case eligible for a level's sample, with its stratum (`sampling.sample_cases`)."""

    case_id: str
    name: str | None
    citation: str | None
    court_id: str | None
    year: int | None
    state: str | None
    stratum: str
