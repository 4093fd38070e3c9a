"""One reader per file format: path -> `Extracted(text, page_count)`, text in the layout `extract.py` documents.

Readers raise `ExtractionError` for what they recognise (an encrypted PDF, binary data in a .txt, a file over one
of the limits in `limits.py`); any other exception they let through, and `extract.extract` turns it into an
`ExtractionError` naming the file as corrupt. Every reader applies the limits before the file reaches its library:
OOXML zips are checked from their central directory and a bounded stream (`limits.check_ooxml_archive`), PDFs are
read under pypdf limits set from `limits.PDF_*` with the pages and their decoded content counted.
"""

from __future__ import annotations

import codecs
import logging
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import date, datetime, time
from pathlib import Path
from typing import BinaryIO

import docx
from docx.oxml.ns import qn
from docx.text.paragraph import Paragraph
from openpyxl import load_workbook
from pptx import Presentation
from pptx.enum.shapes import MSO_SHAPE_TYPE, PP_PLACEHOLDER
from pptx.presentation import Presentation as PptxPresentation
from pypdf import PageObject, PasswordType, PdfReader
from pypdf.errors import DependencyError, LimitReachedError
from pypdf.generic import ArrayObject, DictionaryObject, IndirectObject, StreamObject

from lexprobe.documents import ocr
from lexprobe.documents.errors import ExtractionError
from lexprobe.documents.limits import (
    MAX_TEXT_CHARS,
    OCR_MAX_PAGES,
    PDF_MAX_CONTENT_BYTES,
    PDF_MAX_PAGE_CONTENT_BYTES,
    PDF_MAX_PAGES,
    XLSX_MAX_CELLS,
    TextBudget,
    check_ooxml_archive,
    over,
    pdf_limits,
    pypdf_limit,
)
from lexprobe.documents.numbers import format_number

_SPACES = re.compile(r" {2,}")
logger = logging.getLogger(__name__)


# pypdf's "Rotated text discovered" warning is dropped: `_pdf_page_text` falls back to plain mode for such pages
logging.getLogger("pypdf._text_extraction._layout_mode._fixed_width_page").addFilter(
    lambda record: not record.getMessage().startswith("Rotated text discovered")
)


@dataclass(frozen=True)
class Extracted:
    """A document's text and, where the format has them cheaply, its pages (pdf), slides (pptx) or sheets (xlsx)."""

    text: str
    page_count: int | None


def _pdf_page_text(page) -> str:
    """Return one page's text: pypdf's layout mode (keeps table rows and margin line numbers on one line), unless
    plain mode finds more text (layout mode skips rotated text); lines stripped, runs of spaces made one space (so
    justified text and table gaps read as ordinary text)."""
    try:
        layout = page.extract_text(extraction_mode="layout", layout_mode_space_vertically=False)
    except LimitReachedError:
        raise
    except Exception:  # layout mode is the less robust of the two; plain mode decides
        layout = ""
    plain = page.extract_text() or ""
    if len("".join(layout.split())) < 0.9 * len("".join(plain.split())):
        layout = plain
    return "\n".join(_SPACES.sub(" ", line.strip()) for line in layout.splitlines())


def open_pdf(stream: BinaryIO, path: Path) -> PdfReader:
    """Return a reader for the PDF in `stream`, decrypted with the empty password when it is encrypted, with its
    page tree read (`reader.pages`) under the PDF limits.

    Raises ExtractionError when it is encrypted with a password, or with a cipher this install cannot open, or
    when it is over `PDF_MAX_PAGES` or one of pypdf's limits.
    """
    try:
        with pdf_limits():
            reader = PdfReader(stream)
            if reader.is_encrypted:
                try:
                    opened = reader.decrypt("")
                except DependencyError as exc:
                    raise ExtractionError(path, f"encrypted PDF that needs a missing package to open ({exc})") from exc
                if opened == PasswordType.NOT_DECRYPTED:
                    raise ExtractionError(path, "encrypted PDF: a password is required")
            _check_page_count(reader, path)
            pages = len(reader.pages)
    except LimitReachedError as exc:
        raise pypdf_limit(path, "the document", exc) from exc
    if pages > PDF_MAX_PAGES:
        raise over(path, f"{pages:,} pages", "PDF_MAX_PAGES")
    return reader


def _check_page_count(reader: PdfReader, path: Path) -> None:
    """Refuse a page tree whose root declares more than `PDF_MAX_PAGES` pages before pypdf walks it (the walk takes
    seconds for tens of thousands of pages); the pages found by the walk are checked too, since /Count can lie."""
    try:
        declared = int(_resolved(_resolved(reader.trailer["/Root"])["/Pages"])["/Count"])
    except Exception:  # no or a malformed /Count: pypdf's walk decides
        return
    if declared > PDF_MAX_PAGES:
        raise over(path, f"the page tree declares {declared:,} pages", "PDF_MAX_PAGES")


