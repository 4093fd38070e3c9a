"""Documents: render every format, extract it back, determinism, extraction errors, the corpus cache, real filings."""

from __future__ import annotations

import json
import re
import zipfile
from pathlib import Path

import pytest
from openpyxl import load_workbook
from pydantic import ValidationError
from pypdf import PdfReader, PdfWriter
from reportlab.pdfgen import canvas

from lexprobe.caselaw.paths import data_root
from lexprobe.documents.confined import sha256_file
from lexprobe.documents.content import DocumentContent
from lexprobe.documents.corpus import MANIFEST, extract_corpus
from lexprobe.documents.errors import ExtractionError
from lexprobe.documents.extract import extract, extract_text, page_count
from lexprobe.documents.numbers import format_number, parse_number
from lexprobe.documents.render import RENDERERS, render_document
from lexprobe.documents.render.plan import house_style

FORMATS = ("pdf", "docx", "xlsx", "pptx", "txt")
SEED = 0
STYLE = house_style(SEED)

SAMPLES: dict[str, DocumentContent] = {
    "email": DocumentContent(
        doc_type="email",
        date="2019-03-14T09:05",
        author="Dana Whitfield",
        recipients=["Raj Patel"],
        cc=["Legal Department"],
        subject="Hewitt fee proposal",
        body=[
            {"kind": "paragraph", "text": "Raj, the revised Hewitt proposal lowers the fee to $38 starting in Q3."},
            {"kind": "paragraph", "text": "Dana"},
        ],
    ),
    "memo": DocumentContent(
        doc_type="memo",
        date="2018-11-02",
        author="Investment Committee",
        recipients=["Plan Administrators"],
        subject="Emerging Markets Fund review",
        body=[
            {"kind": "heading", "text": "Background"},
            {"kind": "paragraph", "text": "The committee reviewed five-year returns of 4.2% against the benchmark."},
        ],
    ),
    "letter": DocumentContent(
        doc_type="letter",
        date="2017-06-30",
        author="Kurt Struckhoff",
        recipients=["Nancy G. Ross"],
        subject="Document production",
        metadata={"address": ["Mayer Brown LLP", "71 South Wacker Drive", "Chicago, IL 60606"]},
        body=[{"kind": "paragraph", "text": "Please produce the 2014 recordkeeping agreement."}],
    ),
    "contract": DocumentContent(
        doc_type="contract",
        title="Recordkeeping Services Agreement",
        date="2014-01-01",
        author="Northrop Grumman Corporation",
        recipients=["Hewitt Associates LLC"],
        body=[
            {"kind": "paragraph", "text": "WHEREAS, the Company sponsors the Plan;"},
            {"kind": "numbered_section", "number": "1", "heading": "Services", "text": "Hewitt shall keep records."},
            {"kind": "numbered_section", "number": "2", "heading": "Fees", "text": "The Company shall pay $42."},
        ],
    ),
    "deposition": DocumentContent(
        doc_type="deposition",
        title="Deposition of Jane Roe",
        date="2019-03-04",
        body=[
            {"kind": "qa", "speaker": "Q", "text": "Please state your name."},
            {"kind": "qa", "speaker": "A", "text": "Jane Roe."},
            {"kind": "qa", "speaker": "Q", "text": "Did you approve the Hewitt fee?"},
            {"kind": "qa", "speaker": "A", "text": "I approved it on March 3, 2019."},
        ],
    ),
    "invoice": DocumentContent(
        doc_type="invoice",
        date="2019-03-14",
        author="Acme Supply Co.",
        recipients=["Northwind LLC"],
        metadata={"number": "INV-1042"},
        body=[
            {
                "kind": "table",
                "header": ["Date", "Description", "Qty", "Amount"],
                "rows": [["2019-03-01", "Widgets", "10", "$1,200.00"], ["2019-03-02", "Bolts", "200", "$80.50"]],
                "totals": [["", "", "Total", "$1,280.50"]],
            }
        ],
    ),
    "purchase_order": DocumentContent(
        doc_type="purchase_order",
        date="2019-02-20",
        author="Northwind LLC",
        recipients=["Acme Supply Co."],
        metadata={"number": "PO-77"},
        body=[
            {
                "kind": "table",
                "header": ["Item", "Qty", "Unit price"],
                "rows": [["Widgets", "10", "$120.00"]],
                "totals": [["Total", "", "$1,200.00"]],
            }
        ],
    ),
    "calendar": DocumentContent(
        doc_type="calendar",
        author="Raj Patel",
        body=[
            {
                "kind": "calendar_entry",
                "title": "Fee review with Hewitt",
                "start": "2019-03-03T14:00",
                "end": "2019-03-03T15:00",
                "location": "Conf Room 4B",
                "attendees": ["Raj Patel", "Dana Whitfield"],
                "text": "Discuss the Q3 fee change.",
            }
        ],
    ),
    "chat": DocumentContent(
        doc_type="chat",
        author="Raj",
        recipients=["Dana"],
        body=[
            {"kind": "chat_message", "timestamp": "2019-03-04T10:31", "sender": "Raj", "text": "did hewitt sign?"},
            {"kind": "chat_message", "timestamp": "2019-03-04T10:33", "sender": "Dana", "text": "yes, friday"},
        ],
    ),
    "spreadsheet": DocumentContent(
        doc_type="spreadsheet",
        title="NGSP Plan Analysis",
        body=[
            {
                "kind": "sheet",
                "name": "Assets",
                "header": ["Fund", "2014 Assets", "Share"],
                "rows": [["Emerging Markets", "$1,234,567.89", "12.5%"], ["Bond Fund", "$98,000.00", "3.0%"]],
            }
        ],
    ),
    "presentation": DocumentContent(
        doc_type="presentation",
        title="Q3 Plan Review",
        author="Investment Committee",
        date="2019-07-01",
        body=[
            {"kind": "slide", "title": "Fees", "bullets": ["Recordkeeping fee down to $38"], "notes": "Mention RFP."},
            {"kind": "slide", "title": "Funds", "bullets": ["Emerging markets fund on watch"]},
        ],
    ),
}

