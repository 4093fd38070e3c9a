"""Word renderer (python-docx): the document plan as Word paragraphs, real tables and a page-number footer.

Headings use Word's heading styles, tables the "Table Grid" style with a bold header row and bold totals, and the
footer carries PAGE / NUMPAGES fields ("Page N of M" or "- N -"). A deposition is laid out as transcript pages:
"Page N" at the top right, then 25 numbered lines in Courier New, a page break before each page.

Deterministic: core properties (created, modified, last modified by, revision) are fixed from the document's date
and the zip is rewritten with fixed entry times (`ooxml.finalize_package`).
"""

from __future__ import annotations

from pathlib import Path

import docx
from docx.document import Document as WordDocument
from docx.enum.text import WD_ALIGN_PARAGRAPH, WD_LINE_SPACING
from docx.oxml import OxmlElement
from docx.oxml.ns import qn
from docx.shared import Inches, Pt, RGBColor
from docx.text.paragraph import Paragraph as WordParagraph

from lexprobe.documents import content as blocks
from lexprobe.documents.content import DocType, DocumentContent
from lexprobe.documents.render import plan as layout
from lexprobe.documents.render.ooxml import finalize_package, stamp_core_properties
from lexprobe.documents.render.plan import HouseStyle, Part, Transcript, document_plan, house_style


def _field(paragraph: WordParagraph, instruction: str) -> None:
    """Append a simple field (PAGE, NUMPAGES) whose cached result is "1"; Word updates it when it lays out."""
    field = OxmlElement("w:fldSimple")
    field.set(qn("w:instr"), instruction)
    run, text = OxmlElement("w:r"), OxmlElement("w:t")
    text.text = "1"
    run.append(text)
    field.append(run)
    paragraph._p.append(field)


def _footer(doc: WordDocument, style: HouseStyle) -> None:
    paragraph = doc.sections[0].footer.paragraphs[0]
    paragraph.alignment = WD_ALIGN_PARAGRAPH.CENTER
    if style.page_label == "of":
        paragraph.add_run("Page ")
        _field(paragraph, "PAGE")
        paragraph.add_run(" of ")
        _field(paragraph, "NUMPAGES")
    else:
        paragraph.add_run("- ")
        _field(paragraph, "PAGE")
        paragraph.add_run(" -")


_AFTER_BORDERS = (  # the elements of w:pPr that the schema puts after w:pBdr
    "w:shd",
    "w:tabs",
    "w:suppressAutoHyphens",
    "w:kinsoku",
    "w:wordWrap",
    "w:overflowPunct",
    "w:topLinePunct",
    "w:autoSpaceDE",
    "w:autoSpaceDN",
    "w:bidi",
    "w:adjustRightInd",
    "w:snapToGrid",
    "w:spacing",
    "w:ind",
    "w:contextualSpacing",
    "w:mirrorIndents",
    "w:suppressOverlap",
    "w:jc",
    "w:textDirection",
    "w:textAlignment",
    "w:textboxTightWrap",
    "w:outlineLvl",
    "w:divId",
    "w:cnfStyle",
    "w:rPr",
    "w:sectPr",
    "w:pPrChange",
)


def _rule(paragraph: WordParagraph) -> None:
    borders, bottom = OxmlElement("w:pBdr"), OxmlElement("w:bottom")
    for key, value in (("w:val", "single"), ("w:sz", "6"), ("w:space", "1"), ("w:color", "000000")):
        bottom.set(qn(key), value)
    borders.append(bottom)
    paragraph._p.get_or_add_pPr().insert_element_before(borders, *_AFTER_BORDERS)


def _labelled(doc: WordDocument, label: str, text: str, space_after: int = 0) -> WordParagraph:
    paragraph = doc.add_paragraph()
    paragraph.add_run(label).bold = True
    paragraph.add_run(" " + text)
    paragraph.paragraph_format.space_after = Pt(space_after)
    return paragraph


def _table(doc: WordDocument, header: list[str], rows: list[list[str]], totals: list[list[str]]) -> None:
    grid = [header, *rows, *totals]
    columns = max(len(row) for row in grid)
    table = doc.add_table(rows=len(grid), cols=columns)
    table.style = "Table Grid"
    for r, (row, word_row) in enumerate(zip(grid, table.rows, strict=True)):
        bold = r == 0 or r > len(rows)
        for value, cell in zip(row, word_row.cells, strict=False):  # row.cells: table.cell() is O(table) a call
            cell.paragraphs[0].add_run(value).bold = bold
    doc.add_paragraph()


