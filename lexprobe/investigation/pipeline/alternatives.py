"""Stage `alternatives`: two synthetic alternative hypotheses, each checked against the paper's contract.

Code checks what code can (answers failing a check are refused and asked again):
- at least 3 reused ground facts that exist in the table (unknown ids are dropped and recorded first);
- injected supporting facts are new: none restates a table fact (normalized text equality);
- at least one refuter: an injected refuting fact or a known table fact id;
- no table fact is both reused as support and listed as a refuter, and no injected fact both supports and refutes;
- the claim does not restate a party's claim, and the two alternatives are not near-duplicates.
The judge model then answers, per alternative, whether it is additive, refutable, factual and distinct (a JSON
verdict); any "false" refuses the answer with the judge's reasons. Every check's result is kept in the output.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, Field

from lexprobe.documents.content import DocType
from lexprobe.investigation.pipeline.context import StageContext
from lexprobe.investigation.pipeline.entities import EntityTable
from lexprobe.investigation.pipeline.facts import FactTable
from lexprobe.investigation.pipeline.hypotheses import PartyDags, Ruling, adopted_or_stop
from lexprobe.investigation.pipeline.llm import Ask, ask_one, render_prompt
from lexprobe.investigation.pipeline.opinion import Dropped, OpinionResult
from lexprobe.investigation.pipeline.registry import LLM_SETTINGS, stage

Embedding = Literal["direct", "pattern", "either"]


class InjectedFactDraft(BaseModel):
    """A new fact an alternative brings into the world."""

    text: str
    embedding: Embedding
    doc_type_hint: DocType
    entity_hint: str


class AlternativeDraft(BaseModel):
    """One alternative as the model writes it."""

    claim: str
    sub_claims: list[str] = Field(max_length=5)
    ground_fact_ids: list[str] = Field(min_length=3, max_length=12)
    injected_supporting: list[InjectedFactDraft] = Field(min_length=1, max_length=5)
    injected_refuting: list[InjectedFactDraft] = Field(max_length=4)
    ground_refuting_fact_ids: list[str] = Field(max_length=6)
    why_plausible: str
    why_refuted: str


class AlternativesDraft(BaseModel):
    """Exactly two alternatives."""

    alternatives: list[AlternativeDraft] = Field(min_length=2, max_length=2)


class AlternativeVerdict(BaseModel):
    """The judge's verdict on one alternative."""

    additive: bool
    refutable: bool
    factual: bool
    distinct: bool
    reasons: list[str] = Field(max_length=6)


class InjectedFact(BaseModel):
    """An injected fact with its id: it supports or refutes one alternative."""

    fact_id: str
    text: str
    polarity: Literal["supports", "refutes"]
    hypothesis_id: str
    embedding: Embedding = "either"
    doc_type_hint: str = "other"
    entity_hint: str = ""


class Alternative(BaseModel):
    """One checked alternative hypothesis."""

    hypothesis_id: str
    claim: str
    sub_claims: list[str] = Field(default_factory=list)
    ground_fact_ids: list[str]
    supporting_facts: list[str] = Field(description="Injected supporting fact ids.")
    refuting_ground: list[str] = Field(default_factory=list)
    refuting_injected: list[str] = Field(default_factory=list)
    why_plausible: str = ""
    why_refuted: str = ""


class ContractCheck(BaseModel):
    """One contract point checked on one alternative of the accepted answer."""

    hypothesis_id: str
    check: str
    passed: bool
    by: Literal["code", "judge"]
    detail: str = ""


class AlternativesResult(BaseModel):
    """The `alternatives` stage's output."""

    alternatives: list[Alternative]
    injected_facts: list[InjectedFact]
    checks: list[ContractCheck] = Field(default_factory=list)
    dropped: list[Dropped] = Field(default_factory=list)
    refusals: list[Dropped] = Field(default_factory=list, description="Earlier answers refused, and why.")


def _norm(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))