# What must survive render -> extract in every format: (sample, regular expressions searched line by line).
PLANTED: list[tuple[str, list[str]]] = [
    (
        "email",
        [
            r"From: Dana Whitfield",
            r"To: Raj Patel",
            r"Cc: Legal Department",
            re.escape(f"Date: {STYLE.format_datetime('2019-03-14T09:05')}"),
            r"Subject: Hewitt fee proposal",
            r"lowers the fee to \$38",
        ],
    ),
    ("memo", [r"MEMORANDUM", r"TO: Plan Administrators", r"FROM: Investment Committee", r"RE: Emerging Markets"]),
    ("letter", [r"Dear Nancy G\. Ross:", r"Mayer Brown LLP", r"Sincerely,", r"^(- )?Kurt Struckhoff$"]),
    ("contract", [r"RECORDKEEPING SERVICES AGREEMENT", r"1\. Services\. Hewitt", r"2\. Fees\. The Company shall pay"]),
    ("deposition", [r"Page 1", r"^ *4 +Q: +Please state your name\.$", r"^ *7 +A: +I approved it on March 3, 2019\.$"]),
    ("invoice", [r"INVOICE", r"INV-1042", r"Bill To: Northwind LLC", r"Total\W+\$1,280\.50"]),
    ("purchase_order", [r"PURCHASE ORDER", r"PO-77", r"Vendor: Acme Supply Co\.", r"\$1,200\.00"]),
    ("calendar", [r"Fee review with Hewitt", r"Conf Room 4B", r"Dana Whitfield"]),
    ("chat", [r"Raj\W+did hewitt sign\?", r"Dana\W+yes, friday"]),
    ("spreadsheet", [r"Emerging Markets\W+\$1,234,567\.89\W+12\.5%", r"Bond Fund\W+\$98,000\.00\W+3\.0%"]),
    ("presentation", [r"Q3 Plan Review", r"Fees", r"Recordkeeping fee down to \$38", r"Mention RFP\."]),
]


def render(tmp_path: Path, name: str, fmt: str, seed: int = SEED, folder: str = "out") -> Path:
    return render_document(SAMPLES[name], tmp_path / folder / f"{name}.{fmt}", seed=seed)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize(("name", "patterns"), PLANTED, ids=[name for name, _ in PLANTED])
