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
from lexprobe.documents.readers import READERS, Extracted, open_pdf, open_pptx, open_xlsx

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
        kind = path.suffix.lower().lstrip(".")
        raise ExtractionError(path, f"corrupt or unreadable {kind} file ({type(exc).__name__}: {exc})") from exc
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
