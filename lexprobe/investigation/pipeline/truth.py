"""The environment's ground truth from the stage outputs: the hypothesis DAG with its facts, and the factual-QA
questions (used by `assemble`)."""

from __future__ import annotations

from lexprobe.investigation.environment import Fact, Hypothesis, HypothesisKind, Question, QuestionSet, RubricItem
from lexprobe.investigation.pipeline.alternatives import AlternativesResult
from lexprobe.investigation.pipeline.context import StageContext
from lexprobe.investigation.pipeline.facts import FactTable
from lexprobe.investigation.pipeline.hypotheses import PartyDags, Ruling
from lexprobe.investigation.pipeline.opinion import OpinionResult


def hypotheses_and_facts(ctx: StageContext) -> tuple[list[Hypothesis], list[Fact]]:
    """Return the hypothesis DAG (party hypotheses by the ruling, then the alternatives) and every fact."""
    table: FactTable = ctx.output("ground_facts")
    dags: PartyDags = ctx.output("party_dags")
    ruling: Ruling = ctx.output("ruling")
    alts: AlternativesResult = ctx.output("alternatives")
    adopted, rejected = (
        dags.of(ruling.adopted_party),
        dags.of("defendant" if ruling.adopted_party == "plaintiff" else "plaintiff"),
    )
    hypotheses = [
        Hypothesis(
            hypothesis_id=adopted.hypothesis_id,
            kind=HypothesisKind.court_adopted,
            claim=adopted.claim,
            sub_claims=[s.label for s in adopted.sub_claims],
            supporting_facts=adopted.supporting_facts,
            party=adopted.party,
        ),
        Hypothesis(
            hypothesis_id=rejected.hypothesis_id,
            kind=HypothesisKind.court_rejected,
            claim=rejected.claim,
            sub_claims=[s.label for s in rejected.sub_claims],
            supporting_facts=rejected.supporting_facts,
            refuting_facts=[f for f in adopted.supporting_facts if f not in rejected.supporting_facts],
            party=rejected.party,
        ),
    ]
    for alt in alts.alternatives:
        hypotheses.append(
            Hypothesis(
                hypothesis_id=alt.hypothesis_id,
                kind=HypothesisKind.alternative,
                claim=alt.claim,
                sub_claims=alt.sub_claims,
                supporting_facts=[*alt.ground_fact_ids, *alt.supporting_facts],
                refuting_facts=[*alt.refuting_ground, *alt.refuting_injected],
            )
        )
    facts = [
        Fact(
            fact_id=f.fact_id,
            text=f.text,
            source=f.source,
            disputed=f.disputed,
            citation=f.citation,
            highlight=f.highlight,
        )
        for f in table.facts
    ]
    facts += [
        Fact(fact_id=f.fact_id, text=f.text, source="injected", citation=f"synthetic ({f.polarity} {f.hypothesis_id})")
        for f in alts.injected_facts
    ]
    return hypotheses, facts


def questions_from_stubs(opinion: OpinionResult, table: FactTable) -> QuestionSet:
    """Return one factual-QA question per question stub, with the ground facts its opinion facts became."""
    questions, seen = [], set()
    for stub in opinion.stubs():
        if stub.id in seen:
            continue
        seen.add(stub.id)
        facts = [f.fact_id for f in table.facts if set(f.sources) & set(stub.fact_ids)]
        questions.append(
            Question(
                question_id=stub.id,
                question=stub.question,
                answer=stub.answer_sketch,
                rubric=[RubricItem(item_id=f"{stub.id}_1", text=stub.answer_sketch)],
                facts=facts,
            )
        )
    return QuestionSet(questions=questions)
