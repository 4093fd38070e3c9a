"""What every source loader yields: plain, frozen records in one normalized vocabulary.

Loaders (`lexprobe/caselaw/sources/*.py`) read one public source each and yield these records; the builder
(`build.py`) merges them into the case database. A loader never drops a row silently: a row it cannot use
becomes a `RowIssue` naming the file and line.

Conventions:
- `citations` are strings as printed ("347 U.S. 483", "74 S. Ct. 686", "124 F.3d 243"); the builder normalizes
  them with `lexprobe.caselaw.citations`.
- `court_id` is a courts-db id: "scotus", "ca1".."ca11", "cadc", "cafc", district ids such as "nysd".
- Dates are ISO strings "YYYY-MM-DD"; `year` is the decision year.
- `disposition` is the study's coarsening: "affirm", "reverse" or None (ambiguous or not applicable);
  `disposition_raw` keeps the source's own code as text.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

Disposition = Literal["affirm", "reverse"]
Agreement = Literal["agree", "disagree"]


@dataclass(frozen=True)
class CaseRecord:
    """One case as one source describes it."""

    source: str  # "scdb", "fowler", "songer", "cap", "courtlistener", "loc", ...
    source_id: str  # the source's own id (SCDB caseId, Fowler caseid, CAP id, file:line for Songer)
    court_id: str | None
    name: str | None = None
    citations: tuple[str, ...] = ()
    decision_date: str | None = None
    year: int | None = None
    term: int | None = None
    docket: str | None = None
    author: str | None = None  # majority opinion author as a full name where known
    disposition: Disposition | None = None
    disposition_raw: str | None = None
    party_winning: int | None = None
    precedent_alteration: bool | None = None
    issue_area: int | None = None
    majority_votes: int | None = None
    minority_votes: int | None = None
    circuit: str | None = None  # "1".."11", "dc", "fed"
    state: str | None = None  # for district courts and Songer rows: the state (two-letter or name)
    prominence: float | None = None  # percentile 0-100 within the court level (higher = more prominent)
    authority_score: float | None = None
    hub_score: float | None = None
    extra: tuple[tuple[str, str], ...] = ()  # further named facts, kept with their source


@dataclass(frozen=True)
class OverrulingRecord:
    """One overruled decision and the decision that overruled it."""

    source: str
    overruled_name: str
    overruled_citation: str | None
    overruled_year: int | None
    overruling_name: str
    overruling_citation: str | None  # "597 U.S. 215", or None for a slip opinion
    overruling_docket: str | None  # "22-451" for slip cites
    overruling_year: int
    in_part: bool
    note: str | None = None  # the qualifier as printed: "(plurality opinion)", "(Powell, J., concurring)"
    location: str = ""  # file:line


@dataclass(frozen=True)
class CitationEdge:
    """Citing case cites cited case (both named by a citation string or a source id)."""

    source: str
    citing: str
    cited: str


@dataclass(frozen=True)
class OpinionRecord:
    """One opinion text with what is known about it."""

    source: str
    opinion_id: str
    cluster_id: str | None
    case_name: str | None
    citations: tuple[str, ...]  # the parallel citations of the case (joins opinions to cases)
    opinion_type: str  # "combined", "lead", "concurrence", "dissent", "addendum", "remittitur", "rehearing", ...
    is_majority: bool
    author: str | None  # author as stated in the opinion text, if found
    text: str
    source_file: str
    year: int | None = None


@dataclass(frozen=True)
class TreatmentRecord:
    """How a citing case treats a cited case, with the study's agree/disagree coarsening."""

    source: str
    citing_cluster_id: str | None
    cited_cluster_id: str | None
    citing_name: str | None
    cited_name: str | None
    citing_citations: tuple[str, ...]
    cited_citations: tuple[str, ...]
    label: str  # the source's label, e.g. "Overruled", "Mentioned"
    agreement: Agreement | None  # None where the label maps to neither
    expert_reviewed: bool
    location: str = ""


@dataclass(frozen=True)
class RowIssue:
    """A row a loader could not use, and why. Counted and reported, never dropped silently."""

    source: str
    location: str  # "path:line"
    message: str


@dataclass
class LoadResult:
    """Everything one loader produced."""

    cases: list[CaseRecord] = field(default_factory=list)
    overrulings: list[OverrulingRecord] = field(default_factory=list)
    edges: list[CitationEdge] = field(default_factory=list)
    opinions: list[OpinionRecord] = field(default_factory=list)
    treatments: list[TreatmentRecord] = field(default_factory=list)
    issues: list[RowIssue] = field(default_factory=list)
    rows_read: int = 0


# --- sources too large to hold: read in one pass (issue 30) ------------------------------------------------------


@dataclass(frozen=True)
class CaseBundle:
    """One case of a large source with what that source says about it: its opinions and the citations it makes."""

    case: CaseRecord
    opinions: tuple[OpinionRecord, ...] = ()
    edges: tuple[CitationEdge, ...] = ()


@dataclass(frozen=True)
class SourceFilter:
    """Which cases a large source keeps, applied while it is read (`data build --courts / --years`)."""

    courts: frozenset[str] | None = None  # courts-db ids ("ca9", "nysd", "scotus"); None keeps every court
    years: tuple[int, int] | None = None  # inclusive decision-year range; None keeps every year

    def keeps_court(self, court_id: str | None) -> bool:
        """Whether a case of `court_id` is kept (an unknown court is kept only when no court filter is set)."""
        return self.courts is None or (court_id is not None and court_id in self.courts)

    def keeps_year(self, year: int | None) -> bool:
        """Whether a case decided in `year` is kept (an unknown year is kept only when no year filter is set)."""
        return self.years is None or (year is not None and self.years[0] <= year <= self.years[1])


#: progress(label, done, total): `done` of `total` units (bytes where the source is files) of step `label`.
ProgressFn = Callable[[str, int, int], None]


@dataclass(frozen=True)
class LoadOptions:
    """What `data build` hands a loader of user-supplied files (`--cap`, `--courtlistener`)."""

    filter: SourceFilter = field(default_factory=SourceFilter)
    progress: ProgressFn | None = None
    work_dir: Path | None = None  # where a restartable loader keeps its staging state between attempts


@dataclass
class StreamedLoad:
    """A source read in one pass: `bundles` is consumed once by the builder, which does not hold what it yields.
    `result` holds no cases or opinions; its `rows_read` and `issues` fill in as the iterator is consumed.

    A loader that consumed its whole input and yielded no case raises `EmptySourceError` from the iterator."""

    bundles: Iterator[CaseBundle]
    result: LoadResult = field(default_factory=LoadResult)


class EmptySourceError(ValueError):
    """A user-supplied source yielded no case. The message is one line: the path, the format the loader expected
    and what it found there ("…/CasesMetadata.json: no CAP case read: expected case objects with casebody,
    found 9 metadata entries without it")."""
