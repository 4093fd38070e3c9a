"""The resource limits of every document read, in one place, and the checks that enforce them.

Documents are untrusted: a 1 MB .docx can hold a 300 MB document.xml (a decompression bomb), a small XML part can
hold millions of elements, a PDF can declare a flate stream that inflates to gigabytes or share one huge content
stream among thousands of pages. Every read (`lexprobe check`, investigation corpus extraction, `validate`) goes
through `lexprobe.documents.readers`, which applies these limits *before* the file reaches python-docx, openpyxl,
python-pptx or pypdf's text extraction. A file over a limit fails with an `ExtractionError` naming the file, what
was too large and the limit's name here, e.g.

    report.docx: word/document.xml expands to 292,000,169 bytes, over the limit of 104,857,600
    (ZIP_MAX_MEMBER_BYTES): a decompression bomb?

The values are sized for legal documents (a 3,000-page brief, a record of several thousand pages) on a laptop:
memory of one read stays under about 1 GB (a 75 MB document.xml of 60 million characters takes 600 MB). The file
itself is first limited to `extract.MAX_BYTES` (50 MB).
"""

from __future__ import annotations

import contextlib
import zipfile
from collections.abc import Iterator
from pathlib import Path

from lexprobe.documents.errors import ExtractionError

# --- OOXML (docx, xlsx, pptx): zip archives of XML parts -----------------------------------------------------------

ZIP_MAX_MEMBERS = 10_000
"""Members (parts) in one OOXML zip; a 500-slide deck with media has a few thousand."""

ZIP_MAX_MEMBER_BYTES = 100 * 1024 * 1024
"""Uncompressed bytes of any one member (a 3,000-page document.xml is about 30 MB)."""

ZIP_MAX_TOTAL_BYTES = 200 * 1024 * 1024
"""Uncompressed bytes of all members together (python-docx and python-pptx hold every part in memory)."""

ZIP_MAX_RATIO = 200
"""Uncompressed / compressed size of one member; XML compresses 5-50 times, bombs 300 times and more."""

ZIP_RATIO_MIN_BYTES = 1024 * 1024
"""Members smaller than this (uncompressed) are not held to `ZIP_MAX_RATIO`: small parts compress unevenly."""

XML_MAX_ELEMENTS = 2_000_000
"""XML elements in all the XML parts of one file together (python-docx needs about 160 bytes and 8 µs each; a
3,000-page document has about 1.5 million)."""

ZIP_READ_CHUNK = 1024 * 1024
"""Bytes decompressed at a time while counting elements (the count never holds a whole part in memory)."""

# --- spreadsheets ------------------------------------------------------------------------------------------------

XLSX_MAX_CELLS = 5_000_000
"""Cells and rows an xlsx read produces, empty ones included: one cell in column XFD makes a row of 16,384 cells,
one row numbered 1,048,576 makes a million empty rows before it."""

# --- PDF ---------------------------------------------------------------------------------------------------------

PDF_MAX_PAGES = 10_000
"""Pages in one PDF."""

PDF_MAX_STREAM_BYTES = 16 * 1024 * 1024
"""Decoded bytes of any one PDF stream (pypdf's per-filter output limits, set from this: flate, LZW, run-length,
JBIG2, Brotli, and the declared /Length)."""

PDF_MAX_PAGE_CONTENT_BYTES = 4 * 1024 * 1024
"""Decoded content of one page: its content streams and the form XObjects it uses. pypdf parses about 1 MB of
content a second, more slowly as a page grows; a page of text has 2-50 KB."""

PDF_MAX_CONTENT_BYTES = 64 * 1024 * 1024
"""Decoded page content of the whole PDF, a stream counted once for every page that uses it (so one huge stream
shared by thousands of pages is caught)."""

PDF_MAX_FORM_INVOCATIONS = 500
"""Form XObjects pypdf's text extraction enters on one page (pypdf's own default is 5,000)."""

# --- OCR of scanned PDF pages (`ocr.py`) ---------------------------------------------------------------------

OCR_MAX_PAGES = 1_000
"""Pages without a text layer OCRed in one PDF; later ones keep a "[page N: not OCRed ...]" marker. Tesseract
takes 2-10 s for a 300-dpi page, so a 420-page scanned record takes about half an hour on one core."""

OCR_PAGE_TIMEOUT_S = 60
"""Seconds Tesseract may spend on one page (all its images together); past it the page gets a marker."""

OCR_MAX_IMAGE_PIXELS = 40_000_000
"""Width * height of one image OCRed (a letter page scanned at 600 dpi has 33.7 million pixels); checked from the
image's declared size before it is decoded."""

# --- every format ------------------------------------------------------------------------------------------------

MAX_TEXT_CHARS = 64_000_000
"""Characters of text extracted from one file."""


def over(path: Path, finding: str, name: str, *, bomb: bool = False) -> ExtractionError:
    """Return the error for `finding` ("word/document.xml expands to 292,000,169 bytes") over the limit `name`."""
    hint = ": a decompression bomb?" if bomb else ""
    return ExtractionError(path, f"{finding}, over the limit of {globals()[name]:,} ({name}){hint}")


# --- zip archives ------------------------------------------------------------------------------------------------


def check_ooxml_archive(path: Path) -> None:
    """Raise ExtractionError unless the OOXML zip at `path` is within every ZIP_* and XML_* limit.

    First from the central directory alone (member count, each member's declared size and compression ratio, the
    total), so a bomb is refused before anything is inflated; then every XML member is inflated as a bounded
    stream, `ZIP_READ_CHUNK` bytes at a time, to count its elements and refuse a DTD (OOXML allows none; a DTD is
    how entity-expansion bombs are built). The stream stops at the member's declared size (zipfile's CRC check
    then refuses a member whose header lies about it), and the bytes actually read are held to the same limits.
    Other errors (not a zip, a bad CRC) propagate for the caller to report as a corrupt file.
    """
    with zipfile.ZipFile(path) as archive:
        members = archive.infolist()
        _check_directory(path, members)
        elements = 0
        for info in members:
            if not info.is_dir():
                elements += _count_elements(path, archive, info, elements)


