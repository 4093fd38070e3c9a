"""Stages `doc_plans` (specifications of the synthetic documents, by role, in coherent series) and `shard_plans`
(3-5 shard documents that together establish one pattern fact).

`doc_plans` asks once per role group: `signal` (facts of the court-adopted hypothesis), `pro_alternative:<alt>`
(the alternative's injected supporting facts), `refuting:<alt>` (its refuting facts), `noise` (on-topic, no
target) and `chaff:<k>` (off-topic business records, 8 per request). Each answer must hold exactly the requested
number of specifications (the schema says so); code refuses targets outside the role's list, targets on noise or
chaff, and dates that are not ISO or out of order; unknown author ids become "" (recorded). Spec ids are
`<role>_<nnn>`, stable for the same plan.

`shard_plans` picks up to `shard_facts` facts of the adopted hypothesis whose embedding is "pattern" (then
"either") and plans their shards; code refuses a plan in which a shard states the whole fact (80% of the fact's
content words) or all shards share one doc type.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace

from pydantic import BaseModel, Field

from lexprobe.documents.content import DocType, parse_iso
from lexprobe.investigation.environment import DocumentFormat, Role
from lexprobe.investigation.pipeline.alternatives import AlternativesResult
from lexprobe.investigation.pipeline.context import StageContext
from lexprobe.investigation.pipeline.entities import EntityTable
from lexprobe.investigation.pipeline.facts import FactTable
from lexprobe.investigation.pipeline.llm import Ask, ask_json, output_schema, with_array_size
from lexprobe.investigation.pipeline.opinion import Dropped
from lexprobe.investigation.pipeline.registry import LLM_SETTINGS, stage
from lexprobe.investigation.pipeline.templates import render_prompt

CHAFF_PER_REQUEST = 8
ROLE_RULES = {
    Role.signal: "Each document lets a careful reader verify its target fact, which belongs to the account the "
    "court adopted. The fact must be there for a reader who looks, not announced.",
    Role.pro_alternative: "Each document supports the alternative account below by carrying one of its injected "
    "supporting facts; it must look like ordinary paperwork, not like an argument.",
    Role.refuting: "Each document carries a fact that defeats the alternative account below, clearly enough that an "
    "investigator who reads it can drop that account.",
    Role.noise: "Each document belongs to the world of the case (same people, organizations and period) but bears "
    "on none of the disputed facts: routine work, scheduling, unrelated projects.",
    Role.chaff: "Each document is an off-topic, realistic business record of one of the organizations (invoices, "
    "HR notices, IT tickets, newsletters, meeting logistics) that has nothing to do with the dispute.",
}


class DocSpecDraft(BaseModel):
    """One document specification as the model writes it."""

    series: str
    doc_type: DocType
    format: DocumentFormat
    title: str
    author_entity: str
    date_from: str
    date_to: str
    target_fact: str | None
    brief: str


class DocPlanDraft(BaseModel):
    """The specifications of one role group."""

    specs: list[DocSpecDraft] = Field(min_length=1, max_length=CHAFF_PER_REQUEST)


class DocSpec(BaseModel):
    """One synthetic document to write."""

    spec_id: str
    role: Role
    target_fact: str | None = None
    fact_text: str = ""
    target_hypothesis: str | None = None
    doc_type: str
    format: DocumentFormat
    title: str
    author_entity: str = ""
    date_from: str
    date_to: str
    series: str
    brief: str = ""
    shard_text: str | None = Field(default=None, description="For a shard: the partial evidence it carries.")


class DocPlan(BaseModel):
    """The `doc_plans` stage's output."""

    specs: list[DocSpec]
    dropped: list[Dropped] = Field(default_factory=list)


def _dates_problem(date_from: str, date_to: str) -> str | None:
    start, end = parse_iso(date_from), parse_iso(date_to)
    if start is None or end is None:
        return f"dates must be YYYY-MM-DD, got {date_from!r} / {date_to!r}"
    return None if start <= end else f"date_from {date_from} is after date_to {date_to}"


def check_plan(draft: DocPlanDraft, role: Role, targets: dict[str, str]) -> list[str]:
    """Return why a role group's plan is refused (targets outside the list, targets on noise/chaff, bad dates)."""
    problems = []
    for number, spec in enumerate(draft.specs, start=1):
        if role in (Role.noise, Role.chaff) and spec.target_fact:
            problems.append(f"spec {number}: {role.value} documents have no target_fact (use null)")
        elif role not in (Role.noise, Role.chaff) and spec.target_fact not in targets:
            problems.append(f"spec {number}: target_fact {spec.target_fact!r} is not one of {sorted(targets)}")
        if problem := _dates_problem(spec.date_from, spec.date_to):
            problems.append(f"spec {number}: {problem}")
    return problems


@dataclass(frozen=True)
class RoleGroup:
    """One planning request: a role, the hypothesis it serves, the facts it may target and how many documents."""

    item: str
    role: Role
    hypothesis: str | None
    targets: dict[str, str]
    count: int


