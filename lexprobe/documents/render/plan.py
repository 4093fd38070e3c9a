"""The format-neutral layout of a document: what goes on the page, in order, before any format draws it.

`document_plan` turns a `DocumentContent` into a list of parts: the document type's front matter (`Title`,
`Fields`, `Lines`, `Rule`), the content's own blocks, and its closing (a letter's signature, a contract's signature
block). A deposition becomes one `Transcript` part: pages of 25 numbered lines. Every renderer walks the same
plan, so an email says From/To/Date/Subject in every format.

`block_lines` prints one block as plain lines (the txt renderer, `render_txt`, the xlsx "Text" sheet and pptx text
slides use it); `table_lines` prints a table as space-aligned columns. `house_style` is the cosmetic choices a seed
makes (font, size, margins, date and page formats): the same seed, the same look and text on every machine.
"""

from __future__ import annotations

import random
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from lexprobe.documents.content import (
    QA,
    Block,
    CalendarEntry,
    ChatMessage,
    DocType,
    DocumentContent,
    Heading,
    NumberedSection,
    Paragraph,
    Sheet,
    Slide,
    Table,
    parse_iso,
)

MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)

DateFormat = Literal["long", "us", "day_month"]
PageLabel = Literal["of", "dash"]


@dataclass(frozen=True)
class HouseStyle:
    """The cosmetic choices for one document."""

    serif: bool  # Times / Times New Roman, else Helvetica / Calibri
    font_size: int  # body size in points
    margin_in: float  # page margins in inches (pdf, docx)
    date_format: DateFormat  # "March 4, 2019" | "03/04/2019" | "4 March 2019"
    page_label: PageLabel  # "Page N of M" | "- N -"

    def format_date(self, value: str | None) -> str:
        """Return an ISO date or date-time printed as a date in this style; other strings unchanged; None -> ""."""
        if not value:
            return ""
        parsed = parse_iso(value)
        if parsed is None:
            return value
        if self.date_format == "us":
            return f"{parsed.month:02d}/{parsed.day:02d}/{parsed.year}"
        if self.date_format == "day_month":
            return f"{parsed.day} {MONTHS[parsed.month - 1]} {parsed.year}"
        return f"{MONTHS[parsed.month - 1]} {parsed.day}, {parsed.year}"

    def format_datetime(self, value: str | None) -> str:
        """Return an ISO date-time printed as date and 12-hour time ("March 4, 2019 10:30 AM"); a bare date as a
        date; other strings unchanged."""
        text = self.format_date(value)
        if value and parse_iso(value) is not None and ("T" in value or " " in value.strip()):
            text += " " + format_time(value)
        return text

    def page_text(self, page: int, pages: int) -> str:
        """Return the page label for page `page` of `pages`: "Page 2 of 5" or "- 2 -"."""
        return f"Page {page} of {pages}" if self.page_label == "of" else f"- {page} -"


def format_time(value: str) -> str:
    """Return the 12-hour time of an ISO date-time ("10:30 AM"); "" when `value` is not ISO."""
    parsed = parse_iso(value)
    if parsed is None:
        return ""
    hour = parsed.hour % 12 or 12
    return f"{hour}:{parsed.minute:02d} {'AM' if parsed.hour < 12 else 'PM'}"


def house_style(seed: int) -> HouseStyle:
    """Return the house style a seed picks (deterministic across runs and machines)."""
    rng = random.Random(seed)
    return HouseStyle(
        serif=rng.random() < 0.5,
        font_size=rng.choice((10, 11, 12)),
        margin_in=rng.choice((0.75, 1.0)),
        date_format=rng.choice(("long", "long", "us", "day_month")),
        page_label=rng.choice(("of", "dash")),
    )


LINES_PER_PAGE = 25  # deposition transcript lines per page
TRANSCRIPT_WIDTH = 56  # characters of text per transcript line, after the line number