def _resolved(value: object) -> object:
    return value.get_object() if isinstance(value, IndirectObject) else value


def _stream_bytes(contents: object) -> int:
    """Decoded bytes of a page's /Contents: one stream or an array of streams (pypdf caches the decoded data)."""
    contents = _resolved(contents)
    items = contents if isinstance(contents, ArrayObject) else [contents]
    return sum(len(item.get_data()) for item in map(_resolved, items) if isinstance(item, StreamObject))


def page_content_bytes(page: PageObject, stop_at: int = PDF_MAX_PAGE_CONTENT_BYTES) -> int:
    """Return the decoded bytes of a page's content streams and of the form XObjects its resources hold, each form
    once (what text extraction parses); counting stops once past `stop_at`."""
    total = _stream_bytes(page.get("/Contents"))
    seen: set[tuple[int, int] | int] = set()
    pending = [page.get("/Resources")]
    while pending and total <= stop_at:
        resources = _resolved(pending.pop())
        xobjects = _resolved(resources.get("/XObject")) if isinstance(resources, DictionaryObject) else None
        if not isinstance(xobjects, DictionaryObject):
            continue
        for reference in xobjects.values():
            key = (reference.idnum, reference.generation) if isinstance(reference, IndirectObject) else id(reference)
            xobject = _resolved(reference)
            if key in seen or not isinstance(xobject, StreamObject) or xobject.get("/Subtype") != "/Form":
                continue
            seen.add(key)
            total += len(xobject.get_data())
            pending.append(xobject.get("/Resources"))
            if total > stop_at:
                break
    return total


def read_pdf(path: Path) -> Extracted:
    """Return the text of every page under "## Page N" headers, or "" when no page has text. A page without a text
    layer that holds images is OCRed when tesseract is installed (`ocr.py`, bounded by `limits.OCR_*`).

    Raises ExtractionError when the file is over a PDF limit: pages, a stream's decoded size, a page's or the whole
    document's decoded content, the extracted text (see `limits.py`).
    """
    with open(path, "rb") as stream:
        reader = open_pdf(stream, path)
        with pdf_limits():
            _check_content(reader, path)
            pages: list[str] = []
            _pdf_pages(reader, path, range(1, len(reader.pages) + 1), pages, _Scans(path), TextBudget(path))
    return pdf_text(pages)


def pdf_text(pages: list[str]) -> Extracted:
    """The text `read_pdf` gives for these page texts (page 1 first): each under "## Page N", or "" when no page
    has text."""
    if not any(text.strip() for text in pages):
        return Extracted("", len(pages))
    text = "\n".join(f"## Page {number}\n{body}" for number, body in enumerate(pages, start=1))
    return Extracted(text, len(pages))


@dataclass(frozen=True)
class PdfShare:
    """One share of a PDF read by several processes (`read_pdf_share`): the texts of pages `share + 1`,
    `share + 1 + of`, ... in order up to the first that failed, the document's page count, how many of these pages
    reached the OCR step (counted against `OCR_MAX_PAGES`), and the failure: its reason, its page (0: before any
    page, as opening the file) and whether it was this share's own text budget (`MAX_TEXT_CHARS`)."""

    texts: list[str]
    page_count: int
    scanned: int = 0
    error: str | None = None
    error_page: int = 0
    over_budget: bool = False


def read_pdf_share(path: Path, share: int, of: int) -> PdfShare:
    """Read pages `share + 1`, `share + 1 + of`, ... of the PDF at `path` exactly as `read_pdf` reads them, after
    the same checks of the whole document (pages, every page's decoded content). Raises what `read_pdf` raises
    before its first page; a failure at a page is returned in the share (`PdfShare`)."""
    with open(path, "rb") as stream:
        reader = open_pdf(stream, path)
        with pdf_limits():
            _check_content(reader, path)
            count = len(reader.pages)
            numbers = range(share + 1, count + 1, of)
            texts: list[str] = []
            scans, budget = _Scans(path), TextBudget(path)
            try:
                _pdf_pages(reader, path, numbers, texts, scans, budget)
            except ExtractionError as exc:
                over_budget = budget.used > MAX_TEXT_CHARS
                return PdfShare(texts, count, scans.counted, exc.reason, numbers[len(texts)], over_budget)
    return PdfShare(texts, count, scans.counted)


