"""Authority: a precedent cited in the majority opinion."""

from __future__ import annotations

from lexprobe.hallucination.answers import extract_citation
from lexprobe.hallucination.labels import Score
from lexprobe.hallucination.scoring import (
    ScoringContext,
    missing_reference,
    nothing_found,
    stance_score,
)
from lexprobe.hallucination.tasks.quotation import opinion_text_task


def score_authority(answer: str, reference: dict, context: ScoringContext) -> Score:
    """Score the authority task: the cited precedent must be cited in the majority opinion text."""
    missing = missing_reference(reference, "opinion_id") or stance_score(answer)
    if missing:
        return missing
    if context.db is None:
        return Score("unscored", "reference missing: no case database to read the opinion text from")
    opinion_id = str(reference["opinion_id"])
    cited = context.cited_keys(opinion_id)
    if cited is None:
        return Score("unscored", f"reference missing: opinion {opinion_id} has no text in the case database")
    citation = extract_citation(answer)
    if citation is None:
        return nothing_found(answer, "citation")
    key = citation.key
    if key in context.own_keys(opinion_id):
        return Score("hallucination", f"answer {key!r} is the case's own citation, not an authority it cites")
    if context.cites(opinion_id, key):
        return Score("correct", f"{key!r} is cited in the majority opinion")
    for case_id in context.db.find_by_citation(key):
        for parallel in sorted(context.case_keys(case_id) - {key}):
            if context.cites(opinion_id, parallel):
                return Score("correct", f"{key!r} is a parallel citation of {parallel!r}, cited in the opinion")
    return Score("hallucination", f"answer {key!r} is not cited in the majority opinion ({len(cited)} citations)")


TASK = opinion_text_task(
    id="authority",
    question="What is an authority cited in {case}?",
    template="authority",
    complexity="moderate",
    max_tokens=48,
    score=score_authority,
    not_calibrated="any of many cited precedents is correct, so samples need not agree with the greedy answer",
)
