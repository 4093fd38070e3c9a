"""Stages `doc_plans` (specifications of the synthetic documents, by role, in coherent series), `shard_plans` (3-5
shard documents that together establish one pattern fact) and `generate` (write, check, deduplicate, judge and
render every planned document, in batches, resumable per document). docs/investigation.md ("Sizes", "Generation at
scale") describes them; the rules code adds:

`doc_plans`: counts come from `BuildSettings.count(...)` (in the stage's input hash). Role groups are asked in
batches of at most `CHAFF_PER_REQUEST` specifications, all in one `ask_json` call: `signal`,
`pro_alternative:<alt>` (the alternative's injected supporting facts), `refuting:<alt>` (its refuting facts) and
`noise` as ITEM, ITEM#2, ...; chaff as `chaff:1`, `chaff:2`, ... Code refuses targets outside the role's list,
targets on noise or chaff, dates that are not ISO or out of order, and near-identical titles (`similar_title`) in
one batch; unknown author ids become "" (recorded). The planner's exhibit annotations are bounded by one request's
chunk of source text (`reading.chunk_chars`). Spec ids are `<role>_<nnn>`, stable for the same plan.

`shard_plans` picks up to `shard_count` facts of the adopted hypothesis whose embedding is "pattern" (then
"either"); code refuses a plan in which a shard states the whole fact (80% of the fact's content words) or all
shards share one doc type.

`generate`: each spec goes through rounds: the generator writes a `DocumentContent` JSON; code checks it (a body of
real text; a date in the window, filled in from the window when missing; no ids, role words or exercise vocabulary);
dedup refuses a draft whose title (`similar_title`) or plain text (Jaccard similarity of word 5-gram shingles >=
`TEXT_SIMILARITY`) nearly repeats an accepted document's; the judge reads the rendered text against the
specification (a JSON verdict); an accepted document is rendered into OUT/documents/<doc_id>.<format>
(`RENDERED_DIR`) with `render_document` (deterministic: the seed comes from the build seed and the spec id). A
refused draft is recorded with its reasons and the spec regenerated with them, up to `regenerations` times; a spec
that never passes is recorded as failed and left out. Checkpoints (OUT/stages/generate/<spec_id>.json, written
atomically) hold a finished spec's outcome under a key digesting the spec, the settings the stage reads, its
templates and the writer's background; a rerun restores every spec whose checkpoint holds the current key.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import tempfile
from dataclasses import dataclass, field, replace
from datetime import timedelta
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field
from rapidfuzz import fuzz, process

from lexprobe.documents.content import DocType, DocumentContent, parse_iso
from lexprobe.documents.render import render_document
from lexprobe.investigation.environment.format import DocumentFormat, Role
from lexprobe.investigation.pipeline.context import (
    COUNT_SETTINGS,
    RENDERED_DIR,
    STAGES_DIR,
    Ask,
    StageContext,
    ask_json,
    output_schema,
    render_prompt,
    templates_digest,
    with_array_size,
)
from lexprobe.investigation.pipeline.entities import EntityTable
from lexprobe.investigation.pipeline.facts import FactTable
from lexprobe.investigation.pipeline.hypotheses import AlternativesResult
from lexprobe.investigation.pipeline.opinion import Dropped
from lexprobe.investigation.pipeline.reading import case_id, chunk_chars, neutral_doc_id
from lexprobe.investigation.pipeline.registry import LLM_SETTINGS, stage
from lexprobe.investigation.pipeline.runner import digest, write_atomic

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
    chaff = batched(RoleGroup("chaff", Role.chaff, None, {}, settings.chaff_count))
    groups += [replace(g, item=f"chaff:{k}") for k, g in enumerate(chaff, start=1)]  # chaff:1, chaff:2, ...
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


CHECKPOINT_DIR = "generate"  # OUT/stages/generate/<spec_id>.json: one checkpoint per finished spec
TEMPLATES = ("generate_document", "judge_document")
SETTINGS = (*LLM_SETTINGS, "judge", "regenerations", "seed", "case_id")
TEXT_SIMILARITY = 0.8  # Jaccard similarity of word 5-gram shingles at which two texts count as near-identical
SHINGLE_WORDS = 5
DATE_SLACK = timedelta(days=31)
MIN_BODY_CHARS = 60
_LEAKS = re.compile(
    r"\b(?:gf|op|inj|alt)_[A-Za-z0-9_]+|\bpro[_ -]alternative\b|\bchaff\b|\bhypothes[ie]s\b|\bground fact|"
    r"\binjected fact|\bsignal document|\bnoise document|\[PAGE \d+\]|\bfact_id\b|\bshard\b",
    re.I,
)


class JudgeVerdict(BaseModel):
    """The judge's verdict on one document."""

    verdict: Literal["accept", "reject"]
    reasons: list[str] = Field(max_length=5)


