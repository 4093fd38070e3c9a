"""What every task module shares: the task spec, item drafts, and the generic item builders."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from lexprobe.caselaw.courts import COURT_LEVELS as LEVELS
from lexprobe.caselaw.courts import LEVEL_ALIASES  # noqa: F401 - re-exported by tasks/__init__
from lexprobe.caselaw.query import CaseDatabase


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


def named_cases(cases: list[dict]) -> list[dict]:
    return [c for c in cases if c.get("name") and c.get("citation") and c.get("year")]


def no_names_reason(level: str) -> str:
    return f"no {level} cases with names in the database (load Caselaw Access Project data with `data build --cap`)"


def simple_builder(reference: Callable[[dict], dict | None], missing: str) -> Builder:
    """Return a builder asking about each sampled case that has the reference fact."""

    def build(db: CaseDatabase, cases: list[dict], level: str, n: int, seed: int) -> Drafts:
        named = named_cases(cases)
        if not named:
            return Drafts(skipped=no_names_reason(level))
        drafts = []
        for case in named:
            ref = reference(case)
            if ref is not None:
                drafts.append(ItemDraft(case["case_id"], case["case_id"], case_variables(case), ref))
        if not drafts:
            return Drafts(skipped=f"no sampled {level} case has {missing}")
        return Drafts(drafts)

    return build


def decided_date(case: dict) -> str:
    return case.get("decision_date") or f"{case['year']}-07-01"


def reference_free_builder(db: CaseDatabase, cases: list[dict], level: str, n: int, seed: int) -> Drafts:
    """Ask about every sampled case with a name, citation and year; there is no reference answer (two samples and
    a contradiction judge decide, see `hallucination/judge.py`)."""
    named = named_cases(cases)
    if not named:
        return Drafts(skipped=no_names_reason(level))
    return Drafts([ItemDraft(c["case_id"], c["case_id"], case_variables(c), {}) for c in named])


ALL = LEVELS
