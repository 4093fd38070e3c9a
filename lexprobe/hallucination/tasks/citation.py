"""Citation: the official citation (eyecite equality with any parallel citation)."""

from __future__ import annotations

from lexprobe.caselaw.citations import citation_key
from lexprobe.caselaw.query import CaseDatabase
from lexprobe.hallucination.answers import extract_citation
from lexprobe.hallucination.labels import Score
from lexprobe.hallucination.scoring import (
    ScoringContext,
    missing_reference,
    nothing_found,
    stance_score,
)
from lexprobe.hallucination.tasks.base import (
    Drafts,
    ItemDraft,
    TaskSpec,
    case_variables,
    named_cases,
    no_names_reason,
    record_case,
)


def _build_citation(db: CaseDatabase, cases: list[dict], level: str, n: int, seed: int) -> Drafts:
    named = named_cases(cases)
    if not named:
        return Drafts(skipped=no_names_reason(level))
    return Drafts(
        [
            ItemDraft(c["case_id"], c["case_id"], case_variables(c), {"citations": db.citation_keys(c["case_id"])})
            for c in named
        ]
    )


def _lookup_citation(record: dict, db: CaseDatabase) -> tuple[dict | None, str | None]:
    case, reason = record_case(db, record)
    if case is None:
        return None, reason
    return {"citations": db.citation_keys(case["case_id"])}, None


def score_citation(answer: str, reference: dict, context: ScoringContext) -> Score:
    """Score the citation task: the answer's first citation must equal one of the case's citations (same volume,
    reporter and page; reporter spelling free)."""
    missing = missing_reference(reference, "citations") or stance_score(answer)
    if missing:
        return missing
    citation = extract_citation(answer)
    if citation is None:
        return nothing_found(answer, "citation")
    truths = {citation_key(str(text)) or str(text) for text in reference["citations"]}
    if citation.key in truths:
        return Score("correct", f"citation {citation.key!r} is one of the case's citations")
    return Score("hallucination", f"answer {citation.key!r} is not among truth {sorted(truths)}")


def citation_truth(greedy: str, reference: dict) -> tuple[str, dict] | None:
    """Return the citation scorer with the greedy answer's citation as the truth; None when it cites nothing."""
    citation = extract_citation(greedy)
    return None if citation is None else ("citation", {"citations": [citation.key]})


TASK = TaskSpec(
    id="citation",
    question="What is the citation for {case}?",
    template="citation",
    complexity="low",
    max_tokens=48,
    needs=("name",),
    builder=_build_citation,
    lookup=_lookup_citation,
    score=score_citation,
    calibrated=True,
    extract=citation_truth,
)