class Rejection(BaseModel):
    """One refused draft of one spec."""

    spec_id: str
    draft: int
    by: Literal["schema", "code", "dedup", "judge", "render"]
    reasons: list[str]


class GeneratedDoc(BaseModel):
    """An accepted, rendered synthetic document."""

    spec_id: str
    doc_id: str
    path: str = Field(description="Relative to documents/ (RENDERED_DIR) and to a level's corpus/.")
    format: DocumentFormat
    drafts: int
    seed: int
    content: DocumentContent


class FailedSpec(BaseModel):
    """A spec that never passed; it is left out of the corpus."""

    spec_id: str
    role: Role
    reasons: list[str]


class GenerationResult(BaseModel):
    """The `generate` stage's output."""

    documents: list[GeneratedDoc] = Field(default_factory=list)
    rejections: list[Rejection] = Field(default_factory=list)
    failed: list[FailedSpec] = Field(default_factory=list)


def check_document(content: DocumentContent, spec: DocSpec) -> tuple[DocumentContent, list[str]]:
    """Return the draft with doc_type and a missing date filled in from the spec, and why code refuses it."""
    content = content.model_copy(update={"doc_type": DocType(spec.doc_type), "date": content.date or spec.date_from})
    problems = []
    text = " ".join(str(v) for v in content.model_dump(mode="json", exclude={"doc_type", "date"}).values())
    if not content.body or len(" ".join(str(b.model_dump()) for b in content.body)) < MIN_BODY_CHARS:
        problems.append("the body is empty or too short for the doc_type")
    leak = _LEAKS.search(text)
    if leak:
        problems.append(f"the text contains exercise vocabulary or an internal id ({leak.group(0)!r}); remove it")
    date, start, end = parse_iso(content.date or ""), parse_iso(spec.date_from), parse_iso(spec.date_to)
    if date and start and end and not (start - DATE_SLACK <= date <= end + DATE_SLACK):
        problems.append(f"dated {content.date}, outside the window {spec.date_from} to {spec.date_to}")
    return content, problems


def spec_seed(settings_seed: int, spec_id: str) -> int:
    """Return the rendering seed of one spec: stable, and different from spec to spec."""
    return settings_seed + int(hashlib.sha1(spec_id.encode()).hexdigest()[:6], 16)


def plain_text(content: DocumentContent, seed: int) -> str:
    """Return the document as the txt renderer prints it (what the judge reads)."""
    with tempfile.TemporaryDirectory() as folder:
        return render_document(content, Path(folder) / "doc.txt", "txt", seed).read_text(encoding="utf-8")


def shingles(text: str) -> frozenset[int]:
    """Return the hashed word `SHINGLE_WORDS`-grams of `text` (lower case), the whole text when shorter."""
    words = re.findall(r"\w+", text.lower())
    size = min(SHINGLE_WORDS, len(words)) or 1
    return frozenset(hash(tuple(words[i : i + size])) for i in range(max(len(words) - size + 1, 1)))


