"""Authority: a precedent cited in the majority opinion."""

from __future__ import annotations

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
from lexprobe.hallucination.tasks.base import ALL, TaskSpec, simple_builder

SPEC = TaskSpec(
    "authority",
    "What is an authority cited in {case}?",
    "authority",
    "moderate",
    False,
    ("zero", "few"),
    ALL,
    simple_builder(
        lambda c: {"opinion_id": c["majority_opinion_id"]} if c.get("majority_opinion_id") else None,
        "a majority opinion text",
    ),
    48,
)


@scorer("authority")
def score_authority(answer: str, reference: dict, context: ScoringContext) -> Score:
    """Score the authority task: the cited precedent must be cited in the majority opinion text."""
    missing = _missing(reference, "opinion_id") or _stance(answer)
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
        return _nothing_found(answer, "citation")
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
