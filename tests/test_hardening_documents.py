"""Decompression bombs and other oversized documents (issue 12, item 4): every read is bounded.

Each test builds a real hostile file (an OOXML zip whose XML part inflates to hundreds of MB, a small XML part with
millions of elements, a PDF whose one flate stream or shared page content inflates past the limits, a spreadsheet
whose cells pad out to millions) and runs the real `lexprobe check` on it in a subprocess whose address space is
capped at 1.5 GiB: the file must be refused with exit 2 and one line on stderr naming the file and the limit, fast,
because the limit trips before the library parses (or even inflates) the part. Unbounded, the same reads used
several GB and minutes, or died of the memory cap with a misleading "corrupt file" message.

`lexprobe check` reads every document before it opens the case database, so these runs pass a database path that
does not exist: a document that got through would fail later with "no case database", not with its limit.
"""

from __future__ import annotations

import io
import json
import os
import random
import resource
import subprocess
import sys
import zipfile
import zlib
from collections.abc import Callable
from pathlib import Path

import docx
import pytest
from openpyxl import Workbook
from pptx import Presentation

from lexprobe.documents import limits
from lexprobe.documents.errors import ExtractionError
from lexprobe.documents.extract import extract_text

LEXPROBE = Path(sys.executable).with_name("lexprobe")
MEMORY_CAP = 1536 * 1024 * 1024  # an unbounded read of these files needs several GB
W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
CITATION = b"See Brown v. Board of Educ., 347 U.S. 483 (1954)."


# --- building hostile files --------------------------------------------------------------------------------------


def _docx_bytes() -> bytes:
    buffer = io.BytesIO()
    document = docx.Document()
    document.add_paragraph(CITATION.decode())
    document.save(buffer)
    return buffer.getvalue()


def _xlsx_bytes(sheets: int = 1) -> bytes:
    workbook = Workbook()
    for index in range(1, sheets):
        workbook.create_sheet(f"Sheet{index + 1}")
    buffer = io.BytesIO()
    workbook.save(buffer)
    return buffer.getvalue()


def _pptx_bytes() -> bytes:
    deck = Presentation()
    deck.slides.add_slide(deck.slide_layouts[1]).shapes.title.text = "Exhibit A"
    buffer = io.BytesIO()
    deck.save(buffer)
    return buffer.getvalue()


def rezip(source: bytes, target: Path, parts: dict[str, Callable[[object], None]], level: int = 1) -> Path:
    """Copy the OOXML zip `source` to `target`, each member named in `parts` written by its function (streamed,
    so a part of hundreds of MB is never held in memory)."""
    with (
        zipfile.ZipFile(io.BytesIO(source)) as original,
        zipfile.ZipFile(target, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=level) as out,
    ):
        for info in original.infolist():
            if info.filename in parts:
                with out.open(info.filename, "w") as stream:
                    parts[info.filename](stream)
            else:
                out.writestr(info, original.read(info.filename))
    return target


