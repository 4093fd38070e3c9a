"""Stages `entities` (who and what recurs across the record, disambiguated into ids with aliases) and `exhibits`
(doc type, date, author and mentioned entities of each merits exhibit).

`entities` asks for the names in each merits exhibit and in the opinion and statements, then asks once to group
all names into entities `e_<key>`. Code makes the grouping complete: a name no entity claims becomes its own
entity, a name claimed twice stays with the first; both are recorded. `exhibits` annotates each corpus exhibit;
code keeps only known entity ids and ISO dates (the rest is dropped and recorded) and adds every entity whose name
or alias occurs in the exhibit's text.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, Field

from lexprobe.documents.content import DocType, parse_iso
from lexprobe.investigation.environment import Entity
from lexprobe.investigation.pipeline.context import StageContext
from lexprobe.investigation.pipeline.ingest import IngestResult
from lexprobe.investigation.pipeline.llm import Ask, ask_json, ask_one
from lexprobe.investigation.pipeline.opinion import Dropped, snake_id
from lexprobe.investigation.pipeline.registry import stage
from lexprobe.investigation.pipeline.rules import DocCategory
from lexprobe.investigation.pipeline.templates import render_prompt

EntityKind = Literal["person", "organization", "instrument", "artifact", "place", "other"]


class Mention(BaseModel):
    """A name as one document writes it."""

    name: str
    kind: EntityKind
    context: str


class MentionsDraft(BaseModel):
    """The names of one document."""

    mentions: list[Mention] = Field(max_length=40)


class EntityDraft(BaseModel):
    """One entity of the merged list."""

    key: str
    name: str
    kind: EntityKind
    aliases: list[str] = Field(max_length=12)
    description: str


class EntitiesDraft(BaseModel):
    """The merged entity list."""

    entities: list[EntityDraft] = Field(max_length=80)


class EntityTable(BaseModel):
    """The `entities` stage's output."""

    entities: list[Entity]
    mentions: dict[str, list[str]] = Field(default_factory=dict, description="source id -> entity ids")
    dropped: list[Dropped] = Field(default_factory=list)

    def ids(self) -> set[str]:
        """Return every entity id."""
        return {e.entity_id for e in self.entities}

    def found_in(self, text: str) -> list[str]:
        """Return the ids of the entities whose name or an alias occurs in `text` (whole words, any case)."""
        found = []
        for entity in self.entities:
            names = [entity.name, *entity.aliases]
            if any(len(n) > 2 and re.search(rf"(?<!\w){re.escape(n)}(?!\w)", text, re.I) for n in names):
                found.append(entity.entity_id)
        return found


def merge_entities(draft: EntitiesDraft, names: dict[str, tuple[str, list[str]]]) -> EntityTable:
    """Return the entity table for the collected `names` (name -> (kind, source ids)), completed by code."""
    entities, dropped, owner, taken = [], [], {}, set()
    for item in draft.entities:
        entity_id = snake_id("e_", item.key, taken).lower()
        claimed = []
        for name in dict.fromkeys([item.name, *item.aliases]):
            if name in owner:
                dropped.append(Dropped(item=f"{entity_id}:{name}", reason=f"name already belongs to {owner[name]}"))
                continue
            owner[name] = entity_id
            claimed.append(name)
        if not claimed:
            dropped.append(Dropped(item=entity_id, reason="every name of the entity belongs to another"))
            continue
        entities.append(
            Entity(
                entity_id=entity_id, name=claimed[0], kind=item.kind, aliases=claimed[1:], description=item.description
            )
        )
    for name, (kind, _) in names.items():
        if name not in owner:
            entity_id = snake_id("e_", name, taken).lower()
            owner[name] = entity_id
            entities.append(Entity(entity_id=entity_id, name=name, kind=kind))  # type: ignore[arg-type]
            dropped.append(Dropped(item=name, reason=f"no entity claimed the name; added as {entity_id}"))
    mentions: dict[str, list[str]] = {}
    for name, (_, sources) in names.items():
        for source in sources:
            mentions.setdefault(source, [])
            if owner[name] not in mentions[source]:
                mentions[source].append(owner[name])
    return EntityTable(entities=entities, mentions=mentions, dropped=dropped)


