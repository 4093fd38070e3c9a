"""Stages `party_dags` (the plaintiff's and the defendant's hypothesis DAGs), `ruling` (which one the court
adopted, or that the ruling is split) and `alternatives` (two synthetic alternative hypotheses).

A party DAG is a claim with sub-claims, each listing fact ids of the canonical table. The model reads the party's
briefs IN FULL (a long brief in chunks sized by the model's context: one request per chunk, each returning the
groups its part argues; code merges groups with the same label, case and spacing ignored) and, instead of the raw
opinion, the opinion's verified facts and argument map (extracted from the whole opinion by stage `opinion`). The
model may only use ids from the table: code drops unknown ids (recording each), drops sub-claims left without
facts, and refuses (and asks again) an answer where no sub-claim survives.

`ruling` tags every sub-claim accepted / rejected / not_reached and says whose account the court adopted. An
opinion that fits one request is asked once; a longer one is read in chunks (map): each chunk gives the rulings on
the sub-claims it addresses, with a rationale quote, and the disposition, movant and adopted party if that part
states them. Reduce, in code: a sub-claim's ruling is the one backed by a verified quote (conflicting rulings are
recorded in `dropped` and the chunk nearer the end, where holdings are, wins); disposition, movant and adopted party
come from the last chunk that states them. Then `settle_ruling` checks every sub-claim id, verifies rationale quotes
against the FULL opinion (an unverifiable quote is cleared and recorded), and refuses a ruling that contradicts
itself (the adopted party with no accepted sub-claim, the other party with all of its sub-claims accepted, a "split"
where only one party won anything).

Split rulings: a ruling whose adopted party is "split", or a granted_in_part disposition where both parties have
accepted sub-claims, is saved as split (every sub-claim's ruling kept; `adopted_hypothesis` and
`rejected_hypothesis` are ""), never forced to a winner. Stages that need one court-adopted account call
`adopted_or_stop(ruling, stage)`, which stops the build there with the reason.

`alternatives`: two synthetic alternative hypotheses, each checked against the paper's contract: first by code
(docs/investigation.md, "What code checks"; unknown fact ids are dropped and recorded first, and an answer failing a
check is refused and asked again), then by the judge model, per alternative, as a JSON verdict (additive,
refutable, factual, distinct; any "false" refuses the answer with the judge's reasons). Every check's result is
kept in the output.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, Field

from lexprobe.documents.content import DocType
from lexprobe.investigation.pipeline.context import Ask, StageContext, StageError, ask_json, ask_one, render_prompt
from lexprobe.investigation.pipeline.entities import EntityTable
from lexprobe.investigation.pipeline.facts import OTHER_PARTY, FactTable, Party
from lexprobe.investigation.pipeline.ingest import DocCategory, SourceDocument
from lexprobe.investigation.pipeline.opinion import Dropped, OpinionResult, find_quote, opinion_document
from lexprobe.investigation.pipeline.reading import SourceRead, fitted_asks, read_source
from lexprobe.investigation.pipeline.registry import LLM_SETTINGS, stage

PARTIES: tuple[Party, Party] = ("plaintiff", "defendant")
HYPOTHESIS_ID = {"plaintiff": "hp", "defendant": "hd"}
SPLIT = "split"


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
    reads: list[SourceRead] = Field(default_factory=list)

    def of(self, party: str) -> PartyHypothesis:
        """Return the hypothesis of 'plaintiff' or 'defendant'; raises ValueError for anything else (a split
        ruling's adopted party names no hypothesis: see `adopted_or_stop`)."""
        if party not in PARTIES:
            raise ValueError(f"no party hypothesis for {party!r} (only plaintiff and defendant)")
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


def merge_dag_drafts(drafts: list[PartyDagDraft]) -> PartyDagDraft:
    """Return one DAG draft from the drafts of a brief's chunks: groups with the same label (case and spacing
    ignored) merged (fact ids united, the first non-empty source section kept), the claim of the first draft."""
    if len(drafts) == 1:
        return drafts[0]
    groups: dict[str, SubClaimDraft] = {}
    for group in (g for d in drafts for g in d.sub_claims):
        key = " ".join(group.label.split()).casefold()
        same = groups.get(key)
        if same is None:
            groups[key] = group.model_copy(deep=True)
            continue
        same.supporting_fact_ids = list(dict.fromkeys([*same.supporting_fact_ids, *group.supporting_fact_ids]))
        same.source_section = same.source_section or group.source_section
    claim = next((d.claim for d in drafts if d.claim.strip()), "")
    return PartyDagDraft.model_construct(claim=claim, sub_claims=list(groups.values()))


def _briefs_text(ctx: StageContext, briefs: list[SourceDocument]) -> tuple[str, list[SourceRead]]:
    parts, reads = [], []
    for brief in briefs:
        text, read = read_source(ctx, brief, "party_dags")
        parts.append(f"=== {brief.filename} ===\n{text}")
        reads.append(read)
    return "\n\n".join(parts), reads


def _opinion_map(opinion: OpinionResult) -> dict[str, object]:
    """Return what party_dags is told of the opinion: its verified facts and its argument map (no raw text)."""
    return {
        "facts": [{"id": f.fact_id, "text": f.text, "page": f.opinion_page} for f in opinion.facts],
        "arguments": [
            {"label": a.label, "type": a.argument_type, "branches": [b.label for b in a.branches], "note": a.note}
            for a in opinion.arguments
        ],
    }


@stage("party_dags", output=PartyDags, templates=("party_dag",), version=2)
def party_dags(ctx: StageContext) -> PartyDags:
    """Write both parties' hypothesis DAGs over the fact table, reading each party's briefs in full (in chunks when
    long). Raises StageError when one never uses known ids."""
    table: FactTable = ctx.output("ground_facts")
    known = table.ids()
    court = _opinion_map(ctx.output("opinion"))
    briefs = ctx.output("ingest").of(DocCategory.brief)
    facts = [{"id": f.fact_id, "text": f.text} for f in table.facts]
    asks: list[Ask] = []
    owners: list[Party] = []
    brief_ids: dict[str, list[str]] = {}
    reads: list[SourceRead] = []
    for party in PARTIES:
        own = [b for b in briefs if b.party == party] or [b for b in briefs if not b.party]
        brief_ids[party] = [b.source_id for b in own]
        fallback = ("(none: write the single-group fallback)", [])  # one request, no part label
        text, party_reads = _briefs_text(ctx, own) if own else fallback
        reads += [r for r in party_reads if r.source_id not in {x.source_id for x in reads}]
        fields = {"party": party, "court": court, "facts": facts}
        party_asks = fitted_asks(ctx.settings, party, text, "party_dag", "brief_text", **fields)
        asks += party_asks
        owners += [party] * len(party_asks)

    def check(item: str, draft: PartyDagDraft, attempt: int) -> list[str]:
        hypothesis, _ = repair_dag(draft, "plaintiff", known, [])
        return [] if hypothesis.sub_claims else ["no supporting_fact_ids are ids of the FACT TABLE"]

    drafts = ask_json(ctx, asks, PartyDagDraft, check=check)
    hypotheses, dropped = {}, []
    for party in PARTIES:
        merged = merge_dag_drafts([d for d, owner in zip(drafts, owners, strict=True) if owner == party and d])
        hypotheses[party], lost = repair_dag(merged, party, known, brief_ids[party])
        dropped += lost
    return PartyDags(plaintiff=hypotheses["plaintiff"], defendant=hypotheses["defendant"], dropped=dropped, reads=reads)


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
    adopted_party: Literal["plaintiff", "defendant", "split"]
    sub_claim_rulings: list[SubClaimRuling] = Field(max_length=12)
    summary: str


class RulingPartDraft(BaseModel):
    """The model's reading of one part of a long opinion: what THAT part rules ("" where it says nothing)."""

    movant: Literal["plaintiff", "defendant", "both", ""] = ""
    disposition: Literal["granted", "denied", "granted_in_part", ""] = ""
    dispositive_question: str = ""
    adopted_party: Literal["plaintiff", "defendant", "split", ""] = ""
    sub_claim_rulings: list[SubClaimRuling] = Field(default_factory=list, max_length=12)
    summary: str = ""


class Ruling(RulingDraft):
    """The `ruling` stage's output. A split ruling has adopted_party "split" and empty hypothesis ids."""

    adopted_hypothesis: str
    rejected_hypothesis: str
    dropped: list[Dropped] = Field(default_factory=list)
    chunks: int = Field(default=1, description="Requests the opinion was read in.")
    reads: list[SourceRead] = Field(default_factory=list)

    @property
    def split(self) -> bool:
        """Whether the court adopted neither party's account alone."""
        return self.adopted_party == SPLIT


def accepted_ids(ruling: RulingDraft, dags: PartyDags, party: Party) -> list[str]:
    """Return the ids of `party`'s sub-claims the ruling accepts."""
    verdicts = {r.sub_claim_id: r.ruling for r in ruling.sub_claim_rulings}
    return [s.sub_claim_id for s in dags.of(party).sub_claims if verdicts.get(s.sub_claim_id) == "accepted"]


def adopted_or_stop(ruling: Ruling, stage: str, dags: PartyDags | None = None) -> Party:
    """Return the court-adopted party; raises StageError on `stage` when the ruling is split (an investigation
    environment needs one court-adopted account). `dags` lets the message name the sub-claims accepted per party."""
    if ruling.adopted_party in PARTIES:
        return ruling.adopted_party  # type: ignore[return-value]
    accepted = [r.sub_claim_id for r in ruling.sub_claim_rulings if r.ruling == "accepted"]
    if dags is not None:
        accepted = [i for party in PARTIES for i in accepted_ids(ruling, dags, party)]
    raise StageError(
        stage,
        "ruling",
        f"the court's ruling is split: sub-claims {', '.join(accepted) or '(none)'} accepted for both parties; an "
        "investigation environment needs one court-adopted account (the split ruling is kept in the ruling stage "
        "file; use a record whose ruling adopts one party's account)",
    )


def settle_ruling(draft: RulingDraft, dags: PartyDags, opinion_text: str) -> tuple[Ruling, list[str]]:
    """Return the ruling with every sub-claim covered and quotes verified, and the contradictions found.

    A granted_in_part disposition with accepted sub-claims for both parties is split whatever the draft names.
    """
    ids = {s.sub_claim_id: party for party in PARTIES for s in dags.of(party).sub_claims}
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
    verdicts = {party: [rulings[s.sub_claim_id].ruling for s in dags.of(party).sub_claims] for party in PARTIES}
    winners = [party for party in PARTIES if "accepted" in verdicts[party]]
    adopted: str = draft.adopted_party
    if adopted != SPLIT and draft.disposition == "granted_in_part" and len(winners) == 2:
        reason = f"adopted_party {adopted} recorded as split: granted in part, sub-claims accepted for both parties"
        dropped.append(Dropped(item="adopted_party", reason=reason))
        adopted = SPLIT
    problems = []
    if adopted == SPLIT:
        if len(winners) < 2 and draft.disposition != "granted_in_part":
            only = winners[0] if winners else "neither party"
            problems.append(f"adopted_party is split but the motion was {draft.disposition} and only {only} has "
                            "accepted sub-claims: name the party whose account the court adopted")  # fmt: skip
    else:
        other = OTHER_PARTY[adopted]
        if "rejected" in verdicts[adopted] and "accepted" not in verdicts[adopted]:
            problems.append(f"adopted_party is {adopted} but none of {adopted}'s sub-claims is accepted")
        if verdicts[other] and all(v == "accepted" for v in verdicts[other]):
            problems.append(f"adopted_party is {adopted} but every sub-claim of the {other} is accepted")
    ruling = Ruling(
        **draft.model_dump(exclude={"sub_claim_rulings", "adopted_party"}),
        adopted_party=adopted,  # type: ignore[arg-type]
        sub_claim_rulings=[rulings[i] for i in ids],
        adopted_hypothesis="" if adopted == SPLIT else HYPOTHESIS_ID[adopted],
        rejected_hypothesis="" if adopted == SPLIT else HYPOTHESIS_ID[OTHER_PARTY[adopted]],
        dropped=dropped,
    )
    return ruling, problems


def merge_ruling_parts(parts: list[RulingPartDraft], opinion_text: str) -> tuple[RulingDraft, list[Dropped]]:
    """Return one ruling draft from the drafts of the opinion's chunks (reading order), and the conflicts recorded.

    A sub-claim's ruling is the one whose rationale quote is found in the opinion (else the last one given); when
    verified rulings conflict, the chunk nearer the end wins and the conflict is recorded. Movant, disposition,
    adopted party, question and summary come from the last chunk that states them. Raises ValueError when no chunk
    states the disposition, the movant or the adopted party.
    """
    dropped: list[Dropped] = []
    chosen: dict[str, tuple[int, SubClaimRuling, bool]] = {}
    for index, part in enumerate(parts, start=1):
        for entry in part.sub_claim_rulings:
            verified = bool(entry.rationale_quote) and find_quote(entry.rationale_quote, opinion_text) is not None
            before = chosen.get(entry.sub_claim_id)
            if before is not None and before[2] and not verified:
                continue
            if before is not None and before[2] and before[1].ruling != entry.ruling:
                reason = (f"part {before[0]} says {before[1].ruling}, part {index} says {entry.ruling}: both quote "
                          f"the opinion; part {index} (nearer the end, where holdings are) kept")  # fmt: skip
                dropped.append(Dropped(item=f"{entry.sub_claim_id}.ruling", reason=reason))
            chosen[entry.sub_claim_id] = (index, entry, verified)

    def last(field: str) -> str:
        return next((getattr(p, field) for p in reversed(parts) if getattr(p, field).strip()), "")

    missing = [f for f in ("movant", "disposition", "adopted_party") if not last(f)]
    if missing:
        raise ValueError(f"no part of the opinion states the {', '.join(missing)}")
    draft = RulingDraft.model_construct(
        movant=last("movant"),
        disposition=last("disposition"),
        dispositive_question=last("dispositive_question"),
        adopted_party=last("adopted_party"),
        sub_claim_rulings=[entry for _, entry, _ in chosen.values()],
        summary=last("summary"),
    )
    return draft, dropped


@stage("ruling", output=Ruling, templates=("ruling",), version=2)
def ruling(ctx: StageContext) -> Ruling:
    """Tag the court's ruling onto the party DAGs, reading the whole opinion (in chunks when long). A split ruling
    is saved as split. Raises StageError when no consistent ruling comes back."""
    dags: PartyDags = ctx.output("party_dags")
    table: FactTable = ctx.output("ground_facts")
    document, full = opinion_document(ctx)
    text, read = read_source(ctx, document, "ruling")
    fields = {
        "plaintiff": dags.plaintiff,
        "defendant": dags.defendant,
        "facts": [{"id": f.fact_id, "text": f.text} for f in table.facts],
    }
    asks = fitted_asks(ctx.settings, "ruling", text, "ruling", "opinion_text", **fields)

    def check(item: str, draft: RulingDraft, attempt: int) -> list[str]:
        return settle_ruling(draft, dags, full)[1]

    if len(asks) == 1:
        draft = ask_one(ctx, asks[0], RulingDraft, check=check)
        dropped: list[Dropped] = []
    else:
        draft, dropped = _ruling_by_parts(ctx, asks, full)
    result, problems = settle_ruling(draft, dags, full)
    if problems:
        raise StageError(
            "ruling", "ruling", "the parts of the opinion, read together, contradict: " + "; ".join(problems)
        )
    result.dropped[:0] = dropped
    result.chunks, result.reads = len(asks), [read]
    ctx.log(
        f"  ruling: {result.disposition}; "
        + ("split ruling (no single court-adopted hypothesis)" if result.split else
           f"court-adopted hypothesis {result.adopted_hypothesis}")
    )  # fmt: skip
    return result


def _ruling_by_parts(ctx: StageContext, asks: list[Ask], full: str) -> tuple[RulingDraft, list[Dropped]]:
    drafts = [d for d in ask_json(ctx, asks, RulingPartDraft) if d is not None]
    try:
        return merge_ruling_parts(drafts, full)
    except ValueError as exc:
        raise StageError("ruling", "ruling", f"{exc}; the opinion was read in {len(asks)} parts") from None


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
    ids = {"ground_fact_ids": reused, "supporting_facts": supporting, "refuting_ground": refuting_ground}
    told = item.model_dump(include={"claim", "sub_claims", "why_plausible", "why_refuted"})
    out.alternatives.append(Alternative(hypothesis_id=alt_id, refuting_injected=refuting_injected, **ids, **told))
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
            placed = {"fact_id": fact_id, "polarity": polarity, "hypothesis_id": alt_id}
            out.injected_facts.append(InjectedFact(**placed, **fact.model_dump(mode="json")))
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
