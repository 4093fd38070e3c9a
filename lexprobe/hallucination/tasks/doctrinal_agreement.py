"""Doctrinal agreement: do a citing and a cited case agree (treatment labels)."""

from __future__ import annotations

import random

from lexprobe.caselaw.query import CaseDatabase
from lexprobe.hallucination.answers import extract_agreement
from lexprobe.hallucination.labels import Score
from lexprobe.hallucination.scoring import (
    ScoringContext,
    compare_values,
    missing_reference,
    nothing_found,
    stance_score,
)
from lexprobe.hallucination.tasks.base import Drafts, ItemDraft, TaskSpec, find_case, shown


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


def _lookup_agreement(record: dict, db: CaseDatabase) -> tuple[dict | None, str | None]:
    """The treatment of the pair (`case` citing, `case2` cited)."""
    case = find_case(db, str(record["case"]))
    if case is None:
        return None, f"case {shown(record['case'])} is not in the case database"
    other = find_case(db, str(record.get("case2", "")))
    if other is None:
        return None, "needs 'case2' (the cited case) found in the case database"
    row = db.conn.execute(
        "SELECT agreement FROM treatments WHERE citing_case_id = ? AND cited_case_id = ? AND agreement IS NOT NULL",
        (case["case_id"], other["case_id"]),
    ).fetchone()
    return ({"agreement": row[0]}, None) if row else (None, "no agree/disagree treatment for this pair")


def score_doctrinal_agreement(answer: str, reference: dict, context: ScoringContext) -> Score:
    """Score the doctrinal-agreement task: agree or disagree, as the treatment label says."""
    missing = missing_reference(reference, "agreement") or stance_score(answer)
    if missing:
        return missing
    agreement = extract_agreement(answer)
    if agreement is None:
        return nothing_found(answer, "agree/disagree")
    return compare_values(agreement, reference["agreement"], "agreement")


def agreement_truth(greedy: str, reference: dict) -> tuple[str, dict] | None:
    """Return the doctrinal-agreement scorer with the greedy answer's agree/disagree as the truth; None without."""
    agreement = extract_agreement(greedy)
    return None if agreement is None else ("doctrinal_agreement", {"agreement": agreement})


TASK = TaskSpec(
    id="doctrinal_agreement",
    question="Does {case1} agree with {case2}?",
    template="doctrinal_agreement",
    complexity="high",
    levels=("scotus",),
    styles=("zero", "few"),
    max_tokens=16,
    population="citing-cited pairs with an agree/disagree treatment (not the sample)",
    balanced_on="agreement",
    builder=_build_doctrinal_agreement,
    lookup=_lookup_agreement,
    score=score_doctrinal_agreement,
    calibrated=True,
    extract=agreement_truth,
)
