"""Stage `opinion`: the court's findings, arguments and question stubs, with every quote checked by code.

The whole opinion is read (page markers "[PAGE N]" from the PDF's pages): a long one in chunks sized by the
model's context (`reading.py`), one request per chunk, each told which part ("pages X-Y of N") it reads and that the
other parts are read separately. Each answer (an `OpinionDraft` for its part) returns facts, each with a verbatim
highlight quote. Code then looks every highlight up in the FULL opinion text (`find_quote`: whitespace,
quote marks, dashes and line-break hyphenation are forgiven, nothing else) and drops the facts whose quote is not
there, recording each drop; the page number is taken from where the quote was found. Question stubs that point
only at dropped or unknown facts are dropped too. A chunk answer with facts none of which is found is refused and
asked again (a chunk may return no fact: not every part states facts).

Reduce (`merge_drafts`, in code): facts are concatenated in reading order, ids made unique (`snake_id`); a fact
whose highlight repeats one already kept (chunks overlap) is dropped as a duplicate and recorded; arguments with the
same label (case and spacing ignored) are merged with their branches (branches with the same label likewise);
case, citation, court and story come from the first chunk that gives them. `reads` records the characters read
(the whole opinion unless the user capped it).

Not a summary-judgment ruling: the build stops here (StageError on `opinion`, naming the file, the reason and what
to add; never retried as a model error) when the opinion never mentions summary judgment (checked before any
request), when no chunk classifies it as a summary-judgment opinion (`ruling_kind`: a bare order, a partial ruling
without facts, something else), or when no fact of it is verified. A record without an opinion stops here too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, Field

from lexprobe.investigation.pipeline.context import StageContext, StageError, ask_json, unique_id
from lexprobe.investigation.pipeline.ingest import DocCategory, SourceDocument
from lexprobe.investigation.pipeline.reading import SourceRead, fitted_asks, read_source, require, with_page_markers
from lexprobe.investigation.pipeline.registry import stage

MIN_QUOTE_WORDS = 4

_QUOTES = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201a": "'",
        "\u201b": "'",
        "\u2032": "'",
        "\u0060": "'",
        "\u00b4": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u201e": '"',
        "\u201f": '"',
        "\u2033": '"',
        "\u00ab": '"',
        "\u00bb": '"',
        "\u2010": "-",
        "\u2011": "-",
        "\u2012": "-",
        "\u2013": "-",
        "\u2014": "-",
        "\u2015": "-",
        "\u2212": "-",
        "\u00ad": "",  # soft hyphen
        "\u00a0": " ",
    }
)
_WHITESPACE = re.compile(r"\s+")
_PAGE_MARK = re.compile(r"\[PAGE (\d+)\]")


def normalize_quote_text(text: str) -> str:
    """Return `text` with quotes and dashes unified and whitespace collapsed."""
    return _WHITESPACE.sub(" ", text.translate(_QUOTES)).strip()


def _compact(text: str) -> tuple[str, list[int]]:
    """Return `text` without whitespace and hyphens, and for each kept character its index in `text`."""
    kept, where = [], []
    for index, char in enumerate(text):
        if char.isspace() or char == "-":
            continue
        kept.append(char)
        where.append(index)
    return "".join(kept), where


@dataclass(frozen=True)
class QuoteMatch:
    """Where a quote was found: character offsets in the *normalized* source, and how it matched."""

    start: int
    end: int
    how: str  # "exact" or "compact"


def find_quote(quote: str, source: str) -> QuoteMatch | None:
    """Return where `quote` occurs in `source` after normalization, or None when it does not occur.

    Models copy quotes imperfectly in ways that do not change the words; this forgives exactly these and nothing
    else (no case folding, no paraphrase): both texts are normalized (`normalize_quote_text`: typographic quotes
    straight, every dash '-', whitespace runs one space) and the quote is looked up; failing that, both are compared
    without whitespace and hyphens, so that 'well-\\nknown', 'well- known' and 'wellknown' meet. Page markers
    `[PAGE n]` are ignored (a quote may span a page break); a quote shorter than `MIN_QUOTE_WORDS` words never
    matches.
    """
    if len(quote.split()) < MIN_QUOTE_WORDS:
        return None
    wanted = normalize_quote_text(quote)
    text = normalize_quote_text(_PAGE_MARK.sub(" ", source))
    found = text.find(wanted)
    if found >= 0:
        return QuoteMatch(found, found + len(wanted), "exact")
    compact_text, where = _compact(text)
    compact_quote, _ = _compact(wanted)
    if not compact_quote:
        return None
    found = compact_text.find(compact_quote)
    if found < 0:
        return None
    return QuoteMatch(where[found], where[found + len(compact_quote) - 1] + 1, "compact")


def page_of(quote: str, source: str) -> int | None:
    """Return the number of the `[PAGE n]` section of `source` that holds `quote`, or None.

    None also when the source has no page markers or the quote is not found.
    """
    if not _PAGE_MARK.search(source):
        return None
    pages = re.split(r"(\[PAGE \d+\])", source)
    number = None
    for part in pages:
        marker = _PAGE_MARK.fullmatch(part)
        if marker:
            number = int(marker.group(1))
        elif number is not None and find_quote(quote, part):
            return number
    return None


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
    question_stubs: list[QuestionStub]


class Branch(BaseModel):
    """One line of the court's reasoning."""

    id: str
    label: str
    sources: list[SourceRef]


