"""Doctrinal agreement: do a citing and a cited case agree (treatment labels)."""

from __future__ import annotations

import random

from lexprobe.caselaw.query import CaseDatabase
from lexprobe.hallucination.tasks.base import (
    Drafts,
    ItemDraft,
    TaskReference,
    ValueAnswer,
    catalogued,
    find_case,
    reading_of,
    record_case,
)
from lexprobe.hallucination.tasks.cases import SampledCase


class AgreementReference(TaskReference):
    """The treatment of a citing-cited pair: agree or disagree (the class its balanced rate is taken over), and the
    cited case's id (a run's item; an outside answer names it itself)."""

    agreement: str | None = None
    case2: str | None = None


def _build_doctrinal_agreement(db: CaseDatabase, cases: list[SampledCase], level: str, n: int, seed: int) -> Drafts:
    """Citing-cited pairs with an agree/disagree label (not a case sample: the pairs come from the treatments)."""
    if level != "scotus":
        return Drafts(skipped="treatment labels cover Supreme Court citations only")
    pairs = db.agreement_pairs()
    chosen = random.Random(seed).sample(pairs, min(n, len(pairs)))
    drafts = []
    for pair in chosen:
        citing, cited = pair.citing, pair.cited
        variables = {
            "citing_case_name": citing.name,
            "citing_case_citation": citing.citation,
            "citing_case_year": citing.year,
            "cited_case_name": cited.name,
            "cited_case_citation": cited.citation,
            "cited_case_year": cited.year,
        }
        key = f"{citing.case_id}>{cited.case_id}"
        drafts.append(ItemDraft(key, citing.case_id, variables, {"agreement": pair.agreement, "case2": cited.case_id}))
    return Drafts(drafts)


def _lookup_agreement(record: dict, db: CaseDatabase) -> tuple[dict | None, str | None]:
    """The treatment of the pair (`case` citing, `case2` cited)."""
    case, reason = record_case(db, record)
    if case is None:
        return None, reason
    other = find_case(db, str(record.get("case2", "")))
    if other is None:
        return None, "needs 'case2' (the cited case) found in the case database"
    agreement = db.agreement(case.case_id, other.case_id)
    return ({"agreement": agreement}, None) if agreement else (None, "no agree/disagree treatment for this pair")


TASK = catalogued(
    "doctrinal_agreement",
    AgreementReference,
    builder=_build_doctrinal_agreement,
    lookup=_lookup_agreement,
    # agree or disagree, as the treatment label says
    answer=ValueAnswer("agreement", reading_of("doctrinal_agreement"), "agree/disagree"),
)
