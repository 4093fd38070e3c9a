"""Stages `doc_plans` (specifications of the synthetic documents, by role, in coherent series) and `shard_plans`
(3-5 shard documents that together establish one pattern fact).

Counts: `BuildSettings.count(...)` resolves each role's count from the explicit setting, `docs_per_role`, or the
`size` preset (`small`, `paper`; see `context.SIZE_PRESETS`): signal, pro-alternative and refuting documents per
alternative, noise, chaff (at +chaff100) and pattern facts. The resolved counts are in the stages' input hashes.

`doc_plans` plans every role group in batches of at most `CHAFF_PER_REQUEST` specifications: `signal`,
`pro_alternative:<alt>` (the alternative's injected supporting facts), `refuting:<alt>` (its refuting facts) and
`noise` as ITEM, ITEM#2, ITEM#3, ...; chaff as `chaff:1`, `chaff:2`, ... Every batch is asked in one `ask_json`
call (the engine bounds how many requests are in flight). Each answer must hold exactly the requested number of
specifications (the schema says so); code refuses targets outside the role's list, targets on noise or chaff,
dates that are not ISO or out of order, and two near-identical titles in one batch; unknown author ids become ""
(recorded). Near-identical titles: equal after lower-casing and dropping digits and punctuation, or a rapidfuzz
ratio of at least `TITLE_SIMILARITY` on that form. A batch whose titles clash with another batch's (in batch
order) is planned once more, told the titles already taken; a spec that still clashes is dropped (a `Dropped`
record). The planner sees the case story, the entities and every merits exhibit's annotation from the `exhibits`
stage (title, doc type, date, author, mentions, and a summary where one exists) up to a character budget of one
request's chunk of source text (`reading.chunk_chars`); the prompt says how many exhibits did not fit. Spec ids
are `<role>_<nnn>`, stable for the same plan.

`shard_plans` picks up to `shard_count` facts of the adopted hypothesis whose embedding is "pattern" (then
"either") and plans their shards; code refuses a plan in which a shard states the whole fact (80% of the fact's
content words) or all shards share one doc type.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, replace
from typing import Any

from pydantic import BaseModel, Field
from rapidfuzz import fuzz, process

from lexprobe.documents.content import DocType, parse_iso
from lexprobe.investigation.environment.format import DocumentFormat, Role
from lexprobe.investigation.pipeline.context import COUNT_SETTINGS, StageContext
from lexprobe.investigation.pipeline.entities import EntityTable
from lexprobe.investigation.pipeline.facts import FactTable
from lexprobe.investigation.pipeline.hypotheses import AlternativesResult
from lexprobe.investigation.pipeline.llm import Ask, ask_json, output_schema, render_prompt, with_array_size
from lexprobe.investigation.pipeline.opinion import Dropped
from lexprobe.investigation.pipeline.reading import chunk_chars
from lexprobe.investigation.pipeline.registry import LLM_SETTINGS, stage

CHAFF_PER_REQUEST = 8  # specifications per planning request, every role
TITLE_SIMILARITY = 92  # rapidfuzz ratio (0-100) at which two normalized titles count as near-identical
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


def title_key(title: str) -> str:
    """Return the form titles are compared in: lower case, digits and punctuation dropped, spaces collapsed."""
    return " ".join(re.findall(r"[a-z]+", title.lower())) or title.lower().strip()


def similar_title(title: str, keys: list[str]) -> int | None:
    """Return the index in `keys` (title_key forms) of a title near-identical to `title`, or None."""
    if not keys:
        return None
    found = process.extractOne(title_key(title), keys, scorer=fuzz.ratio, score_cutoff=TITLE_SIMILARITY)
    return None if found is None else found[2]


def check_plan(draft: DocPlanDraft, role: Role, targets: dict[str, str]) -> list[str]:
    """Return why a role group's plan is refused (targets outside the list, targets on noise/chaff, bad dates,
    two near-identical titles)."""
    problems, keys = [], []
    for number, spec in enumerate(draft.specs, start=1):
        if role in (Role.noise, Role.chaff) and spec.target_fact:
            problems.append(f"spec {number}: {role.value} documents have no target_fact (use null)")
        elif role not in (Role.noise, Role.chaff) and spec.target_fact not in targets:
            problems.append(f"spec {number}: target_fact {spec.target_fact!r} is not one of {sorted(targets)}")
        if problem := _dates_problem(spec.date_from, spec.date_to):
            problems.append(f"spec {number}: {problem}")
        if (twin := similar_title(spec.title, keys)) is not None:
            problems.append(
                f"spec {number}: title {spec.title!r} is nearly the same as spec {twin + 1}'s; "
                "give every document a distinct title"
            )
        keys.append(title_key(spec.title))
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
    """Return the planning requests of the build, every role in batches (groups asking for no document are left
    out). Counts come from `BuildSettings.count`."""
    settings, table = ctx.settings, ctx.output("ground_facts")
    adopted = ctx.output("party_dags").of(ctx.output("ruling").adopted_party)
    alts: AlternativesResult = ctx.output("alternatives")
    injected = {f.fact_id: f.text for f in alts.injected_facts}
    signal_targets = {f: table.get(f).text for f in adopted.supporting_facts}
    groups = batched(RoleGroup("signal", Role.signal, adopted.hypothesis_id, signal_targets, settings.signal_count))
    for alt in alts.alternatives:
        supporting = {f: injected[f] for f in alt.supporting_facts}
        refuters = {f: injected[f] for f in alt.refuting_injected}
        refuters = refuters or {f: table.get(f).text for f in alt.refuting_ground}
        alt_id, pro, refuting = alt.hypothesis_id, settings.pro_alternative_count, settings.refuting_count
        groups += batched(RoleGroup(f"pro_alternative:{alt_id}", Role.pro_alternative, alt_id, supporting, pro))
        groups += batched(RoleGroup(f"refuting:{alt_id}", Role.refuting, alt_id, refuters, refuting))
    groups += batched(RoleGroup("noise", Role.noise, None, {}, settings.noise_count))
    chaff = settings.chaff_count
    for k in range(math.ceil(chaff / CHAFF_PER_REQUEST)):
        count = min(CHAFF_PER_REQUEST, chaff - k * CHAFF_PER_REQUEST)
        groups.append(RoleGroup(f"chaff:{k + 1}", Role.chaff, None, {}, count))
    return [g for g in groups if g.count > 0]


def exhibit_notes(annotations: list[Any], budget: int) -> tuple[list[dict[str, Any]], int]:
    """Return the exhibits' annotations (title, doc_type, date, author, mentions, summary where there is one) that
    fit in `budget` characters of JSON, in record order, and how many were left out."""
    notes: list[dict[str, Any]] = []
    used = 0
    for number, annotation in enumerate(annotations):
        note = {
            "title": annotation.title,
            "doc_type": annotation.doc_type,
            "date": annotation.date,
            "author": annotation.author,
            "mentions": annotation.mentions,
        }
        if summary := getattr(annotation, "summary", None):
            note["summary"] = summary
        size = len(json.dumps(note, ensure_ascii=False)) + 2
        if used + size > budget:
            return notes, len(annotations) - number
        notes.append(note)
        used += size
    return notes, 0


def _context(ctx: StageContext) -> dict:
    entities: EntityTable = ctx.output("entities")
    return {
        "story": ctx.output("opinion").story,
        "entities": [{"id": e.entity_id, "name": e.name, "kind": e.kind} for e in entities.entities],
    }


def _planner_context(ctx: StageContext) -> dict:
    exhibits, left_out = exhibit_notes(ctx.output("exhibits").exhibits, chunk_chars(ctx.settings))
    if left_out:
        ctx.log(f"  doc_plans: {left_out} exhibit annotation(s) left out of the planner's prompt (budget)")
    return _context(ctx) | {"exhibits": exhibits, "exhibits_left_out": left_out}


def _plan_prompt(group: RoleGroup, context: dict, taken_titles: list[str] | None = None) -> str:
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
        taken_titles=taken_titles or [],
        **context,
    )


def _taken_list(clashes: list[str], taken: list[str], budget: int) -> list[str]:
    """Return the titles a re-plan must not reuse: the clashing ones first, then the rest, within `budget` chars."""
    titles, used = [], 0
    for title in dict.fromkeys([*clashes, *taken]):
        used += len(title) + 4
        if used > budget:
            break
        titles.append(title)
    return titles


@stage(
    "doc_plans",
    output=DocPlan,
    templates=("doc_plan",),
    settings=(*LLM_SETTINGS, *COUNT_SETTINGS),
    version=2,
)
def doc_plans(ctx: StageContext) -> DocPlan:
    """Plan the synthetic documents of every role, all batches asked together; a batch whose titles clash with
    another batch's is planned once more, then clashing specs are dropped. Raises StageError when a batch never
    gets a valid plan."""
    groups, context = role_groups(ctx), _planner_context(ctx)
    by_item = {g.item: g for g in groups}

    def check(item: str, draft: DocPlanDraft, attempt: int) -> list[str]:
        return check_plan(draft, by_item[item].role, by_item[item].targets)

    def ask(batch: list[RoleGroup], taken: dict[str, list[str]], first: int) -> list[DocPlanDraft]:
        asks = [
            Ask(
                g.item,
                _plan_prompt(g, context, taken.get(g.item)),
                schema=with_array_size(output_schema(DocPlanDraft), "specs", g.count),
            )
            for g in batch
        ]
        drafts = ask_json(ctx, asks, DocPlanDraft, check=check, first_attempt=first)
        return [d for d in drafts if d is not None]

    drafts = dict(zip(by_item, ask(groups, {}, 0), strict=True))
    clashing = _clashing_batches(groups, drafts)
    if clashing:
        kept = [s.title for g in groups if g.item not in clashing for s in drafts[g.item].specs]
        budget = chunk_chars(ctx.settings) // 3
        taken = {item: _taken_list(clashes, kept, budget) for item, clashes in clashing.items()}
        ctx.log(f"  doc_plans: {len(clashing)} batch(es) reuse titles of other batches; planning them again")
        again = [by_item[item] for item in clashing]
        drafts |= dict(zip(clashing, ask(again, taken, ctx.settings.max_attempts), strict=True))
    plan = _collect(ctx, groups, drafts, {e["id"] for e in context["entities"]})
    ctx.log(f"  doc_plans: {len(plan.specs)} specifications in {len(groups)} batch(es); {len(plan.dropped)} dropped")
    return plan


def _clashing_batches(groups: list[RoleGroup], drafts: dict[str, DocPlanDraft]) -> dict[str, list[str]]:
    """Return, per batch whose titles clash with an earlier batch's, the earlier titles it clashes with."""
    keys: list[str] = []
    titles: list[str] = []
    clashing: dict[str, list[str]] = {}
    for group in groups:
        specs = drafts[group.item].specs
        hits = [titles[i] for s in specs if (i := similar_title(s.title, keys)) is not None]
        if hits:
            clashing[group.item] = hits
            continue
        keys += [title_key(s.title) for s in specs]
        titles += [s.title for s in specs]
    return clashing


