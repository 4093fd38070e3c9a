"""Fabricated-case existence: is a case lexprobe made up real? The correct answer is no (the study's Appendix E.1;
contra-factual, so zero-shot only)."""

from __future__ import annotations

from lexprobe.caselaw.query import CaseDatabase
from lexprobe.hallucination.labels.score import Score
from lexprobe.hallucination.labels.scoring import ScoringContext, existence_score
from lexprobe.hallucination.tasks.base import Drafts, ItemDraft, TaskReference, catalogued
from lexprobe.hallucination.tasks.cases import SampledCase
from lexprobe.hallucination.tasks.existence import existence_truth


class FabricatedReference(TaskReference):
    """The case asked about is one lexprobe made up (a run's items say so; nothing else is known of it)."""

    fabricated: bool = True


def _build_fake_existence(db: CaseDatabase, cases: list[SampledCase], level: str, n: int, seed: int) -> Drafts:
    from lexprobe.hallucination.tasks.fabricate import fabricate_cases

    fakes = fabricate_cases(db, level, n, seed)
    return Drafts(
        [
            ItemDraft(
                f"fake:{f.citation}",
                None,
                {"case_name": f.name, "case_citation": f.citation, "case_year": f.year},
                {"fabricated": True},
            )
            for f in fakes
        ]
    )


def score_fake_existence(answer: str, reference: FabricatedReference, context: ScoringContext) -> Score:
    """Score "Is {fabricated case} a real case?": no is correct, yes a hallucination."""
    return existence_score(answer, real=False)


def _lookup_fabricated(record: dict, db: CaseDatabase) -> tuple[dict | None, str | None]:
    """The case is the fabricated one as asked: nothing to look up."""
    return {}, None


TASK = catalogued(
    "fake_existence",
    FabricatedReference,
    builder=_build_fake_existence,
    lookup=_lookup_fabricated,
    score=score_fake_existence,
    extract=existence_truth,
)
