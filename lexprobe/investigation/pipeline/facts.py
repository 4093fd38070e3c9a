"""Stage `ground_facts`: the canonical fact table, from the opinion, the statements of facts (stage `souf`,
`lexprobe.investigation.pipeline.souf`) and the briefs.

`ground_facts` rules:
- Briefs are read whole: a map over each brief's chunks extracts the factual assertions it makes, with their
  record citations (ids `brief:<source_id>:<n>`, numbered in reading order; repeats from the overlap between parts
  are dropped).
- The table request (reduce) gets compact lists, never raw text: the opinion facts (`op_...`), the statement facts
  (`souf:<number>`, with status and movant) and the brief facts. When the lists do not fit one request
  (`chunk_chars`), they are cut into disjoint slices asked separately ("table", "table#s2", ...); the slices'
  tables are concatenated with fact keys made unique, and a fact whose text nearly equals (rapidfuzz token-sort
  ratio >= 95) one from an earlier slice is merged into it (sources joined).
- Code keeps only source references that exist (unknown ones are dropped and recorded), drops facts left without
  a source, and derives each fact's source kind (opinion, else rsouf when a statement fact is disputed, else souf,
  else brief), dispute flag, citations and verified opinion highlight from its sources.

The stage records what it read (`reads`): every source whole unless the user capped `max_input_chars`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel, Field
from rapidfuzz import fuzz

from lexprobe.investigation.pipeline import reading
from lexprobe.investigation.pipeline.context import StageContext, StageError
from lexprobe.investigation.pipeline.ingest import SourceDocument
from lexprobe.investigation.pipeline.llm import Ask, ask_json, render_prompt
from lexprobe.investigation.pipeline.opinion import Dropped, OpinionResult, snake_id
from lexprobe.investigation.pipeline.reading import SourceRead
from lexprobe.investigation.pipeline.registry import stage
from lexprobe.investigation.pipeline.rules import DocCategory
from lexprobe.investigation.pipeline.souf import SoufResult, filer_of, map_chunk_chars

# --- ground_facts ---------------------------------------------------------------------------------------------


class BriefFactDraft(BaseModel):
    """One factual assertion a brief makes."""

    text: str
    citation: str | None
    page: int | None = None


class BriefPartDraft(BaseModel):
    """The factual assertions of one part of a brief."""

    facts: list[BriefFactDraft] = Field(max_length=60)


class BriefFact(BaseModel):
    """A factual assertion of a brief, with its id `brief:<source_id>:<n>`."""

    fact_id: str
    source_id: str
    party: str = ""
    text: str
    citation: str | None = None
    page: int | None = None


class GroundFactDraft(BaseModel):
    """One canonical fact as the model writes it."""

    key: str
    text: str
    sources: list[str] = Field(min_length=1, max_length=8)
    embedding: Literal["direct", "pattern", "either"]


class GroundFactsDraft(BaseModel):
    """The generator's fact table (of one slice of the sources)."""

    facts: list[GroundFactDraft] = Field(min_length=1, max_length=120)


class GroundFact(BaseModel):
    """One fact of the canonical table."""

    fact_id: str
    text: str
    source: Literal["opinion", "souf", "rsouf", "brief"]
    disputed: bool = False
    citation: str = ""
    highlight: str = ""
    sources: list[str] = Field(default_factory=list)
    embedding: Literal["direct", "pattern", "either"] = "either"


class FactTable(BaseModel):
    """The `ground_facts` stage's output."""

    facts: list[GroundFact]
    brief_facts: list[BriefFact] = Field(default_factory=list, description="What the briefs assert (map results).")
    slices: int = Field(default=1, description="Table requests the source lists were split into.")
    dropped: list[Dropped] = Field(default_factory=list)
    reads: list[SourceRead] = Field(default_factory=list)

    def ids(self) -> set[str]:
        """Return every fact id."""
        return {f.fact_id for f in self.facts}

    def get(self, fact_id: str) -> GroundFact | None:
        """Return the fact with this id, or None."""
        return next((f for f in self.facts if f.fact_id == fact_id), None)


