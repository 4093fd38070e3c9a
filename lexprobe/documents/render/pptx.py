"""PowerPoint renderer (python-pptx): slides with titles, bullets, tables and speaker notes (4:3 default theme).

- The front matter (title, header fields, a letter's date and address) makes a title slide.
- `Slide` blocks become slides: title, bullets, notes.
- Text blocks become bullet slides: a heading starts a new slide titled with it; at most `BULLETS_PER_SLIDE`
  bullets or `CHARS_PER_SLIDE` characters per slide, then a "(cont.)" slide.
- `Table` and `Sheet` blocks become table slides of at most `ROWS_PER_SLIDE` data rows (header repeated).
- A deposition becomes one slide per transcript page ("Page N"), its 25 numbered lines in Courier.

Deterministic: fixed core properties and zip entry times (`ooxml.finalize_package`).
"""

from __future__ import annotations

from pathlib import Path

from pptx import Presentation
from pptx.presentation import Presentation as PresentationType
from pptx.slide import Slide as PptxSlide
from pptx.util import Inches, Pt

from lexprobe.documents.content import DocumentContent, Heading, Sheet, Slide, Table
from lexprobe.documents.render import plan as layout
from lexprobe.documents.render.ooxml import finalize_package, stamp_core_properties
from lexprobe.documents.render.plan import Fields, Lines, Rule, Title, Transcript, document_plan, part_lines

TITLE_LAYOUT, CONTENT_LAYOUT, TITLE_ONLY_LAYOUT = 0, 1, 5
BULLETS_PER_SLIDE = 6
CHARS_PER_SLIDE = 900
ROWS_PER_SLIDE = 12


def _bullet_slide(prs: PresentationType, title: str, bullets: list[str], notes: str = "") -> PptxSlide:
    slide = prs.slides.add_slide(prs.slide_layouts[CONTENT_LAYOUT])
    slide.shapes.title.text = title
    frame = slide.placeholders[1].text_frame
    size = Pt(20 if sum(map(len, bullets)) <= 400 else 16 if sum(map(len, bullets)) <= 700 else 12)
    for i, bullet in enumerate(bullets):
        paragraph = frame.paragraphs[0] if i == 0 else frame.add_paragraph()
        paragraph.text = bullet
        paragraph.font.size = size
    if notes:
        slide.notes_slide.notes_text_frame.text = notes
    return slide


def _table_slides(prs: PresentationType, title: str, header: list[str], rows: list[list[str]], totals: list[list[str]]):
    columns = max(len(row) for row in [header, *rows, *totals])
    chunks = [rows[i : i + ROWS_PER_SLIDE] for i in range(0, len(rows), ROWS_PER_SLIDE)] or [[]]
    for n, chunk in enumerate(chunks):
        last = n == len(chunks) - 1
        grid = [header, *chunk, *(totals if last else [])]
        slide = prs.slides.add_slide(prs.slide_layouts[TITLE_ONLY_LAYOUT])
        slide.shapes.title.text = title if n == 0 else f"{title} (cont.)"
        shape = slide.shapes.add_table(len(grid), columns, Inches(0.5), Inches(1.6), Inches(9), Inches(0.4) * len(grid))
        for r, row in enumerate(grid):
            for c, value in enumerate(row):
                frame = shape.table.cell(r, c).text_frame
                frame.text = value
                frame.paragraphs[0].font.size = Pt(12)
                if last and r > len(chunk):
                    frame.paragraphs[0].font.bold = True


def _transcript_slides(prs: PresentationType, part: Transcript) -> None:
    for number, page in enumerate(part.pages, start=1):
        slide = prs.slides.add_slide(prs.slide_layouts[TITLE_ONLY_LAYOUT])
        slide.shapes.title.text = f"Page {number}"
        frame = slide.shapes.add_textbox(Inches(0.5), Inches(1.5), Inches(9), Inches(5.8)).text_frame
        for line_no, text in enumerate(page, start=1):
            paragraph = frame.paragraphs[0] if line_no == 1 else frame.add_paragraph()
            paragraph.text = f"{line_no:>2}  {text}".rstrip()
            paragraph.font.size, paragraph.font.name = Pt(10), "Courier New"


def _cover(prs: PresentationType, title: str, lines: list[str]) -> None:
    cover = prs.slides.add_slide(prs.slide_layouts[TITLE_LAYOUT])
    cover.shapes.title.text = title
    cover.placeholders[1].text_frame.text = "\n".join(lines)


class _TextSlides:
    """Accumulates text lines into bullet slides, starting a new slide on a heading or when one is full."""

    def __init__(self, prs: PresentationType, default_title: str):
        self.prs, self.title, self.bullets, self.continued = prs, default_title, [], False

    def heading(self, title: str) -> None:
        self.flush()
        self.title, self.continued = title, False

    def add(self, lines: list[str]) -> None:
        for line in (line for line in lines if line.strip()):
            full = len(self.bullets) >= BULLETS_PER_SLIDE or sum(map(len, self.bullets)) + len(line) > CHARS_PER_SLIDE
            if self.bullets and full:
                self.flush()
            self.bullets.append(line)

    def flush(self) -> None:
        if self.bullets:
            title = f"{self.title} (cont.)" if self.continued else self.title
            _bullet_slide(self.prs, title, self.bullets)
            self.bullets, self.continued = [], True


def render_pptx(content: DocumentContent, path: Path, seed: int = 0) -> None:
    """Write the document to `path` as a .pptx deck; the same content and seed give the same bytes."""
    style = layout.house_style(seed)
    plan = document_plan(content, style)
    prs = Presentation()
    cover_title, cover_lines = "", []
    body_started = False
    label = content.doc_type.value.replace("_", " ").title()
    text = _TextSlides(prs, content.title or content.subject or label)
    for part in plan:
        if not body_started and isinstance(part, Title | Fields | Lines | Rule):
            if isinstance(part, Title):
                cover_title = part.text
            elif not isinstance(part, Rule):
                cover_lines.extend(part_lines(part, style))
            continue
        if not body_started:
            body_started = True
            if cover_title or cover_lines:
                _cover(prs, cover_title or content.title or content.subject or label, cover_lines)
        if isinstance(part, Heading):
            text.heading(part.text)
        elif isinstance(part, Slide):
            text.flush()
            _bullet_slide(prs, part.title, list(part.bullets), part.notes)
        elif isinstance(part, Table | Sheet):
            text.flush()
            name = part.name if isinstance(part, Sheet) else text.title
            _table_slides(prs, name, part.header, part.rows, part.totals if isinstance(part, Table) else [])
        elif isinstance(part, Transcript):
            _transcript_slides(prs, part)
        else:
            text.add(part_lines(part, style))
    text.flush()
    if not body_started:  # no body: the cover is the whole deck
        _cover(prs, cover_title or content.title or content.subject or label, cover_lines)
    when = stamp_core_properties(prs.core_properties, content)
    prs.save(str(path))
    finalize_package(path, when)
