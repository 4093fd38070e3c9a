"""Stages `party_dags` (the plaintiff's and the defendant's hypothesis DAGs) and `ruling` (which one the court
adopted).

A party DAG is a claim with sub-claims, each listing fact ids of the canonical table. The model may only use ids
from the table: code drops unknown ids (recording each), drops sub-claims left without facts, and refuses (and
asks again) an answer where no sub-claim survives. `ruling` tags every sub-claim accepted / rejected /
not_reached and names the adopted party; code checks every sub-claim id, verifies rationale quotes against the
opinion (an unverifiable quote is cleared and recorded), and refuses a ruling that contradicts itself (the
adopted party with no accepted sub-claim, or the other party with all of its sub-claims accepted).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from lexprobe.investigation.pipeline.context import StageContext
from lexprobe.investigation.pipeline.facts import FactTable
from lexprobe.investigation.pipeline.highlight import find_quote
from lexprobe.investigation.pipeline.llm import Ask, ask_json, ask_one
from lexprobe.investigation.pipeline.opinion import Dropped, opinion_source
from lexprobe.investigation.pipeline.record import head_and_tail, joined_text
from lexprobe.investigation.pipeline.registry import stage
from lexprobe.investigation.pipeline.rules import DocCategory
from lexprobe.investigation.pipeline.templates import render_prompt

Party = Literal["plaintiff", "defendant"]
HYPOTHESIS_ID = {"plaintiff": "hp", "defendant": "hd"}


class SubClaimDraft(BaseModel):
    """One sub-claim as the model writes it."""

    label: str
    supporting_fact_ids: list[str] = Field(min_length=1, max_length=30)
    source_section: str


class PartyDagDraft(BaseModel):
    """One party's DAG as the model writes it."""

    claim: str
    sub_claims: list[SubClaimDraft] = Field(min_length=1, max_length=6)


class SubClaim(BaseModel):
    """One sub-claim of a party hypothesis, with its id."""

    sub_claim_id: str
    label: str
    supporting_facts: list[str]
    source_section: str = ""


class PartyHypothesis(BaseModel):
    """One party's account."""

    hypothesis_id: str
    party: Party
    claim: str
    sub_claims: list[SubClaim]
    brief_ids: list[str] = Field(default_factory=list)

    @property
    def supporting_facts(self) -> list[str]:
        """Every fact id under any sub-claim, first occurrence order."""
        return list(dict.fromkeys(f for s in self.sub_claims for f in s.supporting_facts))


class PartyDags(BaseModel):
    """The `party_dags` stage's output."""

    plaintiff: PartyHypothesis
    defendant: PartyHypothesis
    dropped: list[Dropped] = Field(default_factory=list)

    def of(self, party: str) -> PartyHypothesis:
        """Return the hypothesis of 'plaintiff' or 'defendant'."""
        return self.plaintiff if party == "plaintiff" else self.defendant


def repair_dag(
    draft: PartyDagDraft, party: Party, known: set[str], brief_ids: list[str]
) -> tuple[PartyHypothesis, list[Dropped]]:
    """Return the hypothesis with unknown fact ids and empty sub-claims removed, and the records of what went."""
    prefix, dropped, sub_claims = HYPOTHESIS_ID[party], [], []
    for index, group in enumerate(draft.sub_claims, start=1):
        sub_id = f"{prefix}_{index}"
        unknown = [f for f in group.supporting_fact_ids if f not in known]
        for fact_id in unknown:
            dropped.append(Dropped(item=f"{sub_id}:{fact_id}", reason="fact id not in the fact table"))
        facts = list(dict.fromkeys(f for f in group.supporting_fact_ids if f in known))
        if not facts:
            dropped.append(Dropped(item=sub_id, reason="sub-claim left without any known fact"))
            continue
        sub_claims.append(
            SubClaim(
                sub_claim_id=sub_id, label=group.label, supporting_facts=facts, source_section=group.source_section
            )
        )
    hypothesis = PartyHypothesis(
        hypothesis_id=prefix, party=party, claim=draft.claim, sub_claims=sub_claims, brief_ids=brief_ids
    )
    return hypothesis, dropped


