"""Stages `souf` (the statement of facts and its response, fact by fact) and `ground_facts` (the canonical table).

`souf` needs a readable response to the statement of facts (and reads the statement itself when there is one): a
record where they are missing or sealed (as in the Marshall filings) stops here with a StageError that names the
placeholder. `ground_facts` merges opinion facts and
statement facts into atomic, citation-bearing facts with stable ids `gf_<KEY>`; code keeps only source references
that exist (unknown ones are dropped and recorded), drops facts left without a source, and derives each fact's
source kind, dispute flag, citations and verified opinion highlight from its sources.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from lexprobe.investigation.pipeline.context import StageContext
from lexprobe.investigation.pipeline.llm import Ask, ask_one
from lexprobe.investigation.pipeline.opinion import Dropped, OpinionResult, snake_id
from lexprobe.investigation.pipeline.record import joined_text, require
from lexprobe.investigation.pipeline.registry import stage
from lexprobe.investigation.pipeline.rules import DocCategory
from lexprobe.investigation.pipeline.templates import render_prompt


class SoufFact(BaseModel):
    """One numbered fact of the statement with the response's answer."""

    number: str
    text: str
    status: Literal["undisputed", "disputed"]
    dispute_reason: str
    cited_exhibit: str | None


class SoufDraft(BaseModel):
    """The generator's reading of the statement and the response."""

    movant: Literal["plaintiff", "defendant"]
    facts: list[SoufFact] = Field(min_length=1, max_length=150)


class SoufResult(SoufDraft):
    """The `souf` stage's output."""

    statement_ids: list[str]
    response_ids: list[str]
    dropped: list[Dropped] = Field(default_factory=list)


def clean_souf(draft: SoufDraft, statement_ids: list[str], response_ids: list[str]) -> SoufResult:
    """Return the draft with duplicate numbers dropped and missing dispute reasons marked (both recorded)."""
    seen, facts, dropped = set(), [], []
    for fact in draft.facts:
        number = fact.number.strip().rstrip(".")
        if number in seen:
            dropped.append(Dropped(item=f"souf:{number}", reason="duplicate fact number"))
            continue
        seen.add(number)
        update: dict = {"number": number}
        if fact.status == "disputed" and not fact.dispute_reason.strip():
            update["dispute_reason"] = "(the response gives no reason)"
            dropped.append(Dropped(item=f"souf:{number}", reason="disputed without a reason; marked"))
        facts.append(fact.model_copy(update=update))
    return SoufResult(
        movant=draft.movant, facts=facts, statement_ids=statement_ids, response_ids=response_ids, dropped=dropped
    )


@stage("souf", output=SoufResult, templates=("souf",))
def souf(ctx: StageContext) -> SoufResult:
    """Read the statement of facts and the response. Raises StageError when either is missing.

    A record with only a response (which usually restates every fact before answering it) reads the response as
    both documents.
    """
    ingest = ctx.output("ingest")
    statements = ingest.of(DocCategory.statement_of_facts)
    if not statements and not ingest.of(DocCategory.response_to_statement):
        require(ctx, DocCategory.statement_of_facts, "statement of undisputed facts")
    responses = require(ctx, DocCategory.response_to_statement, "response to the statement of facts")
    statements = statements or responses
    half = ctx.settings.max_input_chars // 2
    prompt = render_prompt(
        "souf", statement_text=joined_text(ctx, statements, half), response_text=joined_text(ctx, responses, half)
    )
    draft = ask_one(ctx, Ask("statement", prompt), SoufDraft)
    return clean_souf(draft, [d.source_id for d in statements], [d.source_id for d in responses])


class GroundFactDraft(BaseModel):
    """One canonical fact as the model writes it."""

    key: str
    text: str
    sources: list[str] = Field(min_length=1, max_length=8)
    embedding: Literal["direct", "pattern", "either"]


class GroundFactsDraft(BaseModel):
    """The generator's fact table."""

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
    dropped: list[Dropped] = Field(default_factory=list)

    def ids(self) -> set[str]:
        """Return every fact id."""
        return {f.fact_id for f in self.facts}

    def get(self, fact_id: str) -> GroundFact | None:
        """Return the fact with this id, or None."""
        return next((f for f in self.facts if f.fact_id == fact_id), None)


def build_fact_table(draft: GroundFactsDraft, opinion: OpinionResult, souf_result: SoufResult) -> FactTable:
    """Return the table with unknown source references and sourceless facts removed (and recorded)."""
    op_facts = {f.fact_id: f for f in opinion.facts}
    souf_facts = {f"souf:{f.number}": f for f in souf_result.facts}
    facts, dropped, taken = [], [], set()
    for fact in draft.facts:
        fact_id = snake_id("gf_", fact.key, taken)
        refs = [r.strip() for r in fact.sources]
        unknown = [r for r in refs if r not in op_facts and r not in souf_facts]
        if unknown:
            dropped.append(Dropped(item=f"{fact_id}.sources", reason=f"unknown source references {unknown}"))
        refs = [r for r in refs if r not in unknown]
        if not refs:
            dropped.append(Dropped(item=fact_id, reason="no known source: a ground fact must cite one"))
            continue
        statement = [souf_facts[r] for r in refs if r in souf_facts]
        opinions = [op_facts[r] for r in refs if r in op_facts]
        disputed = any(s.status == "disputed" for s in statement)
        source = "opinion" if opinions else ("rsouf" if disputed else "souf")
        citations = [c for c in [*(o.cited_exhibit for o in opinions), *(s.cited_exhibit for s in statement)] if c]
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


@stage("ground_facts", output=FactTable, templates=("ground_facts",))
def ground_facts(ctx: StageContext) -> FactTable:
    """Merge opinion and statement facts into the canonical fact table. Raises StageError when none survive."""
    opinion: OpinionResult = ctx.output("opinion")
    souf_result: SoufResult = ctx.output("souf")
    briefs = ctx.output("ingest").of(DocCategory.brief)
    prompt = render_prompt(
        "ground_facts",
        opinion_facts=[{"id": f.fact_id, "text": f.text} for f in opinion.facts],
        souf_facts=[{"id": f"souf:{f.number}", "text": f.text, "status": f.status} for f in souf_result.facts],
        briefs_text=joined_text(ctx, briefs, ctx.settings.max_input_chars // 2) if briefs else "(none)",
    )

    def check(item: str, draft: GroundFactsDraft, attempt: int) -> list[str]:
        if build_fact_table(draft, opinion, souf_result).facts:
            return []
        return ["no fact cites a known source id (use the op_... ids and souf:<number> references given)"]

    draft = ask_one(ctx, Ask("table", prompt), GroundFactsDraft, check=check)
    table = build_fact_table(draft, opinion, souf_result)
    ctx.log(f"  ground_facts: {len(table.facts)} facts, {len(table.dropped)} item(s) dropped")
    return table
