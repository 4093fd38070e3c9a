"""Citation: the official citation (eyecite equality with any parallel citation)."""

from __future__ import annotations

from lexprobe.caselaw.citations import citation_key
from lexprobe.caselaw.query import CaseDatabase
from lexprobe.hallucination.answers import (
    extract_citation,
)
from lexprobe.hallucination.labels import Score
from lexprobe.hallucination.scoring import (
    ScoringContext,
    _missing,
    _nothing_found,
    _stance,
    scorer,
)
from lexprobe.hallucination.tasks.base import (
    ALL,
    Drafts,
    ItemDraft,
    TaskSpec,
    case_variables,
    named_cases,
    no_names_reason,
)


def _citations_of(db: CaseDatabase, case_id: str) -> list[str]:
    rows = db.conn.execute("SELECT DISTINCT citation_key FROM case_citations WHERE case_id = ?", (case_id,))
    return [row[0] for row in rows]


def _build_citation(db: CaseDatabase, cases: list[dict], level: str, n: int, seed: int) -> Drafts:
    named = named_cases(cases)
    if not named:
        return Drafts(skipped=no_names_reason(level))
    return Drafts(
        [
            ItemDraft(c["case_id"], c["case_id"], case_variables(c), {"citations": _citations_of(db, c["case_id"])})
            for c in named
        ]
    )


SPEC = TaskSpec(
    "citation", "What is the citation for {case}?", "citation", "low", False, ("zero", "few"), ALL, _build_citation, 48
)


@scorer("citation")
def score_citation(answer: str, reference: dict, context: ScoringContext) -> Score:
    """Score the citation task: the answer's first citation must equal one of the case's citations (same volume,
    reporter and page; reporter spelling free)."""
    missing = _missing(reference, "citations") or _stance(answer)
    if missing:
        return missing
    citation = extract_citation(answer)
    if citation is None:
        return _nothing_found(answer, "citation")
    truths = {citation_key(str(text)) or str(text) for text in reference["citations"]}
    if citation.key in truths:
        return Score("correct", f"citation {citation.key!r} is one of the case's citations")
    return Score("hallucination", f"answer {citation.key!r} is not among truth {sorted(truths)}")