def _similar(a: str, b: str, threshold: float = 0.8) -> bool:
    left, right = set(_norm(a).split()), set(_norm(b).split())
    return bool(left and right) and len(left & right) / len(left | right) >= threshold


def _settle_one(
    index: int, item: AlternativeDraft, table: FactTable, dags: PartyDags, out: AlternativesResult
) -> list[str]:
    """Add alternative number `index` (ids, injected facts, code checks) to `out`; return its violations."""
    alt_id, known, problems = f"alt_{index}", table.ids(), []
    ground_texts = {_norm(f.text): f.fact_id for f in table.facts}
    for fact_id in [*item.ground_fact_ids, *item.ground_refuting_fact_ids]:
        if fact_id not in known:
            out.dropped.append(Dropped(item=f"{alt_id}:{fact_id}", reason="fact id not in the fact table"))
    reused = list(dict.fromkeys(f for f in item.ground_fact_ids if f in known))
    refuting_ground = list(dict.fromkeys(f for f in item.ground_refuting_fact_ids if f in known))
    supporting, refuting_injected = _inject(alt_id, item, out)
    failures: dict[str, list[str]] = {
        "reuses_3_ground_facts": [] if len(reused) >= 3 else [f"reuses {len(reused)} known fact id(s); 3 needed"],
        "supporting_facts_are_new": [],
        "has_refuter": [] if refuting_injected or refuting_ground else ["no refuting fact (injected or table id)"],
        "support_and_refuters_disjoint": [
            f"facts {sorted(set(reused) & set(refuting_ground))} are both reused as support and refuters"
        ]
        if set(reused) & set(refuting_ground)
        else [],
        "distinct_from_parties": [
            f"the claim restates the {party}'s claim"
            for party in ("plaintiff", "defendant")
            if _similar(item.claim, dags.of(party).claim)
        ],
    }
    for fact in item.injected_supporting:
        restated = ground_texts.get(_norm(fact.text))
        if restated or any(_similar(fact.text, r.text, 0.95) for r in item.injected_refuting):
            what = f"restates table fact {restated}" if restated else "is also given as a refuting fact"
            failures["supporting_facts_are_new"].append(f"injected supporting fact {fact.text[:80]!r} {what}")
    for check, details in failures.items():
        out.checks.append(
            ContractCheck(hypothesis_id=alt_id, check=check, passed=not details, by="code", detail="; ".join(details))
        )
        problems.extend(f"{alt_id}: {detail}" for detail in details)
    out.alternatives.append(
        Alternative(
            hypothesis_id=alt_id,
            claim=item.claim,
            sub_claims=item.sub_claims,
            ground_fact_ids=reused,
            supporting_facts=supporting,
            refuting_ground=refuting_ground,
            refuting_injected=refuting_injected,
            why_plausible=item.why_plausible,
            why_refuted=item.why_refuted,
        )
    )
    return problems


def _inject(alt_id: str, item: AlternativeDraft, out: AlternativesResult) -> tuple[list[str], list[str]]:
    """Add an alternative's injected facts to `out` under new ids; return the supporting and the refuting ids."""
    supporting = [f"inj_{alt_id}_s{n}" for n, _ in enumerate(item.injected_supporting, start=1)]
    refuting_injected = [f"inj_{alt_id}_r{n}" for n, _ in enumerate(item.injected_refuting, start=1)]
    for ids, facts, polarity in (
        (supporting, item.injected_supporting, "supports"),
        (refuting_injected, item.injected_refuting, "refutes"),
    ):
        for fact_id, fact in zip(ids, facts, strict=True):
            out.injected_facts.append(
                InjectedFact(
                    fact_id=fact_id,
                    text=fact.text,
                    polarity=polarity,
                    hypothesis_id=alt_id,
                    embedding=fact.embedding,
                    doc_type_hint=fact.doc_type_hint.value,
                    entity_hint=fact.entity_hint,
                )
            )
    return supporting, refuting_injected


