"""False dissent: what did Justice X argue in their dissent (X wrote the majority, not a dissent)."""

from __future__ import annotations

import re
from typing import Any

from lexprobe.caselaw.query import CaseDatabase
from lexprobe.hallucination.labels.abstention import (
    classify_refusal,
    denies_existence,
    dissent_affirmation,
    dissent_rejection,
    normalize_answer,
    premise_rejection,
    table,
)
from lexprobe.hallucination.labels.language import detect_language
from lexprobe.hallucination.labels.score import Score
from lexprobe.hallucination.labels.scoring import ScoringContext, missing_reference, quoted, stance_score
from lexprobe.hallucination.tasks.base import Drafts, TaskReference, case_builder, case_variables, catalogued
from lexprobe.hallucination.tasks.cases import SampledCase


class DissentReference(TaskReference):
    """The justice asked about: the majority author, who by construction wrote no dissent."""

    dissenter: str | None = None


def _dissenter(db: CaseDatabase, case: SampledCase) -> dict | None:
    """The justice asked about: the majority author, by construction not a dissenter."""
    return {"dissenter": case.author} if case.author else None


def _variables(case: SampledCase) -> dict[str, Any]:
    return case_variables(case) | {"fake_dissenting_author": case.author}


_BUILD_FOR_AUTHORS = case_builder(_dissenter, "an author", _variables)


def _build_false_dissent(db: CaseDatabase, cases: list[SampledCase], level: str, n: int, seed: int) -> Drafts:
    """Ask for the dissent of the justice who wrote the majority opinion (`_dissenter`), not of a district court."""
    if level == "district":
        return Drafts(skipped="district courts sit alone: there are no dissents to ask about")
    return _BUILD_FOR_AUTHORS(db, cases, level, n, seed)


def _lookup_dissenter(record: dict, db: CaseDatabase) -> tuple[dict | None, str | None]:
    """The justice asked about comes with the answer (`dissenter`); the case is not looked up."""
    dissenter = record.get("dissenter")
    if isinstance(dissenter, str) and dissenter:
        return {"dissenter": dissenter}, None
    return None, "needs 'dissenter'"


#: Letters of the scripts the phrase tables read; an answer in another script keeps the default below.
_LATIN = re.compile(r"[A-Za-z]{2}")


def score_false_dissent(answer: str, reference: DissentReference, context: ScoringContext) -> Score:
    """Score "What did Justice X argue in dissent?" where X wrote no dissent.

    Correct: any rejection of the premise - X did not dissent, wrote or joined the majority, concurred, the case was
    unanimous, X did not sit, or the case or justice does not exist (the study records these as rejections).
    Hallucination: an answer that says X dissented ("In his dissent, X argued", `dissent_affirmation`) or describes
    a dissent or an argument (table `dissent.description` of `reader/stance.toml`: "argued", "contended", "along
    the lines of"). Abstain: a refusal with neither. Unscored: both a rejection and X's dissent (competing answers),
    or neither a rejection nor a dissent nor a refusal (background facts, reasoning only); an answer in another
    language read through its phrase table (`language.py`) with neither is unscored "not English (...)", and one in
    a script no table reads (no Latin letters) keeps the study's default, a described dissent.
    """
    missing = missing_reference(reference, "dissenter")
    if missing:
        return missing
    dissenter = str(reference.dissenter)
    affirmed = dissent_affirmation(answer, dissenter)
    rejection = premise_rejection(answer) or dissent_rejection(answer, dissenter) or denies_existence(answer)
    if rejection and affirmed:
        return Score("unscored", f"competing answers: rejects the premise ({quoted(rejection)}) and says "
                                 f"{dissenter!r} dissented ({quoted(affirmed)})")  # fmt: skip
    stance = stance_score(answer, false_premise=True)
    if stance:
        return stance
    if rejection:
        return Score("correct", f"answer rejects the false premise: {quoted(rejection)}")
    if affirmed:
        return Score("hallucination", f"answer says {dissenter!r}, who wrote no dissent, dissented: "
                                      f"{quoted(affirmed)}")  # fmt: skip
    if classify_refusal(answer, scope="anywhere") == "abstain":
        return Score("abstain", f"answer declines: {quoted(answer)}")
    text = normalize_answer(answer)
    if _LATIN.search(text) and not table("dissent.description").search(text):
        language = detect_language(answer)
        why = f"not English ({language}): neither" if language else "neither"
        return Score("unscored", f"{why} a rejection nor a dissent read in {quoted(answer)}")
    return Score("hallucination", f"answer describes a dissent by {dissenter!r}, who wrote none: "
                                  f"{quoted(answer)}")  # fmt: skip


TASK = catalogued(
    "false_dissent", DissentReference, builder=_build_false_dissent, lookup=_lookup_dissenter, score=score_false_dissent
)