def repeated(head: bytes, unit: bytes, count: int, tail: bytes) -> Callable[[object], None]:
    """A part writer: `head`, then `unit` `count` times, then `tail`."""

    def write(stream) -> None:
        stream.write(head)
        block = unit * 10_000
        for _ in range(count // 10_000):
            stream.write(block)
        stream.write(unit * (count % 10_000) + tail)

    return write


DOCX_HEAD = f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<w:document xmlns:w="{W}"><w:body>'.encode()
DOCX_TAIL = b"</w:body></w:document>"


def docx_with_body(target: Path, unit: bytes, count: int, level: int = 1) -> Path:
    """A .docx whose word/document.xml holds `unit` `count` times."""
    return rezip(_docx_bytes(), target, {"word/document.xml": repeated(DOCX_HEAD, unit, count, DOCX_TAIL)}, level)


def pdf_file(target: Path, pages: int, content: bytes) -> Path:
    """A valid PDF of `pages` pages that all draw the one flate-compressed content stream `content`."""
    data = zlib.compress(content, 9)
    objects = {
        1: b"<< /Type /Catalog /Pages 2 0 R >>",
        2: b"<< /Type /Pages /Kids ["
        + b" ".join(b"%d 0 R" % (5 + i) for i in range(pages))
        + b"] /Count %d >>" % pages,
        3: b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(data) + data + b"\nendstream",
        4: b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    }
    page = b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> "
    page += b"/Contents 3 0 R >>"
    objects.update({5 + i: page for i in range(pages)})
    body = bytearray(b"%PDF-1.4\n")
    offsets = {}
    for number in sorted(objects):
        offsets[number] = len(body)
        body += b"%d 0 obj\n" % number + objects[number] + b"\nendobj\n"
    xref = len(body)
    body += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    body += b"".join(b"%010d 00000 n \n" % offsets[number] for number in sorted(objects))
    body += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    target.write_bytes(bytes(body))
    return target


TEXT_LINE = b"BT /F1 12 Tf 72 720 Td (See Brown v. Board of Educ., 347 U.S. 483 \\(1954\\).) Tj ET\n"


def content_of(size: int) -> bytes:
    """A page content stream of about `size` bytes that shows text."""
    return TEXT_LINE * (size // len(TEXT_LINE))


# --- running lexprobe under a memory cap -------------------------------------------------------------------------


def _cap_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))


def capped(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """Run `args` (lexprobe or python) with the address space capped at MEMORY_CAP."""
    env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "COLUMNS": "200"}
    return subprocess.run(
        list(args), capture_output=True, text=True, cwd=cwd, env=env, preexec_fn=_cap_memory, timeout=180
    )


def check_refuses(path: Path, limit: str) -> str:
    """Run `lexprobe check PATH` and assert it exits 2 with one stderr line naming the file and `limit`."""
    done = capped(str(LEXPROBE), "check", path.name, "--db", str(path.parent / "absent.sqlite"), cwd=path.parent)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2, done.stderr[-3000:]
    assert len(lines) == 1, done.stderr[-3000:]
    assert lines[0].startswith(f"error: cannot read {path.name}: "), lines[0]
    assert f"({limit})" in lines[0], lines[0]
    assert done.stdout == ""
    return lines[0]


# --- OOXML -------------------------------------------------------------------------------------------------------


def test_docx_bomb_is_refused_from_the_central_directory(tmp_path: Path) -> None:
    paragraph = b"<w:p><w:r><w:t>" + CITATION + b"</w:t></w:r></w:p>"
    bomb = docx_with_body(tmp_path / "brief.docx", paragraph, 3_000_000)  # 2 MB on disk, 249 MB inflated
    assert bomb.stat().st_size < 4_000_000
    with zipfile.ZipFile(bomb) as archive:
        inflated = archive.getinfo("word/document.xml").file_size
    line = check_refuses(bomb, "ZIP_MAX_MEMBER_BYTES")
    assert f"word/document.xml expands to {inflated:,} bytes" in line and "decompression bomb" in line


def test_xlsx_parts_over_the_total_are_refused(tmp_path: Path) -> None:
    head = b'<?xml version="1.0" encoding="UTF-8"?>\n<worksheet xmlns="http://schemas.openxmlformats.org/'
    head += b'spreadsheetml/2006/main"><sheetData>'
    row = b'<row><c t="inlineStr"><is><t>347 U.S. 483</t></is></c></row>'
    sheet = repeated(head, row, 1_300_000, b"</sheetData></worksheet>")  # 72 MB each, under the per-part limit
    parts = {f"xl/worksheets/sheet{i}.xml": sheet for i in (1, 2, 3)}
    bomb = rezip(_xlsx_bytes(sheets=3), tmp_path / "damages.xlsx", parts)
    check_refuses(bomb, "ZIP_MAX_TOTAL_BYTES")


def test_pptx_part_compressed_beyond_the_ratio_is_refused(tmp_path: Path) -> None:
    slide = repeated(b'<p:sld xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main">', b"<p:x/>",
                     8_000_000, b"</p:sld>")  # fmt: skip
    bomb = rezip(_pptx_bytes(), tmp_path / "deck.pptx", {"ppt/slides/slide1.xml": slide}, level=9)
    line = check_refuses(bomb, "ZIP_MAX_RATIO")
    assert "ppt/slides/slide1.xml" in line


