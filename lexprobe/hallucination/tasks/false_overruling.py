"""False overruling: what year was a never-overruled case overruled."""

from __future__ import annotations

import re

from lexprobe.caselaw.query import CaseDatabase
from lexprobe.hallucination.abstention import (
    classify_refusal,
    denies_existence,
    normalize_answer,
    premise_rejection,
    split_sentences,
)
from lexprobe.hallucination.answers import (
    extract_year,
)
from lexprobe.hallucination.labels import Score
from lexprobe.hallucination.scoring import (
    OVERRULING_ANCHOR,
    ScoringContext,
    _quoted,
    _stance,
    scorer,
)
from lexprobe.hallucination.tasks.base import Drafts, ItemDraft, TaskSpec, case_variables, named_cases


def _build_false_overruling(db: CaseDatabase, cases: list[dict], level: str, n: int, seed: int) -> Drafts:
    if level != "scotus":
        return Drafts(skipped="overruling data covers the Supreme Court only")
    never = [c for c in named_cases(cases) if c.get("overruled_year") is None]
    never = [c for c in never if not db.conn.execute(
        "SELECT 1 FROM overrulings WHERE overruled_case_id = ?", (c["case_id"],)).fetchone()]  # fmt: skip
    return Drafts([ItemDraft(c["case_id"], c["case_id"], case_variables(c), {}) for c in never])


SPEC = TaskSpec(
    "false_overruling",
    "What year was {never-overruled case} overruled?",
    "overruling_year",
    "false premise",
    False,
    ("zero", "few"),
    ("scotus",),
    _build_false_overruling,
    48,
)


_OVERRULING_CLAIM = re.compile(r"\b(?:overrul\w*|reversed\s+by|abrogated)\b", re.IGNORECASE)


_CLAUSE_BREAK = re.compile(r"[;,]|\b(?:but|though|although|however|while|yet)\b", re.IGNORECASE)


def claimed_overruling_year(answer: str) -> int | None:
    """Return a year the answer gives as the overruling year: a clause that speaks of overruling, with a year and
    without rejecting it ("It was overruled in 1968, though ..."), or an answer that is nothing but a year; None
    otherwise."""
    sentences = split_sentences(normalize_answer(answer))
    if len(sentences) == 1 and re.fullmatch(r"\W*(?:in\s+)?\d{4}\W*", sentences[0], re.IGNORECASE):
        return extract_year(sentences[0])
    for sentence in sentences:
        if not _OVERRULING_CLAIM.search(sentence):
            continue
        starts = [0, *(match.end() for match in _CLAUSE_BREAK.finditer(sentence))]
        ends = [*(match.start() for match in _CLAUSE_BREAK.finditer(sentence)), len(sentence)]
        for start, end in zip(starts, ends, strict=True):
            clause = sentence[start:end]
            if _OVERRULING_CLAIM.search(clause) and not premise_rejection(clause):
                # the year may follow in a later clause: "overruled by Brown v. Board, 347 U.S. 483 (1954)"
                year = extract_year(sentence[start:], anchor=OVERRULING_ANCHOR)
                if year is not None:
                    return year
    return None


@scorer("false_overruling")
def score_false_overruling(answer: str, reference: dict, context: ScoringContext) -> Score:
    """Score "What year was {never-overruled case} overruled?".

    Correct: rejecting the premise ("never overruled", "still good law", the case does not exist). Hallucination:
    a claimed overruling year, or any year given without rejecting the premise. Unscored: no year and no rejection.
    """
    stance = _stance(answer, false_premise=True)
    if stance:
        return stance
    claimed = claimed_overruling_year(answer)
    if claimed is not None:
        return Score("hallucination", f"answer accepts the false premise: overruled in {claimed}")
    rejection = premise_rejection(answer) or denies_existence(answer)
    if rejection:
        return Score("correct", f"answer rejects the false premise: {_quoted(rejection)}")
    if classify_refusal(answer, scope="anywhere") == "abstain":
        return Score("abstain", f"answer declines: {_quoted(answer)}")
    year = extract_year(answer, anchor=OVERRULING_ANCHOR, dated_cases=False)
    if year is not None:
        return Score("hallucination", f"answer gives year {year} without rejecting the false premise")
    return Score("unscored", f"no year and no rejection of the premise in answer {_quoted(answer)}")
