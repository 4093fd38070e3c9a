"""Stages `entities` (who and what recurs across the record, disambiguated into ids with aliases) and `exhibits`
(doc type, date, author, mentioned entities and a short summary of each merits exhibit).

Both read their sources whole: each source is cut into chunks (`reading.chunks`, sized by the model's context)
and every chunk is asked (map); code merges the answers per source (reduce). Each stage records what it read
(`reads`): every source whole unless the user capped `max_input_chars`.

`entities` asks for the names in each part of each merits exhibit, the opinion and the statements of facts, merges
them per source, then asks once to group all names into entities `e_<key>`. Code makes the grouping complete: a
name no entity claims becomes its own entity, a name claimed twice stays with the first; both are recorded.

`exhibits` annotates each corpus exhibit part by part: the first part gives its doc type, title, date, author,
mentions and a summary of what it reads; each later part gives its mentions and a summary of itself; an exhibit of
several parts then gets one more request that writes the whole exhibit's `summary` from the parts' summaries.
Code keeps only known entity ids and ISO dates (the rest is dropped and recorded) and adds every entity whose name
or alias occurs anywhere in the exhibit's text.
"""

from __future__ import annotations

import json
import re
from typing import Literal

from pydantic import BaseModel, Field

from lexprobe.documents.content import DocType, parse_iso
from lexprobe.investigation.environment.format import Entity
from lexprobe.investigation.pipeline.context import Ask, StageContext, ask_json, ask_one, render_prompt
from lexprobe.investigation.pipeline.ingest import DocCategory, IngestResult, SourceDocument
from lexprobe.investigation.pipeline.opinion import Dropped, snake_id
from lexprobe.investigation.pipeline.reading import (
    SourceRead,
    chunk_chars,
    chunk_item,
    chunks,
    map_chunk_chars,
    part_label,
    read_in_parts,
    read_source,
)
from lexprobe.investigation.pipeline.registry import stage

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
    reads: list[SourceRead] = Field(default_factory=list)

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


def collect_names(documents: list[SourceDocument], parts: list[MentionsDraft]) -> dict[str, tuple[str, list[str]]]:
    """Return name -> (kind, source ids) from the mentions of every part; `documents[i]` owns `parts[i]`."""
    names: dict[str, tuple[str, list[str]]] = {}
    for doc, draft in zip(documents, parts, strict=True):
        for mention in draft.mentions:
            name = " ".join(mention.name.split())
            if name:
                _, where = names.setdefault(name, (mention.kind, []))
                if doc.source_id not in where:
                    where.append(doc.source_id)
    return names


@stage("entities", output=EntityTable, templates=("entity_mentions", "entity_merge"), version=2)
def entities(ctx: StageContext) -> EntityTable:
    """Extract the names of every part of every source, then disambiguate them. Raises StageError when a model
    answer is never valid."""
    ingest: IngestResult = ctx.output("ingest")
    sources = [*ingest.corpus_documents, *ingest.of(DocCategory.opinion, DocCategory.statement_of_facts)]
    size = map_chunk_chars(ctx.settings, output_share=0.25)
    asks, owners, reads = read_in_parts(ctx, sources, "entities", size, "entity_mentions")
    names = collect_names(owners, [d for d in ask_json(ctx, asks, MentionsDraft) if d is not None])
    if not names:
        return EntityTable(entities=[], reads=reads)
    listing = [{"name": n, "kind": k, "documents": s} for n, (k, s) in names.items()]
    draft = ask_one(ctx, Ask("merge", render_prompt("entity_merge", names=listing)), EntitiesDraft)
    table = merge_entities(draft, names).model_copy(update={"reads": reads})
    ctx.log(
        f"  entities: {len(asks)} part(s) of {len(sources)} source(s), {len(names)} names -> "
        f"{len(table.entities)} entities"
    )
    return table


class ExhibitDraft(BaseModel):
    """The model's annotation of an exhibit's first part."""

    doc_type: DocType
    title: str
    date: str | None
    author: str | None
    mentions: list[str] = Field(max_length=30)
    summary: str = Field(description="What this part of the exhibit says, in one to three sentences.")


class ExhibitPartDraft(BaseModel):
    """The model's reading of a later part of an exhibit."""

    mentions: list[str] = Field(max_length=30)
    summary: str = Field(description="What this part of the exhibit says, in one to three sentences.")


class ExhibitSummaryDraft(BaseModel):
    """A summary of a whole exhibit, written from its parts' summaries."""

    summary: str


class ExhibitAnnotation(BaseModel):
    """One merits exhibit, annotated."""

    source_id: str
    doc_type: str
    title: str
    date: str | None = None
    author: str | None = None
    mentions: list[str] = Field(default_factory=list)
    summary: str = Field(default="", description="What the whole exhibit says (for planners), a few sentences.")
    parts: int = Field(default=1, description="Chunks the exhibit was read in.")


