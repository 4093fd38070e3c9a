"""Fabricated-case existence: is a case lexprobe made up real? The correct answer is no."""

from __future__ import annotations

from lexprobe.caselaw.query import CaseDatabase
from lexprobe.hallucination.labels import Score
from lexprobe.hallucination.scoring import (
    ScoringContext,
    _existence,
    scorer,
)
from lexprobe.hallucination.tasks.base import ALL, Drafts, ItemDraft, TaskSpec


def _build_fake_existence(db: CaseDatabase, cases: list[dict], level: str, n: int, seed: int) -> Drafts:
    from lexprobe.hallucination.fabricate import fabricate_cases

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


SPEC = TaskSpec(
    "fake_existence",
    "Is {fabricated case} a real case?",
    "existence",
    "false premise",
    False,
    ("zero", "few"),
    ALL,
    _build_fake_existence,
    16,
)


@scorer("fake_existence")
def score_fake_existence(answer: str, reference: dict, context: ScoringContext) -> Score:
    """Score "Is {fabricated case} a real case?": no is correct, yes a hallucination."""
    return _existence(answer, real=False)


# --- low and moderate complexity --------------------------------------------------------------------------------
