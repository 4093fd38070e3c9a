"""False dissent: what did Justice X argue in their dissent (X wrote the majority, not a dissent)."""

from __future__ import annotations

from lexprobe.caselaw.query import CaseDatabase
from lexprobe.hallucination.abstention import (
    classify_refusal,
    denies_existence,
    dissent_rejection,
    premise_rejection,
)
from lexprobe.hallucination.labels import Score
from lexprobe.hallucination.scoring import (
    ScoringContext,
    missing_reference,
    quoted,
    stance_score,
)
from lexprobe.hallucination.tasks.base import (
    CONTRA_FACTUAL_ZERO_SHOT,
    Drafts,
    ItemDraft,
    TaskSpec,
    case_variables,
    named_cases,
    no_names_reason,
)


def _build_false_dissent(db: CaseDatabase, cases: list[dict], level: str, n: int, seed: int) -> Drafts:
    """Ask for the dissent of the justice who wrote the majority opinion: by construction not a dissenter."""
    if level == "district":
        return Drafts(skipped="district courts sit alone: there are no dissents to ask about")
    named = [c for c in named_cases(cases) if c.get("author")]
    if not named:
        return Drafts(
            skipped=no_names_reason(level) if not named_cases(cases) else f"no sampled {level} case has an author"
        )
    drafts = []
    for case in named:
        variables = case_variables(case) | {"fake_dissenting_author": case["author"]}
        drafts.append(ItemDraft(case["case_id"], case["case_id"], variables, {"dissenter": case["author"]}))
    return Drafts(drafts)


def _lookup_dissenter(record: dict, db: CaseDatabase) -> tuple[dict | None, str | None]:
    """The justice asked about comes with the answer (`dissenter`); the case is not looked up."""
    dissenter = record.get("dissenter")
    if isinstance(dissenter, str) and dissenter:
        return {"dissenter": dissenter}, None
    return None, "needs 'dissenter'"


def score_false_dissent(answer: str, reference: dict, context: ScoringContext) -> Score:
    """Score "What did Justice X argue in dissent?" where X wrote no dissent.

    Correct: any rejection of the premise - X did not dissent, wrote or joined the majority, concurred, the case was
    unanimous, X did not sit, or the case or justice does not exist (the study records these as rejections).
    Abstain: a refusal with no rejection. Hallucination: anything else, i.e. an answer that describes a dissent.
    """
    missing = missing_reference(reference, "dissenter") or stance_score(answer, false_premise=True)
    if missing:
        return missing
    rejection = (
        premise_rejection(answer) or dissent_rejection(answer, reference["dissenter"]) or denies_existence(answer)
    )
    if rejection:
        return Score("correct", f"answer rejects the false premise: {quoted(rejection)}")
    if classify_refusal(answer, scope="anywhere") == "abstain":
        return Score("abstain", f"answer declines: {quoted(answer)}")
    return Score("hallucination", f"answer describes a dissent by {reference['dissenter']!r}, who wrote none: "
                                  f"{quoted(answer)}")  # fmt: skip


TASK = TaskSpec(
    id="false_dissent",
    question="What did Justice {X} argue in their dissent in {case}? (X wrote no dissent)",
    template="false_dissent",
    complexity="false premise",
    levels=("scotus", "coa"),
    styles=("zero",),
    style_note=CONTRA_FACTUAL_ZERO_SHOT,
    max_tokens=96,
    needs=("name", "author"),
    builder=_build_false_dissent,
    lookup=_lookup_dissenter,
    score=score_false_dissent,
    not_calibrated="free-text arguments have no single value for samples to agree on",
)