@dataclass(frozen=True)
class Title:
    """The document's title line ("MEMORANDUM", "INVOICE", the report's title)."""

    text: str


@dataclass(frozen=True)
class Fields:
    """A header block of labelled fields: email headers, the memo TO/FROM/DATE/RE block, invoice details."""

    items: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Lines:
    """A group of plain lines printed one under another (a letter's date, address, salutation, signature)."""

    lines: tuple[str, ...]


@dataclass(frozen=True)
class Rule:
    """A horizontal rule under a header block."""


@dataclass(frozen=True)
class Transcript:
    """A deposition transcript: pages of exactly `LINES_PER_PAGE` lines (blank lines pad the last page)."""

    pages: tuple[tuple[str, ...], ...]


Part = Title | Fields | Lines | Rule | Transcript | Block

_GENERIC_FIELDS = {
    DocType.minutes: ("Prepared by", "Present"),
    DocType.report: ("Prepared by", "Prepared for"),
    DocType.policy: ("Issued by", "Applies to"),
}


def _join(names: list[str]) -> str:
    return "; ".join(name for name in names if name)


def _fields(*items: tuple[str, str]) -> Fields | None:
    kept = tuple((label, value) for label, value in items if value)
    return Fields(kept) if kept else None


def _meta_lines(value: object) -> list[str]:
    """Return a metadata value given as a string or a list of lines as a list of strings."""
    if not value:
        return []
    return [str(value)] if isinstance(value, str) else [str(line) for line in value]  # type: ignore[union-attr]


def _letter(content: DocumentContent, style: HouseStyle) -> list[Part | None]:
    meta = content.metadata
    address, letterhead = _meta_lines(meta.get("address")), _meta_lines(meta.get("letterhead"))
    salutation = meta.get("salutation") or (
        f"Dear {content.recipients[0]}:" if content.recipients else "To Whom It May Concern:"
    )
    closing = [str(meta.get("closing") or "Sincerely,"), "", content.author]
    if meta.get("author_title"):
        closing.append(str(meta["author_title"]))
    return [
        Lines(tuple(letterhead)) if letterhead else None,
        Lines((style.format_date(content.date),)) if content.date else None,
        Lines(tuple([*content.recipients, *address])) if content.recipients or address else None,
        Lines((f"Re: {content.subject}",)) if content.subject else None,
        Lines((str(salutation),)),
        *content.body,
        Lines(tuple(line for line in closing if line is not None)),
    ]


def _contract(content: DocumentContent, style: HouseStyle) -> list[Part | None]:
    parties = _meta_lines(content.metadata.get("parties")) or [content.author, *content.recipients]
    signatures: list[Part | None] = []
    if any(parties):
        signatures.append(
            Lines(("IN WITNESS WHEREOF, the parties have executed this Agreement as of the date first written above.",))
        )
        for party in (p for p in parties if p):
            signatures.append(Lines((party.upper(), "By: ______________________________", "Name:", "Title:")))
    return [
        Title((content.title or "Agreement").upper()),
        Lines((f"Effective Date: {style.format_date(content.date)}",)) if content.date else None,
        *content.body,
        *signatures,
    ]


