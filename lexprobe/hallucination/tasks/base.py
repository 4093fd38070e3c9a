"""What every task module shares: the task definition (`TaskSpec`), item drafts, the generic item builders and the
generic reference lookup for answers scored outside a run."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from lexprobe.caselaw.courts import COURT_LEVELS as LEVELS
from lexprobe.caselaw.courts import LEVEL_ALIASES  # noqa: F401 - re-exported by tasks/__init__
from lexprobe.caselaw.query import CaseDatabase
from lexprobe.hallucination.labels import Score
from lexprobe.hallucination.scoring import (
    Scorer,
    ScoringContext,
    compare_values,
    missing_reference,
    nothing_found,
    stance_score,
)

Complexity = Literal["low", "moderate", "high", "false premise"]
#: The contra-factual (false-premise) complexity class of the study's Table 6.
FALSE_PREMISE: Complexity = "false premise"
#: Why a contra-factual task is not asked few-shot (the study's Appendix E.4); shown when a few-shot run skips it.
CONTRA_FACTUAL_ZERO_SHOT = "contra-factual tasks are asked zero-shot only, as in the study (Appendix E.4)"


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


#: Item builder: (case database, sampled case rows, level, n, seed) -> drafts or the reason there are none.
Builder = Callable[[CaseDatabase, list[dict], str, int, int], Drafts]
#: Reference lookup for one answer scored outside a run (`score-answers`): (input record, case database) ->
#: (reference, None), or (None, the reason there is none).
Lookup = Callable[[dict, CaseDatabase], tuple[dict | None, str | None]]
#: Answer extraction for calibration: (greedy answer, item reference) -> (id of the task whose scorer judges
#: agreement, the reference that makes the greedy answer the truth), or None when the greedy answer has no value.
Extract = Callable[[str, dict], tuple[str, dict] | None]
#: Agreement of a sample with a greedy answer that has no value (`extract` returned None):
#: (greedy, sample, reference, context) -> agrees.
StanceAgreement = Callable[[str, str, dict, ScoringContext], bool]


@dataclass(frozen=True, kw_only=True)
class TaskSpec:
    """One task of the study, everything the run, the reports, calibration and `score-answers` need to know about it.

    A reference-based task has a `score`; a reference-free task has none (two samples and the contradiction judge,
    `hallucination/judge.py`, decide). A calibrated task has an `extract` (how a greedy answer becomes the truth its
    samples are scored against); an uncalibrated one says why in `not_calibrated`.
    """

    id: str
    question: str  # the study's Table 2 wording, as `lexprobe hallucination tasks` lists it
    template: str  # prompt templates `templates/<template>_<style>.j2` (fake_existence asks the existence question)
    complexity: Complexity
    max_tokens: int
    levels: tuple[str, ...] = LEVELS  # every court level
    styles: tuple[str, ...] = ("zero", "few")  # the study's two prompt styles
    builder: Builder
    lookup: Lookup | None = None  # None: `score-answers` cannot score the task
    score: Scorer | None = None  # None: a reference-free task
    calibrated: bool = False
    not_calibrated: str = ""  # why the study measured no confidence on this task
    extract: Extract | None = None  # calibrated tasks only
    stance_agreement: StanceAgreement | None = None  # None: `calibration.same_stance`
    style_note: str = ""  # why the styles outside `styles` are not asked; "" = the study defines no such prompt
    needs: tuple[str, ...] = ()  # facts a sampled case needs (`caselaw.sampling.CASE_FACTS`), in the order a
    #                              dropped case's reason is looked for (`coverage.py`, `--complete-cases`)
    population: str = ""  # where the items come from when not from the case sample ("" = the sample)
    balanced_on: str = ""  # reference key holding an item's class, for a task reported by its class-balanced rate

    def __post_init__(self) -> None:
        if self.calibrated and (self.extract is None or self.score is None):
            raise ValueError(f"task {self.id}: a calibrated task needs a scorer and an answer extraction")
        if not self.calibrated and not self.not_calibrated:
            raise ValueError(f"task {self.id}: say why it is not calibrated (not_calibrated)")
        if self.lookup is not None and self.score is None:
            raise ValueError(f"task {self.id}: a reference lookup needs a scorer")

    @property
    def reference_free(self) -> bool:
        """True for a task without a reference answer (scored by two samples and a contradiction judge)."""
        return self.score is None

    @property
    def false_premise(self) -> bool:
        """True for a contra-factual task, whose correct answer rejects the question's premise."""
        return self.complexity == FALSE_PREMISE