@stage("party_dags", output=PartyDags, templates=("party_dag",))
def party_dags(ctx: StageContext) -> PartyDags:
    """Write both parties' hypothesis DAGs over the fact table. Raises StageError when one never uses known ids."""
    table: FactTable = ctx.output("ground_facts")
    known = table.ids()
    _, opinion_text = opinion_source(ctx)
    briefs = ctx.output("ingest").of(DocCategory.brief)
    budget = ctx.settings.max_input_chars // 2
    asks, brief_ids = [], {}
    for party in ("plaintiff", "defendant"):
        own = [b for b in briefs if b.party == party] or [b for b in briefs if not b.party]
        brief_ids[party] = [b.source_id for b in own]
        prompt = render_prompt(
            "party_dag",
            party=party,
            brief_text=joined_text(ctx, own, budget) if own else "(none: write the single-group fallback)",
            opinion_text=head_and_tail(opinion_text, budget),
            facts=[{"id": f.fact_id, "text": f.text} for f in table.facts],
        )
        asks.append(Ask(party, prompt))

    def check(item: str, draft: PartyDagDraft, attempt: int) -> list[str]:
        hypothesis, _ = repair_dag(draft, item, known, [])  # type: ignore[arg-type]
        return [] if hypothesis.sub_claims else ["no supporting_fact_ids are ids of the FACT TABLE"]

    drafts = ask_json(ctx, asks, PartyDagDraft, check=check)
    (plaintiff, dropped_p), (defendant, dropped_d) = (
        repair_dag(draft, party, known, brief_ids[party])  # type: ignore[arg-type]
        for draft, party in zip(drafts, ("plaintiff", "defendant"), strict=True)
    )
    return PartyDags(plaintiff=plaintiff, defendant=defendant, dropped=dropped_p + dropped_d)


class SubClaimRuling(BaseModel):
    """The court's treatment of one sub-claim."""

    sub_claim_id: str
    ruling: Literal["accepted", "rejected", "not_reached"]
    rationale_quote: str


class RulingDraft(BaseModel):
    """The model's reading of the ruling."""

    movant: Literal["plaintiff", "defendant", "both"]
    disposition: Literal["granted", "denied", "granted_in_part"]
    dispositive_question: str
    adopted_party: Party
    sub_claim_rulings: list[SubClaimRuling] = Field(max_length=12)
    summary: str


class Ruling(RulingDraft):
    """The `ruling` stage's output."""

    adopted_hypothesis: str
    rejected_hypothesis: str
    dropped: list[Dropped] = Field(default_factory=list)


def settle_ruling(draft: RulingDraft, dags: PartyDags, opinion_text: str) -> tuple[Ruling, list[str]]:
    """Return the ruling with every sub-claim covered and quotes verified, and the contradictions found."""
    ids = {s.sub_claim_id: party for party in ("plaintiff", "defendant") for s in dags.of(party).sub_claims}
    dropped, rulings = [], {}
    for entry in draft.sub_claim_rulings:
        if entry.sub_claim_id not in ids:
            dropped.append(Dropped(item=entry.sub_claim_id, reason="unknown sub-claim id"))
            continue
        if entry.rationale_quote and find_quote(entry.rationale_quote, opinion_text) is None:
            dropped.append(Dropped(item=f"{entry.sub_claim_id}.rationale_quote", reason="quote not in the opinion"))
            entry = entry.model_copy(update={"rationale_quote": ""})
        rulings.setdefault(entry.sub_claim_id, entry)
    for sub_id in ids:
        if sub_id not in rulings:
            dropped.append(Dropped(item=sub_id, reason="no ruling given; marked not_reached"))
            rulings[sub_id] = SubClaimRuling(sub_claim_id=sub_id, ruling="not_reached", rationale_quote="")
    adopted, other = draft.adopted_party, "defendant" if draft.adopted_party == "plaintiff" else "plaintiff"
    verdicts = {party: [rulings[s.sub_claim_id].ruling for s in dags.of(party).sub_claims] for party in ids.values()}
    problems = []
    if "rejected" in verdicts.get(adopted, []) and "accepted" not in verdicts.get(adopted, []):
        problems.append(f"adopted_party is {adopted} but none of {adopted}'s sub-claims is accepted")
    if verdicts.get(other) and all(v == "accepted" for v in verdicts[other]):
        problems.append(f"adopted_party is {adopted} but every sub-claim of the {other} is accepted")
    ruling = Ruling(
        **draft.model_dump(exclude={"sub_claim_rulings"}),
        sub_claim_rulings=[rulings[i] for i in ids],
        adopted_hypothesis=HYPOTHESIS_ID[adopted],
        rejected_hypothesis=HYPOTHESIS_ID[other],
        dropped=dropped,
    )
    return ruling, problems


@stage("ruling", output=Ruling, templates=("ruling",))
def ruling(ctx: StageContext) -> Ruling:
    """Tag the court's ruling onto the party DAGs. Raises StageError when no consistent ruling comes back."""
    dags: PartyDags = ctx.output("party_dags")
    table: FactTable = ctx.output("ground_facts")
    _, opinion_text = opinion_source(ctx)
    prompt = render_prompt(
        "ruling",
        opinion_text=head_and_tail(opinion_text, ctx.settings.max_input_chars),
        plaintiff=dags.plaintiff,
        defendant=dags.defendant,
        facts=[{"id": f.fact_id, "text": f.text} for f in table.facts],
    )

    def check(item: str, draft: RulingDraft, attempt: int) -> list[str]:
        return settle_ruling(draft, dags, opinion_text)[1]

    draft = ask_one(ctx, Ask("ruling", prompt), RulingDraft, check=check)
    result, _ = settle_ruling(draft, dags, opinion_text)
    ctx.log(f"  ruling: {result.disposition}; court-adopted hypothesis {result.adopted_hypothesis}")
    return result