def _check_content(reader: PdfReader, path: Path) -> None:
    """Decode (pypdf keeps it) and count every page's content before any is parsed: raise ExtractionError when a
    page is over `PDF_MAX_PAGE_CONTENT_BYTES` or all pages together over `PDF_MAX_CONTENT_BYTES`."""
    content = 0
    for number, page in enumerate(reader.pages, start=1):
        try:
            size = page_content_bytes(page)
        except LimitReachedError as exc:
            raise pypdf_limit(path, f"page {number}", exc) from exc
        except Exception:  # a corrupt stream: the page's extraction reports it
            continue
        if size > PDF_MAX_PAGE_CONTENT_BYTES:
            raise over(path, f"page {number}'s content decodes to {size:,} bytes", "PDF_MAX_PAGE_CONTENT_BYTES")
        content += size
        if content > PDF_MAX_CONTENT_BYTES:
            finding = f"the content of pages 1-{number} decodes to {content:,} bytes"
            raise over(path, finding, "PDF_MAX_CONTENT_BYTES", bomb=True)


def _pdf_pages(reader: PdfReader, path: Path, numbers: range, pages: list[str], scans: _Scans,
               budget: TextBudget) -> None:  # fmt: skip
    """Append the text of each page numbered in `numbers` to `pages` (after `_check_content`); a page with no text
    layer but with images is OCRed by `scans`, every text counted by `budget`."""
    for number in numbers:
        page = reader.pages[number - 1]
        try:
            text = _pdf_page_text(page)
            if not text.strip():
                text = scans.read(page, number, text)
            pages.append(budget.add(text))
        except LimitReachedError as exc:
            raise pypdf_limit(path, f"page {number}", exc) from exc
        except ExtractionError:
            raise
        except Exception as exc:  # one bad page must not lose the rest of a filing
            pages.append(f"[page {number}: text could not be extracted: {type(exc).__name__}]")


class _Scans:
    """OCR of one PDF's pages without a text layer: at most `OCR_MAX_PAGES`, and one warning when tesseract is
    missing (those pages keep their empty text)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.done = 0
        self.warned_missing = False
        self.warned_cap = False
        self.counted = 0  # pages that reached the OCR count: OCRed, or marked as over OCR_MAX_PAGES

    def read(self, page: PageObject, number: int, text: str) -> str:
        """Return the OCR text of `page` (or a marker why there is none); `text` when it holds no images."""
        if not ocr.page_image_count(page):
            return text
        if not ocr.ocr_available():
            if not self.warned_missing:
                logger.warning("%s: %s", self.path, ocr.MISSING_HINT)
                self.warned_missing = True
            return text
        self.counted += 1
        if self.done >= OCR_MAX_PAGES:
            if not self.warned_cap:
                logger.warning("%s: only the first %d scanned pages are OCRed (OCR_MAX_PAGES)", self.path, self.done)
                self.warned_cap = True
            return f"[page {number}: not OCRed: over the limit of {OCR_MAX_PAGES:,} scanned pages (OCR_MAX_PAGES)]"
        self.done += 1
        return ocr.ocr_page(page, number)


def _docx_blocks(body, document) -> Iterator[str]:
    def paragraph_text(element) -> str:
        return Paragraph(element, document).text

    for element in body.iterchildren():
        if element.tag == qn("w:p"):
            yield paragraph_text(element)
        elif element.tag == qn("w:tbl"):
            for row in element.iterchildren(qn("w:tr")):
                cells = [
                    " ".join(paragraph_text(p) for p in cell.iter(qn("w:p"))).replace("\n", " ").strip()
                    for cell in row.iterchildren(qn("w:tc"))
                ]
                yield " | ".join(cells)
            yield ""
        elif element.tag == qn("w:sdt"):  # content controls wrap ordinary paragraphs
            yield from (paragraph_text(p) for p in element.iter(qn("w:p")))


def read_docx(path: Path) -> Extracted:
    """Return body paragraphs and tables in document order (headers, footers and text boxes are not read)."""
    check_ooxml_archive(path)
    document = docx.Document(str(path))
    budget = TextBudget(path)
    return Extracted("\n".join(budget.add(block) for block in _docx_blocks(document.element.body, document)), None)


def cell_text(value: object, number_format: str | None) -> str:
    """Return a spreadsheet cell value as printed: numbers through their format, dates ISO, text on one line."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int | float):
        return format_number(value, number_format)
    if isinstance(value, datetime):
        return value.date().isoformat() if value.time() == time(0) else value.isoformat(sep=" ", timespec="minutes")
    if isinstance(value, date | time):
        return value.isoformat()
    return str(value).replace("\r\n", " ").replace("\n", " ").strip()


