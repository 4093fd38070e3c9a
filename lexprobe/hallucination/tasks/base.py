"""What every task module shares: the task definition (`TaskSpec`) and its binding to the catalogue's data
(`catalogued`), the typed reference answer (`TaskReference`, the base of each task's own model), item drafts, the
generic item builders, the generic reference lookup for answers scored outside a run, and the scoring steps of a
one-value answer (`unscorable`, `score_extracted`, `value_truth`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from lexprobe.caselaw.courts import COURT_LEVELS as LEVELS
from lexprobe.caselaw.query import CaseDatabase
from lexprobe.hallucination.labels.answers import answer_text
from lexprobe.hallucination.labels.score import Score
from lexprobe.hallucination.labels.scoring import (
    ScoringContext,
    compare_values,
    missing_reference,
    nothing_found,
    stance_score,
)
from lexprobe.hallucination.reader.choice import Reading
from lexprobe.hallucination.reader.read import read_answer, reads_as_written
from lexprobe.hallucination.tasks.cases import SampledCase
from lexprobe.hallucination.tasks.catalogue import CATALOGUE

Complexity = Literal["low", "moderate", "high", "false premise"]
#: The contra-factual (false-premise) complexity class of the study's Table 6.
FALSE_PREMISE: Complexity = "false premise"
#: Why a contra-factual task is not asked few-shot (the study's Appendix E.4); shown when a few-shot run skips it.
CONTRA_FACTUAL_ZERO_SHOT = "contra-factual tasks are asked zero-shot only, as in the study (Appendix E.4)"


class TaskReference(BaseModel):
    """The reference answer of one item: the base of each task's own model, declared beside its `TaskSpec`
    (`reference_type`), and itself the model of a task with no reference fact (existence, false_overruling, the
    reference-free tasks). Its fields are the keys of the reference's JSON (the run store's item, an outside answer's
    lookup, a greedy answer's truth), each None when the item lacks that fact (its scorer then says "reference
    missing"). The JSON has no task key: the item's task says which model reads it (`TaskSpec.reference_of`)."""

    # Keys no field names are ignored, so the reference of an older run still loads; an id written as a number reads.
    model_config = ConfigDict(frozen=True, extra="ignore", coerce_numbers_to_str=True)

    def as_json(self) -> dict[str, Any]:
        """Return the reference's JSON as the run store keeps it: the keys it was given, nothing added."""
        return self.model_dump(mode="json", exclude_unset=True)


#: A reference-based task's scorer: (answer, the task's reference, context) -> Score (`Any`: each task's own model).
Scorer = Callable[[str, Any, ScoringContext], Score]


@dataclass(frozen=True)
class ItemDraft:
    """One question before rendering: the case it is about, the template variables and the reference answer (its
    JSON, read with the task's model when the item is made)."""

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
Builder = Callable[[CaseDatabase, list[SampledCase], str, int, int], Drafts]
#: Reference lookup for one answer scored outside a run (`score-answers`): (input record, case database) ->
#: (reference, None), or (None, the reason there is none).
Lookup = Callable[[dict, CaseDatabase], tuple[dict | None, str | None]]
#: Answer extraction for calibration: (greedy answer, item reference) -> (id of the task whose scorer judges
#: agreement, the reference JSON that makes the greedy answer the truth), or None when the greedy answer has no value.
Extract = Callable[[str, Any], tuple[str, dict] | None]
#: Agreement of a sample with a greedy answer that has no value (`extract` returned None):
#: (greedy, sample, reference, context) -> agrees.
StanceAgreement = Callable[[str, str, Any, ScoringContext], bool]