def _front_matter(content: DocumentContent, style: HouseStyle) -> list[Part | None]:
    date = style.format_date(content.date)
    kind = content.doc_type
    to, cc = _join(content.recipients), _join(content.cc)
    number = str(content.metadata.get("number") or "")
    if kind == DocType.email:
        when = style.format_datetime(content.date)
        subject = content.subject or content.title
        fields = _fields(("From", content.author), ("To", to), ("Cc", cc), ("Date", when), ("Subject", subject))
        return [fields, Rule()]
    if kind == DocType.memo:
        fields = _fields(
            ("TO", to), ("FROM", content.author), ("CC", cc), ("DATE", date), ("RE", content.subject or content.title)
        )
        return [Title("MEMORANDUM"), fields, Rule()]
    if kind == DocType.invoice:
        fields = _fields(("Invoice No.", number), ("Date", date), ("From", content.author), ("Bill To", to))
        return [Title(content.title or "INVOICE"), fields, _fields(("Re", content.subject))]
    if kind == DocType.purchase_order:
        fields = _fields(("PO Number", number), ("Date", date), ("Buyer", content.author), ("Vendor", to))
        return [Title(content.title or "PURCHASE ORDER"), fields, _fields(("Re", content.subject))]
    if kind == DocType.calendar:
        return [Title(content.title or "Calendar"), _fields(("Calendar of", content.author), ("Date", date))]
    if kind == DocType.chat:
        people = _join([content.author, *content.recipients])
        return [Title(content.title or "Chat"), _fields(("Participants", people), ("Date", date))]
    by, to_label = _GENERIC_FIELDS.get(kind, ("Author", "To"))
    fields = _fields((by, content.author), (to_label, to), ("Cc", cc), ("Date", date), ("Subject", content.subject))
    return [Title(content.title) if content.title else None, fields]


def document_plan(content: DocumentContent, style: HouseStyle) -> list[Part]:
    """Return the parts of `content` in reading order, with its document type's conventions applied."""
    if content.doc_type == DocType.deposition:
        parts: list[Part | None] = [transcript(content, style)]
    elif content.doc_type == DocType.letter:
        parts = _letter(content, style)
    elif content.doc_type == DocType.contract:
        parts = _contract(content, style)
    else:
        parts = [*_front_matter(content, style), *content.body]
    return [part for part in parts if part is not None]


def transcript(content: DocumentContent, style: HouseStyle) -> Transcript:
    """Return a deposition as pages of `LINES_PER_PAGE` lines of at most `TRANSCRIPT_WIDTH` characters of text
    (line numbers are not included; renderers print them in the margin)."""
    lines: list[str] = [(content.title or "Deposition").upper()]
    witness = content.metadata.get("witness")
    if witness:
        lines.append(f"Witness: {witness}")
    if content.subject:
        lines.extend(textwrap.wrap(content.subject, TRANSCRIPT_WIDTH))
    if content.date:
        lines.append(f"Date: {style.format_date(content.date)}")
    if content.author:
        lines.append(f"Taken by: {content.author}")
    lines.append("")
    for block in content.body:
        if isinstance(block, QA):  # "Q:  text", continuation lines under the text
            texts, first = [block.text], f"{block.speaker}:  "
        else:
            texts, first = block_lines(block, style), ""
        rest = " " * len(first)
        for text in texts:
            wrapped = textwrap.wrap(text, TRANSCRIPT_WIDTH - len(first)) or [""]
            lines.append(first + wrapped[0])
            lines.extend(rest + line for line in wrapped[1:])
            first = rest
    pages = [lines[i : i + LINES_PER_PAGE] for i in range(0, len(lines), LINES_PER_PAGE)] or [[]]
    pages[-1] = pages[-1] + [""] * (LINES_PER_PAGE - len(pages[-1]))
    return Transcript(tuple(tuple(page) for page in pages))


def section_text(block: NumberedSection) -> tuple[str, str]:
    """Return a contract clause as (lead, text): ("3. Payment.", "Buyer shall pay ...")."""
    heading = block.heading.strip()
    if heading and heading[-1] not in ".:;":
        heading += "."
    return (f"{block.number}. {heading}".strip(), block.text)


def calendar_lines(block: CalendarEntry, style: HouseStyle) -> list[str]:
    """Return a calendar entry as labelled lines (subject, When, Where, Attendees, description)."""
    start = style.format_datetime(block.start)
    end = block.end
    if end:
        same_day = block.end[:10] == block.start[:10] and format_time(block.end)
        end = format_time(block.end) if same_day else style.format_datetime(block.end)
    lines = [block.title] if block.title else []
    lines.append(f"When: {start} - {end}" if end else f"When: {start}")
    if block.location:
        lines.append(f"Where: {block.location}")
    if block.attendees:
        lines.append(f"Attendees: {_join(block.attendees)}")
    if block.text:
        lines.append(block.text)
    return lines