def test_small_part_with_millions_of_elements_is_refused(tmp_path: Path) -> None:
    # 18 MB of XML in 113 KB: within the size and ratio limits, but 2.1 million elements for python-docx to build
    bomb = docx_with_body(tmp_path / "elements.docx", b"<w:p><w:r/></w:p>", 1_050_000)
    assert bomb.stat().st_size < 500_000
    line = check_refuses(bomb, "XML_MAX_ELEMENTS")
    assert "(at word/document.xml)" in line


def test_xml_with_a_dtd_is_refused(tmp_path: Path) -> None:
    laughs = b'<?xml version="1.0"?>\n<!DOCTYPE w:document [<!ENTITY a "ha"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;">'
    laughs += b'<!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]>'
    bomb = rezip(_docx_bytes(), tmp_path / "laughs.docx",
                 {"word/document.xml": repeated(laughs + DOCX_HEAD[DOCX_HEAD.index(b"<w:document"):],
                                                b"<w:p><w:r><w:t>&c;</w:t></w:r></w:p>", 10, DOCX_TAIL)})  # fmt: skip
    done = capped(str(LEXPROBE), "check", bomb.name, "--db", "absent.sqlite", cwd=tmp_path)
    assert done.returncode == 2
    expected = "error: cannot read laughs.docx: word/document.xml declares a DTD, which OOXML does not allow"
    assert done.stderr.strip() == expected + " (entities)"