@dataclass(frozen=True, kw_only=True)
class TaskSpec:
    """One task of the study, everything the run, the reports, calibration and `score-answers` need to know about it.

    A reference-based task has a `score`; a reference-free task has none (two samples and the contradiction judge,
    `hallucination/scorers/judge.py`, decide). A calibrated task has an `extract` (how a greedy answer becomes the
    truth its samples are scored against); an uncalibrated one says why in `not_calibrated`.
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
    balanced_on: str = ""  # reference field holding an item's class, for a task reported by its class-balanced rate
    reference_type: type[TaskReference] = TaskReference  # the model of its reference (its fields, None when missing)

    def __post_init__(self) -> None:
        if self.calibrated and (self.extract is None or self.score is None):
            raise ValueError(f"task {self.id}: a calibrated task needs a scorer and an answer extraction")
        if not self.calibrated and not self.not_calibrated:
            raise ValueError(f"task {self.id}: say why it is not calibrated (not_calibrated)")
        if self.lookup is not None and self.score is None:
            raise ValueError(f"task {self.id}: a reference lookup needs a scorer")

    def reference_of(self, reference: TaskReference | Mapping[str, Any]) -> TaskReference:
        """Return a reference's JSON read with the task's model (a typed reference unchanged). Raises pydantic's
        ValidationError (a ValueError) when a value has the wrong type."""
        if isinstance(reference, TaskReference):
            return reference
        return self.reference_type.model_validate(reference)

    @property
    def reference_free(self) -> bool:
        """True for a task without a reference answer (scored by two samples and a contradiction judge)."""
        return self.score is None

    @property
    def false_premise(self) -> bool:
        """True for a contra-factual task, whose correct answer rejects the question's premise."""
        return self.complexity == FALSE_PREMISE


def case_variables(case: SampledCase) -> dict[str, Any]:
    """Return the template variables of a case: name, citation and year."""
    return {"case_name": case.name, "case_citation": case.citation, "case_year": case.year}


def named_cases(cases: list[SampledCase]) -> list[SampledCase]:
    """Return the cases that have a name, a citation and a year (what every prompt shows)."""
    return [c for c in cases if c.name and c.citation and c.year]


def no_names_reason(level: str) -> str:
    """Return the skip reason of a level whose sampled cases have no names."""
    return f"no {level} cases with names in the database (load Caselaw Access Project data with `data build --cap`)"


def case_builder(
    reference: Callable[[CaseDatabase, SampledCase], dict | None],
    missing: str = "",
    variables: Callable[[SampledCase], dict[str, Any]] = case_variables,
) -> Builder:
    """Return a builder asking about each sampled case with a name, citation and year (else the level is skipped,
    `no_names_reason`) whose `reference(db, case)` is not None, with the template `variables(case)`; a level where
    no such case has a reference is skipped as having no case with `missing`."""

    def build(db: CaseDatabase, cases: list[SampledCase], level: str, n: int, seed: int) -> Drafts:
        named = named_cases(cases)
        if not named:
            return Drafts(skipped=no_names_reason(level))
        drafts = []
        for case in named:
            ref = reference(db, case)
            if ref is not None:
                drafts.append(ItemDraft(case.case_id, case.case_id, variables(case), ref))
        if not drafts:
            return Drafts(skipped=f"no sampled {level} case has {missing}")
        return Drafts(drafts)

    return build


def simple_builder(reference: Callable[[SampledCase], dict | None], missing: str) -> Builder:
    """Return a builder asking about each sampled case that has the reference fact (`reference(case)` not None)."""
    return case_builder(lambda db, case: reference(case), missing)


def decided_date(case: SampledCase) -> str:
    """Return a case's decision date, or July 1 of its year when the date is unknown."""
    return case.decision_date or f"{case.year}-07-01"


#: Ask about every sampled case with a name, citation and year; there is no reference answer (two samples and a
#: contradiction judge decide, see `hallucination/scorers/judge.py`).
reference_free_builder: Builder = case_builder(lambda db, case: {})


