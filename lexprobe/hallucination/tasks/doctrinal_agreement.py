"""Doctrinal agreement: do a citing and a cited case agree (treatment labels)."""

from __future__ import annotations

import random

from lexprobe.caselaw.query import CaseDatabase
from lexprobe.hallucination.answers import (
    extract_agreement,
)
from lexprobe.hallucination.labels import Score
from lexprobe.hallucination.scoring import (
    ScoringContext,
    _compare,
    _missing,
    _nothing_found,
    _stance,
    scorer,
)
from lexprobe.hallucination.tasks.base import Drafts, ItemDraft, TaskSpec


def _build_doctrinal_agreement(db: CaseDatabase, cases: list[dict], level: str, n: int, seed: int) -> Drafts:
    """Citing-cited pairs with an agree/disagree label (not a case sample: the pairs come from the treatments)."""
    if level != "scotus":
        return Drafts(skipped="treatment labels cover Supreme Court citations only")
    rows = db.conn.execute(
        "SELECT t.agreement, a.case_id AS a_id, a.name AS a_name, a.citation AS a_cite, a.year AS a_year,"
        " b.case_id AS b_id, b.name AS b_name, b.citation AS b_cite, b.year AS b_year"
        " FROM treatments t JOIN cases a ON a.case_id = t.citing_case_id JOIN cases b ON b.case_id = t.cited_case_id"
        " WHERE t.agreement IS NOT NULL AND a.name != '' AND b.name != '' ORDER BY a.case_id, b.case_id"
    ).fetchall()
    chosen = random.Random(seed).sample([dict(r) for r in rows], min(n, len(rows)))
    drafts = []
    for row in chosen:
        variables = {
            "citing_case_name": row["a_name"],
            "citing_case_citation": row["a_cite"],
            "citing_case_year": row["a_year"],
            "cited_case_name": row["b_name"],
            "cited_case_citation": row["b_cite"],
            "cited_case_year": row["b_year"],
        }
        key = f"{row['a_id']}>{row['b_id']}"
        drafts.append(ItemDraft(key, row["a_id"], variables, {"agreement": row["agreement"], "case2": row["b_id"]}))
    return Drafts(drafts)


SPEC = TaskSpec(
    "doctrinal_agreement",
    "Does {case1} agree with {case2}?",
    "doctrinal_agreement",
    "high",
    False,
    ("zero", "few"),
    ("scotus",),
    _build_doctrinal_agreement,
    16,
)


@scorer("doctrinal_agreement")
def score_doctrinal_agreement(answer: str, reference: dict, context: ScoringContext) -> Score:
    """Score the doctrinal-agreement task: agree or disagree, as the treatment label says."""
    missing = _missing(reference, "agreement") or _stance(answer)
    if missing:
        return missing
    agreement = extract_agreement(answer)
    if agreement is None:
        return _nothing_found(answer, "agree/disagree")
    return _compare(agreement, reference["agreement"], "agreement")


# --- false premises ---------------------------------------------------------------------------------------------
