"""Stages `souf` (the statements of facts and their responses, fact by fact) and `ground_facts` (the canonical fact
table, from the opinion, the statements of facts and the briefs). docs/investigation.md ("Whole records: chunked
reading") describes both; the rules code adds:

`souf`:
- A record with neither a statement of facts nor a response (as the Marshall filings, where they are sealed) stops
  here with a StageError that names the placeholder.
- Pairing: statements are grouped by their filer (ingest's `party`, else the possessive that opens the title:
  "DEFENDANT'S STATEMENT ..."), each group paired with the responses the other party filed; with at most one filing
  party known, everything is one group. A response of unknown party joins the one group still without a response,
  if there is exactly one.
- Map: each filing in chunks of at most `reading.map_chunk_chars` characters (the facts a part yields are about as
  long as the part itself, and must fit the output limit).
- Reduce, by fact number within a group: a disputed fact with no reason is marked "(the response gives no
  reason)"; a number repeated inside one part's answer, and a number with no text anywhere, are dropped. All of
  these are recorded in `dropped`. Cross-motion prefixes: "P-12", "D-12"; "D2-12" for a second defendant group.

`ground_facts`:
- Brief assertions get ids `brief:<source_id>:<n>` in reading order; repeats from the overlap between parts are
  dropped. When the source lists do not fit one request (`chunk_chars`) they are asked as disjoint slices ("table",
  "table#s2", ...); a fact whose text nearly equals (rapidfuzz token-sort ratio >= 95) one from an earlier slice is
  merged into it (sources joined).
- Code keeps only source references that exist (unknown ones are dropped and recorded), drops facts left without
  a source, and derives each fact's source kind (opinion, else rsouf when a statement fact is disputed, else souf,
  else brief), dispute flag, citations and verified opinion highlight from its sources.

Both stages record what they read (`reads`): every source whole unless the user capped `max_input_chars`.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, Field
from rapidfuzz import fuzz

from lexprobe.investigation.pipeline.context import Ask, StageContext, StageError, ask_json, render_prompt
from lexprobe.investigation.pipeline.ingest import DocCategory, SourceDocument
from lexprobe.investigation.pipeline.opinion import Dropped, OpinionResult, snake_id
from lexprobe.investigation.pipeline.reading import (
    SourceRead,
    chunk_chars,
    filer_of,
    map_chunk_chars,
    read_in_parts,
    require,
)
from lexprobe.investigation.pipeline.registry import stage

Party = Literal["plaintiff", "defendant"]
OTHER_PARTY: dict[str, Party] = {"plaintiff": "defendant", "defendant": "plaintiff"}
NO_REASON = "(the response gives no reason)"


# --- souf: the models' answers --------------------------------------------------------------------------------


class StatementFactDraft(BaseModel):
    """One numbered fact as a part of the statement of facts states it."""

    number: str
    text: str
    cited_exhibit: str | None
    page: int | None = None


class StatementPartDraft(BaseModel):
    """The numbered facts of one part of a statement of facts."""

    movant: Party
    facts: list[StatementFactDraft] = Field(max_length=150)


class ResponseFactDraft(BaseModel):
    """One numbered paragraph of the response: the fact it restates and its answer."""

    number: str
    text: str
    status: Literal["undisputed", "disputed"]
    dispute_reason: str
    cited_exhibit: str | None


class ResponsePartDraft(BaseModel):
    """The answered facts of one part of a response to a statement of facts."""

    movant: Party
    facts: list[ResponseFactDraft] = Field(max_length=150)


# --- souf: the stage's output ---------------------------------------------------------------------------------


class SoufFact(BaseModel):
    """One numbered fact of a statement with the response's answer."""

    number: str = Field(description='As printed ("12"), prefixed by its group when there are several ("D-12").')
    text: str
    status: Literal["undisputed", "disputed"]
    dispute_reason: str
    cited_exhibit: str | None
    page: int | None = None
    statement: str = Field(default="", description="The key of its statement group ('' with a single group).")
    movant: Party | None = None


class StatementGroup(BaseModel):
    """One statement of facts (its files) paired with the other party's response(s)."""

    key: str = Field(description='Prefix of the group\'s fact numbers ("P", "D"); "" when the record has one group.')
    movant: Party
    statement_ids: list[str]
    response_ids: list[str]
    response_as_statement: bool = Field(default=False, description="No statement: the response was read as both.")


class SoufResult(BaseModel):
    """The `souf` stage's output."""

    movant: Party = Field(description="The movant of the first statement group.")
    facts: list[SoufFact]
    statement_ids: list[str]
    response_ids: list[str]
    statements: list[StatementGroup] = Field(default_factory=list)
    dropped: list[Dropped] = Field(default_factory=list)
    reads: list[SourceRead] = Field(default_factory=list)


# --- souf: pairing --------------------------------------------------------------------------------------------

Pair = tuple[list[SourceDocument], list[SourceDocument]]
_PartAsk = tuple[int, Ask]  # a statement group's index, one request of its parts


