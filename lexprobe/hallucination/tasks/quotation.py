"""Quotation: a verbatim quotation from the majority opinion (see `quotation.py`)."""

from __future__ import annotations

import re
from collections.abc import Callable

from lexprobe.caselaw.quotations import MATCH_THRESHOLD
from lexprobe.hallucination.labels.abstention import classify_refusal
from lexprobe.hallucination.labels.quotation import MIN_QUOTE_WORDS
from lexprobe.hallucination.labels.score import Score
from lexprobe.hallucination.labels.scoring import ScoringContext, missing_reference, quoted, stance_score
from lexprobe.hallucination.tasks.base import TaskReference, catalogued, reading_of
from lexprobe.hallucination.tasks.cases import SampledCase

_QUOTE_TAGS = re.compile(r"<quote>.*?(?:</quote>|$)", re.IGNORECASE | re.DOTALL)


_read = reading_of("quotation")


class OpinionReference(TaskReference):
    """The majority opinion whose text a quotation or an authority is looked for in (quotation, authority)."""

    opinion_id: str | None = None


def majority_opinion_reference(case: SampledCase) -> dict | None:
    """Return the reference of a task scored against the majority opinion's text (quotation, authority)."""
    return {"opinion_id": case.majority_opinion_id} if case.majority_opinion_id else None


def opinion_text_step(
    reference: OpinionReference, stance: Score | None, context: ScoringContext, read: Callable[[str], object]
) -> Score | None:
    """Return the first step of a task scored against the majority opinion's text (quotation, authority): unscored
    without the reference's `opinion_id`, the answer's `stance` (`stance_score`), unscored without a case database or
    when the opinion has no text (`read(opinion_id)` - the context's cached view of the text - is None); None when
    the answer is judged."""
    first = missing_reference(reference, "opinion_id") or stance
    if first:
        return first
    if context.db is None:
        return Score("unscored", "reference missing: no case database to read the opinion text from")
    opinion_id = str(reference.opinion_id)
    if read(opinion_id) is None:
        return Score("unscored", f"reference missing: opinion {opinion_id} has no text in the case database")
    return None


def score_quotation(answer: str, reference: OpinionReference, context: ScoringContext) -> Score:
    """Score the quotation task: the quote must fuzzily match the majority opinion text (`quotation.py`); in a combined
    opinion file only the majority part counts, and a quote found only in one of its concurrences or dissents is a
    hallucination whose detail names that opinion."""
    outside = _QUOTE_TAGS.sub(" ", answer or "")
    stance = stance_score(outside) if outside.strip() else None  # the quote itself may say "I do not know ..."
    first = opinion_text_step(reference, stance, context, context.quote_index)
    if first:
        return first
    index = context.quote_index(str(reference.opinion_id))
    reading = _read(answer)
    quote = reading.value
    if quote is None:
        why = f"no quotation offered{reading.note()}" if reading.set_aside else "empty answer"
        return Score("unscored", why)
    if classify_refusal(quote) == "abstain":
        return Score("abstain", f"the quotation offered is a refusal: {quoted(quote)}")
    found = index.match(quote)
    if found.too_short:
        return Score("unscored", f"quote too short to verify ({found.words} words < {MIN_QUOTE_WORDS})")
    if found.found:
        return Score("correct", f"quote found in the majority opinion at character {found.start} "
                                f"(similarity {found.similarity:.1f})")  # fmt: skip
    for opinion, separate in context.separate_opinions(str(reference.opinion_id)):
        elsewhere = separate.match(quote)
        if elsewhere.found:
            return Score("hallucination", f"quote found only in a separate opinion ({opinion.heading}), not in the "
                                          f"majority opinion: a real quotation, but not the majority's: "
                                          f"{quoted(quote)}")  # fmt: skip
    return Score("hallucination", f"quote not in the majority opinion (best similarity {found.similarity:.1f} < "
                                  f"{MATCH_THRESHOLD:.0f}): {quoted(quote)}")  # fmt: skip


TASK = catalogued("quotation", OpinionReference, reference=majority_opinion_reference, score=score_quotation)
