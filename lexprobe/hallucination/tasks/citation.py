"""Citation: the official citation (eyecite equality with any parallel citation)."""

from __future__ import annotations

from lexprobe.caselaw.citations import Citation, citation_key
from lexprobe.caselaw.query import CaseDatabase
from lexprobe.hallucination.labels.score import Score
from lexprobe.hallucination.labels.scoring import ScoringContext
from lexprobe.hallucination.tasks.base import (
    TaskReference,
    case_builder,
    catalogued,
    reading_of,
    record_case,
    score_extracted,
)
from lexprobe.hallucination.tasks.cases import SampledCase

_read = reading_of("citation")


class CitationReference(TaskReference):
    """Every citation of the case, parallel ones too."""

    citations: list[str] | None = None


def _citations(db: CaseDatabase, case: SampledCase) -> dict:
    """The reference of the citation task: every citation of the case (parallel ones too)."""
    return {"citations": db.citation_keys(case.case_id)}


def _lookup_citation(record: dict, db: CaseDatabase) -> tuple[dict | None, str | None]:
    case, reason = record_case(db, record)
    if case is None:
        return None, reason
    return _citations(db, case), None


def score_citation(answer: str, reference: CitationReference, context: ScoringContext) -> Score:
    """Score the citation task: the answer's first citation must equal one of the case's citations (same volume,
    reporter and page; reporter spelling free)."""

    def judge(citation: Citation) -> Score:
        truths = {citation_key(str(text)) or str(text) for text in reference.citations or ()}
        if citation.key in truths:
            return Score("correct", f"citation {citation.key!r} is one of the case's citations")
        return Score("hallucination", f"answer {citation.key!r} is not among truth {sorted(truths)}")

    return score_extracted(answer, reference, "citations", _read, "citation", judge=judge)


def citation_truth(greedy: str, reference: CitationReference) -> tuple[str, dict] | None:
    """Return the citation scorer with the greedy answer's citation as the truth; None when it cites nothing."""
    citation = _read(greedy).value
    return None if citation is None else ("citation", {"citations": [citation.key]})


TASK = catalogued(
    "citation",
    CitationReference,
    builder=case_builder(_citations),
    lookup=_lookup_citation,
    score=score_citation,
    extract=citation_truth,
)
