"""False overruling: what year was a never-overruled case overruled (contra-factual, so zero-shot only)."""

from __future__ import annotations

import re

from lexprobe.caselaw.query import CaseDatabase
from lexprobe.hallucination.labels.abstention import (
    classify_refusal,
    denies_existence,
    normalize_answer,
    premise_rejection,
    split_sentences,
)
from lexprobe.hallucination.labels.answers import extract_year
from lexprobe.hallucination.labels.score import Score
from lexprobe.hallucination.labels.scoring import (
    OVERRULING_ANCHOR,
    ScoringContext,
    quoted,
    stance_score,
)
from lexprobe.hallucination.tasks.base import Drafts, ItemDraft, case_variables, catalogued, named_cases, record_case
from lexprobe.hallucination.tasks.cases import SampledCase


def _build_false_overruling(db: CaseDatabase, cases: list[SampledCase], level: str, n: int, seed: int) -> Drafts:
    if level != "scotus":
        return Drafts(skipped="overruling data covers the Supreme Court only")
    never = [c for c in named_cases(cases) if c.overruled_year is None]
    never = [c for c in never if db.first_overruling(c.case_id) is None]
    return Drafts([ItemDraft(c.case_id, c.case_id, case_variables(c), {}) for c in never])


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


#: A vague time given for the overruling: "sometime in the 1850s", "in the late 19th century", "decades later".
VAGUE_TIME = re.compile(
    r"\b(?:(?:(?:sometime|some\s+time|around|circa)\s+)?(?:(?:during|by|in)\s+)?(?:the\s+)?(?:(?:early|mid|middle|late)[\s-]+)?"
    r"(?:\d{2,3}0'?s|'\d0s|\d{1,2}(?:st|nd|rd|th)[\s-]+century|(?:eighteen|nineteen|twenty)[\s-]\w+)\b"
    r"|\b(?:decades|years|a\s+few\s+years|several\s+years|many\s+years|a\s+decade|a\s+century)\s+later\b"
    r"|\blater\s+(?:that|in\s+the)\s+(?:decade|century)\b|\beventually\b|\bsubsequently\b)",
    re.IGNORECASE,
)
# an overruling stated as a fact: "it was overruled", "the Court overturned it", "has since been abrogated"
_OVERRULED = re.compile(
    r"\b(?:was|were|got|has|have|had|is|been|being)\s+(?:\w+\s+){0,2}?(?:overruled|overturned|abrogated|"
    r"reversed)\b|\b(?:court|decision|case|ruling)\s+(?:\w+\s+){0,2}?(?:overruled|overturned|abrogated)\s+"
    r"(?:it|this|that|the|its)\b",
    re.IGNORECASE,
)
_NEGATED_BEFORE = re.compile(r"(?:\bnot|\bnever|n't)\s+(?:\w+\s+){0,2}$", re.IGNORECASE)
_QUESTION_WORD = re.compile(r"\b(?:whether|if|when|what\s+year|which\s+year)\b", re.IGNORECASE)
_ONLY_A_TIME = re.compile(r"^\W*(?:it\s+was\s+(?:overruled\s+)?)?(?P<time>[\w\s'-]{0,40}?)\W*$", re.IGNORECASE)


def accepted_overruling(answer: str) -> str | None:
    """Return the phrase by which the answer accepts that the case was overruled without giving a year (a vague
    time, "It was overruled sometime in the 1850s.", "Decades later.", or an overruling stated as a fact, "It was
    overruled by a later decision."); None when it gives none. A negated overruling ("was never overruled"), one
    inside a question restated ("whether it was overruled") and a rejection of the premise are not acceptances, but
    "not overruled until the late 19th century" is."""
    for sentence in split_sentences(normalize_answer(answer)):
        only = _ONLY_A_TIME.match(sentence)
        if only and VAGUE_TIME.fullmatch(only.group("time").strip()):
            return sentence
        for clause in _CLAUSE_BREAK.split(sentence):
            claim = _OVERRULED.search(clause)
            if claim is None or _QUESTION_WORD.search(clause[: claim.start()]):
                continue
            until = re.match(r"\s+(?:until|till)\b", clause[claim.end() :], re.IGNORECASE)
            if premise_rejection(clause) or (_NEGATED_BEFORE.search(clause[: claim.end()]) and not until):
                continue
            vague = VAGUE_TIME.search(sentence)
            return f"{claim.group()} ({vague.group()})" if vague else claim.group()
    return None


def score_false_overruling(answer: str, reference: dict, context: ScoringContext) -> Score:
    """Score "What year was {never-overruled case} overruled?".

    Correct: rejecting the premise ("never overruled", "still good law", the case does not exist). Hallucination:
    a claimed overruling year, any year given without rejecting the premise, or an overruling accepted with a vague
    time or none ("sometime in the 1850s", "decades later", "it was overruled by a later case";
    `accepted_overruling`). Unscored: no year, no acceptance and no rejection.
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
    accepted = accepted_overruling(answer)
    if accepted:
        return Score("hallucination", f"answer accepts the false premise without a year: {quoted(accepted)}")
    return Score("unscored", f"no year and no rejection of the premise in answer {quoted(answer)}")


def _lookup_never_overruled(record: dict, db: CaseDatabase) -> tuple[dict | None, str | None]:
    """The reference of an answer scored outside a run (`score-answers`): `{}` when the record's case is in the
    database and no source records an overruling of it (the run asks only about such cases), else None with the
    reason: a case the database does not hold cannot be checked, and an overruled case makes the premise true."""
    case, reason = record_case(db, record, "; cannot check it was never overruled")
    if case is None:
        return None, reason
    link = db.first_overruling(case.case_id)
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
