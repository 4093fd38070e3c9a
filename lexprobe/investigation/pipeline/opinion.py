"""Stage `opinion`: the court's findings, arguments and question stubs, with every quote checked by code.

The generator reads the opinion (page markers "[PAGE N]" from the PDF's pages) and returns facts, each with a
verbatim highlight quote. Code then looks every highlight up in the FULL opinion text (`highlight.find_quote`:
whitespace, quote marks, dashes and line-break hyphenation are forgiven, nothing else) and drops the facts whose
quote is not there, recording each drop; the page number is taken from where the quote was found. Question
stubs that point only at dropped or unknown facts are dropped too. An answer in which no fact survives is refused
and asked again. A record without an opinion stops the build here with a StageError saying so.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, Field

from lexprobe.investigation.pipeline.context import StageContext
from lexprobe.investigation.pipeline.highlight import find_quote, page_of
from lexprobe.investigation.pipeline.llm import Ask, ask_one
from lexprobe.investigation.pipeline.record import head_and_tail, require, with_page_markers
from lexprobe.investigation.pipeline.registry import stage
from lexprobe.investigation.pipeline.rules import DocCategory
from lexprobe.investigation.pipeline.templates import render_prompt


class OpinionFactDraft(BaseModel):
    """One fact as the model writes it."""

    fact_id: str
    text: str
    cited_exhibit: str | None
    highlight_text: str
    opinion_page: int | None


class QuestionStub(BaseModel):
    """An atomic factual question about one (or a few) opinion facts."""

    id: str
    fact_ids: list[str] = Field(max_length=4)
    question: str
    answer_sketch: str


class SourceRef(BaseModel):
    """An evidentiary document the court cites inside one branch."""

    id: str
    doc: str
    description: str
    question_stubs: list[QuestionStub] = Field(max_length=8)


class Branch(BaseModel):
    """One line of the court's reasoning."""

    id: str
    label: str
    sources: list[SourceRef] = Field(max_length=8)


class Argument(BaseModel):
    """One legal question the court resolves."""

    id: str
    label: str
    argument_type: Literal["factual_analysis", "procedural_defense"]
    branches: list[Branch] = Field(max_length=6)
    note: str


class OpinionDraft(BaseModel):
    """The generator's whole answer."""

    case: str
    citation: str
    court: str
    story: str
    facts: list[OpinionFactDraft] = Field(min_length=1, max_length=60)
    arguments: list[Argument] = Field(max_length=8)


class OpinionFact(BaseModel):
    """A fact whose highlight was found in the opinion."""

    fact_id: str
    text: str
    cited_exhibit: str | None = None
    highlight: str
    opinion_page: int | None = None
    match: str = Field(description="exact | compact (see lexprobe.investigation.pipeline.highlight)")


class Dropped(BaseModel):
    """Something code removed from a model's answer, and why."""

    item: str
    reason: str


class OpinionResult(BaseModel):
    """The `opinion` stage's output."""

    source_id: str
    case: str
    citation: str
    court: str
    story: str
    facts: list[OpinionFact]
    arguments: list[Argument]
    dropped: list[Dropped] = Field(default_factory=list)

    def stubs(self) -> list[QuestionStub]:
        """Return every question stub, in order."""
        return [q for a in self.arguments for b in a.branches for s in b.sources for q in s.question_stubs]


def snake_id(prefix: str, raw: str, taken: set[str]) -> str:
    """Return `prefix` + an UPPER_SNAKE version of `raw` that is not in `taken` (and add it there)."""
    body = re.sub(r"[^A-Z0-9]+", "_", raw.upper().removeprefix(prefix.upper())).strip("_") or "ITEM"
    candidate, n = f"{prefix}{body}", 2
    while candidate in taken:
        candidate, n = f"{prefix}{body}_{n}", n + 1
    taken.add(candidate)
    return candidate


def verify_opinion(draft: OpinionDraft, opinion_text: str, source_id: str) -> OpinionResult:
    """Return the draft with unverifiable facts and dangling stubs removed (and recorded in `dropped`)."""
    facts, dropped, renamed, taken = [], [], {}, set()
    for fact in draft.facts:
        fact_id = snake_id("op_", fact.fact_id, taken)
        renamed.setdefault(fact.fact_id, fact_id)
        match = find_quote(fact.highlight_text, opinion_text)
        if match is None:
            reason = f"highlight not found verbatim in the opinion: {fact.highlight_text[:120]!r}"
            dropped.append(Dropped(item=fact_id, reason=reason))
            continue
        page = page_of(fact.highlight_text, opinion_text) or fact.opinion_page
        facts.append(
            OpinionFact(
                fact_id=fact_id,
                text=fact.text,
                cited_exhibit=fact.cited_exhibit,
                highlight=fact.highlight_text,
                opinion_page=page,
                match=match.how,
            )
        )
    kept = {f.fact_id for f in facts}
    arguments = [a.model_copy(deep=True) for a in draft.arguments]
    for source in (s for a in arguments for b in a.branches for s in b.sources):
        stubs = []
        for stub in source.question_stubs:
            ids = [renamed.get(i, i) for i in stub.fact_ids]
            unknown = [i for i in ids if i not in kept]
            if unknown:
                dropped.append(Dropped(item=f"{stub.id}.fact_ids", reason=f"dropped or unknown fact ids {unknown}"))
            ids = [i for i in ids if i in kept]
            if ids:
                stubs.append(stub.model_copy(update={"fact_ids": ids}))
            else:
                dropped.append(Dropped(item=stub.id, reason="question stub points at no verified fact"))
        source.question_stubs = stubs
    return OpinionResult(
        source_id=source_id,
        case=draft.case,
        citation=draft.citation,
        court=draft.court,
        story=draft.story,
        facts=facts,
        arguments=arguments,
        dropped=dropped,
    )


def opinion_source(ctx: StageContext) -> tuple[str, str]:
    """Return (source id, page-marked text) of the opinion: the longest one when the record has several."""
    documents = require(ctx, DocCategory.opinion, "opinion deciding the motion")
    chosen = max(documents, key=lambda d: d.chars)
    return chosen.source_id, with_page_markers(ctx.text_of(chosen.source_id))


@stage("opinion", output=OpinionResult, templates=("opinion",))
def opinion(ctx: StageContext) -> OpinionResult:
    """Extract and verify the opinion's facts, arguments and question stubs. Raises StageError (see module)."""
    source_id, text = opinion_source(ctx)

    def check(item: str, draft: OpinionDraft, attempt: int) -> list[str]:
        if verify_opinion(draft, text, source_id).facts:
            return []
        return [f"none of the {len(draft.facts)} highlight_text quotes occurs in the opinion; copy them exactly"]

    prompt = render_prompt("opinion", opinion_text=head_and_tail(text, ctx.settings.max_input_chars))
    draft = ask_one(ctx, Ask(source_id, prompt), OpinionDraft, check=check)
    result = verify_opinion(draft, text, source_id)
    ctx.log(f"  opinion: {len(result.facts)} facts verified, {len(result.dropped)} item(s) dropped")
    return result