def test_a_header_that_understates_the_size_reads_no_further(tmp_path: Path) -> None:
    """The central directory says 9,000 bytes, the deflate stream holds 150 MB: reading stops at the declared size
    and the CRC check refuses the part (a bounded read, whatever the header says)."""
    honest = docx_with_body(tmp_path / "honest.docx", b"<w:p><w:r><w:t>x</w:t></w:r></w:p>", 4_400_000)
    data = bytearray(honest.read_bytes())
    with zipfile.ZipFile(honest) as archive:
        info = archive.getinfo("word/document.xml")
    real = info.file_size.to_bytes(4, "little")
    assert data.count(real) == 2  # the local header and the central directory
    lying = tmp_path / "lying.docx"
    lying.write_bytes(bytes(data).replace(real, (9_000).to_bytes(4, "little")))
    done = capped(str(LEXPROBE), "check", lying.name, "--db", "absent.sqlite", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.startswith("error: cannot read lying.docx: corrupt or unreadable docx file (BadZipFile: Bad CRC")


def test_xlsx_cells_padded_to_millions_are_refused(tmp_path: Path) -> None:
    workbook = Workbook()
    for row in range(1, 400):  # one cell in the last column: openpyxl fills 16,383 empty cells before it
        workbook.active.cell(row=row, column=16_384, value="347 U.S. 483")
    workbook.save(tmp_path / "padded.xlsx")
    assert (tmp_path / "padded.xlsx").stat().st_size < 100_000
    check_refuses(tmp_path / "padded.xlsx", "XLSX_MAX_CELLS")


# --- PDF ---------------------------------------------------------------------------------------------------------


def test_pdf_stream_inflating_past_the_limit_is_refused(tmp_path: Path) -> None:
    bomb = pdf_file(tmp_path / "flate.pdf", 1, content_of(100_000_000))  # 340 KB on disk
    line = check_refuses(bomb, "PDF_MAX_STREAM_BYTES")
    assert "page 1:" in line


def test_pdf_with_too_many_pages_is_refused(tmp_path: Path) -> None:
    bomb = pdf_file(tmp_path / "pages.pdf", 12_000, TEXT_LINE)
    line = check_refuses(bomb, "PDF_MAX_PAGES")
    assert "12,000 pages" in line


def test_pdf_page_content_over_the_limit_is_refused(tmp_path: Path) -> None:
    check_refuses(pdf_file(tmp_path / "page.pdf", 1, content_of(5_000_000)), "PDF_MAX_PAGE_CONTENT_BYTES")


def test_pdf_content_shared_by_many_pages_is_refused(tmp_path: Path) -> None:
    """40 pages drawing one 2 MB stream: 80 MB of content to parse (minutes in pypdf) from a 35 KB file."""
    bomb = pdf_file(tmp_path / "shared.pdf", 40, content_of(2_000_000))
    line = check_refuses(bomb, "PDF_MAX_CONTENT_BYTES")
    assert "the content of pages 1-34 decodes to" in line


# --- investigation extraction and the library functions ----------------------------------------------------------

CORPUS_SCRIPT = """
import json, sys
from pathlib import Path
from lexprobe.documents.corpus import extract_corpus
from lexprobe.documents.errors import ExtractionError
from lexprobe.documents.extract import page_count
corpus = Path(sys.argv[1])
result = extract_corpus(corpus, corpus.parent / "extracted")
try:
    page_count(corpus / "deck.pptx")
    counted = None
except ExtractionError as exc:
    counted = str(exc)
print(json.dumps({"errors": result.errors, "texts": result.texts, "page_count": counted}))
"""


def test_corpus_extraction_records_the_limit_and_goes_on(tmp_path: Path) -> None:
    corpus = tmp_path / "env" / "corpus"
    corpus.mkdir(parents=True)
    (corpus / "DOC-0001.txt").write_bytes(CITATION + b"\n")
    docx_with_body(corpus / "DOC-0002.docx", b"<w:p><w:r><w:t>" + CITATION + b"</w:t></w:r></w:p>", 3_000_000)
    slide = repeated(b'<p:sld xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main">', b"<p:x/>",
                     8_000_000, b"</p:sld>")  # fmt: skip
    rezip(_pptx_bytes(), corpus / "deck.pptx", {"ppt/slides/slide1.xml": slide}, level=9)
    done = capped(sys.executable, "-c", CORPUS_SCRIPT, str(corpus), cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout)
    assert result["texts"] == {"DOC-0001.txt": CITATION.decode() + "\n"}
    assert "(ZIP_MAX_MEMBER_BYTES)" in result["errors"]["DOC-0002.docx"]
    assert "(ZIP_MAX_RATIO)" in result["errors"]["deck.pptx"]
    assert "(ZIP_MAX_RATIO)" in result["page_count"]


def test_ordinary_documents_pass_the_limits(tmp_path: Path) -> None:
    (tmp_path / "brief.docx").write_bytes(_docx_bytes())
    (tmp_path / "deck.pptx").write_bytes(_pptx_bytes())
    pdf_file(tmp_path / "brief.pdf", 3, TEXT_LINE)
    for name in ("brief.docx", "deck.pptx"):
        limits.check_ooxml_archive(tmp_path / name)
    assert CITATION.decode() in extract_text(tmp_path / "brief.docx")
    assert "## Slide 1: Exhibit A" in extract_text(tmp_path / "deck.pptx")
    assert extract_text(tmp_path / "brief.pdf").count(CITATION.decode()) == 3


def test_a_dtd_split_across_read_chunks_is_found(tmp_path: Path) -> None:
    declaration = b'<?xml version="1.0"?>'
    noise = random.Random(0).randbytes(limits.ZIP_READ_CHUNK).hex().encode()  # compresses like text, not a bomb
    padding = b"<!--" + noise[: limits.ZIP_READ_CHUNK - len(declaration) - 11] + b"-->"  # "<!DOCTYPE" straddles
    prolog = declaration + padding + b"<!DOCTYPE w:document []>"
    root = DOCX_HEAD[DOCX_HEAD.index(b"<w:document") :]
    source = rezip(
        _docx_bytes(), tmp_path / "dtd.docx", {"word/document.xml": repeated(prolog, b"", 0, root + DOCX_TAIL)}
    )
    with pytest.raises(ExtractionError, match=r"word/document.xml declares a DTD"):
        limits.check_ooxml_archive(source)