def pair_filings(statements: list[SourceDocument], responses: list[SourceDocument]) -> list[Pair]:
    """Return (statements, responses) per statement group (see the module rules); a group without statements is
    a response read as both."""
    by_party: dict[str, list[SourceDocument]] = {}
    for doc in statements:
        by_party.setdefault(filer_of(doc), []).append(doc)
    if not statements:
        by_responder: dict[str, list[SourceDocument]] = {}
        for doc in responses:
            by_responder.setdefault(filer_of(doc), []).append(doc)
        if len(by_responder) <= 1:
            return [([], responses)]
        return [([], docs) for docs in by_responder.values()]
    if len(by_party) == 1:
        return [(statements, responses)]
    groups: list[Pair] = []
    for party, docs in by_party.items():
        answers = [r for r in responses if party and filer_of(r) == OTHER_PARTY[party]]
        groups.append((docs, answers))
    paired = {r.source_id for _, answers in groups for r in answers}
    for response in (r for r in responses if r.source_id not in paired):
        waiting = [g for g in groups if g[0] and not g[1]]
        if not filer_of(response) and len(waiting) == 1:
            waiting[0][1].append(response)
        else:
            groups.append(([], [response]))
    return groups


def group_movant(pair: Pair, parts: Sequence[StatementPartDraft | ResponsePartDraft]) -> Party:
    """Return a group's movant: its statements' filer, else the party its responses answer, else the parts' vote."""
    statements, responses = pair
    filers = {filer_of(d) for d in statements} - {""}
    if len(filers) == 1:
        return filers.pop()  # type: ignore[return-value]
    responders = {filer_of(d) for d in responses} - {""}
    if len(responders) == 1:
        return OTHER_PARTY[responders.pop()]
    votes = Counter(part.movant for part in parts)
    return votes.most_common(1)[0][0] if votes else "defendant"


def group_keys(movants: list[Party]) -> list[str]:
    """Return each group's number prefix: '' for a single group, else "P"/"D" ("D2" for a second defendant group)."""
    if len(movants) < 2:
        return [""] * len(movants)
    keys, seen = [], Counter()
    for movant in movants:
        letter = movant[0].upper()
        seen[letter] += 1
        keys.append(letter if seen[letter] == 1 else f"{letter}{seen[letter]}")
    return keys


# --- souf: reduce ---------------------------------------------------------------------------------------------


def fact_number(raw: str) -> str:
    """Return a fact number as printed, without paragraph signs, "No." and a trailing period."""
    number = re.sub(r"^(?:\u00b6+|no\.|para(?:graph)?\.?)\s*", "", raw.strip(), flags=re.I)
    return number.strip().rstrip(".").strip()


@dataclass
class _Entry:
    number: str
    text: str = ""
    restated: str = ""
    cited: str | None = None
    cited_by_response: str | None = None
    page: int | None = None
    disputed: bool = False
    reasons: list[str] = field(default_factory=list)


def merge_souf(
    statement_parts: Sequence[StatementPartDraft], response_parts: Sequence[ResponsePartDraft], item: str = "souf"
) -> tuple[list[SoufFact], list[Dropped]]:
    """Return one group's facts merged by number from its parts' answers (see the module rules), and what was
    dropped. `item` prefixes the dropped items."""
    entries: dict[str, _Entry] = {}
    dropped: list[Dropped] = []
    for fact, entry in _numbered(statement_parts, entries, item, dropped):
        if len(fact.text.strip()) > len(entry.text):
            entry.text = fact.text.strip()
        entry.cited = entry.cited or fact.cited_exhibit
        entry.page = entry.page or fact.page
    for fact, entry in _numbered(response_parts, entries, item, dropped):
        if len(fact.text.strip()) > len(entry.restated):
            entry.restated = fact.text.strip()
        entry.cited_by_response = entry.cited_by_response or fact.cited_exhibit
        if fact.status == "disputed":
            entry.disputed = True
            reason = fact.dispute_reason.strip()
            if reason and reason not in entry.reasons:
                entry.reasons.append(reason)
    facts = []
    for entry in entries.values():
        text = entry.text or entry.restated
        if not text:
            dropped.append(Dropped(item=f"{item}:{entry.number}", reason="no text for the fact in any part"))
            continue
        reason = " ".join(entry.reasons)
        if entry.disputed and not reason:
            reason = NO_REASON
            dropped.append(Dropped(item=f"{item}:{entry.number}", reason="disputed without a reason; marked"))
        facts.append(
            SoufFact(
                number=entry.number,
                text=text,
                status="disputed" if entry.disputed else "undisputed",
                dispute_reason=reason,
                cited_exhibit=entry.cited or entry.cited_by_response,
                page=entry.page,
            )
        )
    return facts, dropped