def _transcript(doc: WordDocument, part: Transcript) -> None:
    for number, page in enumerate(part.pages, start=1):
        head = doc.add_paragraph(f"Page {number}")
        head.alignment = WD_ALIGN_PARAGRAPH.RIGHT
        head.paragraph_format.page_break_before = number > 1
        for line_no, text in enumerate(page, start=1):
            line = doc.add_paragraph(f"{line_no:>2}  {text}".rstrip())
            fmt = line.paragraph_format
            fmt.space_after, fmt.line_spacing_rule, fmt.line_spacing = Pt(0), WD_LINE_SPACING.EXACTLY, Pt(22)


def _add(doc: WordDocument, part: Part, style: HouseStyle, doc_type: DocType) -> None:
    if isinstance(part, layout.Title):
        paragraph = doc.add_paragraph()
        paragraph.alignment = WD_ALIGN_PARAGRAPH.CENTER
        run = paragraph.add_run(part.text)
        run.bold, run.font.size = True, Pt(style.font_size + 4)
    elif isinstance(part, layout.Fields):
        for i, (label, value) in enumerate(part.items):
            _labelled(doc, f"{label}:", value, space_after=8 if i == len(part.items) - 1 else 0)
    elif isinstance(part, layout.Lines):
        for i, line in enumerate(part.lines):
            paragraph = doc.add_paragraph(line)
            paragraph.paragraph_format.space_after = Pt(10 if i == len(part.lines) - 1 else 0)
    elif isinstance(part, layout.Rule):
        _rule(doc.paragraphs[-1] if doc.paragraphs else doc.add_paragraph())
    elif isinstance(part, blocks.Paragraph):
        doc.add_paragraph(part.text)
    elif isinstance(part, blocks.Heading):
        doc.add_heading(part.text, level=2)
    elif isinstance(part, blocks.NumberedSection):
        lead, text = layout.section_text(part)
        _labelled(doc, lead, text, space_after=8)
    elif isinstance(part, blocks.QA):
        _labelled(doc, f"{part.speaker}:", part.text, space_after=4)
    elif isinstance(part, blocks.ChatMessage):
        paragraph = doc.add_paragraph()
        paragraph.add_run(f"[{style.format_datetime(part.timestamp)}] ").font.color.rgb = RGBColor(0x70, 0x70, 0x70)
        paragraph.add_run(f"{part.sender}:").bold = True
        paragraph.add_run(" " + part.text)
        paragraph.paragraph_format.space_after = Pt(2)
    elif isinstance(part, blocks.CalendarEntry):
        for i, line in enumerate(layout.calendar_lines(part, style)):
            paragraph = doc.add_paragraph()
            paragraph.add_run(line).bold = i == 0 and bool(part.title)
            paragraph.paragraph_format.space_after = Pt(0)
        doc.add_paragraph()
    elif isinstance(part, blocks.Slide):
        heading = doc.add_heading(part.title, level=1 if doc_type == DocType.presentation else 2)
        heading.paragraph_format.page_break_before = doc_type == DocType.presentation
        for bullet in part.bullets:
            doc.add_paragraph(bullet, style="List Bullet")
        if part.notes:
            doc.add_paragraph().add_run(f"Notes: {part.notes}").italic = True
    elif isinstance(part, blocks.Table):
        _table(doc, part.header, part.rows, part.totals)
    elif isinstance(part, blocks.Sheet):
        doc.add_heading(part.name, level=2)
        _table(doc, part.header, part.rows, [])
    elif isinstance(part, layout.Transcript):
        _transcript(doc, part)
    else:
        raise TypeError(f"unknown part {part!r}")


def render_docx(content: DocumentContent, path: Path, seed: int = 0) -> None:
    """Write the document to `path` as a .docx; the same content and seed give the same bytes."""
    style = house_style(seed)
    plan = document_plan(content, style)
    doc = docx.Document()
    transcript = len(plan) == 1 and isinstance(plan[0], Transcript)
    normal = doc.styles["Normal"]
    normal.font.name = "Courier New" if transcript else ("Times New Roman" if style.serif else "Calibri")
    normal.font.size = Pt(12 if transcript else style.font_size)
    section = doc.sections[0]
    section.page_width, section.page_height = Inches(8.5), Inches(11)
    margin = Inches(style.margin_in)
    section.left_margin = section.right_margin = section.top_margin = section.bottom_margin = margin
    if not transcript:
        _footer(doc, style)
    for part in plan:
        _add(doc, part, style, content.doc_type)
    when = stamp_core_properties(doc.core_properties, content)
    props = doc.core_properties
    props.comments = props.keywords = props.category = ""
    doc.save(str(path))
    finalize_package(path, when)
