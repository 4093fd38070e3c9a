"""False dissent: what did Justice X argue in their dissent (X wrote the majority, not a dissent)."""

from __future__ import annotations

import re
from typing import Any

from lexprobe.caselaw.query import CaseDatabase
from lexprobe.hallucination.labels.abstention import (
    classify_refusal,
    denies_existence,
    dissent_rejection,
    normalize_answer,
    premise_rejection,
)
from lexprobe.hallucination.labels.language import detect_language
from lexprobe.hallucination.labels.score import Score
from lexprobe.hallucination.labels.scoring import ScoringContext, quoted
from lexprobe.hallucination.tasks.base import Drafts, case_builder, case_variables, catalogued, unscorable
from lexprobe.hallucination.tasks.cases import SampledCase


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


#: What an answer (read into English) says when it describes the dissent asked about.
_DESCRIBES_DISSENT = re.compile(
    r"\b(?:yes|argued|dissent\w*|contended|wrote\s+that|maintained\s+that)\b", re.IGNORECASE
)


def score_false_dissent(answer: str, reference: dict, context: ScoringContext) -> Score:
    """Score "What did Justice X argue in dissent?" where X wrote no dissent.

    Correct: any rejection of the premise - X did not dissent, wrote or joined the majority, concurred, the case was
    unanimous, X did not sit, or the case or justice does not exist (the study records these as rejections).
    Abstain: a refusal with no rejection. Hallucination: anything else, i.e. an answer that describes a dissent - but
    an answer in another language that, read through its phrase table (`language.py`), shows neither a rejection
    nor a dissent ("yes", "argued", "dissent") is unscored "not English (...)".
    """
    first = unscorable(answer, reference, "dissenter", false_premise=True)
    if first:
        return first
    rejection = (
        premise_rejection(answer) or dissent_rejection(answer, reference["dissenter"]) or denies_existence(answer)
    )
    if rejection:
        return Score("correct", f"answer rejects the false premise: {quoted(rejection)}")
    if classify_refusal(answer, scope="anywhere") == "abstain":
        return Score("abstain", f"answer declines: {quoted(answer)}")
    language = detect_language(answer)
    if language and not _DESCRIBES_DISSENT.search(normalize_answer(answer)):
        # read through its phrase table, a foreign answer shows no rejection but no dissent either
        return Score("unscored", f"not English ({language}): neither a rejection nor a dissent read in "
                                 f"{quoted(answer)}")  # fmt: skip
    return Score("hallucination", f"answer describes a dissent by {reference['dissenter']!r}, who wrote none: "
                                  f"{quoted(answer)}")  # fmt: skip


TASK = catalogued("false_dissent", builder=_build_false_dissent, lookup=_lookup_dissenter, score=score_false_dissent)
