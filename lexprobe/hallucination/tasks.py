"""The study's tasks: what each asks, which template it uses, and how its items are built from the case database.

A task's builder turns case rows into `ItemDraft`s (template variables + reference answer), or says in one line why
a level cannot support it. Scoring lives in `scorers.py`, keyed by the same task id. Adding a task means one entry
in `TASKS` and, for a reference-based task, one scorer.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from lexprobe.caselaw.query import CaseDatabase

LEVELS = ("scotus", "coa", "district")
LEVEL_ALIASES = {"scotus": "scotus", "coa": "coa", "usdc": "district", "district": "district", "uscoa": "coa"}


@dataclass(frozen=True)
class ItemDraft:
    """One question before rendering: the case it is about, the template variables and the reference answer."""

    key: str  # unique within the task and level (usually the case id)
    case_id: str | None
    variables: dict[str, Any]
    reference: dict[str, Any]


@dataclass
class Drafts:
    """What a builder produced for one level: drafts, or the reason there are none."""

    items: list[ItemDraft] = field(default_factory=list)
    skipped: str | None = None


Builder = Callable[[CaseDatabase, list[dict], str, int, int], Drafts]


@dataclass(frozen=True)
class TaskSpec:
    """One task of the study."""

    id: str
    question: str
    template: str  # template file prefix (fake_existence asks the existence question)
    complexity: str  # low | moderate | high | false premise
    reference_free: bool
    styles: tuple[str, ...]
    levels: tuple[str, ...]
    builder: Builder | None = None
    max_tokens: int = 48


def case_variables(case: dict) -> dict[str, Any]:
    """Return the template variables of a case: name, citation and year."""
    return {"case_name": case["name"], "case_citation": case["citation"], "case_year": case["year"]}


def _named(cases: list[dict]) -> list[dict]:
    return [c for c in cases if c.get("name") and c.get("citation") and c.get("year")]


def _no_names(level: str) -> str:
    return f"no {level} cases with names in the database (load Caselaw Access Project data with `data build --cap`)"


def _simple(reference: Callable[[dict], dict | None], missing: str) -> Builder:
    """Return a builder asking about each sampled case that has the reference fact."""

    def build(db: CaseDatabase, cases: list[dict], level: str, n: int, seed: int) -> Drafts:
        named = _named(cases)
        if not named:
            return Drafts(skipped=_no_names(level))
        drafts = []
        for case in named:
            ref = reference(case)
            if ref is not None:
                drafts.append(ItemDraft(case["case_id"], case["case_id"], case_variables(case), ref))
        if not drafts:
            return Drafts(skipped=f"no sampled {level} case has {missing}")
        return Drafts(drafts)

    return build


def _citations_of(db: CaseDatabase, case_id: str) -> list[str]:
    rows = db.conn.execute("SELECT DISTINCT citation_key FROM case_citations WHERE case_id = ?", (case_id,))
    return [row[0] for row in rows]


def _build_citation(db: CaseDatabase, cases: list[dict], level: str, n: int, seed: int) -> Drafts:
    named = _named(cases)
    if not named:
        return Drafts(skipped=_no_names(level))
    return Drafts(
        [
            ItemDraft(c["case_id"], c["case_id"], case_variables(c), {"citations": _citations_of(db, c["case_id"])})
            for c in named
        ]
    )


def _decided(case: dict) -> str:
    return case.get("decision_date") or f"{case['year']}-07-01"


def _build_overruling_year(db: CaseDatabase, cases: list[dict], level: str, n: int, seed: int) -> Drafts:
    """All cases overruled in full (not a sample: the study used every explicitly overruled case), up to n."""
    if level != "scotus":
        return Drafts(skipped="overruling data covers the Supreme Court only")
    rows = db.conn.execute(
        "SELECT * FROM cases WHERE level = 'scotus' AND overruled_year IS NOT NULL"
        " AND COALESCE(overruled_in_part, 0) = 0 AND name != '' AND citation IS NOT NULL ORDER BY case_id"
    ).fetchall()
    chosen = random.Random(seed).sample([dict(r) for r in rows], min(n, len(rows)))
    return Drafts(
        [ItemDraft(c["case_id"], c["case_id"], case_variables(c), {"year": c["overruled_year"]}) for c in chosen]
    )


def _build_false_overruling(db: CaseDatabase, cases: list[dict], level: str, n: int, seed: int) -> Drafts:
    if level != "scotus":
        return Drafts(skipped="overruling data covers the Supreme Court only")
    never = [c for c in _named(cases) if c.get("overruled_year") is None]
    never = [c for c in never if not db.conn.execute(
        "SELECT 1 FROM overrulings WHERE overruled_case_id = ?", (c["case_id"],)).fetchone()]  # fmt: skip
    return Drafts([ItemDraft(c["case_id"], c["case_id"], case_variables(c), {}) for c in never])


def _build_false_dissent(db: CaseDatabase, cases: list[dict], level: str, n: int, seed: int) -> Drafts:
    """Ask for the dissent of the justice who wrote the majority opinion: by construction not a dissenter."""
    if level == "district":
        return Drafts(skipped="district courts sit alone: there are no dissents to ask about")
    named = [c for c in _named(cases) if c.get("author")]
    if not named:
        return Drafts(skipped=_no_names(level) if not _named(cases) else f"no sampled {level} case has an author")
    drafts = []
    for case in named:
        variables = case_variables(case) | {"fake_dissenting_author": case["author"]}
        drafts.append(ItemDraft(case["case_id"], case["case_id"], variables, {"dissenter": case["author"]}))
    return Drafts(drafts)


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


def _reference_free(db: CaseDatabase, cases: list[dict], level: str, n: int, seed: int) -> Drafts:
    return Drafts(skipped="reference-free task: sampling and the contradiction judge are not implemented yet")


ALL = LEVELS
TASKS: dict[str, TaskSpec] = {
    spec.id: spec
    for spec in (
        TaskSpec("existence", "Is {case} a real case?", "existence", "low", False, ("zero", "few"), ALL,
                 _simple(lambda c: {}, "a name"), 16),
        TaskSpec("court", "What court decided {case}?", "court", "low", False, ("zero", "few"), ALL,
                 _simple(lambda c: {"court_id": c["court_id"]} if c.get("court_id") else None, "a court"), 48),
        TaskSpec("citation", "What is the citation for {case}?", "citation", "low", False, ("zero", "few"), ALL,
                 _build_citation, 48),
        TaskSpec("author", "Who wrote the majority opinion in {case}?", "author", "low", False, ("zero", "few"), ALL,
                 _simple(lambda c: {"author": c["author"], "decided": _decided(c)} if c.get("author") else None,
                         "a known majority author"), 48),
        TaskSpec("disposition", "Did {case} affirm or reverse?", "disposition", "moderate", False, ("zero", "few"),
                 ("scotus", "coa"),
                 _simple(lambda c: {"disposition": c["disposition"]} if c.get("disposition") else None,
                         "an unambiguous disposition"), 16),
        TaskSpec("quotation", "What is a quotation from {case}?", "quotation", "moderate", False, ("zero", "few"), ALL,
                 _simple(lambda c: {"opinion_id": c["majority_opinion_id"]} if c.get("majority_opinion_id") else None,
                         "a majority opinion text"), 160),
        TaskSpec("authority", "What is an authority cited in {case}?", "authority", "moderate", False,
                 ("zero", "few"), ALL,
                 _simple(lambda c: {"opinion_id": c["majority_opinion_id"]} if c.get("majority_opinion_id") else None,
                         "a majority opinion text"), 48),
        TaskSpec("overruling_year", "What year was {case} overruled?", "overruling_year", "moderate", False,
                 ("zero", "few"), ("scotus",), _build_overruling_year, 16),
        TaskSpec("doctrinal_agreement", "Does {case1} agree with {case2}?", "doctrinal_agreement", "high", False,
                 ("zero", "few"), ("scotus",), _build_doctrinal_agreement, 16),
        TaskSpec("factual_background", "What is the factual background of {case}?", "factual_background", "high",
                 True, ("zero",), ALL, _reference_free, 128),
        TaskSpec("procedural_posture", "What is the procedural posture of {case}?", "procedural_posture", "high",
                 True, ("zero",), ALL, _reference_free, 128),
        TaskSpec("subsequent_history", "What is the subsequent history of {case}?", "subsequent_history", "high",
                 True, ("zero",), ALL, _reference_free, 128),
        TaskSpec("core_legal_question", "What is the core legal question in {case}?", "core_legal_question", "high",
                 True, ("zero",), ALL, _reference_free, 128),
        TaskSpec("central_holding", "What is the central holding in {case}?", "central_holding", "high", True,
                 ("zero",), ALL, _reference_free, 128),
        TaskSpec("fake_existence", "Is {fabricated case} a real case?", "existence", "false premise", False,
                 ("zero", "few"), ALL, _build_fake_existence, 16),
        TaskSpec("false_dissent", "What did Justice {X} argue in their dissent in {case}? (X wrote no dissent)",
                 "false_dissent", "false premise", False, ("zero",), ("scotus", "coa"), _build_false_dissent, 96),
        TaskSpec("false_overruling", "What year was {never-overruled case} overruled?", "overruling_year",
                 "false premise", False, ("zero", "few"), ("scotus",), _build_false_overruling, 48),
    )
}  # fmt: skip


def resolve_tasks(spec: str) -> list[TaskSpec]:
    """Return the tasks named by a comma list or 'all'; raises ValueError naming unknown ids and the valid ones."""
    if spec.strip() == "all":
        return list(TASKS.values())
    names = [name.strip() for name in spec.split(",") if name.strip()]
    unknown = [name for name in names if name not in TASKS]
    if unknown or not names:
        raise ValueError(f"unknown task(s) {', '.join(unknown) or '(none given)'}; valid: all, {', '.join(TASKS)}")
    return [TASKS[name] for name in names]


def resolve_levels(spec: str) -> list[str]:
    """Return the court levels of a comma list (scotus, coa, usdc/district); raises ValueError on unknown ones."""
    levels = []
    for name in (part.strip().lower() for part in spec.split(",") if part.strip()):
        if name not in LEVEL_ALIASES:
            raise ValueError(f"unknown level {name!r}; valid: scotus, coa, usdc")
        levels.append(LEVEL_ALIASES[name])
    return levels