class ExhibitTable(BaseModel):
    """The `exhibits` stage's output."""

    exhibits: list[ExhibitAnnotation]
    dropped: list[Dropped] = Field(default_factory=list)
    reads: list[SourceRead] = Field(default_factory=list)


def settle_exhibit(
    draft: ExhibitDraft, source_id: str, table: EntityTable, text: str, later: list[ExhibitPartDraft] | None = None
) -> tuple[ExhibitAnnotation, list[Dropped]]:
    """Return the annotation of the first part's `draft` merged with the `later` parts' mentions, with unknown ids
    and non-ISO dates removed (recorded) and the entities named anywhere in `text` added."""
    known, dropped = table.ids(), []
    date = draft.date
    if date and parse_iso(date) is None:
        dropped.append(Dropped(item=f"{source_id}.date", reason=f"not an ISO date: {date!r}"))
        date = None
    author = draft.author
    if author and author not in known:
        dropped.append(Dropped(item=f"{source_id}.author", reason=f"unknown entity id {author!r}"))
        author = None
    named = [m for part in [draft, *(later or [])] for m in part.mentions]
    for entity_id in dict.fromkeys(m for m in named if m not in known):
        dropped.append(Dropped(item=f"{source_id}.mentions", reason=f"unknown entity id {entity_id!r}"))
    mentions = list(dict.fromkeys([*(m for m in named if m in known), *table.found_in(text)]))
    return ExhibitAnnotation(
        source_id=source_id,
        doc_type=draft.doc_type.value,
        title=draft.title,
        date=date,
        author=author,
        mentions=mentions,
        summary=draft.summary.strip(),
        parts=1 + len(later or []),
    ), dropped


@stage("exhibits", output=ExhibitTable, templates=("exhibit_annotation", "exhibit_part", "exhibit_summary"), version=2)
def exhibits(ctx: StageContext) -> ExhibitTable:
    """Annotate every merits exhibit, reading each whole in parts. Raises StageError when a model answer is never
    valid."""
    table: EntityTable = ctx.output("entities")
    corpus = ctx.output("ingest").corpus_documents
    listing = [{"id": e.entity_id, "name": e.name, "aliases": e.aliases} for e in table.entities]
    size = chunk_chars(ctx.settings, overhead_chars=6_000 + len(json.dumps(listing, ensure_ascii=False)))
    texts, reads, firsts, later = {}, [], [], []
    for doc in corpus:
        text, read = read_source(ctx, doc, "exhibits")
        texts[doc.source_id], parts = text, chunks(text, size)
        reads.append(read)
        for chunk in parts:
            variables = {
                "entities": listing,
                "filename": doc.filename,
                "part": part_label(text, chunk),
                "parts": chunk.count,
                "text": chunk.text,
            }
            if chunk.index == 1:
                firsts.append(Ask(doc.source_id, render_prompt("exhibit_annotation", **variables)))
            else:
                later.append(
                    (doc.source_id, Ask(chunk_item(doc.source_id, chunk), render_prompt("exhibit_part", **variables)))
                )
    first_drafts = ask_json(ctx, firsts, ExhibitDraft)
    later_drafts: dict[str, list[ExhibitPartDraft]] = {}
    for (source_id, _), draft in zip(later, ask_json(ctx, [a for _, a in later], ExhibitPartDraft), strict=True):
        assert draft is not None
        later_drafts.setdefault(source_id, []).append(draft)
    result = ExhibitTable(exhibits=[], reads=reads)
    for doc, draft in zip(corpus, first_drafts, strict=True):
        assert draft is not None
        annotation, dropped = settle_exhibit(
            draft, doc.source_id, table, texts[doc.source_id], later_drafts.get(doc.source_id, [])
        )
        result.exhibits.append(annotation)
        result.dropped.extend(dropped)
    _summarize_long_exhibits(ctx, result.exhibits, first_drafts, later_drafts)
    return result


def _summarize_long_exhibits(
    ctx: StageContext,
    annotations: list[ExhibitAnnotation],
    first_drafts: list[ExhibitDraft | None],
    later_drafts: dict[str, list[ExhibitPartDraft]],
) -> None:
    """Give each exhibit read in several parts one summary of the whole, written from its parts' summaries."""
    long = [(a, f) for a, f in zip(annotations, first_drafts, strict=True) if a.parts > 1 and f is not None]
    asks = [
        Ask(
            f"summary@{a.source_id}",
            render_prompt(
                "exhibit_summary",
                title=a.title,
                doc_type=a.doc_type,
                summaries=[f.summary, *(p.summary for p in later_drafts[a.source_id])],
            ),
        )
        for a, f in long
    ]
    for (annotation, _), draft in zip(long, ask_json(ctx, asks, ExhibitSummaryDraft), strict=True):
        assert draft is not None
        annotation.summary = draft.summary.strip()