def batched(group: RoleGroup) -> list[RoleGroup]:
    """Split a role group into planning requests of at most `CHAFF_PER_REQUEST` documents (the plan schema's cap).

    The first request keeps the group's item name, so builds of up to that many documents per role resume from
    their stored plans; later ones are `ITEM#2`, `ITEM#3`, ... Every request sees the same facts to target."""
    parts = max(math.ceil(group.count / CHAFF_PER_REQUEST), 1)
    return [
        replace(
            group,
            item=group.item if k == 0 else f"{group.item}#{k + 1}",
            count=min(CHAFF_PER_REQUEST, group.count - k * CHAFF_PER_REQUEST),
        )
        for k in range(parts)
    ]


def role_groups(ctx: StageContext) -> list[RoleGroup]:
    """Return the planning requests of the build (groups asking for no document are left out)."""
    settings, table = ctx.settings, ctx.output("ground_facts")
    adopted = ctx.output("party_dags").of(ctx.output("ruling").adopted_party)
    alts: AlternativesResult = ctx.output("alternatives")
    injected = {f.fact_id: f.text for f in alts.injected_facts}
    per_role = settings.docs_per_role
    signal_targets = {f: table.get(f).text for f in adopted.supporting_facts}
    groups = batched(RoleGroup("signal", Role.signal, adopted.hypothesis_id, signal_targets, per_role))
    for alt in alts.alternatives:
        supporting = {f: injected[f] for f in alt.supporting_facts}
        refuters = {f: injected[f] for f in alt.refuting_injected}
        refuters = refuters or {f: table.get(f).text for f in alt.refuting_ground}
        alt_id = alt.hypothesis_id
        groups += batched(RoleGroup(f"pro_alternative:{alt_id}", Role.pro_alternative, alt_id, supporting, per_role))
        groups += batched(RoleGroup(f"refuting:{alt_id}", Role.refuting, alt_id, refuters, per_role))
    groups += batched(RoleGroup("noise", Role.noise, None, {}, per_role))
    for k in range(math.ceil(settings.chaff_docs / CHAFF_PER_REQUEST)):
        count = min(CHAFF_PER_REQUEST, settings.chaff_docs - k * CHAFF_PER_REQUEST)
        groups.append(RoleGroup(f"chaff:{k + 1}", Role.chaff, None, {}, count))
    return [g for g in groups if g.count > 0]


def _context(ctx: StageContext) -> dict:
    entities: EntityTable = ctx.output("entities")
    ingest = ctx.output("ingest")
    exhibits = [{"file": d.filename, "start": ctx.text_of(d.source_id)[:300]} for d in ingest.corpus_documents[:12]]
    return {
        "story": ctx.output("opinion").story,
        "entities": [{"id": e.entity_id, "name": e.name, "kind": e.kind} for e in entities.entities],
        "exhibits": exhibits,
    }


def _plan_prompt(group: RoleGroup, context: dict) -> str:
    untargeted = group.role in (Role.noise, Role.chaff)
    return render_prompt(
        "doc_plan",
        count=group.count,
        role=group.role.value,
        role_rules=ROLE_RULES[group.role],
        target_rule="null (this role targets no fact)"
        if untargeted
        else "the id of the fact the document carries, from the list below",
        targets=[{"id": k, "text": v} for k, v in group.targets.items()],
        **context,
    )


@stage("doc_plans", output=DocPlan, templates=("doc_plan",), settings=(*LLM_SETTINGS, "docs_per_role", "chaff_docs"))
def doc_plans(ctx: StageContext) -> DocPlan:
    """Plan the synthetic documents of every role. Raises StageError when a group never gets a valid plan."""
    groups, context = role_groups(ctx), _context(ctx)
    by_item = {g.item: g for g in groups}
    known_entities = {e["id"] for e in context["entities"]}
    asks = [
        Ask(g.item, _plan_prompt(g, context), schema=with_array_size(output_schema(DocPlanDraft), "specs", g.count))
        for g in groups
    ]

    def check(item: str, draft: DocPlanDraft, attempt: int) -> list[str]:
        return check_plan(draft, by_item[item].role, by_item[item].targets)

    plan, counters = DocPlan(specs=[]), dict.fromkeys(Role, 0)
    for group, draft in zip(groups, ask_json(ctx, asks, DocPlanDraft, check=check), strict=True):
        assert draft is not None
        for spec in draft.specs:
            counters[group.role] += 1
            spec_id = f"{group.role.value}_{counters[group.role]:03d}"
            author = spec.author_entity if spec.author_entity in known_entities else ""
            if spec.author_entity and not author:
                reason = f"unknown entity id {spec.author_entity!r}"
                plan.dropped.append(Dropped(item=f"{spec_id}.author_entity", reason=reason))
            series = re.sub(r"[^a-z0-9]+", "_", spec.series.lower()).strip("_") or "series"
            plan.specs.append(
                DocSpec(
                    spec_id=spec_id,
                    role=group.role,
                    target_fact=spec.target_fact,
                    fact_text=group.targets.get(spec.target_fact or "", ""),
                    target_hypothesis=group.hypothesis,
                    doc_type=spec.doc_type.value,
                    format=spec.format,
                    title=spec.title,
                    author_entity=author,
                    date_from=spec.date_from,
                    date_to=spec.date_to,
                    series=f"{group.item.split(':')[0].split('#')[0]}:{series}",
                    brief=spec.brief,
                )
            )
    ctx.log(f"  doc_plans: {len(plan.specs)} specifications")
    return plan