def shown(value: object, limit: int = 60) -> str:
    """Return `value` quoted for a message: repr (control characters escaped), cut to `limit` characters."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def find_case(db: CaseDatabase, text: str) -> SampledCase | None:
    """Return the case named by a case id or a citation (any parallel citation) as the `SampledCase` the task
    builders pass on, or None."""
    case = db.find_case(text)
    return SampledCase.from_row(case.as_dict()) if case is not None else None


def case_lookup(reference: Callable[[SampledCase], dict | None], missing: str) -> Lookup:
    """Return a lookup that finds the record's `case` in the database and takes its reference with `reference`
    (the function the item builder uses); `missing` is the reason when the case lacks the fact."""

    def lookup(record: dict, db: CaseDatabase) -> tuple[dict | None, str | None]:
        case, reason = record_case(db, record)
        if case is None:
            return None, reason
        found = reference(case)
        return (found, None) if found is not None else (None, missing)

    return lookup


def unscorable(answer: str, reference: TaskReference, key: str, false_premise: bool = False) -> Score | None:
    """Return the first step of a reference-based scorer: unscored when the reference's field `key` is missing, else the
    answer's lead stance (`stance_score`: empty, abstaining, rejecting the premise); None when the answer is judged."""
    return missing_reference(reference, key) or stance_score(answer, false_premise=false_premise)


def reading_of(task_id: str) -> Callable[[str], Reading]:
    """Return the answer reader of `task_id` (`reader.read_answer`): the value an answer gives as its answer, among
    every value it states, with the values competing with it and those set aside."""

    as_written = reads_as_written(task_id)

    def read(answer: str) -> Reading:
        return read_answer(task_id, (answer or "") if as_written else answer_text(answer))

    read.__doc__ = f"Return the reading of an answer to a {task_id} question."
    return read


def _value(found: Any) -> Any:
    """Return the value of a reader's `Reading`, or `found` itself from a plain extractor."""
    return found.value if isinstance(found, Reading) else found


def score_extracted(
    answer: str,
    reference: TaskReference,
    key: str,
    read: Callable[[str], Any],
    what: str,
    truth: Callable[[Any], Any] = lambda v: v,
    judge: Callable[[Any], Score] | None = None,
) -> Score:
    """Score an answer that is one value: a missing reference field `key` or a refusal first (`unscorable`), then
    the value `read(answer)` gives (a value, or the reader's `Reading`) judged by `judge(value)`, or without a judge
    compared with `truth` of the field. No value: `nothing_found` (unscored naming `what`, or a decline); values
    that compete (a reading's `competing`): unscored naming each. The detail ends with what the reader set aside."""
    first = unscorable(answer, reference, key)
    if first:
        return first
    found = read(answer)
    note = found.note() if isinstance(found, Reading) else ""
    if isinstance(found, Reading) and found.competing:
        offered = " and ".join(repr(c.text.strip()) for c in (found.chosen, *found.competing) if c is not None)
        return Score("unscored", f"the answer gives competing {what}s: {offered}; no single answer{note}")
    value = _value(found)
    if value is None:
        unread = nothing_found(answer, what)
        return Score(unread.label, unread.detail + note)
    score = judge(value) if judge is not None else compare_values(value, truth(getattr(reference, key)), key)
    return Score(score.label, score.detail + note)


def value_truth(extract: Callable[[str], Any], task_id: str, key: str) -> Extract:
    """Return the answer extraction of a one-value task: the greedy answer's value (`extract(greedy)`, a value or
    a `Reading`) becomes the reference field `key` for the scorer of `task_id`; None when the greedy answer has no
    value."""

    def truth(greedy: str, reference: TaskReference) -> tuple[str, dict] | None:
        value = _value(extract(greedy))
        return None if value is None else (task_id, {key: value})

    truth.__doc__ = f"Return the {task_id} scorer with the greedy answer's value as `{key}`; None without one."
    return truth


