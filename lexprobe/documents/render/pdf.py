"""PDF renderer (reportlab): US-letter pages in the house style, a page label on every page.

Documents flow through platypus: front matter, paragraphs, tables with a bold header row and totals under a rule,
"Page N of M" or "- N -" centred at the foot of each page. A deposition is drawn like a court reporter's
transcript: 25 numbered lines per page in Courier with a ruled left margin and "Page N" at the top right.

Deterministic: `invariant=1` (no random file id), creation and modification dates fixed to the document's date.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from xml.sax.saxutils import escape

from reportlab.lib import colors
from reportlab.lib.enums import TA_CENTER
from reportlab.lib.pagesizes import LETTER
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import inch
from reportlab.pdfgen import canvas
from reportlab.platypus import (
    Flowable,
    HRFlowable,
    KeepTogether,
    PageBreak,
    SimpleDocTemplate,
    Spacer,
)
from reportlab.platypus import Paragraph as PdfParagraph
from reportlab.platypus import Table as PdfTable

from lexprobe.documents import content as blocks
from lexprobe.documents.content import DocType, DocumentContent
from lexprobe.documents.render import plan as layout
from lexprobe.documents.render.plan import HouseStyle, Part, Transcript, document_plan, house_style


def _pdf_date(content: DocumentContent) -> str:
    return content.document_datetime().strftime("D:%Y%m%d%H%M%S+00'00'")


def _canvas_class(page_text: Callable[[int, int], str] | None, stamp: str, font: str) -> type[canvas.Canvas]:
    """Return a Canvas class that fixes the PDF dates and, with `page_text`, labels each page "of M" on save."""

    class FixedCanvas(canvas.Canvas):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.setDateFormatter(lambda *_: stamp)
            self._held_pages: list[dict] = []

        def showPage(self):
            if page_text is None:
                super().showPage()
                return
            self._held_pages.append(dict(self.__dict__))
            self._startPage()

        def save(self):
            total = len(self._held_pages)
            for number, state in enumerate(self._held_pages, start=1):
                self.__dict__.update(state)
                self.setFont(font, 9)
                self.drawCentredString(self._pagesize[0] / 2, 0.45 * inch, page_text(number, total))
                super().showPage()
            super().save()

    return FixedCanvas


class _Styles:
    """The paragraph styles of one house style."""

    def __init__(self, style: HouseStyle):
        self.font = "Times-Roman" if style.serif else "Helvetica"
        self.bold = "Times-Bold" if style.serif else "Helvetica-Bold"
        size = style.font_size
        self.body = ParagraphStyle("body", fontName=self.font, fontSize=size, leading=size * 1.3, spaceAfter=size * 0.6)
        self.tight = ParagraphStyle("tight", parent=self.body, spaceAfter=1)
        self.title = ParagraphStyle(
            "title", parent=self.body, fontName=self.bold, fontSize=size + 4, leading=(size + 4) * 1.3,
            alignment=TA_CENTER, spaceAfter=size,
        )  # fmt: skip
        self.heading = ParagraphStyle(
            "heading", parent=self.body, fontName=self.bold, fontSize=size + 1, spaceBefore=size * 0.5
        )
        self.cell = ParagraphStyle("cell", parent=self.body, fontSize=size - 1, leading=(size - 1) * 1.2, spaceAfter=0)
        self.cell_bold = ParagraphStyle("cell_bold", parent=self.cell, fontName=self.bold)
        self.notes = ParagraphStyle("notes", parent=self.body, fontName=self.font, textColor=colors.dimgrey)


def _text(text: str) -> str:
    return escape(text).replace("\n", "<br/>")


def _table(
    header: list[str], rows: list[list[str]], totals: list[list[str]], styles: _Styles, width: float
) -> PdfTable:
    grid = [header, *rows, *totals]
    columns = max(len(row) for row in grid)
    grid = [row + [""] * (columns - len(row)) for row in grid]
    weights = [min(max(max(len(row[i]) for row in grid), 4), 40) for i in range(columns)]
    widths = [width * weight / sum(weights) for weight in weights]
    data = [
        [PdfParagraph(_text(cell), styles.cell_bold if r == 0 or r > len(rows) else styles.cell) for cell in row]
        for r, row in enumerate(grid)
    ]
    commands = [
        ("GRID", (0, 0), (-1, len(rows)), 0.5, colors.grey),
        ("BACKGROUND", (0, 0), (-1, 0), colors.lightgrey),
        ("VALIGN", (0, 0), (-1, -1), "TOP"),
    ]
    if totals:
        commands.append(("LINEABOVE", (0, len(rows) + 1), (-1, len(rows) + 1), 1.2, colors.black))
    return PdfTable(data, colWidths=widths, repeatRows=1, style=commands, hAlign="LEFT")


def _flowables(part: Part, styles: _Styles, style: HouseStyle, width: float, doc_type: DocType) -> list[Flowable]:
    if isinstance(part, layout.Title):
        return [PdfParagraph(_text(part.text), styles.title)]
    if isinstance(part, layout.Fields):
        paragraphs = [
            PdfParagraph(f"<b>{_text(label)}:</b> {_text(value)}", styles.tight) for label, value in part.items
        ]
        return [*paragraphs, Spacer(1, style.font_size * 0.6)]
    if isinstance(part, layout.Lines):
        lines = [PdfParagraph(_text(line), styles.tight) if line else Spacer(1, style.font_size) for line in part.lines]
        return [KeepTogether(lines), Spacer(1, style.font_size * 0.8)]
    if isinstance(part, layout.Rule):
        return [HRFlowable(width="100%", thickness=0.8, color=colors.black, spaceBefore=2, spaceAfter=10)]
    if isinstance(part, blocks.Paragraph):
        return [PdfParagraph(_text(part.text), styles.body)]
    if isinstance(part, blocks.Heading):
        return [PdfParagraph(_text(part.text), styles.heading)]
    if isinstance(part, blocks.NumberedSection):
        lead, text = layout.section_text(part)
        return [PdfParagraph(f"<b>{_text(lead)}</b> {_text(text)}", styles.body)]
    if isinstance(part, blocks.QA):
        return [PdfParagraph(f"<b>{part.speaker}:</b> {_text(part.text)}", styles.tight)]
    if isinstance(part, blocks.ChatMessage):
        when = style.format_datetime(part.timestamp)
        return [PdfParagraph(f"<font color='grey'>[{_text(when)}]</font> <b>{_text(part.sender)}:</b> "
                             f"{_text(part.text)}", styles.tight)]  # fmt: skip
    if isinstance(part, blocks.CalendarEntry):
        lines = layout.calendar_lines(part, style)
        head = [PdfParagraph(_text(lines[0]), styles.heading if part.title else styles.tight)]
        return [KeepTogether(head + [PdfParagraph(_text(line), styles.tight) for line in lines[1:]]), Spacer(1, 8)]
    if isinstance(part, blocks.Slide):
        out: list[Flowable] = [PageBreak()] if doc_type == DocType.presentation else []
        out.append(
            PdfParagraph(_text(part.title), styles.title if doc_type == DocType.presentation else styles.heading)
        )
        out += [PdfParagraph(_text(bullet), styles.body, bulletText="-") for bullet in part.bullets]
        if part.notes:
            out.append(PdfParagraph(f"<i>Notes: {_text(part.notes)}</i>", styles.notes))
        return out
    if isinstance(part, blocks.Table):
        return [_table(part.header, part.rows, part.totals, styles, width), Spacer(1, style.font_size)]
    if isinstance(part, blocks.Sheet):
        table = _table(part.header, part.rows, [], styles, width)
        return [PdfParagraph(_text(part.name), styles.heading), table, Spacer(1, style.font_size)]
    raise TypeError(f"unknown part {part!r}")


def _draw_transcript(part: Transcript, path: Path, content: DocumentContent) -> None:
    """Draw transcript pages: "Page N" top right, line numbers 1-25 in a ruled margin, Courier 12."""
    pdf = _canvas_class(None, _pdf_date(content), "Courier")(str(path), pagesize=LETTER, invariant=1)
    _set_info(pdf, content)
    page_width, page_height = LETTER
    top, step, left = page_height - 1.35 * inch, 24, 1.25 * inch
    for number, page in enumerate(part.pages, start=1):
        pdf.setFont("Courier", 12)
        pdf.drawRightString(page_width - inch, page_height - 0.75 * inch, f"Page {number}")
        pdf.setLineWidth(0.6)
        for x in (left - 6, left - 3):
            pdf.line(x, page_height - inch, x, top - 25 * step)
        for line_no, text in enumerate(page, start=1):
            y = top - (line_no - 1) * step
            pdf.drawRightString(left - 12, y, str(line_no))
            pdf.drawString(left + 6, y, text)
        pdf.showPage()
    pdf.save()


def _set_info(pdf: canvas.Canvas, content: DocumentContent) -> None:
    pdf.setTitle(content.title or content.subject)
    pdf.setAuthor(content.author)
    pdf.setSubject(content.subject)
    pdf.setCreator("lexprobe")


def render_pdf(content: DocumentContent, path: Path, seed: int = 0) -> None:
    """Write the document to `path` as a PDF; the same content and seed give the same bytes."""
    style = house_style(seed)
    plan = document_plan(content, style)
    if len(plan) == 1 and isinstance(plan[0], Transcript):
        _draw_transcript(plan[0], path, content)
        return
    styles = _Styles(style)
    margin = style.margin_in * inch
    doc = SimpleDocTemplate(
        str(path),
        pagesize=LETTER,
        leftMargin=margin,
        rightMargin=margin,
        topMargin=margin,
        bottomMargin=margin,
        title=content.title or content.subject,
        author=content.author,
        subject=content.subject,
        creator="lexprobe",
        invariant=1,
    )
    flowables = [f for part in plan for f in _flowables(part, styles, style, doc.width, content.doc_type)]
    if flowables and isinstance(flowables[0], PageBreak):
        flowables = flowables[1:]
    maker = _canvas_class(style.page_text, _pdf_date(content), styles.font)
    doc.build(flowables or [Spacer(1, 1)], canvasmaker=maker)