def jaccard(a: frozenset[int], b: frozenset[int]) -> float:
    """Return the Jaccard similarity of two shingle sets (0 when both are empty)."""
    union = len(a | b)
    return len(a & b) / union if union else 0.0


@dataclass
class DedupIndex:
    """Titles and text shingles of the documents accepted (or claimed by a draft in the current round)."""

    titles: list[str] = field(default_factory=list)
    keys: list[str] = field(default_factory=list)
    texts: list[frozenset[int]] = field(default_factory=list)

    def add(self, title: str, text: str) -> int:
        """Add a document; return its position (for `remove`)."""
        self.titles.append(title)
        self.keys.append(title_key(title))
        self.texts.append(shingles(text))
        return len(self.titles) - 1

    def remove(self, position: int) -> None:
        """Forget a claimed draft that was refused later (its entry stops matching anything)."""
        self.keys[position], self.texts[position] = "\x00", frozenset()

    def clash(self, title: str, text: str) -> str | None:
        """Return why a draft duplicates an earlier document (naming its title), or None."""
        if (twin := similar_title(title, self.keys)) is not None:
            return f"its title is nearly the same as that of another document ({self.titles[twin]!r}); choose another"
        own = shingles(text)
        for position, other in enumerate(self.texts):
            if other and jaccard(own, other) >= TEXT_SIMILARITY:
                earlier = self.titles[position]
                return f"its text nearly repeats another document ({earlier!r}); write a different document"
        return None


class Checkpoint(BaseModel):
    """One finished spec, saved as OUT/stages/generate/<spec_id>.json."""

    key: str
    spec_id: str
    document: GeneratedDoc | None = None
    failed: FailedSpec | None = None
    rejections: list[Rejection] = Field(default_factory=list)


def checkpoint_path(ctx: StageContext, spec_id: str) -> Path:
    """Return where the checkpoint of `spec_id` is kept."""
    return ctx.out_dir / STAGES_DIR / CHECKPOINT_DIR / f"{spec_id}.json"


def checkpoint_key(ctx: StageContext, spec: DocSpec, background: dict) -> str:
    """Return the digest a checkpoint must hold to be reused: spec, settings read, templates, writer's background."""
    settings = {k: ctx.settings.judge_model if k == "judge" else getattr(ctx.settings, k) for k in SETTINGS}
    return digest(
        {
            "spec": spec.model_dump(mode="json"),
            "settings": settings,
            "templates": templates_digest(TEMPLATES),
            "background": background,
        }
    )


def load_checkpoint(ctx: StageContext, spec_id: str, key: str) -> Checkpoint | None:
    """Return the checkpoint of `spec_id` when it is readable and holds `key`, else None."""
    path = checkpoint_path(ctx, spec_id)
    try:
        checkpoint = Checkpoint.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError):
        return None
    return checkpoint if checkpoint.key == key and checkpoint.spec_id == spec_id else None


@stage("generate", output=GenerationResult, templates=TEMPLATES, settings=SETTINGS, version=2)
def generate(ctx: StageContext) -> GenerationResult:
    """Write every planned document, batch by batch, reusing valid checkpoints. Never raises for a document that
    fails: it is recorded and left out."""
    specs = all_specs(ctx.output("doc_plans"), ctx.output("shard_plans"))
    entities: EntityTable = ctx.output("entities")
    background = {
        "story": ctx.output("opinion").story,
        "entities": [{"id": e.entity_id, "name": e.name, "aliases": e.aliases} for e in entities.entities],
        "disputed": [f.text for f in ctx.output("ground_facts").facts][:30],
    }
    run = _Generation(ctx, {e.entity_id: e.name for e in entities.entities}, background, case_id(ctx))
    keys = {s.spec_id: checkpoint_key(ctx, s, background) for s in specs}
    todo = [s for s in specs if not run.restore(load_checkpoint(ctx, s.spec_id, keys[s.spec_id]))]
    if len(todo) < len(specs):
        ctx.log(f"  generate: {len(specs) - len(todo)} of {len(specs)} document(s) restored from checkpoints")
    size = ctx.settings.generate_batch
    batches = [todo[k : k + size] for k in range(0, len(todo), size)]
    for number, batch in enumerate(batches, start=1):
        ctx.log(f"  generate: batch {number}/{len(batches)}: {run.batch(batch, keys)}")
    order = {s.spec_id: n for n, s in enumerate(specs)}
    result = run.result
    result.documents.sort(key=lambda d: order[d.spec_id])
    result.failed.sort(key=lambda f: order[f.spec_id])
    counts = f"{len(result.documents)} accepted, {len(result.failed)} failed, {len(result.rejections)} refused"
    ctx.log(f"  generate: {counts}")
    return result


