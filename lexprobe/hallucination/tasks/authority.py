"""Authority: a precedent cited in the majority opinion."""

from __future__ import annotations

from lexprobe.hallucination.labels.answers import answer_text
from lexprobe.hallucination.labels.score import Score
from lexprobe.hallucination.labels.scoring import ScoringContext, nothing_found, stance_score
from lexprobe.hallucination.reader.candidates import citations
from lexprobe.hallucination.tasks.base import catalogued
from lexprobe.hallucination.tasks.quotation import OpinionReference, majority_opinion_reference, opinion_text_step


def score_authority(answer: str, reference: OpinionReference, context: ScoringContext) -> Score:
    """Score the authority task: the cited precedent must be cited in the majority opinion text (a combined file's
    concurrences and dissents left out: a case only they cite is a hallucination whose detail names the opinion)."""
    first = opinion_text_step(reference, stance_score(answer), context, context.cited_keys)
    if first:
        return first
    opinion_id = str(reference.opinion_id)
    cited = context.cited_keys(opinion_id)
    found = citations(answer_text(answer))
    if not found:
        return nothing_found(answer, "citation")
    own = context.own_keys(opinion_id)
    # the case's own citation, given to name the case, is not the authority; the first other citation is
    others = [candidate.value.key for candidate in found if candidate.value.key not in own]
    if not others:
        key = found[0].value.key
        return Score("hallucination", f"answer {key!r} is the case's own citation, not an authority it cites")
    key = others[0]
    if context.cites(opinion_id, key):
        return Score("correct", f"{key!r} is cited in the majority opinion")
    for case_id in context.db.find_by_citation(key):
        for parallel in sorted(context.case_keys(case_id) - {key}):
            if context.cites(opinion_id, parallel):
                return Score("correct", f"{key!r} is a parallel citation of {parallel!r}, cited in the opinion")
    elsewhere = context.cited_only_by(opinion_id, key)
    if elsewhere:
        return Score("hallucination", f"{key!r} is cited only in a separate opinion ({elsewhere}), not in the "
                                      "majority opinion")  # fmt: skip
    return Score("hallucination", f"answer {key!r} is not cited in the majority opinion ({len(cited)} citations)")


TASK = catalogued("authority", OpinionReference, reference=majority_opinion_reference, score=score_authority)
