"""The environment's ground truth from the stage outputs: the hypothesis DAG with its facts, and the factual-QA
questions (used by `assemble`).

Hypotheses: the court-adopted and court-rejected party hypotheses come from `party_dags`, ordered by `ruling`'s
adopted party; each party sub-claim keeps its ground fact ids and gets the court's ruling on it and the verified
rationale quote from `ruling.sub_claim_rulings` (a sub-claim the ruling does not cover gets no ruling). A ruling
that adopts no single party (a split ruling) has no court-adopted hypothesis: `hypotheses_and_facts` raises
StageError rather than pick a winner (the build should have stopped before). The alternatives' sub-claims (labels
from the `alternatives` stage) become sub-claims `<hypothesis_id>_<k>` with no facts and no ruling.

Questions (paper Appendix D.3: the judge grades a response per rubric item): one question per question stub, its
answer the stub's answer sketch, its rubric one item per ground fact the answer rests on (the ground facts made
from the stub's opinion facts), each the fact's text made a checkable statement ("States that ...") naming the
fact in `fact_id`. A stub resting on no ground fact keeps a single item restating its sketch, marked by the item
id `<question_id>_sketch` and `fact_id` None.
"""

from __future__ import annotations

import re

from lexprobe.investigation.environment.format import (
    Fact,
    Hypothesis,
    HypothesisKind,
    Question,
    QuestionSet,
    RubricItem,
    SubClaim,
)
from lexprobe.investigation.pipeline.alternatives import AlternativesResult
from lexprobe.investigation.pipeline.context import StageContext, StageError
from lexprobe.investigation.pipeline.facts import FactTable, GroundFact
from lexprobe.investigation.pipeline.hypotheses import PartyDags, PartyHypothesis, Ruling
from lexprobe.investigation.pipeline.opinion import OpinionResult, QuestionStub

PARTIES = ("plaintiff", "defendant")
SKETCH_SUFFIX = "_sketch"


