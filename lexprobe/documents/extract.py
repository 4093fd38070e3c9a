"""Extract the text of one document: pdf, docx, xlsx, pptx, txt or md.

Agent tools page over these texts by line number, so every format follows one layout:

- Lines end with "\\n"; trailing spaces are stripped; runs of blank lines become one blank line; the text has no
  leading blank lines and ends with one newline (an empty text is "").
- pdf: each page under a "## Page N" line (N from 1), its lines as pypdf lays them out (table rows and
  pleading-paper line numbers stay on the line they belong to), each line stripped and every run of spaces made
  one space (justified text and column gaps read as ordinary text, so phrases can be searched). A PDF with no
  text layer (a scan) gives "" -- not an error, so callers can see it is empty.
- docx: body paragraphs in order, one per line (a line break inside a paragraph starts a new line); each table row
  on one line with " | " between cells, a blank line after the table. Headers, footers (page numbers) and text
  boxes are not read.
- xlsx: each worksheet under "## Sheet: NAME"; each row one line, cells joined by " | ", trailing empty cells
  dropped; values, not formulas (numbers printed through their number format, dates ISO).
- pptx: each slide under "## Slide N: TITLE"; then its text: body-placeholder paragraphs as "- " bullets (two
  spaces of indent per level), other text boxes as plain lines, table rows joined by " | "; then "Notes:" and the
  speaker notes when there are any.
- txt / md: the file as UTF-8 (a BOM is honoured; UTF-16 with a BOM is read), else latin-1.

`ExtractionError` (a ValueError with `.path` and `.reason`) is raised for a missing file, one that is not a regular
file (a folder, a named pipe, a device such as /dev/zero: checked with `stat`, never opened), an unknown format, an
empty file, a file over `max_bytes`, an encrypted PDF that does not open with the empty password, and any file its
reader cannot parse (corrupt).
"""

from __future__ import annotations

import re
import stat
from pathlib import Path

from lexprobe.documents.confined import file_kind
from lexprobe.documents.errors import ExtractionError
from lexprobe.documents.limits import OCR_MAX_PAGES, TextBudget
from lexprobe.documents.readers import (
    READERS,
    Extracted,
    PdfShare,
    open_pdf,
    open_pptx,
    open_xlsx,
    pdf_text,
    read_pdf_share,
)