def _check_directory(path: Path, members: list[zipfile.ZipInfo]) -> None:
    """The central-directory checks: nothing is decompressed."""
    if len(members) > ZIP_MAX_MEMBERS:
        raise over(path, f"the archive has {len(members):,} members", "ZIP_MAX_MEMBERS")
    total = 0
    for info in members:
        name = info.filename
        if info.file_size > ZIP_MAX_MEMBER_BYTES:
            raise over(path, f"{name} expands to {info.file_size:,} bytes", "ZIP_MAX_MEMBER_BYTES", bomb=True)
        ratio = info.file_size // max(info.compress_size, 1)
        if info.file_size >= ZIP_RATIO_MIN_BYTES and ratio > ZIP_MAX_RATIO:
            finding = f"{name} expands {info.compress_size:,} bytes to {info.file_size:,}, a ratio of {ratio:,}"
            raise over(path, finding, "ZIP_MAX_RATIO", bomb=True)
        total += info.file_size
    if total > ZIP_MAX_TOTAL_BYTES:
        raise over(path, f"the members expand to {total:,} bytes in all", "ZIP_MAX_TOTAL_BYTES", bomb=True)


_BOMS = b"\xef\xbb\xbf\xff\xfe"
_DTD_MARKS = tuple(mark.encode(codec) for mark in ("<!DOCTYPE", "<!ENTITY") for codec in ("utf-8", "utf-16-le"))
_DTD_MARKS += tuple(mark.encode("utf-16-be") for mark in ("<!DOCTYPE", "<!ENTITY"))
_OVERLAP = max(len(mark) for mark in _DTD_MARKS)


def _count_elements(path: Path, archive: zipfile.ZipFile, info: zipfile.ZipInfo, total: int) -> int:
    """Return an upper bound of the elements in one member (0 when it is not XML); raise when they bring the
    file's `total` over `XML_MAX_ELEMENTS`, when it holds a DTD, or inflates to more than `ZIP_MAX_MEMBER_BYTES`.

    The bound is the number of "<" less the number of "</": every element has a start tag, and "<" occurs in XML
    only in markup (text and attribute values escape it as "&lt;").
    """
    count = 0
    read = 0
    tail = b""
    with archive.open(info) as stream:
        while chunk := stream.read(ZIP_READ_CHUNK):
            if not read and not chunk.lstrip(_BOMS + b" \t\r\n\x00").startswith(b"<"):
                return 0  # media, fonts, binary parts: never parsed as XML
            read += len(chunk)
            if read > ZIP_MAX_MEMBER_BYTES:
                finding = f"{info.filename} inflates to at least {read:,} bytes"
                raise over(path, finding, "ZIP_MAX_MEMBER_BYTES", bomb=True)
            window = tail + chunk
            if any(mark in window for mark in _DTD_MARKS):
                raise ExtractionError(path, f"{info.filename} declares a DTD, which OOXML does not allow (entities)")
            count += chunk.count(b"<") - (tail[-1:] + chunk).count(b"</")
            if total + count > XML_MAX_ELEMENTS:
                finding = f"the XML parts hold at least {total + count:,} elements (at {info.filename})"
                raise over(path, finding, "XML_MAX_ELEMENTS")
            tail = window[-_OVERLAP:]
    return count


def pypdf_limit(path: Path, where: str, error: Exception) -> ExtractionError:
    """Return the error for one of pypdf's limits (set by `pdf_limits`) reached at `where` ("page 3")."""
    return ExtractionError(
        path,
        f"{where}: pypdf stopped at one of its limits ({error}); a stream may decode to at most "
        f"{PDF_MAX_STREAM_BYTES:,} bytes (PDF_MAX_STREAM_BYTES): a decompression bomb?",
    )


# --- text --------------------------------------------------------------------------------------------------------


class TextBudget:
    """Counts the characters a reader produces and raises once they pass `MAX_TEXT_CHARS`."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.used = 0

    def add(self, text: str) -> str:
        """Count `text` and return it; raise ExtractionError when the file's text is now over the limit."""
        self.used += len(text) + 1
        if self.used > MAX_TEXT_CHARS:
            raise over(self.path, f"the extracted text passes {self.used:,} characters", "MAX_TEXT_CHARS")
        return text


# --- PDF ---------------------------------------------------------------------------------------------------------


@contextlib.contextmanager
def pdf_limits() -> Iterator[None]:
    """Apply the PDF_* limits to pypdf (its `Configuration`, per execution context) while the block runs."""
    from pypdf import apply_configuration

    with apply_configuration(
        zlib_maximum_output_length=PDF_MAX_STREAM_BYTES,
        lzw_maximum_output_length=PDF_MAX_STREAM_BYTES,
        run_length_maximum_output_length=PDF_MAX_STREAM_BYTES,
        jbig2_maximum_output_length=PDF_MAX_STREAM_BYTES,
        brotli_maximum_output_length=PDF_MAX_STREAM_BYTES,
        maximum_declared_stream_length=PDF_MAX_STREAM_BYTES,
        array_based_stream_maximum_output_length=PDF_MAX_STREAM_BYTES,
        stream_decoding_work_maximum_length=4 * PDF_MAX_STREAM_BYTES,
        xform_maximum_invocations_per_extraction=PDF_MAX_FORM_INVOCATIONS,
    ):
        yield