@dataclass
class _Generation:
    """The stage's state across batches: what the writer needs, the dedup index and the result so far."""

    ctx: StageContext
    names: dict[str, str]
    background: dict
    case: str
    result: GenerationResult = field(default_factory=GenerationResult)
    index: DedupIndex = field(default_factory=DedupIndex)

    def restore(self, checkpoint: Checkpoint | None) -> bool:
        """Take a checkpointed spec's outcome into the result; return False when there is none to take."""
        if checkpoint is None:
            return False
        self.result.rejections += checkpoint.rejections
        if checkpoint.document is not None:
            document = checkpoint.document
            self.result.documents.append(document)
            self.index.add(document.content.title or document.spec_id, plain_text(document.content, document.seed))
        elif checkpoint.failed is not None:
            self.result.failed.append(checkpoint.failed)
        return True

    def batch(self, specs: list[DocSpec], keys: dict[str, str]) -> str:
        """Run the draft rounds of one batch, checkpointing each spec as it finishes; return the batch's log line."""
        by_id = {s.spec_id: s for s in specs}
        feedback: dict[str, str] = {}
        rejections: dict[str, list[Rejection]] = {s.spec_id: [] for s in specs}
        pending, written, accepted = list(by_id), 0, 0
        for number in range(self.ctx.settings.regenerations + 1):
            if not pending:
                break
            written += len(pending)
            draft_round = _Round(self, number, feedback, rejections)
            for document in draft_round.judge_and_render(draft_round.write([by_id[s] for s in pending])):
                accepted += 1
                self._save(keys[document.spec_id], document.spec_id, rejections, document=document)
            pending = [s for s in pending if s in draft_round.refused]
        for spec_id in pending:
            reasons = [r for rej in rejections[spec_id] for r in rej.reasons][-3:]
            failed = FailedSpec(spec_id=spec_id, role=by_id[spec_id].role, reasons=reasons)
            self.result.failed.append(failed)
            self._save(keys[spec_id], spec_id, rejections, failed=failed)
        refused = sum(len(r) for r in rejections.values())
        return f"{written} written, {accepted} accepted, {refused} refused, {len(pending)} failed"

    def _save(self, key: str, spec_id: str, rejections: dict[str, list[Rejection]], **outcome: Any) -> None:
        checkpoint = Checkpoint(key=key, spec_id=spec_id, rejections=rejections[spec_id], **outcome)
        write_atomic(checkpoint_path(self.ctx, spec_id), checkpoint.model_dump_json(indent=1))