def build_fact_table(
    drafts: Sequence[GroundFactDraft],
    opinion: OpinionResult,
    souf_result: SoufResult,
    brief_facts: Sequence[BriefFact] = (),
) -> FactTable:
    """Return the table with unknown source references and sourceless facts removed (and recorded)."""
    op_facts = {f.fact_id: f for f in opinion.facts}
    souf_facts = {f"souf:{f.number}": f for f in souf_result.facts}
    briefs = {f.fact_id: f for f in brief_facts}
    facts, dropped, taken = [], [], set()
    for fact in drafts:
        fact_id = snake_id("gf_", fact.key, taken)
        refs = list(dict.fromkeys(r.strip() for r in fact.sources))
        unknown = [r for r in refs if r not in op_facts and r not in souf_facts and r not in briefs]
        if unknown:
            dropped.append(Dropped(item=f"{fact_id}.sources", reason=f"unknown source references {unknown}"))
        refs = [r for r in refs if r not in unknown]
        if not refs:
            dropped.append(Dropped(item=fact_id, reason="no known source: a ground fact must cite one"))
            continue
        statement = [souf_facts[r] for r in refs if r in souf_facts]
        opinions = [op_facts[r] for r in refs if r in op_facts]
        asserted = [briefs[r] for r in refs if r in briefs]
        disputed = any(s.status == "disputed" for s in statement)
        source = "opinion" if opinions else ("rsouf" if disputed else "souf") if statement else "brief"
        cited = [*(o.cited_exhibit for o in opinions), *(s.cited_exhibit for s in statement)]
        citations = [c for c in [*cited, *(b.citation for b in asserted)] if c]
        facts.append(
            GroundFact(
                fact_id=fact_id,
                text=fact.text,
                source=source,
                disputed=disputed,
                citation="; ".join(dict.fromkeys(citations)),
                highlight=opinions[0].highlight if opinions else "",
                sources=refs,
                embedding=fact.embedding,
            )
        )
    return FactTable(facts=facts, dropped=dropped)


def _brief_facts(ctx: StageContext, briefs: list[SourceDocument]) -> tuple[list[BriefFact], list[SourceRead]]:
    """Read every brief whole, in parts, and return the factual assertions found (ids in reading order)."""
    size = map_chunk_chars(ctx.settings, output_share=0.3)
    asks, owners, reads = [], [], []
    for doc in briefs:
        text, read = reading.read_source(ctx, doc, "ground_facts")
        reads.append(read)
        for chunk in reading.chunks(text, size):
            prompt = render_prompt(
                "brief_facts",
                filename=doc.filename,
                filer=filer_of(doc),
                part=reading.part_label(text, chunk),
                text=chunk.text,
            )
            asks.append(Ask(reading.chunk_item(f"brief@{doc.source_id}", chunk), prompt))
            owners.append(doc)
    found: list[BriefFact] = []
    seen: dict[str, set[str]] = {}
    for doc, part in zip(owners, ask_json(ctx, asks, BriefPartDraft), strict=True):
        assert part is not None
        for fact in part.facts:
            text = " ".join(fact.text.split())
            if not text or text.lower() in seen.setdefault(doc.source_id, set()):
                continue  # the overlap between parts repeats a sentence
            seen[doc.source_id].add(text.lower())
            fact_id = f"brief:{doc.source_id}:{len(seen[doc.source_id])}"
            found.append(
                BriefFact(
                    fact_id=fact_id,
                    source_id=doc.source_id,
                    party=filer_of(doc),
                    text=text,
                    citation=fact.citation,
                    page=fact.page,
                )
            )
    return found, reads


@dataclass
class _Slice:
    opinion_facts: list[dict] = field(default_factory=list)
    souf_facts: list[dict] = field(default_factory=list)
    brief_facts: list[dict] = field(default_factory=list)
    size: int = 0


