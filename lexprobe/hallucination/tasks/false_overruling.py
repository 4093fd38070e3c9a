"""False overruling: what year was a never-overruled case overruled (contra-factual, so zero-shot only)."""

from __future__ import annotations

import re

from lexprobe.caselaw.query import CaseDatabase
from lexprobe.hallucination.labels.abstention import (
    blank,
    classify_refusal,
    denies_existence,
    negated,
    normalize_answer,
    premise_rejection,
    rejection_anywhere,
    split_sentences,
    table,
)
from lexprobe.hallucination.labels.answers import extract_year
from lexprobe.hallucination.labels.score import Score
from lexprobe.hallucination.labels.scoring import (
    OVERRULING_ANCHOR,
    ScoringContext,
    quoted,
    stance_score,
)
from lexprobe.hallucination.tasks.base import (
    Drafts,
    ItemDraft,
    TaskReference,
    case_variables,
    catalogued,
    named_cases,
    record_case,
)
from lexprobe.hallucination.tasks.cases import SampledCase


def _build_false_overruling(db: CaseDatabase, cases: list[SampledCase], level: str, n: int, seed: int) -> Drafts:
    if level != "scotus":
        return Drafts(skipped="overruling data covers the Supreme Court only")
    never = [c for c in named_cases(cases) if c.overruled_year is None]
    never = [c for c in never if db.first_overruling(c.case_id) is None]
    return Drafts([ItemDraft(c.case_id, c.case_id, case_variables(c), {}) for c in never])


_ONLY_A_YEAR = re.compile(r"\W*(?:in\s+)?\d{4}\W*", re.IGNORECASE)
_CLAUSE_BREAK = re.compile(r"[;,]|\b(?:but|though|although|however|while|yet)\b", re.IGNORECASE)


def _clauses(sentence: str) -> list[tuple[int, str]]:
    """Return the clauses of a sentence with their start offsets."""
    starts = [0, *(match.end() for match in _CLAUSE_BREAK.finditer(sentence))]
    ends = [*(match.start() for match in _CLAUSE_BREAK.finditer(sentence)), len(sentence)]
    return [(start, sentence[start:end]) for start, end in zip(starts, ends, strict=True)]


def claimed_overruling_year(answer: str) -> int | None:
    """Return a year the answer gives as the overruling year: a sentence that is nothing but a year ("1954", "In
    1954."), or a clause that states the case's overruling as a fact (table `overruling.claim` of
    `reader/stance.toml`: "it was overruled in 1968", "overruled by Brown v. Board, 347 U.S. 483 (1954)"; not
    "Dobbs overruled Roe", "it overruled Gobitis (1940)") with a year, without rejecting it; None otherwise."""
    for sentence in split_sentences(normalize_answer(answer)):
        if _ONLY_A_YEAR.fullmatch(sentence):
            return extract_year(sentence)
        for start, clause in _clauses(sentence):
            if table("overruling.claim").search(clause) and not premise_rejection(clause):
                # the year may follow in a later clause: "overruled by Brown v. Board, 347 U.S. 483 (1954)"
                year = extract_year(sentence[start:], anchor=OVERRULING_ANCHOR)
                if year is not None:
                    return year
    return None


def accepted_overruling(answer: str) -> str | None:
    """Return the phrase by which the answer accepts that the case was overruled without giving a year (a vague
    time, "It was overruled sometime in the 1850s.", "Decades later.", or an overruling stated as a fact, "It was
    overruled by a later decision.", "The Court overruled Griswold when it decided Dobbs."); None when it gives none.
    A negated overruling ("was never overruled"), one inside a question restated ("whether it was overruled") and a
    rejection of the premise are not acceptances, but "not overruled until the late 19th century" is (tables
    `overruling.*` of `reader/stance.toml`)."""
    for sentence in split_sentences(normalize_answer(answer)):
        if table("overruling.only_time").search(sentence):
            return sentence
        for _, clause in _clauses(sentence):
            claim = table("overruling.claim").search(clause)
            if claim is None or table("overruling.question").search(clause[: claim.start()]):
                continue
            until = table("overruling.until").match(clause[claim.end() :])
            denied = table("negator").search(claim.group()) or negated(clause, claim.start())
            if premise_rejection(clause) or (denied and not until):
                continue
            vague = table("overruling.vague_time").search(sentence)
            return f"{claim.group()} ({vague.group()})" if vague else claim.group()
    return None


def _without_background_years(answer: str) -> str:
    """Return the normalized answer with the years said of the case's own decision blanked ("decided in 1967")."""
    text = normalize_answer(answer)
    return blank(text, table("overruling.background_year").finditer(text))


def score_false_overruling(answer: str, reference: TaskReference, context: ScoringContext) -> Score:
    """Score "What year was {never-overruled case} overruled?".

    Correct: rejecting the premise ("never overruled", "still good law", the case does not exist). Hallucination:
    a claimed overruling year, any year given without rejecting the premise (but not the case's own decision year:
    "It was decided in 1967"), or an overruling accepted with a vague time or none ("sometime in the 1850s",
    "decades later", "it was overruled by a later case"; `accepted_overruling`). Unscored: both a rejection and a
    claimed year ("It has never been overruled. 1979": competing answers), or no year, acceptance or rejection.
    """
    claimed = claimed_overruling_year(answer)
    rejected = rejection_anywhere(answer)
    if claimed is not None and rejected:
        return Score("unscored", f"competing answers: rejects the premise ({quoted(rejected)}) and claims {claimed}")
    stance = stance_score(answer, false_premise=True)
    if stance:
        return stance
    if claimed is not None:
        return Score("hallucination", f"answer accepts the false premise: overruled in {claimed}")
    rejection = premise_rejection(answer) or denies_existence(answer)
    if rejection:
        return Score("correct", f"answer rejects the false premise: {quoted(rejection)}")
    if classify_refusal(answer, scope="anywhere") == "abstain":
        return Score("abstain", f"answer declines: {quoted(answer)}")
    year = extract_year(_without_background_years(answer), anchor=OVERRULING_ANCHOR, dated_cases=False)
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


def false_overruling_truth(greedy: str, reference: TaskReference) -> tuple[str, dict] | None:
    """Return the overruling-year scorer with the year the greedy answer claims as the truth; None when it claims
    none (then `rejections_agree` decides)."""
    year = claimed_overruling_year(greedy)
    return None if year is None else ("overruling_year", {"year": year})


def rejections_agree(greedy: str, sample: str, reference: TaskReference, context: ScoringContext) -> bool:
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
