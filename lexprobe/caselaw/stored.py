"""What the case database holds, as the frozen records `query.CaseDatabase` returns.

One record per shape a reader needs: a whole `Case` row, an `Overruling` link, an `AgreementPair` of the treatment
data, and the narrow rows the fabricator and the citation checker scan in bulk. Fields carry the column names of
`schema.SCHEMA`, so a record reads like the table it comes from; `as_dict` gives the plain mapping where a caller
passes the row on as data (task templates, `lexprobe data case --json`). `CaseDetail` gathers everything known about
one case, each fact with its source (what `lexprobe data case` prints).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

#: Column values `dataclasses.asdict` returns as they are (its deep copy of one is the same object).
_PLAIN = frozenset({str, int, float, bool, type(None)})


@dataclass(frozen=True)
class _Record:
    def as_dict(self) -> dict[str, Any]:
        """Return the record as a plain dict keyed by column name (`dataclasses.asdict`'s result)."""
        values = dict(self.__dict__)
        if all(type(value) in _PLAIN for value in values.values()):
            return values  # what asdict returns for plain columns, without its deep-copy walk (samples read thousands)
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


@dataclass(frozen=True)
class SourcedValue(_Record):
    """A value of one field of a case and the source giving it (a `facts` row without its field)."""

    value: str
    source: str


@dataclass(frozen=True)
class SourcedCitation(_Record):
    """A citation of a case and the source printing it (`case_citations`)."""

    citation: str
    source: str


@dataclass(frozen=True)
class OverrulingDecision(_Record):
    """A decision that overrules the described case, as one source records it (an `overrulings` row)."""

    overruling_name: str
    overruling_citation: str | None
    overruling_docket: str | None
    overruling_year: int
    overruling_case_id: str | None
    in_part: int
    note: str | None
    source: str


@dataclass(frozen=True)
class OverruledDecision(_Record):
    """A decision the described case overrules, as one source records it (an `overrulings` row)."""

    overruled_name: str
    overruled_citation: str | None
    overruled_case_id: str | None
    in_part: int
    source: str


@dataclass(frozen=True)
class OpinionSummary(_Record):
    """One opinion of a case, without its text: type, majority flag, author and length in characters."""

    opinion_id: str
    opinion_type: str | None
    is_majority: int | None
    author: str | None
    characters: int | None


@dataclass(frozen=True)
class Conflict(_Record):
    """Two sources giving one field of a case different values (`conflicts`)."""

    field: str
    value_a: str
    source_a: str
    value_b: str
    source_b: str


@dataclass(frozen=True)
class CaseDetail(_Record):
    """Everything known about one case (`CaseDatabase.case`): its merged row, each citation and fact with its source,
    the overrulings either way, its opinions, the sources' conflicts and its citation counts.

    `facts` maps a field to its distinct values in the order the build stored them; `as_dict` is the JSON of
    `lexprobe data case --json`.
    """

    case: Case
    citations: tuple[SourcedCitation, ...]
    facts: Mapping[str, tuple[SourcedValue, ...]]
    overruled_by: tuple[OverrulingDecision, ...]
    overrules: tuple[OverruledDecision, ...]
    opinions: tuple[OpinionSummary, ...]
    conflicts: tuple[Conflict, ...]
    cites: int  # citation edges from this case
    cited_by: int  # citation edges to this case