def source_slices(
    opinion: OpinionResult, souf_result: SoufResult, brief_facts: Sequence[BriefFact], budget: int
) -> list[_Slice]:
    """Return the compact source lists of the table request, cut into disjoint slices of at most `budget`
    characters of JSON each (one slice when everything fits)."""
    entries = [
        *(("opinion_facts", {"id": f.fact_id, "text": f.text}) for f in opinion.facts),
        *(
            ("souf_facts", {"id": f"souf:{f.number}", "text": f.text, "status": f.status, "movant": f.movant})
            for f in souf_result.facts
        ),
        *(("brief_facts", {"id": f.fact_id, "text": f.text, "party": f.party}) for f in brief_facts),
    ]
    slices = [_Slice()]
    for name, entry in entries:
        size = len(json.dumps(entry, ensure_ascii=False)) + 2
        if slices[-1].size and slices[-1].size + size > budget:
            slices.append(_Slice())
        getattr(slices[-1], name).append(entry)
        slices[-1].size += size
    return slices


def merge_slices(tables: Sequence[Sequence[GroundFactDraft]]) -> list[GroundFactDraft]:
    """Return the slices' facts in order; a fact whose text nearly equals one of an earlier slice is merged into it
    (its sources added). Keys are made unique later (`build_fact_table`)."""
    merged: list[GroundFactDraft] = []
    for number, table in enumerate(tables):
        earlier = len(merged)
        for fact in table:
            twin = (
                next(
                    (m for m in merged[:earlier] if fuzz.token_sort_ratio(m.text.lower(), fact.text.lower()) >= 95),
                    None,
                )
                if number
                else None
            )
            if twin is None:
                merged.append(fact)
                continue
            sources = list(dict.fromkeys([*twin.sources, *fact.sources]))
            merged[merged.index(twin)] = twin.model_copy(update={"sources": sources})
    return merged


@stage("ground_facts", output=FactTable, templates=("ground_facts", "brief_facts"), version=2)
def ground_facts(ctx: StageContext) -> FactTable:
    """Read the briefs whole (map), then merge opinion, statement and brief facts into the canonical fact table
    (reduce; split into slices when the lists do not fit one request). Raises StageError when no fact survives."""
    opinion: OpinionResult = ctx.output("opinion")
    souf_result: SoufResult = ctx.output("souf")
    briefs = ctx.output("ingest").of(DocCategory.brief)
    brief_facts, reads = _brief_facts(ctx, briefs)
    slices = source_slices(opinion, souf_result, brief_facts, reading.chunk_chars(ctx.settings))
    asks = [
        Ask(
            "table" if n == 1 else f"table#s{n}",
            render_prompt(
                "ground_facts",
                opinion_facts=s.opinion_facts,
                souf_facts=s.souf_facts,
                brief_facts=s.brief_facts,
                slice_number=n,
                slice_count=len(slices),
            ),
        )
        for n, s in enumerate(slices, start=1)
    ]

    def check(item: str, draft: GroundFactsDraft, attempt: int) -> list[str]:
        if build_fact_table(draft.facts, opinion, souf_result, brief_facts).facts:
            return []
        return ["no fact cites a known source id (use the op_..., souf:<number> and brief:... ids given)"]

    drafts = ask_json(ctx, asks, GroundFactsDraft, check=check)
    merged = merge_slices([d.facts for d in drafts if d is not None])
    table = build_fact_table(merged, opinion, souf_result, brief_facts)
    table = table.model_copy(update={"brief_facts": brief_facts, "slices": len(slices), "reads": reads})
    if not table.facts:
        raise StageError("ground_facts", "table", "no ground fact cites a known source")
    ctx.log(
        f"  ground_facts: {len(table.facts)} facts ({len(brief_facts)} brief assertions read, {len(slices)} "
        f"request(s)), {len(table.dropped)} item(s) dropped"
    )
    return table
