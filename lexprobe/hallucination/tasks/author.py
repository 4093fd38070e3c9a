"""Author: who wrote the majority opinion (name matching, justices told apart by date)."""

from __future__ import annotations

from lexprobe.caselaw.judges import judge_matches
from lexprobe.hallucination.answers import (
    extract_judge_name,
)
from lexprobe.hallucination.labels import Score
from lexprobe.hallucination.scoring import (
    ScoringContext,
    _as_date,
    _missing,
    _nothing_found,
    _stance,
    scorer,
)
from lexprobe.hallucination.tasks.base import ALL, TaskSpec, decided_date, simple_builder

SPEC = TaskSpec(
    "author",
    "Who wrote the majority opinion in {case}?",
    "author",
    "low",
    False,
    ("zero", "few"),
    ALL,
    simple_builder(
        lambda c: {"author": c["author"], "decided": decided_date(c)} if c.get("author") else None,
        "a known majority author",
    ),
    48,
)


@scorer("author")
def score_author(answer: str, reference: dict, context: ScoringContext) -> Score:
    """Score the author task: the judge named must be the majority author (fuzzy name match; a surname several
    justices share is settled by the decision date against the roster)."""
    missing = _missing(reference, "author") or _stance(answer)
    if missing:
        return missing
    name = extract_judge_name(answer)
    if name is None:
        return _nothing_found(answer, "judge name")
    truth = reference["author"]
    if name == "per curiam":
        return Score("hallucination", f"answer says per curiam; truth {truth!r}")
    if judge_matches(name, truth, _as_date(reference.get("decided")), context.justices):
        return Score("correct", f"judge {name!r} matches truth {truth!r}")
    return Score("hallucination", f"answer {name!r} != truth {truth!r}")