class Argument(BaseModel):
    """One legal question the court resolves."""

    id: str
    label: str
    argument_type: Literal["factual_analysis", "procedural_defense"]
    branches: list[Branch]
    note: str


RulingKind = Literal["summary_judgment_opinion", "bare_order", "partial_ruling_without_facts", "other"]
#: What each `ruling_kind` means, for the StageError that stops the build.
RULING_KINDS: dict[str, str] = {
    "summary_judgment_opinion": "an opinion deciding a summary-judgment motion, with the court's findings",
    "bare_order": "a bare order (a ruling without the court's findings or reasons)",
    "partial_ruling_without_facts": "a partial ruling that states no facts",
    "other": "not a ruling on a summary-judgment motion",
}
_MENTIONS_SUMMARY_JUDGMENT = re.compile(r"summary[\s-]+judg(?:e)?ment|rule\s+56\b", re.I)


class OpinionDraft(BaseModel):
    """The generator's answer for the opinion (or for one part of it)."""

    ruling_kind: RulingKind = Field(
        default="summary_judgment_opinion", description="What the document is, judging from the part read."
    )
    case: str
    citation: str
    court: str
    story: str
    facts: list[OpinionFactDraft] = Field(max_length=60)
    arguments: list[Argument] = Field(max_length=8)


class OpinionFact(BaseModel):
    """A fact whose highlight was found in the opinion."""

    fact_id: str
    text: str
    cited_exhibit: str | None = None
    highlight: str
    opinion_page: int | None = None
    match: str = Field(description="exact | compact (see `find_quote`)")


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
    ruling_kind: RulingKind = "summary_judgment_opinion"
    chunks: int = Field(default=1, description="Requests the opinion was read in.")
    reads: list[SourceRead] = Field(default_factory=list)

    def stubs(self) -> list[QuestionStub]:
        """Return every question stub, in order."""
        return [q for a in self.arguments for b in a.branches for s in b.sources for q in s.question_stubs]


def snake_id(prefix: str, raw: str, taken: set[str]) -> str:
    """Return `prefix` + an UPPER_SNAKE version of `raw` that is not in `taken` (and add it there)."""
    body = re.sub(r"[^A-Z0-9]+", "_", raw.upper().removeprefix(prefix.upper())).strip("_") or "ITEM"
    return unique_id(f"{prefix}{body}", taken)


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
    caption = draft.model_dump(include={"case", "citation", "court", "story"})
    return OpinionResult(source_id=source_id, facts=facts, arguments=arguments, dropped=dropped, **caption)


def _norm(text: str) -> str:
    return " ".join(text.split()).casefold()


def _merge_branches(into: list[Branch], branches: list[Branch], taken: set[str]) -> None:
    by_label = {_norm(b.label): b for b in into}
    for branch in branches:
        same = by_label.get(_norm(branch.label))
        if same is not None:
            same.sources.extend(branch.sources)
            continue
        branch.id = unique_id(branch.id, taken)
        into.append(branch)
        by_label[_norm(branch.label)] = branch