def test_round_trip_keeps_planted_facts(tmp_path: Path, fmt: str, name: str, patterns: list[str]) -> None:
    text = extract_text(render(tmp_path, name, fmt))
    for pattern in patterns:
        assert re.search(pattern, text, re.MULTILINE), f"{pattern!r} not in {name}.{fmt}:\n{text}"


@pytest.mark.parametrize("fmt", ["docx", "xlsx", "pptx"])
def test_table_rows_extract_as_pipe_joined_rows(tmp_path: Path, fmt: str) -> None:
    lines = extract_text(render(tmp_path, "invoice", fmt)).splitlines()
    assert "Date | Description | Qty | Amount" in lines
    assert "2019-03-02 | Bolts | 200 | $80.50" in lines
    assert " |  | Total | $1,280.50" in lines


@pytest.mark.parametrize("fmt", ["pdf", "txt"])
def test_table_rows_stay_on_one_line_in_page_formats(tmp_path: Path, fmt: str) -> None:
    text = extract_text(render(tmp_path, "invoice", fmt))
    assert re.search(r"^2019-03-01\s+Widgets\s+10\s+\$1,200\.00$", text, re.MULTILINE)
    assert re.search(r"^\s*Total\s+\$1,280\.50$", text, re.MULTILINE)


def test_sheets_and_slides_are_labelled(tmp_path: Path) -> None:
    sheet_text = extract_text(render(tmp_path, "spreadsheet", "xlsx"))
    assert sheet_text.splitlines()[:2] == ["## Sheet: Assets", "Fund | 2014 Assets | Share"]
    invoice = extract_text(render(tmp_path, "invoice", "xlsx"))
    assert invoice.startswith("## Sheet: Text\nINVOICE\n") and "\n## Sheet: Table 1\n" in invoice
    assert "## Sheet: Chat\nTimestamp | Sender | Message\n" in extract_text(render(tmp_path, "chat", "xlsx"))
    slides = extract_text(render(tmp_path, "presentation", "pptx"))
    assert "## Slide 1: Q3 Plan Review\n" in slides
    assert "## Slide 2: Fees\n- Recordkeeping fee down to $38\nNotes:\nMention RFP.\n" in slides
    assert "## Slide 3: Funds\n- Emerging markets fund on watch\n" in slides
    assert extract_text(render(tmp_path, "memo", "pdf")).startswith("## Page 1\n")


def test_xlsx_stores_numbers_with_their_format(tmp_path: Path) -> None:
    workbook = load_workbook(render(tmp_path, "spreadsheet", "xlsx"))
    amount, share = workbook["Assets"]["B2"], workbook["Assets"]["C2"]
    assert (amount.value, amount.number_format) == (1234567.89, '"$"#,##0.00')
    assert (share.value, share.number_format) == (0.125, "0.0%")
    assert workbook["Assets"]["A1"].font.bold and workbook["Assets"].freeze_panes == "A2"


def test_xlsx_puts_text_blocks_on_a_text_sheet(tmp_path: Path) -> None:
    text = extract_text(render(tmp_path, "email", "xlsx"))
    assert text.startswith("## Sheet: Text\nFrom: Dana Whitfield\n")
    assert load_workbook(tmp_path / "out" / "email.xlsx").sheetnames == ["Text"]


def long_deposition(answers: int = 40) -> DocumentContent:
    body = []
    for i in range(answers):
        body.append({"kind": "qa", "speaker": "Q", "text": f"What happened at meeting number {i}?"})
        body.append({"kind": "qa", "speaker": "A", "text": f"At meeting {i} we discussed the fee schedule."})
    body.append({"kind": "qa", "speaker": "A", "text": "The final fee was $38 per participant."})
    return DocumentContent(doc_type="deposition", title="Deposition of Raj Patel", date="2019-05-01", body=body)