MAX_BYTES = 50 * 1024 * 1024
FORMATS = tuple(sorted(suffix.lstrip(".") for suffix in READERS))
_BLANK_RUNS = re.compile(r"\n{3,}")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def tidy(text: str) -> str:
    """Return `text` in the common layout: LF line ends, no trailing spaces, single blank lines, one final newline."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\f", "\n").replace("\u00a0", " ")
    text = _CONTROL.sub("", text)
    text = "\n".join(line.rstrip() for line in text.split("\n"))
    text = _BLANK_RUNS.sub("\n\n", text).strip("\n")
    return text + "\n" if text else ""


def _checked(path: Path, max_bytes: int) -> Path:
    """Return `path` after checking it exists, is a regular file of a known format, non-empty and within
    `max_bytes`. Only `stat` is called: a named pipe or a device is never opened, so nothing blocks or reads an
    endless stream."""
    path = Path(path)
    try:
        info = path.stat()
    except (FileNotFoundError, NotADirectoryError):
        raise ExtractionError(path, "not found (no such file)") from None
    except OSError as exc:
        raise ExtractionError(path, f"cannot read the file ({exc.strerror or exc})") from exc
    if not stat.S_ISREG(info.st_mode):
        kind = file_kind(info.st_mode, "a special file")
        raise ExtractionError(path, f"not a regular file ({kind}): only document files are read")
    if path.suffix.lower() not in READERS:
        known = ", ".join(FORMATS)
        raise ExtractionError(path, f"unknown format {path.suffix or '(no suffix)'!r}; known: {known}")
    size = info.st_size
    if size == 0:
        raise ExtractionError(path, "empty file")
    if size > max_bytes:
        raise ExtractionError(path, f"file too large ({size:,} bytes; the limit is {max_bytes:,})")
    return path


def extract(path: Path, max_bytes: int = MAX_BYTES) -> Extracted:
    """Return the text (in the module's layout) and page count of the document at `path`.

    Raises ExtractionError naming the file when it cannot be extracted (see the module docstring).
    """
    path = _checked(path, max_bytes)
    try:
        result = READERS[path.suffix.lower()](path)
    except ExtractionError:
        raise
    except Exception as exc:  # every reader failure means the same thing to the caller: this file is unreadable
        raise _corrupt(path, exc) from exc
    return Extracted(tidy(result.text), result.page_count)


def _corrupt(path: Path, exc: Exception) -> ExtractionError:
    """The error of a file its reader could not parse (what `extract` raises for any reader failure)."""
    kind = path.suffix.lower().lstrip(".")
    return ExtractionError(path, f"corrupt or unreadable {kind} file ({type(exc).__name__}: {exc})")


def extract_pdf_share(path: Path, share: int, of: int, max_bytes: int = MAX_BYTES) -> PdfShare:
    """One of `of` processes' share of `extract` of the PDF at `path` (`readers.read_pdf_share`): pages
    `share + 1`, `share + 1 + of`, ...; `join_pdf_shares` makes `extract`'s result of the shares. A failure is
    returned in the share, as the error `extract` would raise (at page 0 when before any page)."""
    try:
        path = _checked(path, max_bytes)
        if path.suffix.lower() != ".pdf":
            raise ExtractionError(path, "only a PDF is read in shares")
        return read_pdf_share(path, share, of)
    except ExtractionError as exc:
        return PdfShare([], 0, error=exc.reason)
    except Exception as exc:
        return PdfShare([], 0, error=_corrupt(path, exc).reason)


def join_pdf_shares(path: Path, shares: list[PdfShare]) -> Extracted | None:
    """`extract`'s result for the PDF at `path` from all `len(shares)` shares of `extract_pdf_share`, in share
    order, raising the error `extract` would raise (the first page's failure, the text budget at the page it would
    pass it). None when the shares cannot tell that result exactly (a share over its own text budget, more pages
    sent to OCR than `OCR_MAX_PAGES`): the caller then reads the document whole."""
    failed = [share for share in shares if share.error is not None]
    first = min(failed, key=lambda share: share.error_page) if failed else None
    if first is not None and first.error_page == 0:
        raise ExtractionError(path, str(first.error))
    if (first is not None and first.over_budget) or sum(share.scanned for share in shares) > OCR_MAX_PAGES:
        return None
    count = shares[0].page_count
    last = first.error_page - 1 if first is not None else count
    of = len(shares)
    pages = [shares[(number - 1) % of].texts[(number - 1) // of] for number in range(1, last + 1)]
    budget = TextBudget(path)
    for text in pages:
        budget.add(text)
    if first is not None:
        raise ExtractionError(path, str(first.error))
    result = pdf_text(pages)
    return Extracted(tidy(result.text), result.page_count)


def extract_text(path: Path, max_bytes: int = MAX_BYTES) -> str:
    """Return the text of the document at `path` in the module's layout ("" for a PDF without a text layer).

    Raises ExtractionError naming the file when it cannot be extracted.
    """
    return extract(path, max_bytes).text


def page_count(path: Path, max_bytes: int = MAX_BYTES) -> int | None:
    """Return the pages of a pdf, slides of a pptx or worksheets of an xlsx without extracting text; None for
    docx (pages exist only once Word lays it out), txt and md.

    Raises ExtractionError as `extract` does.
    """
    path = _checked(path, max_bytes)
    suffix = path.suffix.lower()
    try:
        if suffix == ".pdf":
            with open(path, "rb") as stream:
                return len(open_pdf(stream, path).pages)
        if suffix == ".pptx":
            return len(open_pptx(path).slides)
        if suffix in (".xlsx", ".xlsm"):
            workbook = open_xlsx(path, data_only=False)
            try:
                return len(workbook.worksheets)
            finally:
                workbook.close()
    except ExtractionError:
        raise
    except Exception as exc:
        raise ExtractionError(path, f"corrupt or unreadable {suffix.lstrip('.')} file ({type(exc).__name__})") from exc
    return None