def case_variables(case: dict) -> dict[str, Any]:
    """Return the template variables of a case: name, citation and year."""
    return {"case_name": case["name"], "case_citation": case["citation"], "case_year": case["year"]}


def named_cases(cases: list[dict]) -> list[dict]:
    """Return the cases that have a name, a citation and a year (what every prompt shows)."""
    return [c for c in cases if c.get("name") and c.get("citation") and c.get("year")]


def no_names_reason(level: str) -> str:
    """Return the skip reason of a level whose sampled cases have no names."""
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
    """Return a case's decision date, or July 1 of its year when the date is unknown."""
    return case.get("decision_date") or f"{case['year']}-07-01"


def reference_free_builder(db: CaseDatabase, cases: list[dict], level: str, n: int, seed: int) -> Drafts:
    """Ask about every sampled case with a name, citation and year; there is no reference answer (two samples and
    a contradiction judge decide, see `hallucination/judge.py`)."""
    named = named_cases(cases)
    if not named:
        return Drafts(skipped=no_names_reason(level))
    return Drafts([ItemDraft(c["case_id"], c["case_id"], case_variables(c), {}) for c in named])


def shown(value: object, limit: int = 60) -> str:
    """Return `value` quoted for a message: repr (control characters escaped), cut to `limit` characters."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def find_case(db: CaseDatabase, text: str) -> dict | None:
    """Return the case row named by a case id or a citation (any parallel citation) as the mapping the task
    builders pass on, or None."""
    case = db.find_case(text)
    return case.as_dict() if case is not None else None


def case_lookup(reference: Callable[[dict], dict | None], missing: str) -> Lookup:
    """Return a lookup that finds the record's `case` in the database and takes its reference with `reference`
    (the function the item builder uses); `missing` is the reason when the case lacks the fact."""

    def lookup(record: dict, db: CaseDatabase) -> tuple[dict | None, str | None]:
        case, reason = record_case(db, record)
        if case is None:
            return None, reason
        found = reference(case)
        return (found, None) if found is not None else (None, missing)

    return lookup


def score_extracted(
    answer: str, reference: dict, key: str, value: Any, what: str, truth: Callable[[Any], Any] = lambda v: v
) -> Score:
    """Score an answer that is one value: a missing `reference[key]` or a refusal first (`stance_score`), then the
    `value` read from the answer (unscored, naming `what`, when None) against `truth(reference[key])`."""
    missing = missing_reference(reference, key) or stance_score(answer)
    if missing:
        return missing
    if value is None:
        return nothing_found(answer, what)
    return compare_values(value, truth(reference[key]), key)


def value_truth(extract: Callable[[str], Any], task_id: str, key: str) -> Extract:
    """Return the answer extraction of a one-value task: the greedy answer's value (`extract(greedy)`) becomes
    `reference[key]` for the scorer of `task_id`; None when the greedy answer has no value."""

    def truth(greedy: str, reference: dict) -> tuple[str, dict] | None:
        value = extract(greedy)
        return None if value is None else (task_id, {key: value})

    truth.__doc__ = f"Return the {task_id} scorer with the greedy answer's value as `{key}`; None without one."
    return truth


def record_case(db: CaseDatabase, record: dict, why: str = "") -> tuple[dict | None, str | None]:
    """Return the case row an outside answer's record names (`case`) and None, or None and the reason it is not in
    the case database (`why` appended)."""
    case = find_case(db, str(record["case"]))
    if case is None:
        return None, f"case {shown(record['case'])} is not in the case database{why}"
    return case, None


def fact_task(*, reference: Callable[[dict], dict | None], has: str, lacks: str, **fields: Any) -> TaskSpec:
    """Return a task about one fact of each sampled case: the same `reference` function gives a run's items
    (`simple_builder`, skipping a level where no case `has` the fact) and the reference of an answer scored outside
    a run (`case_lookup`, `lacks` being the reason when the case has no such fact)."""
    return TaskSpec(builder=simple_builder(reference, has), lookup=case_lookup(reference, lacks), **fields)


ALL = LEVELS