@pytest.mark.parametrize("fmt", ["pdf", "txt", "docx"])
def test_transcripts_number_25_lines_per_page(tmp_path: Path, fmt: str) -> None:
    path = render_document(long_deposition(), tmp_path / f"dep.{fmt}")
    text = extract_text(path)
    numbered = [int(m.group(1)) for m in re.finditer(r"^ *(\d{1,2})(?: +.*)?$", text, re.MULTILINE)]
    transcript_lines = 3 + len(long_deposition().body)  # title, date, blank line, one line per Q and A
    pages = -(-transcript_lines // 25)
    assert numbered == list(range(1, 26)) * pages
    assert re.search(rf"^ *Page {pages}$", text, re.MULTILINE)
    last_page = text[text.rindex(f"Page {pages}") :]
    assert re.search(r"^ *\d{1,2} +A: +The final fee was \$38 per participant\.$", last_page, re.MULTILINE)
    if fmt == "pdf":
        assert page_count(path) == pages


def test_pdf_and_docx_carry_page_numbers(tmp_path: Path) -> None:
    of_seed = next(seed for seed in range(100) if house_style(seed).page_label == "of")
    dash_seed = next(seed for seed in range(100) if house_style(seed).page_label == "dash")
    report = DocumentContent(
        doc_type="report",
        title="Fee Study",
        body=[{"kind": "paragraph", "text": f"Paragraph {i} of the fee study. " * 12} for i in range(60)],
    )
    pages = page_count(render_document(report, tmp_path / "of.pdf", seed=of_seed))
    assert pages and pages > 2
    assert f"Page 2 of {pages}" in extract_text(tmp_path / "of.pdf")
    assert re.search(r"^- 2 -$", extract_text(render_document(report, tmp_path / "dash.pdf", seed=dash_seed)), re.M)
    with zipfile.ZipFile(render_document(report, tmp_path / "report.docx", seed=of_seed)) as archive:
        footers = [archive.read(n).decode() for n in archive.namelist() if n.startswith("word/footer")]
    assert any('w:instr="PAGE"' in xml and 'w:instr="NUMPAGES"' in xml for xml in footers)


@pytest.mark.parametrize("fmt", FORMATS)
def test_rendering_is_byte_identical(tmp_path: Path, fmt: str) -> None:
    for name in SAMPLES:
        first = render(tmp_path, name, fmt, seed=3, folder="first")
        second = render(tmp_path, name, fmt, seed=3, folder="second")
        assert first.read_bytes() == second.read_bytes(), f"{name}.{fmt} differs between renders"


@pytest.mark.parametrize("fmt", ["docx", "xlsx", "pptx"])
@pytest.mark.parametrize(("name", "stamp"), [("invoice", "2019-03-14T00:00:00Z"), ("calendar", "2000-01-01T00:00:00Z")])
def test_office_files_carry_fixed_timestamps(tmp_path: Path, fmt: str, name: str, stamp: str) -> None:
    with zipfile.ZipFile(render(tmp_path, name, fmt)) as archive:
        infos = archive.infolist()
        core = archive.read("docProps/core.xml").decode()
    expected_time = tuple(int(x) for x in re.findall(r"\d+", stamp)[:6])
    assert {info.date_time for info in infos} == {expected_time}
    assert infos[0].filename == "[Content_Types].xml"
    assert re.findall(r"<dcterms:(?:created|modified)[^>]*>([^<]*)<", core) == [stamp, stamp]


def test_pdf_carries_the_document_date(tmp_path: Path) -> None:
    metadata = PdfReader(render(tmp_path, "invoice", "pdf")).metadata
    assert metadata["/CreationDate"].startswith("D:20190314") and metadata["/ModDate"].startswith("D:20190314")


def test_render_format_choice(tmp_path: Path) -> None:
    assert set(RENDERERS) == set(FORMATS)
    path = render_document(SAMPLES["memo"], tmp_path / "memo.dat", format="txt")
    assert path.read_text().startswith("MEMORANDUM")
    with pytest.raises(ValueError, match="no renderer for format 'odt'"):
        render_document(SAMPLES["memo"], tmp_path / "memo.odt")
    assert not list(tmp_path.glob("*.partial*"))


def test_content_validation() -> None:
    with pytest.raises(ValidationError, match="ISO date"):
        DocumentContent(date="March 3, 2019")
    with pytest.raises(ValidationError):
        DocumentContent(body=[{"kind": "hologram", "text": "x"}])
    doc = DocumentContent.model_validate({"body": [{"kind": "paragraph", "text": "a\x00b\x07c\td"}]})
    assert doc.body[0].text == "abc\td"
    assert DocumentContent.model_validate_json(doc.model_dump_json()) == doc


@pytest.mark.parametrize(
    ("text", "value", "number_format"),
    [
        ("$1,234.50", 1234.5, '"$"#,##0.00'),
        ("1,200", 1200, "#,##0"),
        ("2019", 2019, "0"),
        ("-3", -3, "0"),
        ("12.5%", 0.125, "0.0%"),
        ("-$5.00", -5.0, '"$"0.00'),
        ("0.25", 0.25, "0.00"),
    ],
)
def test_numbers_round_trip(text: str, value: float, number_format: str) -> None:
    assert parse_number(text) == (value, number_format)
    assert format_number(value, number_format) == text


@pytest.mark.parametrize("text", ["00123", "2019-03-01", "1,23", "$", "-0", "12345678901234567", "(1,000.00)", ""])
def test_numbers_that_stay_text(text: str) -> None:
    assert parse_number(text) is None


# --- extraction errors -------------------------------------------------------------------------------------------


def assert_extraction_error(path: Path, reason: str, **kwargs) -> ExtractionError:
    with pytest.raises(ExtractionError) as caught:
        extract_text(path, **kwargs)
    error = caught.value
    assert isinstance(error, ValueError)
    assert error.path == path and str(path) in str(error)
    assert re.search(reason, error.reason, re.IGNORECASE), error.reason
    return error


@pytest.mark.parametrize("suffix", [".pdf", ".docx", ".xlsx", ".pptx"])
def test_corrupt_files_raise_extraction_error(tmp_path: Path, suffix: str) -> None:
    garbage = tmp_path / f"garbage{suffix}"
    garbage.write_bytes(b"\x00\x01not a real document\xff" * 40)
    assert_extraction_error(garbage, "corrupt")
    wrong_zip = tmp_path / f"zip{suffix}"
    with zipfile.ZipFile(wrong_zip, "w") as archive:
        archive.writestr("hello.txt", "a zip, but not an office file")
    assert_extraction_error(wrong_zip, "corrupt")


def test_truncated_office_file_raises(tmp_path: Path) -> None:
    whole = render(tmp_path, "invoice", "docx").read_bytes()
    truncated = tmp_path / "truncated.docx"
    truncated.write_bytes(whole[: len(whole) // 2])
    assert_extraction_error(truncated, "corrupt")


def test_encrypted_pdf(tmp_path: Path) -> None:
    source = render(tmp_path, "email", "pdf")
    locked, owner_only = tmp_path / "locked.pdf", tmp_path / "owner_only.pdf"
    writer = PdfWriter(clone_from=source)
    writer.encrypt("secret")
    writer.write(locked)
    assert_extraction_error(locked, "encrypted.*password")
    writer = PdfWriter(clone_from=source)
    writer.encrypt("", owner_password="owner")  # opens with the empty user password
    writer.write(owner_only)
    assert "Subject: Hewitt fee proposal" in extract_text(owner_only)


@pytest.mark.parametrize("suffix", [".pdf", ".docx", ".xlsx", ".pptx", ".txt"])
def test_empty_file_raises(tmp_path: Path, suffix: str) -> None:
    empty = tmp_path / f"empty{suffix}"
    empty.write_bytes(b"")
    assert_extraction_error(empty, "empty file")


def test_file_over_the_size_limit_raises(tmp_path: Path) -> None:
    path = render(tmp_path, "memo", "pdf")
    assert_extraction_error(path, "too large", max_bytes=100)
    assert extract_text(path, max_bytes=path.stat().st_size)


@pytest.mark.parametrize("name", ["notes.xyz", "legacy.doc", "README"])
def test_unknown_format_raises(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_text("some text")
    assert_extraction_error(path, "unknown format")


def test_text_files(tmp_path: Path) -> None:
    latin = tmp_path / "latin.txt"
    latin.write_bytes("Caf\u00e9 receipt\r\ntotal: 5\r\n\r\n\r\n\r\nend   \r\n".encode("latin-1"))
    assert extract_text(latin) == "Caf\u00e9 receipt\ntotal: 5\n\nend\n"
    bom = tmp_path / "bom.md"
    bom.write_bytes("\ufeff# Notes\n".encode())
    assert extract_text(bom) == "# Notes\n"
    wide = tmp_path / "wide.txt"
    wide.write_bytes("UTF-16 text\n".encode("utf-16"))  # with its BOM
    assert extract_text(wide) == "UTF-16 text\n"
    binary = tmp_path / "binary.txt"
    binary.write_bytes(b"MZ\x00\x00\x90binary")
    assert_extraction_error(binary, "binary")


def test_pdf_without_text_layer_is_empty_not_an_error(tmp_path: Path) -> None:
    scan = tmp_path / "scan.pdf"
    drawing = canvas.Canvas(str(scan), invariant=1)
    drawing.rect(72, 72, 300, 400, fill=1)  # an image-like page: marks, no text
    drawing.showPage()
    drawing.save()
    result = extract(scan)
    assert (result.text, result.page_count) == ("", 1)


def test_page_counts(tmp_path: Path) -> None:
    assert page_count(render(tmp_path, "presentation", "pptx")) == 3
    assert page_count(render(tmp_path, "invoice", "xlsx")) == 2
    assert page_count(render(tmp_path, "memo", "pdf")) == 1
    assert page_count(render(tmp_path, "memo", "docx")) is None
    assert extract(render(tmp_path, "presentation", "pptx")).page_count == 3


# --- corpus extraction and cache ---------------------------------------------------------------------------------


def build_corpus(root: Path) -> Path:
    corpus = root / "corpus"
    for i, (name, fmt) in enumerate([("email", "pdf"), ("invoice", "xlsx"), ("presentation", "pptx")]):
        render_document(SAMPLES[name], corpus / "good" / f"{name}.{fmt}", seed=i)
    render_document(SAMPLES["memo"], corpus / "memo.docx")
    (corpus / "bad").mkdir()
    (corpus / "bad" / "corrupt.pdf").write_bytes(b"%PDF-1.4 garbage")
    (corpus / "bad" / "empty.txt").write_bytes(b"")
    (corpus / "bad" / "notes.xyz").write_text("unknown")
    (corpus / ".DS_Store").write_bytes(b"\x00hidden")
    return corpus


def test_extract_corpus_mixes_texts_and_errors(tmp_path: Path) -> None:
    corpus = build_corpus(tmp_path)
    result = extract_corpus(corpus)
    assert sorted(result.documents) == [
        "bad/corrupt.pdf",
        "bad/empty.txt",
        "bad/notes.xyz",
        "good/email.pdf",
        "good/invoice.xlsx",
        "good/presentation.pptx",
        "memo.docx",
    ]
    assert sorted(result.errors) == ["bad/corrupt.pdf", "bad/empty.txt", "bad/notes.xyz"]
    assert "empty file" in result.errors["bad/empty.txt"]
    assert "Subject: Hewitt fee proposal" in result.texts["good/email.pdf"]
    assert result.documents["good/presentation.pptx"].page_count == 3
    assert result.cache_dir == tmp_path / "extracted"
    cached = tmp_path / "extracted" / "good" / "invoice.xlsx.txt"
    assert cached.read_text() == result.texts["good/invoice.xlsx"]
    manifest = json.loads((tmp_path / "extracted" / MANIFEST).read_text())
    entry = manifest["files"]["good/invoice.xlsx"]
    assert entry["sha256"] == sha256_file(corpus / "good" / "invoice.xlsx") and entry["text"] == "good/invoice.xlsx.txt"
    assert manifest["files"]["bad/notes.xyz"]["error"] and manifest["files"]["bad/notes.xyz"]["text"] is None
    assert result.extracted_count == 7


def test_corpus_cache_skips_unchanged_and_redoes_changed(tmp_path: Path) -> None:
    corpus = build_corpus(tmp_path)
    cache = tmp_path / "cache"
    first = extract_corpus(corpus, cache)
    stamps = {p: p.stat().st_mtime_ns for p in cache.rglob("*.txt")}

    second = extract_corpus(corpus, cache)
    assert second.extracted_count == 0 and all(doc.cached for doc in second.documents.values())
    assert second.texts == first.texts and second.errors == first.errors
    assert {p: p.stat().st_mtime_ns for p in cache.rglob("*.txt")} == stamps

    changed = SAMPLES["email"].model_copy(update={"subject": "Revised Hewitt fee proposal"})
    render_document(changed, corpus / "good" / "email.pdf")
    (corpus / "bad" / "empty.txt").write_text("now it has text")
    (corpus / "memo.docx").unlink()
    third = extract_corpus(corpus, cache)
    redone = {key for key, doc in third.documents.items() if not doc.cached}
    assert redone == {"good/email.pdf", "bad/empty.txt"}
    assert "Subject: Revised Hewitt fee proposal" in (cache / "good" / "email.pdf.txt").read_text()
    assert third.texts["bad/empty.txt"] == "now it has text\n"
    assert "memo.docx" not in third.documents and not (cache / "memo.docx.txt").exists()
    assert "memo.docx" not in json.loads((cache / MANIFEST).read_text())["files"]


def test_extract_corpus_in_worker_processes_gives_the_same_result(tmp_path: Path) -> None:
    corpus = build_corpus(tmp_path)
    serial = extract_corpus(corpus, tmp_path / "serial")
    parallel = extract_corpus(corpus, tmp_path / "parallel", workers=2)
    assert parallel.texts == serial.texts and parallel.errors == serial.errors
    assert (tmp_path / "parallel" / "good" / "email.pdf.txt").read_text() == serial.texts["good/email.pdf"]


def test_corpus_cache_survives_a_damaged_manifest(tmp_path: Path) -> None:
    corpus = build_corpus(tmp_path)
    extract_corpus(corpus)
    (tmp_path / "extracted" / MANIFEST).write_text("{not json")
    again = extract_corpus(corpus)
    assert again.extracted_count == 7 and len(again.texts) == 4


def test_corpus_folder_must_exist(tmp_path: Path) -> None:
    with pytest.raises(NotADirectoryError):
        extract_corpus(tmp_path / "missing")


# --- real court filings ------------------------------------------------------------------------------------------

MARSHALL = data_root() / "sj_records" / "marshall_v_northrop"


@pytest.fixture(scope="module")
def marshall_texts(tmp_path_factory: pytest.TempPathFactory):
    if not MARSHALL.is_dir():
        pytest.skip(f"court filings not found at {MARSHALL} (set LEXPROBE_DATA)")
    return extract_corpus(MARSHALL, tmp_path_factory.mktemp("marshall") / "extracted")


def test_every_real_filing_yields_text_or_a_clear_error(marshall_texts) -> None:
    pdfs = sorted(p.name for p in MARSHALL.glob("*.pdf"))
    assert pdfs and sorted(marshall_texts.documents) == pdfs
    for name, doc in marshall_texts.documents.items():
        assert (doc.text is None) != (doc.error is None), name
        if doc.text is not None:
            assert doc.page_count and doc.text.startswith("## Page 1\n"), name


@pytest.mark.parametrize(
    ("name", "min_chars", "phrases"),
    [
        (
            "gov.uscourts.cacd.657892.168.1_2.pdf",  # memorandum of law supporting partial summary judgment
            50_000,
            ["MEMORANDUM OF LAW IN", "sponsored by Northrop Grumman Corporation", "Northrop and Hewitt agreed"],
        ),
        (
            "gov.uscourts.cacd.657892.168.5_1.pdf",  # declaration of Nancy Ross with exhibit list
            20_000,
            ["DECLARATION OF NANCY G. ROSS", "Northrop Grumman Savings Plan", "Case No. 16-CV-6794 AB (JCx)"],
        ),
        ("gov.uscourts.cacd.657892.168.0.pdf", 2_000, ["NORTHROP GRUMMAN", "MOTION FOR PARTIAL SUMMARY JUDGMENT"]),
    ],
)
def test_summary_judgment_filings_have_substantial_text(marshall_texts, name, min_chars, phrases) -> None:
    text = marshall_texts.texts[name]
    assert len(text) > min_chars
    for phrase in phrases:
        assert phrase in text, phrase


def test_sealed_slip_sheet_is_short_but_readable(marshall_texts) -> None:
    text = marshall_texts.texts["gov.uscourts.cacd.657892.168.2_1.pdf"]  # the sealed statement of facts
    assert "(Filed Under Seal)" in text and "Statement of" in text and len(text) < 500


def test_pleading_line_numbers_stay_on_their_lines(marshall_texts) -> None:
    declaration = marshall_texts.texts["gov.uscourts.cacd.657892.168.5_1.pdf"]
    assert re.search(r"^\d+ I, Nancy G\. Ross, declare and state as follows:$", declaration, re.MULTILINE)
    transcript = marshall_texts.texts["gov.uscourts.cacd.657892.202.2.pdf"]  # deposition excerpt
    assert re.search(r"^1 A\. No\. But I have managed portfolios,$", transcript, re.MULTILINE)
