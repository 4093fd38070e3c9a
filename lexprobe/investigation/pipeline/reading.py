"""Whole-record reading: long sources are read in chunks sized by the model's context, and every read is recorded;
the record's documents by category (`require`: a clear StageError for a missing one), with page markers.

Rules:
- Chunk size: `chunk_chars(settings)` characters of source text per request: (context tokens - `max_tokens`) x 3
  characters per token, less the prompt's own overhead, at least `MIN_CHUNK_CHARS`. The context is the
  `context_tokens` setting, else the generator's window (`context_tokens(settings)`).
- Splitting: `chunks(text, size)` cuts near `size` at the last "[PAGE N]" marker, else the last blank line, else the
  last sentence end in the chunk's second half (a hard cut when there is none); consecutive chunks overlap by
  `overlap` characters, so a sentence cut at a border is whole in one of them. Every character of the text is in
  some chunk; a text that fits is one chunk.
- Items: chunk 1 of a source keeps the source's own item (a one-chunk source asks exactly what it asked before
  chunking existed, so stored answers are reused); chunk k > 1 is "ITEM#ck" (the FakeLLM of the tests and any
  table keyed by item falls back from "ITEM#ck" to "ITEM"). `chunk_asks` builds the requests of a chunked source
  this way, each prompt told its part (`part_label`; none for a one-chunk text unless the stage always labels).
- Cap: nothing is cut unless the user set `max_input_chars` (`cap`); a capped read is recorded as such.
- Records: a stage that reads record text lists `reads: list[SourceRead]` in its output (characters read per file);
  `reading_report(outputs)` gathers them per record file for the build report.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, Field

from lexprobe.investigation.pipeline.context import Ask, BuildSettings, StageContext, StageError, render_prompt
from lexprobe.investigation.pipeline.ingest import DocCategory, IngestResult, SourceDocument

#: Characters per token assumed when sizing chunks (English legal prose runs at about 4; 3 leaves room).
CHARS_PER_TOKEN = 3
#: The fewest source characters a chunk holds, whatever the context.
MIN_CHUNK_CHARS = 2_000
#: Context windows of the API backends and of anything else (scripted, OpenAI-compatible servers).
API_CONTEXT_TOKENS = 128_000
OTHER_CONTEXT_TOKENS = 8_192

_PAGE_MARKER = re.compile(r"\[PAGE (\d+)\]")
_BLANK_LINE = re.compile(r"\n[ \t]*\n")
_SENTENCE_END = re.compile(r"[.!?][\"')\]]?\s")


class SourceRead(BaseModel):
    """One stage's reading of one record file: how many of its characters reached a model."""

    source_id: str
    filename: str
    stage: str
    chars: int = Field(description="Characters in the source's extracted text.")
    chars_read: int = Field(description="Characters of it that reached a model (all of them unless capped).")


@dataclass(frozen=True)
class Chunk:
    """A piece of a source text: `text == source[start:end]`; `index` is 1-based, of `count` chunks."""

    index: int
    count: int
    start: int
    end: int
    text: str


def context_tokens(settings: BuildSettings) -> int:
    """Return the generator's context window in tokens: the `context_tokens` setting, else the backend's window
    (the embedded model's `n_ctx` for local specs, `API_CONTEXT_TOKENS` for openai/ and anthropic/ specs,
    `OTHER_CONTEXT_TOKENS` otherwise)."""
    if settings.context_tokens:
        return settings.context_tokens
    from lexprobe.models.errors import ModelConfigError
    from lexprobe.models.spec import parse_model_spec

    try:
        backend = parse_model_spec(settings.generator).backend
    except ModelConfigError:
        return OTHER_CONTEXT_TOKENS
    if backend == "local":
        from lexprobe.models.local import DEFAULT_CONTEXT

        return DEFAULT_CONTEXT
    if backend in ("openai", "anthropic"):
        return API_CONTEXT_TOKENS
    return OTHER_CONTEXT_TOKENS


def chunk_chars(settings: BuildSettings, overhead_chars: int = 6_000) -> int:
    """Return the characters of source text one request can hold: (context - max_tokens) x CHARS_PER_TOKEN less the
    prompt's `overhead_chars`, at least MIN_CHUNK_CHARS."""
    room = (context_tokens(settings) - settings.max_tokens) * CHARS_PER_TOKEN - overhead_chars
    return max(MIN_CHUNK_CHARS, room)


def map_chunk_chars(settings: BuildSettings, output_share: float, overhead_chars: int = 6_000) -> int:
    """Return the characters of source text per extraction request: `chunk_chars`, bounded so that what
    the part yields (about `output_share` of its characters) fits the output limit `max_tokens`."""
    by_output = int(settings.max_tokens * CHARS_PER_TOKEN / max(output_share, 0.01))
    return max(MIN_CHUNK_CHARS, min(chunk_chars(settings, overhead_chars), by_output))