def merge_drafts(drafts: list[OpinionDraft]) -> tuple[OpinionDraft, list[Dropped]]:
    """Return one draft from the drafts of the opinion's chunks (reading order), and the duplicates dropped.

    Facts are concatenated with ids made unique (`snake_id`); a fact whose highlight repeats a kept one is dropped
    (its stubs then point at the kept fact); arguments with the same label (case and spacing ignored) are merged with
    their branches; case, citation, court and story come from the first draft that gives them. Ruling kind: a
    summary-judgment opinion when any draft says so, else the first draft's kind.
    """
    if len(drafts) == 1:
        return drafts[0], []
    facts: list[OpinionFactDraft] = []
    arguments: list[Argument] = []
    dropped: list[Dropped] = []
    taken_facts: set[str] = set()
    taken_args: set[str] = set()
    taken_branches: set[str] = set()
    by_highlight: dict[str, str] = {}
    by_label: dict[str, Argument] = {}
    for part, draft in enumerate(drafts, start=1):
        renamed: dict[str, str] = {}
        for fact in draft.facts:
            key = _norm(fact.highlight_text)
            if key in by_highlight:
                renamed.setdefault(fact.fact_id, by_highlight[key])
                reason = f"part {part} repeats the highlight of {by_highlight[key]} (chunks overlap)"
                dropped.append(Dropped(item=f"{fact.fact_id}@part{part}", reason=reason))
                continue
            fact_id = snake_id("op_", fact.fact_id, taken_facts)
            renamed.setdefault(fact.fact_id, fact_id)
            by_highlight[key] = fact_id
            facts.append(fact.model_copy(update={"fact_id": fact_id}))
        for argument in (a.model_copy(deep=True) for a in draft.arguments):
            for stub in (q for b in argument.branches for s in b.sources for q in s.question_stubs):
                stub.fact_ids = list(dict.fromkeys(renamed.get(i, i) for i in stub.fact_ids))
            same = by_label.get(_norm(argument.label))
            if same is not None:
                _merge_branches(same.branches, argument.branches, taken_branches)
                same.note = same.note or argument.note
                continue
            argument.id = unique_id(argument.id, taken_args)
            branches, argument.branches = argument.branches, []
            _merge_branches(argument.branches, branches, taken_branches)
            arguments.append(argument)
            by_label[_norm(argument.label)] = argument

    def first(field: str) -> str:
        return next((getattr(d, field) for d in drafts if getattr(d, field).strip()), "")

    kinds = [d.ruling_kind for d in drafts]
    merged = OpinionDraft.model_construct(
        ruling_kind="summary_judgment_opinion" if "summary_judgment_opinion" in kinds else kinds[0],
        case=first("case"),
        citation=first("citation"),
        court=first("court"),
        story=first("story"),
        facts=facts,
        arguments=arguments,
    )
    return merged, dropped


def opinion_document(ctx: StageContext) -> tuple[SourceDocument, str]:
    """Return the record's opinion (the longest one when the record has several) and its page-marked text."""
    documents = require(ctx, DocCategory.opinion, "opinion deciding the motion")
    chosen = max(documents, key=lambda d: d.chars)
    return chosen, with_page_markers(ctx.text_of(chosen.source_id))


def not_summary_judgment(document: SourceDocument, reason: str) -> StageError:
    """Return the StageError that stops a build whose opinion is not a ruling on summary judgment."""
    return StageError(
        "opinion",
        document.filename,
        f"{document.filename} is not a ruling on summary judgment: {reason}. An investigation environment is built "
        "from the court's findings on a summary-judgment motion: add the opinion that decides the motion (with its "
        "statement of facts) to the record folder, or remove this file, and rerun; finished stages are kept",
    )


@stage("opinion", output=OpinionResult, templates=("opinion",), version=2)
def opinion(ctx: StageContext) -> OpinionResult:
    """Extract and verify the opinion's facts, arguments and question stubs, reading every chunk of it. Raises
    StageError (see module)."""
    document, full = opinion_document(ctx)
    source_id = document.source_id
    if not _MENTIONS_SUMMARY_JUDGMENT.search(full):
        raise not_summary_judgment(document, "it never mentions summary judgment (nor Rule 56)")
    text, read = read_source(ctx, document, "opinion")
    asks = fitted_asks(ctx.settings, source_id, text, "opinion", "opinion_text")

    def check(item: str, draft: OpinionDraft, attempt: int) -> list[str]:
        if not draft.facts or verify_opinion(draft, full, source_id).facts:
            return []
        return [f"none of the {len(draft.facts)} highlight_text quotes occurs in the opinion; copy them exactly"]

    drafts = [d for d in ask_json(ctx, asks, OpinionDraft, check=check) if d is not None]
    draft, duplicates = merge_drafts(drafts)
    if draft.ruling_kind != "summary_judgment_opinion":
        raise not_summary_judgment(document, f"the model read it as {RULING_KINDS[draft.ruling_kind]}")
    result = verify_opinion(draft, full, source_id)
    if not result.facts:
        raise not_summary_judgment(document, "no fact the court relies on could be found in it (a bare order?)")
    result.dropped[:0] = duplicates
    result.ruling_kind, result.chunks, result.reads = draft.ruling_kind, len(asks), [read]
    ctx.log(
        f"  opinion: {len(result.facts)} facts verified from {len(asks)} part(s), {read.chars_read:,}/{read.chars:,} "
        f"characters read, {len(result.dropped)} item(s) dropped"
    )
    return result
