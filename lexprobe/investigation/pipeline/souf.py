"""Stage `souf`: the statements of facts and their responses, fact by fact (`ground_facts`, in
`lexprobe.investigation.pipeline.facts`, builds the canonical table from them).

`souf` rules:
- Which filings: every readable statement of facts and response to one. A record with neither (as the Marshall
  filings, where they are sealed) stops here with a StageError that names the placeholder.
- Pairing (cross-motions kept apart): statements are grouped by the party that filed them (ingest's `party`, else
  the possessive that opens the title: "DEFENDANT'S STATEMENT ..."); each group is paired with the responses filed
  by the other party. When at most one filing party is known, every statement and response forms one group (a
  single motion). A response whose statement is missing is read as both documents (it restates each fact before
  answering it); a response of unknown party joins the one group still without a response, if there is exactly
  one.
- Map: every page of every statement and response reaches the model. Each filing is cut into chunks
  (`reading.chunks`) of at most `map_chunk_chars` characters: the context's chunk size, bounded so that the facts
  a part yields (about as long as the part itself) fit the output limit. A statement part yields each numbered
  fact's number, text, cited exhibit and page; a response part yields, per numbered paragraph, the restated fact,
  undisputed/disputed and the reason.
- Reduce, in code, by fact number within a group: the text and cited exhibit come from the statement (the longest
  text when the overlap between parts repeats a fact), else from the response's restatement; a fact disputed in
  any response part is disputed (reasons joined); a fact no response contests is undisputed; a disputed fact with
  no reason is marked "(the response gives no reason)"; a number repeated inside one part's answer, and a number
  with no text anywhere, are dropped. All of these are recorded in `dropped`.
- Numbers: with one group the printed numbers are kept ("12", referenced as `souf:12`); with two or more, each
  group's numbers are prefixed by its movant ("P-12", "D-12"; "D2-12" for a second defendant group). Every fact
  records its group (`statement`) and its `movant`; the groups are listed in `statements`.

The stage records what it read (`reads`): every source whole unless the user capped `max_input_chars`.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Literal

from pydantic import BaseModel, Field

from lexprobe.investigation.pipeline import reading
from lexprobe.investigation.pipeline.context import BuildSettings, StageContext, StageError
from lexprobe.investigation.pipeline.ingest import SourceDocument
from lexprobe.investigation.pipeline.llm import Ask, ask_json, render_prompt
from lexprobe.investigation.pipeline.opinion import Dropped
from lexprobe.investigation.pipeline.reading import SourceRead, require
from lexprobe.investigation.pipeline.registry import stage
from lexprobe.investigation.pipeline.rules import DocCategory

Party = Literal["plaintiff", "defendant"]
OTHER_PARTY: dict[str, Party] = {"plaintiff": "defendant", "defendant": "plaintiff"}
NO_REASON = "(the response gives no reason)"


def map_chunk_chars(settings: BuildSettings, output_share: float, overhead_chars: int = 6_000) -> int:
    """Return the characters of source text per extraction request: `reading.chunk_chars`, bounded so that what
    the part yields (about `output_share` of its characters) fits the output limit `max_tokens`."""
    by_output = int(settings.max_tokens * reading.CHARS_PER_TOKEN / max(output_share, 0.01))
    return max(reading.MIN_CHUNK_CHARS, min(reading.chunk_chars(settings, overhead_chars), by_output))


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

_TITLE_PARTY = re.compile(r"\W*(plaintiff|defendant)s?['\u2019]?s?\b", re.I)


def filer_of(doc: SourceDocument) -> str:
    """Return the party that filed `doc`: ingest's `party`, else the possessive opening its title, else ''."""
    if doc.party:
        return doc.party
    match = _TITLE_PARTY.match(doc.title or "")
    return match.group(1).lower() if match else ""


Pair = tuple[list[SourceDocument], list[SourceDocument]]


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


@dataclass
class _PartAsk:
    group: int
    ask: Ask


def _part_prompt(template: str, fields: dict[str, object], chunk: str, part: str) -> str:
    return render_prompt(template, part=part, text=chunk, **fields)


def _part_asks(ctx: StageContext, pairs: list[Pair]) -> tuple[list[_PartAsk], list[_PartAsk], list[SourceRead]]:
    """Return the statement-part and response-part requests of every group, and the reads."""
    size = map_chunk_chars(ctx.settings, output_share=1.0)
    statement_asks, response_asks, reads = [], [], []
    for index, (statements, responses) in enumerate(pairs):
        kinds = [("statement", d) for d in statements] + [("response", d) for d in responses]
        for kind, doc in kinds:
            text, read = reading.read_source(ctx, doc, "souf")
            reads.append(read)
            template = "souf" if kind == "statement" else "souf_response"
            fields = {"filename": doc.filename, "filer": filer_of(doc), "as_both": not statements}
            prompt = partial(_part_prompt, template, fields)
            target = statement_asks if kind == "statement" else response_asks
            parts = reading.chunks(text, size)
            asks = reading.chunk_asks(f"{kind}@{doc.source_id}", text, parts, prompt, label_one=True)
            target += [_PartAsk(index, ask) for ask in asks]
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
    statement_parts = ask_json(ctx, [p.ask for p in statement_asks], StatementPartDraft)
    response_parts = ask_json(ctx, [p.ask for p in response_asks], ResponsePartDraft)
    by_group: list[tuple[list[StatementPartDraft], list[ResponsePartDraft]]] = [([], []) for _ in pairs]
    for part_ask, answer in zip(statement_asks, statement_parts, strict=True):
        by_group[part_ask.group][0].append(answer)  # type: ignore[arg-type]
    for part_ask, answer in zip(response_asks, response_parts, strict=True):
        by_group[part_ask.group][1].append(answer)  # type: ignore[arg-type]
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