def chat_line(block: ChatMessage, style: HouseStyle) -> str:
    """Return a chat message as "[March 4, 2019 10:31 AM] Sender: text"."""
    return f"[{style.format_datetime(block.timestamp)}] {block.sender}: {block.text}"


def table_lines(header: list[str], rows: list[list[str]], totals: list[list[str]] | None = None) -> list[str]:
    """Return a table as space-aligned columns: header, a dashed rule, rows, and totals under a second rule."""
    totals = totals or []
    grid = [header, *rows, *totals]
    widths = [max((len(row[i]) for row in grid if i < len(row)), default=0) for i in range(max(map(len, grid)))]

    def line(row: list[str]) -> str:
        return "  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip()

    rule = "  ".join("-" * width for width in widths)
    out = [line(header), rule, *(line(row) for row in rows)]
    if totals:
        out += [rule, *(line(row) for row in totals)]
    return out


def block_lines(block: Block, style: HouseStyle) -> list[str]:
    """Return one block as plain lines (no wrapping; a paragraph is one line)."""
    if isinstance(block, Paragraph | Heading):
        return [block.text]
    if isinstance(block, NumberedSection):
        lead, text = section_text(block)
        return [f"{lead} {text}".strip()]
    if isinstance(block, QA):
        return [f"{block.speaker}: {block.text}"]
    if isinstance(block, ChatMessage):
        return [chat_line(block, style)]
    if isinstance(block, CalendarEntry):
        return calendar_lines(block, style)
    if isinstance(block, Slide):
        lines = [block.title, *(f"- {bullet}" for bullet in block.bullets)]
        return [*lines, f"Notes: {block.notes}"] if block.notes else lines
    if isinstance(block, Table):
        return table_lines(block.header, block.rows, block.totals)
    if isinstance(block, Sheet):
        return [f"Sheet: {block.name}", *table_lines(block.header, block.rows)]
    raise TypeError(f"unknown block {block!r}")


def part_lines(part: Part, style: HouseStyle) -> list[str]:
    """Return any part as plain lines (a rule is a dashed line; a transcript is pages headed "Page N")."""
    if isinstance(part, Title):
        return [part.text]
    if isinstance(part, Fields):
        return [f"{label}: {value}" for label, value in part.items]
    if isinstance(part, Lines):
        return list(part.lines)
    if isinstance(part, Rule):
        return ["-" * 60]
    if isinstance(part, Transcript):
        out: list[str] = []
        for number, page in enumerate(part.pages, start=1):
            out.append(f"Page {number}".rjust(TRANSCRIPT_WIDTH + 4))
            out.extend(f"{line_no:>2}  {text}".rstrip() for line_no, text in enumerate(page, start=1))
            out.append("")
        return out[:-1]
    return block_lines(part, style)


def render_text(content: DocumentContent, seed: int = 0) -> str:
    """Return the document as plain text (ends with a newline)."""
    style = house_style(seed)
    chunks: list[list[str]] = []
    previous: object = None
    for part in document_plan(content, style):
        lines = part_lines(part, style)
        run_on = isinstance(part, Rule) or (isinstance(part, QA | ChatMessage) and type(part) is type(previous))
        if chunks and run_on:
            chunks[-1].extend(lines)
        else:
            chunks.append(lines)
        previous = part
    return "\n\n".join("\n".join(chunk) for chunk in chunks) + "\n"


def render_txt(content: DocumentContent, path: Path, seed: int = 0) -> None:
    """Write the document to `path` as UTF-8 text with LF line ends."""
    path.write_text(render_text(content, seed), encoding="utf-8", newline="\n")
