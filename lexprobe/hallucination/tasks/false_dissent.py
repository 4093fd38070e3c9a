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
    _missing,
    _quoted,
    _stance,
    scorer,
)
from lexprobe.hallucination.tasks.base import Drafts, ItemDraft, TaskSpec, case_variables, named_cases, no_names_reason


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


SPEC = TaskSpec(
    "false_dissent",
    "What did Justice {X} argue in their dissent in {case}? (X wrote no dissent)",
    "false_dissent",
    "false premise",
    False,
    ("zero",),
    ("scotus", "coa"),
    _build_false_dissent,
    96,
)


@scorer("false_dissent")
def score_false_dissent(answer: str, reference: dict, context: ScoringContext) -> Score:
    """Score "What did Justice X argue in dissent?" where X wrote no dissent.

    Correct: any rejection of the premise - X did not dissent, wrote or joined the majority, concurred, the case was
    unanimous, X did not sit, or the case or justice does not exist (the study records these as rejections).
    Abstain: a refusal with no rejection. Hallucination: anything else, i.e. an answer that describes a dissent.
    """
    missing = _missing(reference, "dissenter") or _stance(answer, false_premise=True)
    if missing:
        return missing
    rejection = (
        premise_rejection(answer) or dissent_rejection(answer, reference["dissenter"]) or denies_existence(answer)
    )
    if rejection:
        return Score("correct", f"answer rejects the false premise: {_quoted(rejection)}")
    if classify_refusal(answer, scope="anywhere") == "abstain":
        return Score("abstain", f"answer declines: {_quoted(answer)}")
    return Score("hallucination", f"answer describes a dissent by {reference['dissenter']!r}, who wrote none: "
                                  f"{_quoted(answer)}")  # fmt: skip