def hypotheses_and_facts(ctx: StageContext) -> tuple[list[Hypothesis], list[Fact]]:
    """Return the hypothesis DAG (party hypotheses by the ruling, then the alternatives) and every fact.

    Raises StageError when the ruling adopts neither party alone (a split ruling has no court-adopted hypothesis).
    """
    table: FactTable = ctx.output("ground_facts")
    dags: PartyDags = ctx.output("party_dags")
    ruling: Ruling = ctx.output("ruling")
    alts: AlternativesResult = ctx.output("alternatives")
    adopted_party = str(ruling.adopted_party)
    if adopted_party not in PARTIES:
        raise StageError(
            "assemble",
            "ruling",
            f"the ruling adopts {adopted_party!r}, not one party: no single court-adopted hypothesis can be "
            "assembled (a split ruling is recorded as split and never given a winner)",
        )
    adopted = dags.of(adopted_party)
    rejected = dags.of(next(p for p in PARTIES if p != adopted_party))
    hypotheses = [
        party_hypothesis(adopted, HypothesisKind.court_adopted, ruling),
        party_hypothesis(
            rejected,
            HypothesisKind.court_rejected,
            ruling,
            refuting_facts=[f for f in adopted.supporting_facts if f not in rejected.supporting_facts],
        ),
    ]
    for alt in alts.alternatives:
        hypotheses.append(
            Hypothesis(
                hypothesis_id=alt.hypothesis_id,
                kind=HypothesisKind.alternative,
                claim=alt.claim,
                sub_claims=unruled_sub_claims(alt.hypothesis_id, alt.sub_claims),
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


def party_hypothesis(
    hypothesis: PartyHypothesis, kind: HypothesisKind, ruling: Ruling, refuting_facts: list[str] | None = None
) -> Hypothesis:
    """Return a party hypothesis of the DAG: its claim, its sub-claims with the court's rulings, its facts."""
    return Hypothesis(
        hypothesis_id=hypothesis.hypothesis_id,
        kind=kind,
        claim=hypothesis.claim,
        sub_claims=party_sub_claims(hypothesis, ruling),
        supporting_facts=hypothesis.supporting_facts,
        refuting_facts=refuting_facts or [],
        party=hypothesis.party,
    )


def party_sub_claims(hypothesis: PartyHypothesis, ruling: Ruling) -> list[SubClaim]:
    """Return a party hypothesis's sub-claims with their fact ids and the court's ruling and rationale on each."""
    rulings = {r.sub_claim_id: r for r in ruling.sub_claim_rulings}
    sub_claims = []
    for sub in hypothesis.sub_claims:
        entry = rulings.get(sub.sub_claim_id)
        sub_claims.append(
            SubClaim(
                sub_claim_id=sub.sub_claim_id,
                label=sub.label,
                facts=list(sub.supporting_facts),
                ruling=entry.ruling if entry else None,
                rationale=entry.rationale_quote if entry else "",
            )
        )
    return sub_claims


def unruled_sub_claims(hypothesis_id: str, labels: list[str]) -> list[SubClaim]:
    """Return sub-claims `<hypothesis_id>_<k>` (k from 1) for labels the court never ruled on (alternatives)."""
    return [SubClaim(sub_claim_id=f"{hypothesis_id}_{k}", label=label) for k, label in enumerate(labels, start=1)]


# Sentence-initial words lower-cased after "States that" (any other first word may be a name and is kept).
_LEADING_WORDS = frozenset((
    "a", "an", "the", "on", "in", "at", "by", "during", "after", "before", "from", "between", "when", "while",
    "each", "every", "no", "all", "some", "about", "roughly", "approximately", "nearly", "over", "under", "its",
    "his", "her", "their", "this", "that", "these", "those", "it", "they", "he", "she", "there", "one", "two",
))  # fmt: skip


def checkable_statement(text: str) -> str:
    """Return a fact's text as a rubric statement: "States that <text>" (a leading function word lower-cased,
    names and other capitalised words kept)."""
    text = " ".join(text.split()).rstrip()
    first = text.split(" ", 1)[0]
    if first.lower() in _LEADING_WORDS and first[:1].isupper() and first[1:] == first[1:].lower():
        text = first.lower() + text[len(first) :]
    if not re.search(r"[.!?]$", text):
        text += "."
    return f"States that {text}"


def rubric_for(stub: QuestionStub, facts: list[GroundFact]) -> list[RubricItem]:
    """Return one rubric item per ground fact the stub rests on, or a single `_sketch` item from its answer
    sketch when it rests on none."""
    if not facts:
        sketch = " ".join(stub.answer_sketch.split())
        return [RubricItem(item_id=f"{stub.id}{SKETCH_SUFFIX}", text=f"Gives, in substance, the answer: {sketch}")]
    return [
        RubricItem(item_id=f"{stub.id}_{k}", text=checkable_statement(fact.text), fact_id=fact.fact_id)
        for k, fact in enumerate(facts, start=1)
    ]


def questions_from_stubs(opinion: OpinionResult, table: FactTable) -> QuestionSet:
    """Return one factual-QA question per question stub: the ground facts its opinion facts became, its sketch as
    the answer and one rubric item per ground fact (see the module docstring)."""
    questions, seen = [], set()
    for stub in opinion.stubs():
        if stub.id in seen:
            continue
        seen.add(stub.id)
        facts = [f for f in table.facts if set(f.sources) & set(stub.fact_ids)]
        questions.append(
            Question(
                question_id=stub.id,
                question=stub.question,
                answer=stub.answer_sketch,
                rubric=rubric_for(stub, facts),
                facts=[f.fact_id for f in facts],
            )
        )
    return QuestionSet(questions=questions)


def sketch_only(questions: QuestionSet) -> list[str]:
    """Return the ids of questions whose rubric rests on no ground fact (the `_sketch` item), for a build report."""
    return [q.question_id for q in questions.questions if any(r.item_id.endswith(SKETCH_SUFFIX) for r in q.rubric)]