class ShardDraft(BaseModel):
    """One shard as the model writes it."""

    shard_text: str
    doc_type: DocType
    format: DocumentFormat
    author_entity: str
    date: str
    instructions: str


class ShardPlanDraft(BaseModel):
    """A 3-5 shard plan for one fact."""

    synthesis_check: str
    shards: list[ShardDraft] = Field(min_length=3, max_length=5)


class ShardPlan(BaseModel):
    """One fact's shard plan: its shards are signal document specifications of one series."""

    plan_id: str
    fact_id: str
    fact_text: str
    synthesis_check: str
    specs: list[DocSpec]


class ShardPlans(BaseModel):
    """The `shard_plans` stage's output."""

    plans: list[ShardPlan] = Field(default_factory=list)
    dropped: list[Dropped] = Field(default_factory=list)


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if len(w) > 3}


def check_shards(draft: ShardPlanDraft, fact_text: str) -> list[str]:
    """Return why a shard plan is refused: a shard that states the whole fact, one doc type only, bad dates."""
    problems, fact_words = [], _words(fact_text)
    for number, shard in enumerate(draft.shards, start=1):
        if fact_words and len(_words(shard.shard_text) & fact_words) >= 0.8 * len(fact_words):
            problems.append(f"shard {number} states the whole fact; give it only a partial piece")
        if parse_iso(shard.date) is None:
            problems.append(f"shard {number}: date must be YYYY-MM-DD, got {shard.date!r}")
    if len({s.doc_type for s in draft.shards}) < 2:
        problems.append("all shards have the same doc_type; use at least two")
    return problems


def pattern_facts(ctx: StageContext) -> list[tuple[str, str]]:
    """Return up to `shard_facts` (id, text) facts of the adopted hypothesis to embed as patterns."""
    table: FactTable = ctx.output("ground_facts")
    adopted = ctx.output("party_dags").of(ctx.output("ruling").adopted_party)
    facts = [table.get(f) for f in adopted.supporting_facts]
    ranked = sorted(facts, key=lambda f: {"pattern": 0, "either": 1, "direct": 2}[f.embedding])
    return [(f.fact_id, f.text) for f in ranked[: ctx.settings.shard_facts]]


@stage("shard_plans", output=ShardPlans, templates=("shard_plan",), settings=(*LLM_SETTINGS, "shard_facts"))
def shard_plans(ctx: StageContext) -> ShardPlans:
    """Plan shard documents for the pattern facts. Raises StageError when a plan never passes its checks."""
    context, ruling = _context(ctx), ctx.output("ruling")
    known_entities = {e["id"] for e in context["entities"]}
    facts = pattern_facts(ctx)
    asks = [
        Ask(fact_id, render_prompt("shard_plan", fact_text=text, story=context["story"], entities=context["entities"]))
        for fact_id, text in facts
    ]
    texts = dict(facts)
    drafts = ask_json(ctx, asks, ShardPlanDraft, check=lambda item, draft, _: check_shards(draft, texts[item]))
    result = ShardPlans()
    for (fact_id, text), draft in zip(facts, drafts, strict=True):
        assert draft is not None
        plan_id = f"shards:{fact_id}"
        specs = []
        for number, shard in enumerate(draft.shards, start=1):
            author = shard.author_entity if shard.author_entity in known_entities else ""
            specs.append(
                DocSpec(
                    spec_id=f"shard_{fact_id}_{number}",
                    role=Role.signal,
                    target_fact=fact_id,
                    fact_text=text,
                    target_hypothesis=ruling.adopted_hypothesis,
                    doc_type=shard.doc_type.value,
                    format=shard.format,
                    title=shard.instructions[:160],
                    author_entity=author,
                    date_from=shard.date,
                    date_to=shard.date,
                    series=plan_id,
                    brief=shard.instructions,
                    shard_text=shard.shard_text,
                )
            )
        plan = ShardPlan(
            plan_id=plan_id, fact_id=fact_id, fact_text=text, synthesis_check=draft.synthesis_check, specs=specs
        )
        result.plans.append(plan)
    return result


def all_specs(plan: DocPlan, shards: ShardPlans) -> list[DocSpec]:
    """Return every document specification of the build: the role plans, then the shards."""
    return [*plan.specs, *(spec for p in shards.plans for spec in p.specs)]