@stage("entities", output=EntityTable, templates=("entity_mentions", "entity_merge"))
def entities(ctx: StageContext) -> EntityTable:
    """Extract and disambiguate the record's entities. Raises StageError when a model answer is never valid."""
    ingest: IngestResult = ctx.output("ingest")
    sources = [*ingest.corpus_documents, *ingest.of(DocCategory.opinion, DocCategory.statement_of_facts)]
    asks = [
        Ask(d.source_id, render_prompt("entity_mentions", filename=d.filename, text=ctx.clip(ctx.text_of(d.source_id))))
        for d in sources
    ]
    names: dict[str, tuple[str, list[str]]] = {}
    for doc, draft in zip(sources, ask_json(ctx, asks, MentionsDraft), strict=True):
        assert draft is not None
        for mention in draft.mentions:
            name = " ".join(mention.name.split())
            if name:
                _, where = names.setdefault(name, (mention.kind, []))
                if doc.source_id not in where:
                    where.append(doc.source_id)
    if not names:
        return EntityTable(entities=[])
    listing = [{"name": n, "kind": k, "documents": s} for n, (k, s) in names.items()]
    draft = ask_one(ctx, Ask("merge", render_prompt("entity_merge", names=listing)), EntitiesDraft)
    table = merge_entities(draft, names)
    ctx.log(f"  entities: {len(names)} names -> {len(table.entities)} entities")
    return table


class ExhibitDraft(BaseModel):
    """The model's annotation of one exhibit."""

    doc_type: DocType
    title: str
    date: str | None
    author: str | None
    mentions: list[str] = Field(max_length=30)


class ExhibitAnnotation(BaseModel):
    """One merits exhibit, annotated."""

    source_id: str
    doc_type: str
    title: str
    date: str | None = None
    author: str | None = None
    mentions: list[str] = Field(default_factory=list)


class ExhibitTable(BaseModel):
    """The `exhibits` stage's output."""

    exhibits: list[ExhibitAnnotation]
    dropped: list[Dropped] = Field(default_factory=list)


def settle_exhibit(
    draft: ExhibitDraft, source_id: str, table: EntityTable, text: str
) -> tuple[ExhibitAnnotation, list[Dropped]]:
    """Return the annotation with unknown ids and non-ISO dates removed (recorded), text matches added."""
    known, dropped = table.ids(), []
    date = draft.date
    if date and parse_iso(date) is None:
        dropped.append(Dropped(item=f"{source_id}.date", reason=f"not an ISO date: {date!r}"))
        date = None
    author = draft.author
    if author and author not in known:
        dropped.append(Dropped(item=f"{source_id}.author", reason=f"unknown entity id {author!r}"))
        author = None
    for entity_id in (m for m in draft.mentions if m not in known):
        dropped.append(Dropped(item=f"{source_id}.mentions", reason=f"unknown entity id {entity_id!r}"))
    mentions = list(dict.fromkeys([*(m for m in draft.mentions if m in known), *table.found_in(text)]))
    return ExhibitAnnotation(
        source_id=source_id,
        doc_type=draft.doc_type.value,
        title=draft.title,
        date=date,
        author=author,
        mentions=mentions,
    ), dropped


@stage("exhibits", output=ExhibitTable, templates=("exhibit_annotation",))
def exhibits(ctx: StageContext) -> ExhibitTable:
    """Annotate every merits exhibit. Raises StageError when a model answer is never valid."""
    table: EntityTable = ctx.output("entities")
    corpus = ctx.output("ingest").corpus_documents
    listing = [{"id": e.entity_id, "name": e.name, "aliases": e.aliases} for e in table.entities]
    texts = {d.source_id: ctx.text_of(d.source_id) for d in corpus}
    asks = [
        Ask(
            d.source_id,
            render_prompt(
                "exhibit_annotation", entities=listing, filename=d.filename, text=ctx.clip(texts[d.source_id])
            ),
        )
        for d in corpus
    ]
    result = ExhibitTable(exhibits=[])
    for doc, draft in zip(corpus, ask_json(ctx, asks, ExhibitDraft), strict=True):
        assert draft is not None
        annotation, dropped = settle_exhibit(draft, doc.source_id, table, texts[doc.source_id])
        result.exhibits.append(annotation)
        result.dropped.extend(dropped)
    return result