@dataclass(frozen=True)
class ValueAnswer:
    """How a task whose answer is one value is scored and calibrated: `read(answer)` gives the value or the reader's
    `Reading` (None: none found, unscored naming `what`), judged by `judge(value, truth)` when given, else compared
    with `truth` of the reference field `key` (`score_extracted`); a greedy answer's value becomes that field for its
    samples (`value_truth`)."""

    key: str
    read: Callable[[str], Any]
    what: str
    truth: Callable[[Any], Any] = lambda v: v
    judge: Callable[[Any, Any], Score] | None = None

    def score(self, answer: str, reference: TaskReference, context: ScoringContext) -> Score:
        """Score an answer: its value against the reference's (`score_extracted`)."""
        judge_with, key = self.judge, self.key
        judge = None if judge_with is None else lambda value: judge_with(value, self.truth(getattr(reference, key)))
        return score_extracted(answer, reference, self.key, self.read, self.what, self.truth, judge)


def record_case(db: CaseDatabase, record: dict, why: str = "") -> tuple[SampledCase | None, str | None]:
    """Return the case an outside answer's record names (`case`: a case id, a citation, or a case name that
    only one case in the database bears) and None, or None and the reason it is not found (`why` appended): not
    in the case database, or a name several cases bear (the reason lists them, with their citations)."""
    text = str(record["case"])
    case = find_case(db, text)
    if case is not None:
        return case, None
    named = _cases_named(db, text)
    if len(named) == 1:
        return named[0], None
    if named:
        listed = "; ".join(f"{row.case_id} ({row.citation or 'no citation'}, {row.year or '?'})"
                           for row in named[:5])  # fmt: skip
        more = f" and {len(named) - 5} more" if len(named) > 5 else ""
        return None, f"case name {shown(text)} names {len(named)} cases: {listed}{more}; give a citation or id{why}"
    return None, f"case {shown(text)} is not in the case database (by id, citation or full name){why}"


def _cases_named(db: CaseDatabase, text: str) -> list[SampledCase]:
    """Return the cases any source names exactly `text` (after `normalize_case_name`), most prominent first."""
    from lexprobe.caselaw.case_names import normalize_case_name

    wanted = normalize_case_name(text)
    if not wanted:
        return []
    found = []
    for case_id in db.find_by_name(text, limit=50):
        if any(normalize_case_name(fact.value) == wanted for fact in db.facts(case_id, ("name",))):
            row = find_case(db, case_id)
            if row is not None:
                found.append(row)
    return found


def catalogued(
    task_id: str,
    reference_type: type[TaskReference] = TaskReference,
    *,
    reference: Callable[[SampledCase], dict | None] | None = None,
    answer: ValueAnswer | None = None,
    **behaviour: Any,
) -> TaskSpec:
    """Return the task `task_id`: its data from the catalogue (`tasks/catalogue.toml`), the model of its reference
    (`reference_type`) and its `behaviour` (builder, lookup, score, extract, stance_agreement). A task about one
    fact of each sampled case passes the `reference` function giving that fact: its row's `has` makes the builder
    (`simple_builder`) and its `lacks` the lookup (`case_lookup`), so a run's items and an answer scored outside a
    run share one reference. A task whose answer is one value passes its `answer` (`ValueAnswer`), which gives the
    scorer and the answer extraction."""
    row = CATALOGUE[task_id]
    if answer is not None:
        behaviour.update(score=answer.score, extract=value_truth(answer.read, task_id, answer.key))
    made = {"builder": (row.has, simple_builder), "lookup": (row.lacks, case_lookup)}
    for name, (message, make) in made.items():
        if not message:
            continue
        if reference is None or name in behaviour:
            raise ValueError(f"task {task_id}: its row's {name} message needs a reference function, not a {name}")
        behaviour[name] = make(reference, message)
    if reference is not None and not (row.has or row.lacks):
        raise ValueError(f"task {task_id}: a reference function needs a row with `has` or `lacks`")
    return TaskSpec(**row.spec_fields(), reference_type=reference_type, **behaviour)