@dataclass
class _Round:
    """One draft round of one batch: the specs still pending, and where refusals and documents go."""

    run: _Generation
    number: int
    feedback: dict[str, str]
    rejections: dict[str, list[Rejection]]
    refused: set[str] = field(default_factory=set)
    claims: dict[str, int] = field(default_factory=dict)

    @property
    def ctx(self) -> StageContext:
        return self.run.ctx

    def refuse(self, spec_id: str, by: str, reasons: list[str]) -> None:
        rejection = Rejection(spec_id=spec_id, draft=self.number + 1, by=by, reasons=reasons)  # type: ignore[arg-type]
        self.rejections[spec_id].append(rejection)
        self.run.result.rejections.append(rejection)
        self.feedback[spec_id] = "; ".join(reasons)
        self.refused.add(spec_id)
        if spec_id in self.claims:
            self.run.index.remove(self.claims.pop(spec_id))

    def author(self, spec: DocSpec) -> str:
        return self.run.names.get(spec.author_entity, "an employee")

    def write(self, specs: list[DocSpec]) -> list[tuple[DocSpec, DocumentContent, int, str]]:
        """Ask for one draft per spec; return the drafts that pass the code checks and dedup, with seed and text."""
        asks = [
            Ask(
                s.spec_id,
                render_prompt(
                    "generate_document",
                    spec=s,
                    author=self.author(s),
                    feedback=self.feedback.get(s.spec_id, ""),
                    **self.run.background,
                ),
            )
            for s in specs
        ]
        failures: dict[str, str] = {}
        first = self.number * self.ctx.settings.max_attempts
        drafts = ask_json(self.ctx, asks, DocumentContent, give_up="none", first_attempt=first, failures=failures)
        passed = []
        for spec, draft in zip(specs, drafts, strict=True):
            if draft is None:
                self.refuse(spec.spec_id, "schema", [failures.get(spec.spec_id, "no valid document JSON")])
                continue
            content, problems = check_document(draft, spec)
            if problems:
                self.refuse(spec.spec_id, "code", problems)
                continue
            seed = spec_seed(self.ctx.settings.seed, spec.spec_id)
            text = plain_text(content, seed)
            if clash := self.run.index.clash(content.title or spec.title, text):
                self.refuse(spec.spec_id, "dedup", [clash])
                continue
            self.claims[spec.spec_id] = self.run.index.add(content.title or spec.title, text)
            passed.append((spec, content, seed, text))
        return passed

    def judge_and_render(self, drafts: list[tuple[DocSpec, DocumentContent, int, str]]) -> list[GeneratedDoc]:
        """Ask the judge about each draft; render the accepted ones into documents/ and return them."""
        asks = [
            Ask(
                f"{spec.spec_id}#{self.number + 1}",
                render_prompt("judge_document", spec=spec, author=self.author(spec), text=self.ctx.clip(text)),
                role="judge",
            )
            for spec, _, _, text in drafts
        ]
        failures: dict[str, str] = {}
        first = self.number * self.ctx.settings.max_attempts
        verdicts = ask_json(self.ctx, asks, JudgeVerdict, give_up="none", first_attempt=first, failures=failures)
        documents = []
        for (spec, content, seed, _), ask, verdict in zip(drafts, asks, verdicts, strict=True):
            if verdict is None:
                self.refuse(spec.spec_id, "judge", [f"the judge gave no valid verdict: {failures.get(ask.item, '')}"])
            elif verdict.verdict == "reject":
                self.refuse(spec.spec_id, "judge", verdict.reasons or ["rejected without a reason"])
            elif document := self.render(spec, content, seed):
                documents.append(document)
        return documents

    def render(self, spec: DocSpec, content: DocumentContent, seed: int) -> GeneratedDoc | None:
        """Render an accepted draft into documents/; return it, or None (refused) when the renderer fails."""
        doc_id = neutral_doc_id(self.run.case, spec.spec_id)
        relative = f"{doc_id}.{spec.format}"
        try:
            render_document(content, self.ctx.out_dir / RENDERED_DIR / relative, spec.format, seed)
        except Exception as exc:  # a renderer failure refuses the draft like any other problem
            self.refuse(spec.spec_id, "render", [f"{type(exc).__name__}: {exc}"])
            return None
        self.claims.pop(spec.spec_id, None)
        document = GeneratedDoc(
            spec_id=spec.spec_id,
            doc_id=doc_id,
            path=relative,
            format=spec.format,
            drafts=self.number + 1,
            seed=seed,
            content=content,
        )
        self.run.result.documents.append(document)
        return document
