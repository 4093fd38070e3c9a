"""Author: who wrote the majority opinion (name matching, justices told apart by date)."""

from __future__ import annotations

from lexprobe.caselaw.judges import judge_matches
from lexprobe.hallucination.labels.score import Score
from lexprobe.hallucination.labels.scoring import ScoringContext, as_date
from lexprobe.hallucination.tasks.base import TaskReference, catalogued, decided_date, reading_of, score_extracted
from lexprobe.hallucination.tasks.cases import SampledCase

_read = reading_of("author")


class AuthorReference(TaskReference):
    """The majority author, and the decision date that tells justices sharing a surname apart."""

    author: str | None = None
    decided: str | None = None  # ISO date


def _author_reference(case: SampledCase) -> dict | None:
    return {"author": case.author, "decided": decided_date(case)} if case.author else None


def score_author(answer: str, reference: AuthorReference, context: ScoringContext) -> Score:
    """Score the author task: the judge named must be the majority author (fuzzy name match; a surname several
    justices share is settled by the decision date against the roster)."""

    def judge(name: str) -> Score:
        truth = reference.author
        if name == "per curiam":
            return Score("hallucination", f"answer says per curiam; truth {truth!r}")
        if judge_matches(name, truth, as_date(reference.decided), context.justices):
            return Score("correct", f"judge {name!r} matches truth {truth!r}")
        return Score("hallucination", f"answer {name!r} != truth {truth!r}")

    return score_extracted(answer, reference, "author", _read, "judge name", judge=judge)


def author_truth(greedy: str, reference: AuthorReference) -> tuple[str, dict] | None:
    """Return the author scorer with the greedy answer's judge as the truth (the item's decision date kept); None
    when it names no judge or says per curiam."""
    name = _read(greedy).value
    if name is None or name == "per curiam":
        return None
    return "author", {"author": name, "decided": reference.decided}


TASK = catalogued("author", AuthorReference, reference=_author_reference, score=score_author, extract=author_truth)