def _collect(ctx: StageContext, groups: list[RoleGroup], drafts: dict[str, DocPlanDraft], known: set[str]) -> DocPlan:
    """Turn the batches' drafts into specs in batch order, dropping a spec whose title an earlier spec took."""
    plan, counters = DocPlan(specs=[]), dict.fromkeys(Role, 0)
    keys: list[str] = []
    for group in groups:
        for spec in drafts[group.item].specs:
            if (twin := similar_title(spec.title, keys)) is not None:
                reason = f"title nearly the same as {plan.specs[twin].title!r} ({plan.specs[twin].spec_id})"
                plan.dropped.append(Dropped(item=f"{group.item}:{spec.title}", reason=reason))
                continue
            keys.append(title_key(spec.title))
            counters[group.role] += 1
            spec_id = f"{group.role.value}_{counters[group.role]:03d}"
            author = spec.author_entity if spec.author_entity in known else ""
            if spec.author_entity and not author:
                reason = f"unknown entity id {spec.author_entity!r}"
                plan.dropped.append(Dropped(item=f"{spec_id}.author_entity", reason=reason))
            series = re.sub(r"[^a-z0-9]+", "_", spec.series.lower()).strip("_") or "series"
            planned = spec.model_dump(include={"target_fact", "format", "title", "date_from", "date_to", "brief"})
            plan.specs.append(
                DocSpec(
                    **planned,
                    spec_id=spec_id,
                    role=group.role,
                    fact_text=group.targets.get(spec.target_fact or "", ""),
                    target_hypothesis=group.hypothesis,
                    doc_type=spec.doc_type.value,
                    author_entity=author,
                    series=f"{group.item.split(':')[0].split('#')[0]}:{series}",
                )
            )
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
    """Return up to `shard_count` (id, text) facts of the adopted hypothesis to embed as patterns."""
    table: FactTable = ctx.output("ground_facts")
    adopted = ctx.output("party_dags").of(ctx.output("ruling").adopted_party)
    facts = [table.get(f) for f in adopted.supporting_facts]
    ranked = sorted(facts, key=lambda f: {"pattern": 0, "either": 1, "direct": 2}[f.embedding])
    return [(f.fact_id, f.text) for f in ranked[: ctx.settings.shard_count]]


@stage("shard_plans", output=ShardPlans, templates=("shard_plan",), settings=(*LLM_SETTINGS, "shard_count"))
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
