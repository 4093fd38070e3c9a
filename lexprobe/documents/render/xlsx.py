"""Excel renderer (openpyxl): tables become real worksheets, text goes to a "Text" sheet.

Sheets, in the order their first block appears:
- "Text": the front matter and every text block, one line per row in column A (a deposition's transcript lines
  included). A `spreadsheet` document keeps its front matter in the workbook properties only.
- one sheet per `Sheet` block (its own name) and per `Table` block ("Table 1", "Table 2", ...): a bold, frozen
  header row, data rows, bold totals rows. Numeric-looking cells ("$1,200.00", "12.5%") are stored as numbers with
  a number format that prints them the same way (`lexprobe.documents.numbers`).
- "Chat" (Timestamp, Sender, Message) for chat messages and "Calendar" (Subject, Start, End, Location, Attendees,
  Description) for calendar entries.

Deterministic: fixed core properties and zip entry times (`ooxml.finalize_package`).
"""

from __future__ import annotations

import re
from pathlib import Path

from openpyxl import Workbook
from openpyxl.styles import Alignment, Font
from openpyxl.worksheet.worksheet import Worksheet

from lexprobe.documents.content import CalendarEntry, ChatMessage, DocType, DocumentContent, Sheet, Table
from lexprobe.documents.numbers import parse_number
from lexprobe.documents.render.ooxml import finalize_package
from lexprobe.documents.render.plan import Fields, Lines, Rule, Title, document_plan, house_style, part_lines

_BAD_NAME = re.compile(r"[\[\]:*?/\\]")
CHAT_HEADER = ["Timestamp", "Sender", "Message"]
CALENDAR_HEADER = ["Subject", "Start", "End", "Location", "Attendees", "Description"]


def sheet_title(name: str, taken: set[str]) -> str:
    """Return `name` made a legal, unused worksheet title (no []:*?/\\, at most 31 characters)."""
    base = _BAD_NAME.sub(" ", name).strip().strip("'")[:31] or "Sheet"
    title, n = base, 1
    while title.lower() in taken:
        n += 1
        title = f"{base[: 31 - len(str(n)) - 3]} ({n})"
    taken.add(title.lower())
    return title


def _write_grid(ws: Worksheet, header: list[str], rows: list[list[str]], totals: list[list[str]]) -> None:
    bold = Font(bold=True)
    widths: dict[int, int] = {}
    for r, row in enumerate([header, *rows, *totals], start=1):
        is_bold = r == 1 or r > len(rows) + 1
        for c, text in enumerate(row, start=1):
            number = parse_number(text) if r > 1 else None
            cell = ws.cell(row=r, column=c, value=number[0] if number else (text or None))
            if number:
                cell.number_format = number[1]
            if is_bold:
                cell.font = bold
            widths[c] = max(widths.get(c, 0), len(text))
    ws.freeze_panes = "A2"
    for c, width in widths.items():
        ws.column_dimensions[ws.cell(row=1, column=c).column_letter].width = min(max(width + 2, 8), 60)


def _write_text(ws: Worksheet, lines: list[str]) -> None:
    wrap = Alignment(wrap_text=True, vertical="top")
    for r, line in enumerate(lines, start=1):
        cell = ws.cell(row=r, column=1, value=line or None)
        if len(line) > 100:
            cell.alignment = wrap
    ws.column_dimensions["A"].width = 100


def render_xlsx(content: DocumentContent, path: Path, seed: int = 0) -> None:
    """Write the document to `path` as an .xlsx workbook; the same content and seed give the same bytes."""
    style = house_style(seed)
    text: list[str] = []
    chats: list[list[str]] = []
    entries: list[list[str]] = []
    order: list[tuple[str, object]] = []  # (kind, payload) in order of first appearance
    tables = 0
    for part in document_plan(content, style):
        if isinstance(part, Title | Fields | Lines | Rule) and content.doc_type == DocType.spreadsheet:
            continue
        if isinstance(part, Rule):
            continue
        if isinstance(part, Table):
            tables += 1
            order.append(("grid", (f"Table {tables}", part.header, part.rows, part.totals)))
        elif isinstance(part, Sheet):
            order.append(("grid", (part.name, part.header, part.rows, [])))
        elif isinstance(part, ChatMessage):
            chats.append([style.format_datetime(part.timestamp), part.sender, part.text])
            order.append(("chat", None))
        elif isinstance(part, CalendarEntry):
            start, end = style.format_datetime(part.start), style.format_datetime(part.end)
            entries.append([part.title, start, end, part.location, "; ".join(part.attendees), part.text])
            order.append(("calendar", None))
        else:
            if text:
                text.append("")
            text.extend(part_lines(part, style))
            order.append(("text", None))
    wb = Workbook()
    wb.remove(wb.active)
    taken: set[str] = set()
    written: set[str] = set()
    for kind, payload in order:
        if kind != "grid" and kind in written:
            continue
        written.add(kind)
        if kind == "text":
            _write_text(wb.create_sheet(sheet_title("Text", taken)), text)
        elif kind == "chat":
            _write_grid(wb.create_sheet(sheet_title("Chat", taken)), CHAT_HEADER, chats, [])
        elif kind == "calendar":
            _write_grid(wb.create_sheet(sheet_title("Calendar", taken)), CALENDAR_HEADER, entries, [])
        else:
            name, header, rows, totals = payload  # type: ignore[misc]
            _write_grid(wb.create_sheet(sheet_title(name, taken)), header, rows, totals)
    if not wb.worksheets:
        wb.create_sheet("Text")
    when = content.document_datetime()
    props = wb.properties
    props.creator = props.lastModifiedBy = content.author or None
    props.title, props.subject = content.title or None, content.subject or None
    props.created = props.modified = when
    wb.save(path)
    finalize_package(path, when)
