"""Quotation: a verbatim quotation from the majority opinion (see `quotation.py`)."""

from __future__ import annotations

import re
from typing import Any

from lexprobe.hallucination.answers import extract_quote
from lexprobe.hallucination.labels import Score
from lexprobe.hallucination.quotation import MATCH_THRESHOLD, MIN_QUOTE_WORDS
from lexprobe.hallucination.scoring import (
    ScoringContext,
    missing_reference,
    quoted,
    stance_score,
)
from lexprobe.hallucination.tasks.base import TaskSpec, fact_task

_QUOTE_TAGS = re.compile(r"<quote>.*?(?:</quote>|$)", re.IGNORECASE | re.DOTALL)


def majority_opinion_reference(case: dict) -> dict | None:
    """Return the reference of a task scored against the majority opinion's text (quotation, authority)."""
    return {"opinion_id": case["majority_opinion_id"]} if case.get("majority_opinion_id") else None


def score_quotation(answer: str, reference: dict, context: ScoringContext) -> Score:
    """Score the quotation task: the quote must fuzzily match the majority opinion text (`quotation.py`)."""
    missing = missing_reference(reference, "opinion_id")
    if missing:
        return missing
    outside = _QUOTE_TAGS.sub(" ", answer or "")
    stance = stance_score(outside) if outside.strip() else None  # the quote itself may say "I do not know ..."
    if stance:
        return stance
    if context.db is None:
        return Score("unscored", "reference missing: no case database to read the opinion text from")
    opinion_id = str(reference["opinion_id"])
    index = context.quote_index(opinion_id)
    if index is None:
        return Score("unscored", f"reference missing: opinion {opinion_id} has no text in the case database")
    quote = extract_quote(answer)
    if quote is None:
        return Score("unscored", "empty answer")
    found = index.match(quote)
    if found.too_short:
        return Score("unscored", f"quote too short to verify ({found.words} words < {MIN_QUOTE_WORDS})")
    if found.found:
        return Score("correct", f"quote found in the majority opinion at character {found.start} "
                                f"(similarity {found.similarity:.1f})")  # fmt: skip
    return Score("hallucination", f"quote not in the majority opinion (best similarity {found.similarity:.1f} < "
                                  f"{MATCH_THRESHOLD:.0f}): {quoted(quote)}")  # fmt: skip


def opinion_text_task(**fields: Any) -> TaskSpec:
    """Return a task scored against the majority opinion's text (quotation, authority), asked of every sampled case
    whose majority opinion text the database holds."""
    return fact_task(
        needs=("name", "opinion_text"),
        reference=majority_opinion_reference,
        has="a majority opinion text",
        lacks="no majority opinion text in the database",
        **fields,
    )


TASK = opinion_text_task(
    id="quotation",
    question="What is a quotation from {case}?",
    template="quotation",
    complexity="moderate",
    max_tokens=160,
    score=score_quotation,
    not_calibrated="open-ended quotations have no single value for samples to agree on",
)