def _numbered(
    parts: Sequence[StatementPartDraft | ResponsePartDraft],
    entries: dict[str, _Entry],
    item: str,
    dropped: list[Dropped],
) -> Iterator[tuple[Any, _Entry]]:
    """Yield each fact of `parts` (numbers repeated inside one part dropped) with the entry of its number."""
    for part in parts:
        for fact in _unique(part.facts, item, dropped):
            number = fact_number(fact.number)
            yield fact, entries.setdefault(number, _Entry(number))


def _unique(facts: Sequence[StatementFactDraft | ResponseFactDraft], item: str, dropped: list[Dropped]) -> list:
    """Return the facts of one part's answer with numbers repeated inside it (and empty numbers) dropped."""
    seen, kept = set(), []
    for fact in facts:
        number = fact_number(fact.number)
        if not number or number in seen:
            dropped.append(Dropped(item=f"{item}:{number or '?'}", reason="duplicate or empty fact number in one part"))
            continue
        seen.add(number)
        kept.append(fact)
    return kept


# --- souf: the stage ------------------------------------------------------------------------------------------


def _part_asks(ctx: StageContext, pairs: list[Pair]) -> tuple[list[_PartAsk], list[_PartAsk], list[SourceRead]]:
    """Return the statement-part and response-part requests of every group (its index, the request), and the
    reads."""
    size = map_chunk_chars(ctx.settings, output_share=1.0)
    statement_asks: list[_PartAsk] = []
    response_asks: list[_PartAsk] = []
    reads: list[SourceRead] = []
    for index, (statements, responses) in enumerate(pairs):
        for kind, template, docs, target in (
            ("statement", "souf", statements, statement_asks),
            ("response", "souf_response", responses, response_asks),
        ):
            asks, _, kind_reads = read_in_parts(ctx, docs, "souf", size, template, kind + "@{}", as_both=not statements)
            reads += kind_reads
            target += [(index, ask) for ask in asks]
    return statement_asks, response_asks, reads


@stage("souf", output=SoufResult, templates=("souf", "souf_response"), version=2)
def souf(ctx: StageContext) -> SoufResult:
    """Read every statement of facts and response whole, in parts, and merge their facts by number per statement
    group (module rules). Raises StageError when the record has neither, or when no numbered fact is found."""
    ingest = ctx.output("ingest")
    statements = ingest.of(DocCategory.statement_of_facts)
    if not statements and not ingest.of(DocCategory.response_to_statement):
        require(ctx, DocCategory.statement_of_facts, "statement of undisputed facts")
    responses = require(ctx, DocCategory.response_to_statement, "response to the statement of facts")
    pairs = pair_filings(statements, responses)
    statement_asks, response_asks, reads = _part_asks(ctx, pairs)
    statement_parts = ask_json(ctx, [ask for _, ask in statement_asks], StatementPartDraft)
    response_parts = ask_json(ctx, [ask for _, ask in response_asks], ResponsePartDraft)
    by_group: list[tuple[list[StatementPartDraft], list[ResponsePartDraft]]] = [([], []) for _ in pairs]
    for (group, _), answer in zip(statement_asks, statement_parts, strict=True):
        by_group[group][0].append(answer)  # type: ignore[arg-type]
    for (group, _), answer in zip(response_asks, response_parts, strict=True):
        by_group[group][1].append(answer)  # type: ignore[arg-type]
    movants = [group_movant(pair, [*s, *r]) for pair, (s, r) in zip(pairs, by_group, strict=True)]
    keys = group_keys(movants)
    facts, dropped, groups = [], [], []
    for pair, (s_parts, r_parts), movant, key in zip(pairs, by_group, movants, keys, strict=True):
        # a response read as both documents: its parts give the text (restated) and the answers
        group_facts, group_dropped = merge_souf(s_parts, r_parts, f"souf:{key}" if key else "souf")
        prefix = f"{key}-" if key else ""
        facts.extend(
            f.model_copy(update={"number": prefix + f.number, "statement": key, "movant": movant}) for f in group_facts
        )
        dropped.extend(group_dropped)
        groups.append(
            StatementGroup(
                key=key,
                movant=movant,
                statement_ids=[d.source_id for d in pair[0]],
                response_ids=[d.source_id for d in pair[1]],
                response_as_statement=not pair[0],
            )
        )
    if not facts:
        files = ", ".join(d.filename for d in [*statements, *responses])
        raise StageError("souf", "statement", f"no numbered fact was found in {files}")
    ctx.log(f"  souf: {len(facts)} facts from {len(groups)} statement group(s), {len(dropped)} item(s) dropped")
    return SoufResult(
        movant=movants[0],
        facts=facts,
        statement_ids=[d.source_id for d in statements],
        response_ids=[d.source_id for d in responses],
        statements=groups,
        dropped=dropped,
        reads=reads,
    )


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
    asks, owners, reads = read_in_parts(ctx, briefs, "ground_facts", size, "brief_facts", "brief@{}")
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
    slices = source_slices(opinion, souf_result, brief_facts, chunk_chars(ctx.settings))
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
