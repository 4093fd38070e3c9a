"""False overruling: what year was a never-overruled case overruled (contra-factual, so zero-shot only)."""

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
from lexprobe.hallucination.answers import extract_year
from lexprobe.hallucination.labels import Score
from lexprobe.hallucination.scoring import (
    OVERRULING_ANCHOR,
    ScoringContext,
    quoted,
    stance_score,
)
from lexprobe.hallucination.tasks.base import Drafts, ItemDraft, case_variables, catalogued, named_cases, record_case


def _build_false_overruling(db: CaseDatabase, cases: list[dict], level: str, n: int, seed: int) -> Drafts:
    if level != "scotus":
        return Drafts(skipped="overruling data covers the Supreme Court only")
    never = [c for c in named_cases(cases) if c.get("overruled_year") is None]
    never = [c for c in never if db.first_overruling(c["case_id"]) is None]
    return Drafts([ItemDraft(c["case_id"], c["case_id"], case_variables(c), {}) for c in never])


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


def score_false_overruling(answer: str, reference: dict, context: ScoringContext) -> Score:
    """Score "What year was {never-overruled case} overruled?".

    Correct: rejecting the premise ("never overruled", "still good law", the case does not exist). Hallucination:
    a claimed overruling year, or any year given without rejecting the premise. Unscored: no year and no rejection.
    """
    stance = stance_score(answer, false_premise=True)
    if stance:
        return stance
    claimed = claimed_overruling_year(answer)
    if claimed is not None:
        return Score("hallucination", f"answer accepts the false premise: overruled in {claimed}")
    rejection = premise_rejection(answer) or denies_existence(answer)
    if rejection:
        return Score("correct", f"answer rejects the false premise: {quoted(rejection)}")
    if classify_refusal(answer, scope="anywhere") == "abstain":
        return Score("abstain", f"answer declines: {quoted(answer)}")
    year = extract_year(answer, anchor=OVERRULING_ANCHOR, dated_cases=False)
    if year is not None:
        return Score("hallucination", f"answer gives year {year} without rejecting the false premise")
    return Score("unscored", f"no year and no rejection of the premise in answer {quoted(answer)}")


def _lookup_never_overruled(record: dict, db: CaseDatabase) -> tuple[dict | None, str | None]:
    """The reference of an answer scored outside a run (`score-answers`): `{}` when the record's case is in the
    database and no source records an overruling of it (the run asks only about such cases), else None with the
    reason: a case the database does not hold cannot be checked, and an overruled case makes the premise true."""
    case, reason = record_case(db, record, "; cannot check it was never overruled")
    if case is None:
        return None, reason
    link = db.first_overruling(case["case_id"])
    if link is None:
        return {}, None
    by = link.overruling_citation or (f"No. {link.overruling_docket}" if link.overruling_docket else "")
    part = " in part" if link.in_part else ""
    return None, (
        f"the case was overruled{part} in {link.overruling_year} by {link.overruling_name} {by}".rstrip()
        + f" ({link.source}), so the question's premise is true"
    )


def false_overruling_truth(greedy: str, reference: dict) -> tuple[str, dict] | None:
    """Return the overruling-year scorer with the year the greedy answer claims as the truth; None when it claims
    none (then `rejections_agree` decides)."""
    year = claimed_overruling_year(greedy)
    return None if year is None else ("overruling_year", {"year": year})


def rejections_agree(greedy: str, sample: str, reference: dict, context: ScoringContext) -> bool:
    """Agreement when the greedy answer claims no year: both answers reject the premise, as this task's scorer
    finds (`correct`)."""
    rejects = score_false_overruling(greedy, reference, context).label == "correct"
    return rejects and score_false_overruling(sample, reference, context).label == "correct"


TASK = catalogued(
    "false_overruling",
    builder=_build_false_overruling,
    lookup=_lookup_never_overruled,
    score=score_false_overruling,
    extract=false_overruling_truth,
    stance_agreement=rejections_agree,
)