def settle_alternatives(
    draft: AlternativesDraft, table: FactTable, dags: PartyDags
) -> tuple[AlternativesResult, list[str]]:
    """Return the alternatives with ids and unknown fact ids dropped, and the contract violations found."""
    result, problems = AlternativesResult(alternatives=[], injected_facts=[]), []
    for index, item in enumerate(draft.alternatives, start=1):
        problems.extend(_settle_one(index, item, table, dags, result))
    if len(draft.alternatives) == 2 and _similar(draft.alternatives[0].claim, draft.alternatives[1].claim):
        problems.append("the two alternatives are near-duplicates; explore different angles")
    return result, problems


@stage(
    "alternatives",
    output=AlternativesResult,
    settings=(*LLM_SETTINGS, "judge"),
    templates=("alternatives", "alternative_judge"),
)
def alternatives(ctx: StageContext) -> AlternativesResult:
    """Generate and check two alternatives. Raises StageError when no answer meets the contract."""
    table: FactTable = ctx.output("ground_facts")
    dags: PartyDags = ctx.output("party_dags")
    ruling: Ruling = ctx.output("ruling")
    adopted_or_stop(ruling, "alternatives", dags)  # a split ruling has no court-adopted account to build around
    entity_table: EntityTable = ctx.output("entities")
    opinion: OpinionResult = ctx.output("opinion")
    facts = [{"id": f.fact_id, "text": f.text} for f in table.facts]
    prompt = render_prompt(
        "alternatives",
        story=opinion.story,
        ruling={"disposition": ruling.disposition, "adopted": ruling.adopted_party, "summary": ruling.summary},
        plaintiff=dags.plaintiff,
        defendant=dags.defendant,
        entities=[{"id": e.entity_id, "name": e.name, "kind": e.kind} for e in entity_table.entities],
        facts=facts,
    )
    refusals: list[Dropped] = []
    verdicts: dict[int, list[ContractCheck]] = {}

    def check(item: str, draft: AlternativesDraft, attempt: int) -> list[str]:
        result, problems = settle_alternatives(draft, table, dags)
        if not problems:
            problems, verdicts[attempt] = judge_alternatives(ctx, result, dags, facts, attempt)
        refusals.extend(Dropped(item=f"attempt {attempt + 1}", reason=p) for p in problems)
        return problems

    draft = ask_one(ctx, Ask("alternatives", prompt), AlternativesDraft, check=check)
    result, _ = settle_alternatives(draft, table, dags)
    result.checks.extend(verdicts[max(verdicts)])
    result.refusals = refusals
    return result


def judge_alternatives(
    ctx: StageContext, result: AlternativesResult, dags: PartyDags, facts: list[dict], attempt: int
) -> tuple[list[str], list[ContractCheck]]:
    """Ask the judge about each alternative; return the problems it found and its checks."""
    problems, checks = [], []
    for alternative in result.alternatives:
        injected = [f for f in result.injected_facts if f.hypothesis_id == alternative.hypothesis_id]
        shown = alternative.model_dump() | {"injected_facts": [f.model_dump() for f in injected]}
        prompt = render_prompt(
            "alternative_judge",
            alternative=shown,
            plaintiff_claim=dags.plaintiff.claim,
            defendant_claim=dags.defendant.claim,
            facts=facts,
        )
        item = f"{alternative.hypothesis_id}@{attempt}"
        verdict = ask_one(ctx, Ask(item, prompt, role="judge"), AlternativeVerdict)
        reasons = "; ".join(verdict.reasons) or "no reason given"
        for name in ("additive", "refutable", "factual", "distinct"):
            passed = getattr(verdict, name)
            detail = "" if passed else reasons
            checks.append(
                ContractCheck(
                    hypothesis_id=alternative.hypothesis_id, check=name, passed=passed, by="judge", detail=detail
                )
            )
            if not passed:
                problems.append(f"{alternative.hypothesis_id}: the judge finds it not {name}: {reasons}")
    return problems, checks
