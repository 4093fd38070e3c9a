"""Issue 14, ground truth: environment.json schema version 2 (sub-claims with their ground facts and the court's
ruling on each; version 1 files still load and are re-saved as version 2), the validator's sub-claim checks, the
import of sub-claim objects from the dataset layout, and factual-QA rubrics with one item per ground fact.

Builds are driven by the FakeLLM of tests/test_investigation_pipeline.py on its fictional cold-storage record."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
from test_investigation_pipeline import SMALL, FakeLLM, canned_answers, write_record

from lexprobe.investigation.environment.format import (
    SCHEMA_VERSION,
    CaseInfo,
    Environment,
    Fact,
    Hypothesis,
    HypothesisKind,
    Question,
    QuestionSet,
    RubricItem,
    SubClaim,
    load_environment,
    save_environment,
)
from lexprobe.investigation.environment.hf_dataset import import_hf_case
from lexprobe.investigation.environment.validate import Problem, errors_in, validate_environment
from lexprobe.investigation.pipeline.assemble import (
    checkable_statement,
    hypotheses_and_facts,
    questions_from_stubs,
    sketch_only,
)
from lexprobe.investigation.pipeline.context import StageContext, StageError
from lexprobe.investigation.pipeline.facts import FactTable, GroundFact
from lexprobe.investigation.pipeline.opinion import Argument, Branch, OpinionResult, QuestionStub, SourceRef
from lexprobe.investigation.pipeline.runner import run_build

# --- a small hand-written environment, as a version-1 file ----------------------------------------------------

V1_ENVIRONMENT: dict[str, Any] = {
    "schema_version": 1,
    "case": {"case_id": "acme-v-widget", "name": "Acme v. Widget", "dispositive_question": "Were widgets late?"},
    "facts": [
        {"fact_id": "f1", "text": "Acme shipped 500 widgets on 2019-03-01."},
        {"fact_id": "f2", "text": "Widget Co. signed the delivery receipt."},
        {"fact_id": "f3", "text": "A manager emailed that the widgets arrived late.", "source": "injected"},
    ],
    "hypotheses": [
        {"hypothesis_id": "h_star", "kind": "court_adopted", "claim": "Acme delivered on time.", "party": "plaintiff",
         "sub_claims": ["Acme shipped on time.", "Widget Co. signed for the goods."], "supporting_facts": ["f1", "f2"]},
        {"hypothesis_id": "h_dag", "kind": "court_rejected", "claim": "The widgets were late.", "party": "defendant",
         "sub_claims": [], "supporting_facts": [], "refuting_facts": ["f1"]},
        {"hypothesis_id": "h1", "kind": "alternative", "claim": "A carrier delayed the widgets.",
         "sub_claims": ["The carrier lost a day."], "supporting_facts": ["f3"], "refuting_facts": ["f2"]},
    ],
}  # fmt: skip
V1_QUESTIONS = {
    "schema_version": 1,
    "questions": [{"question_id": "q1", "question": "How many widgets?", "answer": "500.",
                   "rubric": [{"item_id": "r1", "text": "Says 500"}], "facts": ["f1"]}],
}  # fmt: skip


def write_env(folder: Path, env: dict[str, Any], questions: dict[str, Any] | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "environment.json").write_text(json.dumps(env), encoding="utf-8")
    if questions is not None:
        (folder / "questions.json").write_text(json.dumps(questions), encoding="utf-8")
    return folder


def test_version_1_environment_loads_and_is_saved_as_version_2(tmp_path: Path) -> None:
    old = write_env(tmp_path / "v1", V1_ENVIRONMENT, V1_QUESTIONS)
    env, questions = load_environment(old)
    adopted, rejected, alt = env.hypotheses
    assert adopted.sub_claims == [
        SubClaim(sub_claim_id="h_star_1", label="Acme shipped on time."),
        SubClaim(sub_claim_id="h_star_2", label="Widget Co. signed for the goods."),
    ]
    assert rejected.sub_claims == [] and alt.sub_claims[0].sub_claim_id == "h1_1"
    assert all(s.facts == [] and s.ruling is None and s.rationale == "" for s in adopted.sub_claims)
    assert questions.questions[0].rubric == [RubricItem(item_id="r1", text="Says 500")]
    # every reader keeps working: the validator finds no schema problem in the old file
    assert not [p for p in validate_environment(old, extract=False) if "sub_claims" in p.location]

    save_environment(tmp_path / "v2", env, questions)
    raw = json.loads((tmp_path / "v2" / "environment.json").read_text())
    assert SCHEMA_VERSION == 2 and raw["schema_version"] == 2
    assert raw["hypotheses"][0]["sub_claims"][1] == {
        "sub_claim_id": "h_star_2", "label": "Widget Co. signed for the goods.", "facts": [], "ruling": None,
        "rationale": ""}  # fmt: skip
    assert json.loads((tmp_path / "v2" / "questions.json").read_text())["schema_version"] == 2
    assert load_environment(tmp_path / "v2")[0].hypotheses == env.hypotheses


def test_version_2_round_trips_and_a_newer_version_is_refused(tmp_path: Path) -> None:
    sub = SubClaim(sub_claim_id="hd_1", label="Room 4 held the range.", facts=["f1", "f2"], ruling="accepted",
                   rationale="it shows no reading outside the contract range")  # fmt: skip
    env = Environment(
        case=CaseInfo(case_id="c", name="C", dispositive_question="Q?"),
        facts=[Fact(fact_id="f1", text="One."), Fact(fact_id="f2", text="Two.")],
        hypotheses=[Hypothesis(hypothesis_id="hd", kind=HypothesisKind.court_adopted, claim="x", sub_claims=[sub],
                               supporting_facts=["f1", "f2"], party="defendant")],
    )  # fmt: skip
    item = RubricItem(item_id="q_1", text="States one.", fact_id="f1")
    questions = QuestionSet(
        questions=[Question(question_id="q", question="?", answer="One.", facts=["f1"], rubric=[item])]
    )
    save_environment(tmp_path, env, questions)
    assert load_environment(tmp_path) == (env, questions)
    raw = json.loads((tmp_path / "environment.json").read_text())
    assert raw["schema_version"] == 2 and raw["hypotheses"][0]["sub_claims"][0]["ruling"] == "accepted"
    raw["schema_version"] = 3
    (tmp_path / "environment.json").write_text(json.dumps(raw))
    with pytest.raises(ValueError, match="schema_version 3 is newer than this lexprobe reads"):
        load_environment(tmp_path)


def test_validator_checks_sub_claim_facts_ids_and_rubric_facts(tmp_path: Path) -> None:
    raw = json.loads(json.dumps(V1_ENVIRONMENT))
    raw["schema_version"] = 2
    raw["hypotheses"][0]["sub_claims"] = [
        {"sub_claim_id": "s1", "label": "Shipped.", "facts": ["f1", "f404"], "ruling": "accepted", "rationale": ""},
        {"sub_claim_id": "s1", "label": "Signed.", "facts": ["f3"], "ruling": "not_reached", "rationale": ""},
    ]
    questions = json.loads(json.dumps(V1_QUESTIONS))
    questions["questions"][0]["rubric"][0]["fact_id"] = "f999"
    problems = validate_environment(write_env(tmp_path, raw, questions), extract=False)
    assert Problem("environment.json:hypotheses[0].sub_claims[0].facts[1]", "unknown fact id 'f404'") in problems
    assert (
        Problem(
            "environment.json:hypotheses[0].sub_claims[1].sub_claim_id",
            "duplicate id 's1' (first at hypotheses[0].sub_claims[0])",
        )
        in problems
    )
    assert (
        Problem(
            "environment.json:hypotheses[0].sub_claims[1].facts[0]",
            "fact 'f3' sits under sub-claim 's1' but is not among the supporting facts of 'h_star'",
            "warning",
        )
        in problems
    )
    assert Problem("questions.json:questions[0].rubric[0].fact_id", "unknown fact id 'f999'") in problems
    bad_ruling = json.loads(json.dumps(raw))
    bad_ruling["hypotheses"][0]["sub_claims"][0]["ruling"] = "maybe"
    problems = validate_environment(write_env(tmp_path / "bad", bad_ruling), extract=False)
    assert any(p.location == "environment.json:hypotheses[0].sub_claims[0].ruling" for p in errors_in(problems))


def test_dataset_import_accepts_sub_claims_as_objects_or_strings(tmp_path: Path) -> None:
    def dataset(folder: Path, sub_claims: list[Any]) -> Path:
        row = {
            "case_id": "acme", "case_name": "Acme v. Widget", "dispositive_question": "Late?",
            "facts": V1_ENVIRONMENT["facts"],
            "hypotheses": [{**h, "sub_claims": sub_claims if h["kind"] == "court_adopted" else []}
                           for h in V1_ENVIRONMENT["hypotheses"]],
            "documents": [{"doc_id": "d1", "filename": "a.txt", "role": "merits", "facts": ["f1", "f2"],
                           "text": "Acme shipped 500 widgets."},
                          {"doc_id": "d2", "filename": "b.txt", "role": "pro_alternative", "facts": ["f3"],
                           "target_hypothesis": "h1", "text": "The widgets were late, a manager wrote."}],
            "questions": V1_QUESTIONS["questions"],
        }  # fmt: skip
        folder.mkdir(parents=True)
        (folder / "cases.jsonl").write_text(json.dumps(row) + "\n", encoding="utf-8")
        return folder

    objects = [
        {"id": "p1", "sub_claim": "Acme shipped on time.", "supporting_fact_ids": ["f1"], "judge_ruling": "accepted",
         "rationale_quote": "shipped on time"},
        {"id": None, "sub_claim": None, "supporting_fact_ids": ["f2"], "judge_ruling": None, "rationale_quote": None},
    ]  # fmt: skip
    out = import_hf_case(dataset(tmp_path / "objects", objects), "acme", tmp_path / "env_objects", extract=False)
    env, _ = load_environment(out)
    assert env.hypotheses[0].sub_claims == [
        SubClaim(sub_claim_id="p1", label="Acme shipped on time.", facts=["f1"], ruling="accepted",
                 rationale="shipped on time"),
        SubClaim(sub_claim_id="h_star_2", label="", facts=["f2"]),
    ]  # fmt: skip
    out = import_hf_case(dataset(tmp_path / "strings", ["Shipped."]), "acme", tmp_path / "env_strings", extract=False)
    assert load_environment(out)[0].hypotheses[0].sub_claims == [SubClaim(sub_claim_id="h_star_1", label="Shipped.")]


# --- a built environment ----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, StageContext]:
    """One full build of the fictional record with the canned answers: the environment folder and the context."""
    root = tmp_path_factory.mktemp("i14_truth")
    record = write_record(root / "record")
    llm = FakeLLM(canned_answers())
    result = run_build(record, root / "env", SMALL, llm=llm, log=lambda _: None)
    ctx = StageContext(record_dir=record, out_dir=root / "env", settings=SMALL, llm=llm, outputs=result.outputs)
    return root / "env", ctx


def test_built_environment_records_party_sub_claim_facts_and_rulings(built: tuple[Path, StageContext]) -> None:
    env_dir, _ = built
    assert json.loads((env_dir / "environment.json").read_text())["schema_version"] == 2
    env, _ = load_environment(env_dir)
    by_id = {h.hypothesis_id: h for h in env.hypotheses}
    assert by_id["hd"].kind == HypothesisKind.court_adopted
    assert [(s.sub_claim_id, s.facts, s.ruling, s.rationale) for s in by_id["hd"].sub_claims] == [
        ("hd_1", ["gf_ROOM4_IN_RANGE", "gf_AGREEMENT_RANGE"], "accepted",
         "it shows no reading outside the contract range"),
        ("hd_2", ["gf_RUSHED_PICK"], "accepted", ""),
    ]  # fmt: skip
    # hp_1's unknown fact id was dropped by party_dags; hp_2's quote is not in the opinion, so it was cleared
    assert [(s.sub_claim_id, s.label, s.facts, s.ruling, s.rationale) for s in by_id["hp"].sub_claims] == [
        ("hp_1", "The apples arrived sound.", ["gf_DELIVERY"], "rejected", ""),
        ("hp_2", "The fruit came out bruised.", ["gf_BRUISING"], "rejected", ""),
    ]
    alternatives = [h for h in env.hypotheses if h.kind == HypothesisKind.alternative]
    assert [(s.sub_claim_id, s.label, s.facts, s.ruling) for s in alternatives[0].sub_claims] == [
        (f"{alternatives[0].hypothesis_id}_1", "The fruit waited on a hot dock.", [], None)
    ]
    problems = validate_environment(env_dir, extract=False)
    assert errors_in(problems) == [] and not [p for p in problems if "sub_claims" in p.location]


def test_built_questions_have_one_rubric_item_per_ground_fact(built: tuple[Path, StageContext]) -> None:
    env_dir, _ = built
    env, questions = load_environment(env_dir)
    texts = {f.fact_id: f.text for f in env.facts}
    for question in questions.questions:
        assert question.facts and [r.fact_id for r in question.rubric] == question.facts
        assert [r.item_id for r in question.rubric] == [
            f"{question.question_id}_{k}" for k in range(1, 1 + len(question.facts))
        ]
        for item in question.rubric:
            assert item.text == checkable_statement(texts[item.fact_id]) != question.answer
    room = next(q for q in questions.questions if q.question_id == "ROOM4_RANGE")
    assert room.answer == "Between 33 and 35 degrees Fahrenheit."
    assert room.rubric == [RubricItem(item_id="ROOM4_RANGE_1", fact_id="gf_ROOM4_IN_RANGE",
                                      text="States that Room 4 stayed between 33 and 35 degrees Fahrenheit until "
                                      "October 29, 2021.")]  # fmt: skip


def test_a_ruling_without_a_single_adopted_party_is_refused(built: tuple[Path, StageContext]) -> None:
    _, ctx = built
    split = ctx.outputs["ruling"].model_copy(update={"adopted_party": "split"})
    with pytest.raises(StageError, match="'split', not one party"):
        hypotheses_and_facts(dataclasses.replace(ctx, outputs={**ctx.outputs, "ruling": split}))


def test_rubric_items_follow_the_ground_facts_of_each_stub() -> None:
    stubs = [
        QuestionStub(id="TWO", fact_ids=["op_A", "op_B"], question="What happened?", answer_sketch="A and B."),
        QuestionStub(id="NONE", fact_ids=["op_GONE"], question="Anything else?", answer_sketch="Nothing   else."),
        QuestionStub(id="TWO", fact_ids=["op_A"], question="Repeated id", answer_sketch="skipped"),
    ]
    branch = Branch(id="b", label="b", sources=[SourceRef(id="s", doc="Ex. 1", description="d", question_stubs=stubs)])
    opinion = OpinionResult(
        source_id="op", case="C", citation="", court="", story="", facts=[],
        arguments=[Argument(id="a", label="a", argument_type="factual_analysis", branches=[branch], note="")],
    )  # fmt: skip
    table = FactTable(facts=[
        GroundFact(fact_id="gf_A", text="The log shows 34 F", source="opinion", sources=["op_A"]),
        GroundFact(fact_id="gf_X", text="Unrelated.", source="souf", sources=["souf:1"]),
        GroundFact(fact_id="gf_B", text="On May 1 the crew hurried.", source="souf", sources=["souf:2", "op_B"]),
    ])  # fmt: skip
    questions = questions_from_stubs(opinion, table)
    two, none = questions.questions
    assert (two.facts, two.answer) == (["gf_A", "gf_B"], "A and B.")
    assert two.rubric == [
        RubricItem(item_id="TWO_1", text="States that the log shows 34 F.", fact_id="gf_A"),
        RubricItem(item_id="TWO_2", text="States that on May 1 the crew hurried.", fact_id="gf_B"),
    ]
    assert none.facts == [] and none.rubric == [
        RubricItem(item_id="NONE_sketch", text="Gives, in substance, the answer: Nothing else.")
    ]
    assert sketch_only(questions) == ["NONE"]
    assert checkable_statement("Bellwether delivered 1,200 bins.") == "States that Bellwether delivered 1,200 bins."