def open_xlsx(path: Path, data_only: bool = True):
    """Return the workbook at `path` opened read-only, after `check_ooxml_archive` (the caller closes it)."""
    check_ooxml_archive(path)
    return load_workbook(str(path), read_only=True, data_only=data_only)


def read_xlsx(path: Path) -> Extracted:
    """Return each worksheet under "## Sheet: NAME", one row per line, cells joined by " | " (cached values, not
    formulas; a formula never calculated reads as an empty cell).

    Raises ExtractionError past `XLSX_MAX_CELLS` cells and rows (empty ones count: openpyxl fills the gaps).
    """
    workbook = open_xlsx(path)
    budget = TextBudget(path)
    lines: list[str] = []
    read = 0
    try:
        for index, sheet in enumerate(workbook.worksheets, start=1):
            lines.append(budget.add(f"## Sheet: {sheet.title}"))
            sheet.reset_dimensions()  # stored dimensions can be wrong; read every row there is
            for row in sheet.iter_rows():
                read += 1 + len(row)
                if read > XLSX_MAX_CELLS:
                    raise over(path, f"sheet {index} brings the cells and rows read to {read:,}", "XLSX_MAX_CELLS")
                cells = [cell_text(cell.value, getattr(cell, "number_format", None)) for cell in row]
                while cells and not cells[-1]:
                    cells.pop()
                lines.append(budget.add(" | ".join(cells)))
            lines.append("")
        count = len(workbook.worksheets)
    finally:
        workbook.close()
    return Extracted("\n".join(lines), count)


def _shape_lines(shapes, skip_id: int | None) -> Iterator[str]:
    for shape in shapes:
        if shape.shape_id == skip_id:
            continue
        if shape.shape_type == MSO_SHAPE_TYPE.GROUP:
            yield from _shape_lines(shape.shapes, None)
        elif getattr(shape, "has_table", False) and shape.has_table:
            for row in shape.table.rows:
                yield " | ".join(cell.text.replace("\n", " ").replace("\v", " ").strip() for cell in row.cells)
        elif shape.has_text_frame:
            bulleted = shape.is_placeholder and shape.placeholder_format.type in (
                PP_PLACEHOLDER.BODY,
                PP_PLACEHOLDER.OBJECT,
            )
            for paragraph in shape.text_frame.paragraphs:
                text = paragraph.text.replace("\v", "\n")
                if text.strip():
                    yield "  " * paragraph.level + ("- " if bulleted else "") + text


def open_pptx(path: Path) -> PptxPresentation:
    """Return the presentation at `path`, after `check_ooxml_archive`."""
    check_ooxml_archive(path)
    return Presentation(str(path))


def read_pptx(path: Path) -> Extracted:
    """Return each slide under "## Slide N: title": body text (bullets as "- "), tables as " | " rows, then
    "Notes:" and the speaker notes."""
    deck = open_pptx(path)
    lines: list[str] = []
    for number, slide in enumerate(deck.slides, start=1):
        title_shape = slide.shapes.title
        title = title_shape.text_frame.text.replace("\n", " ").replace("\v", " ").strip() if title_shape else ""
        lines.append(f"## Slide {number}: {title}" if title else f"## Slide {number}")
        lines.extend(_shape_lines(slide.shapes, title_shape.shape_id if title_shape else None))
        notes_frame = slide.notes_slide.notes_text_frame if slide.has_notes_slide else None
        if notes_frame is not None and notes_frame.text.strip():
            lines.append("Notes:")
            lines.append(notes_frame.text.replace("\v", "\n"))
        lines.append("")
    text = TextBudget(path).add("\n".join(lines))
    return Extracted(text, len(deck.slides))


def read_text(path: Path) -> Extracted:
    """Return a text file decoded as UTF-8 (BOM honoured; UTF-16 with a BOM), else as latin-1.

    Raises ExtractionError when the file holds binary data (NUL bytes outside UTF-16).
    """
    data = path.read_bytes()
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return Extracted(data.decode("utf-16"), None)
    if b"\x00" in data:
        raise ExtractionError(path, "binary data in a text file (NUL bytes)")
    try:
        return Extracted(data.decode("utf-8-sig"), None)
    except UnicodeDecodeError:
        return Extracted(data.decode("latin-1"), None)


READERS: dict[str, Callable[[Path], Extracted]] = {
    ".pdf": read_pdf,
    ".docx": read_docx,
    ".xlsx": read_xlsx,
    ".xlsm": read_xlsx,
    ".pptx": read_pptx,
    ".txt": read_text,
    ".md": read_text,
}