def cap(text: str, settings: BuildSettings) -> str:
    """Return `text` cut to `settings.max_input_chars` when the user set that cap, else the whole text."""
    limit = settings.max_input_chars
    return text if limit is None or len(text) <= limit else text[:limit]


def _break_at(text: str, start: int, limit: int) -> int:
    """Return where to end a chunk that starts at `start` and may not pass `limit` (< len(text))."""
    floor = start + (limit - start) // 2
    window = text[floor:limit]
    for pattern, at_start in ((_PAGE_MARKER, True), (_BLANK_LINE, False), (_SENTENCE_END, False)):
        found = [m for m in pattern.finditer(window)]
        if at_start:
            found = [m for m in found if m.start() > 0]
        if found:
            last = found[-1]
            return floor + (last.start() if at_start else last.end())
    return limit


def chunks(text: str, size: int, overlap: int = 300) -> list[Chunk]:
    """Split `text` into chunks of at most `size` characters (see the module rules); one chunk when it fits."""
    size = max(1, size)
    overlap = max(0, min(overlap, size // 4))
    spans: list[tuple[int, int]] = []
    start = 0
    while True:
        if len(text) - start <= size:
            spans.append((start, len(text)))
            break
        end = _break_at(text, start, start + size)
        spans.append((start, end))
        start = max(start + 1, end - overlap)
    return [Chunk(i + 1, len(spans), s, e, text[s:e]) for i, (s, e) in enumerate(spans)]


def chunk_item(item: str, chunk: Chunk) -> str:
    """Return the request item of `chunk` of source `item`: `item` for chunk 1, "ITEM#c2", "ITEM#c3", ... after."""
    return item if chunk.index == 1 else f"{item}#c{chunk.index}"


def chunk_asks(
    item: str, text: str, parts: list[Chunk], prompt: Callable[[str, str], str], label_one: bool = False
) -> list[Ask]:
    """Return one request per chunk in `parts` of `text` (source `item`): item `chunk_item(item, chunk)`, prompt
    `prompt(chunk_text, part)`, where `part` is the chunk's `part_label`, or "" for a text read in one chunk unless
    `label_one`."""
    label = label_one or len(parts) > 1
    return [Ask(chunk_item(item, c), prompt(c.text, part_label(text, c) if label else "")) for c in parts]


def page_span(text: str, chunk: Chunk) -> tuple[int, int] | None:
    """Return the first and last page `chunk` of `text` covers (by its "[PAGE N]" markers), or None without any."""
    before = [m for m in _PAGE_MARKER.finditer(text, 0, chunk.start)]
    inside = [int(m.group(1)) for m in _PAGE_MARKER.finditer(chunk.text)]
    first = int(before[-1].group(1)) if before and not chunk.text.startswith("[PAGE ") else None
    if first is None and not inside:
        return None
    first = first if first is not None else inside[0]
    return first, max([first, *inside])


def part_label(text: str, chunk: Chunk) -> str:
    """Return how a prompt names `chunk`: "pages X-Y of N (part k of m)", or "characters A-B of N (part k of m)"."""
    part = f"part {chunk.index} of {chunk.count}"
    span = page_span(text, chunk)
    if span:
        pages = f"page {span[0]}" if span[0] == span[1] else f"pages {span[0]}-{span[1]}"
        last = max((int(m.group(1)) for m in _PAGE_MARKER.finditer(text)), default=0)
        return f"{pages} of {last} ({part})"
    return f"characters {chunk.start + 1}-{chunk.end} of {len(text)} ({part})"


def read_source(ctx: StageContext, source: SourceDocument, stage: str) -> tuple[str, SourceRead]:
    """Return record file `source`'s text with page markers, cut only by the user's cap, and the record of reading
    it (the whole source unless capped; the count is clamped to the source's length)."""
    raw = ctx.text_of(source.source_id)
    full = with_page_markers(raw)
    text = cap(full, ctx.settings)
    chars = source.chars or len(raw)
    chars_read = chars if len(text) == len(full) else min(len(text), chars)
    read = SourceRead(
        source_id=source.source_id, filename=source.filename, stage=stage, chars=chars, chars_read=chars_read
    )
    return text, read


def read_in_parts(
    ctx: StageContext,
    sources: list[SourceDocument],
    stage: str,
    size: int,
    template: str,
    item: str = "{}",
    **fields: Any,
) -> tuple[list[Ask], list[SourceDocument], list[SourceRead]]:
    """Return one request per chunk (at most `size` characters) of each source, read whole for `stage`: item
    `chunk_item(item.format(source_id), chunk)`, prompt `template` given the source's `filename` and `filer`, the
    chunk's `part` label, the `parts` count and `text`, and `fields`; also the source of each request, and the reads."""
    asks, owners, reads = [], [], []
    for doc in sources:
        text, read = read_source(ctx, doc, stage)
        reads.append(read)
        for chunk in chunks(text, size):
            label = part_label(text, chunk)
            variables = {"filename": doc.filename, "filer": filer_of(doc), "parts": chunk.count, **fields}
            prompt = render_prompt(template, part=label, text=chunk.text, **variables)
            asks.append(Ask(chunk_item(item.format(doc.source_id), chunk), prompt))
            owners.append(doc)
    return asks, owners, reads


def fitted_asks(
    settings: BuildSettings, item: str, text: str, template: str, text_field: str, **fields: Any
) -> list[Ask]:
    """Return the requests (`chunk_asks`) that read `text` with prompt `template`, given each chunk as `text_field`,
    its `part` label and `fields`: one per chunk, chunks sized by the model's context less the prompt."""
    overhead = len(render_prompt(template, part="", **{text_field: ""}, **fields)) + 1_000
    parts = chunks(text, chunk_chars(settings, overhead))

    def prompt(chunk: str, part: str) -> str:
        return render_prompt(template, part=part, **{text_field: chunk}, **fields)

    return chunk_asks(item, text, parts, prompt)


def reading_report(outputs: dict[str, BaseModel]) -> list[dict[str, Any]]:
    """Return, per readable record file (ingest order), what reached a model: filename, category, chars, chars_read
    (the most any stage read), share (chars_read / chars) and the stages that read it (none: share 0)."""
    rows: dict[str, dict[str, Any]] = {}
    ingest = outputs.get("ingest")
    for doc in getattr(ingest, "documents", []):
        if doc.error is None:
            category = doc.category.value if doc.category is not None else ""
            rows[doc.source_id] = _row(doc.filename, category, doc.chars)
    for name, output in outputs.items():
        for read in getattr(output, "reads", None) or []:
            row = rows.setdefault(read.source_id, _row(read.filename, "", read.chars))
            row["chars"] = max(row["chars"], read.chars)
            row["chars_read"] = max(row["chars_read"], read.chars_read)
            stage = read.stage or name
            if stage not in row["stages"]:
                row["stages"].append(stage)
    for row in rows.values():
        row["share"] = round(row["chars_read"] / row["chars"], 4) if row["chars"] else 0.0
    return list(rows.values())


def _row(filename: str, category: str, chars: int) -> dict[str, Any]:
    return {"filename": filename, "category": category, "chars": chars, "chars_read": 0, "share": 0.0, "stages": []}


_PAGE_HEADING = re.compile(r"^## Page (\d+)$", re.M)


_TITLE_PARTY = re.compile(r"\W*(plaintiff|defendant)s?['\u2019]?s?\b", re.I)


def filer_of(doc: SourceDocument) -> str:
    """Return the party that filed `doc`: ingest's `party`, else the possessive opening its title, else ''."""
    if doc.party:
        return doc.party
    match = _TITLE_PARTY.match(doc.title or "")
    return match.group(1).lower() if match else ""


def with_page_markers(text: str) -> str:
    """Return extracted text with each "## Page N" heading written as a "[PAGE N]" marker."""
    return _PAGE_HEADING.sub(r"[PAGE \1]", text)


def require(ctx: StageContext, category: DocCategory, what: str) -> list[SourceDocument]:
    """Return the record's readable documents of `category`; raises StageError saying what is missing.

    The message names sealed placeholders that stand in for the missing document, if any, and says how to fix it.
    """
    ingest: IngestResult = ctx.output("ingest")
    found = ingest.of(category)
    if found:
        return found
    sealed = [d.filename for d in ingest.of(DocCategory.sealed_placeholder) if d.stands_for == category.value]
    unread = [d.filename for d in ingest.documents if d.error]
    detail = f"the record has no {what}"
    if sealed:
        detail += f" (only a sealed placeholder: {', '.join(sealed)})"
    if unread:
        detail += f"; {len(unread)} file(s) could not be read ({', '.join(unread[:3])})"
    detail += (
        f". The pipeline will not invent it: add the {what} to the record folder (PDF or text) and rerun; "
        "finished stages are kept"
    )
    raise StageError(ctx.stage, "record", detail)


def case_id(ctx: StageContext) -> str:
    """Return the environment's case id: the `case_id` setting, else the record folder's name as a slug."""
    return ctx.settings.case_id or re.sub(r"[^a-z0-9]+", "-", ctx.record_dir.resolve().name.lower()).strip("-")


def neutral_doc_id(case: str, key: str) -> str:
    """Return a corpus document id that reveals nothing (not the role, not the source): `doc_` + a hash."""
    return "doc_" + hashlib.sha1(f"{case}/{key}".encode()).hexdigest()[:10]
