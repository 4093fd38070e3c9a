"""Issue #49: a PDF upload's pages are shared out among the service's warm reading processes (page 1 to the first,
page 2 to the second, ...) and joined in order. The joined text, or the error, is exactly one whole read's
(`extract`); the limits still hold for a shared read: pages, the time of all the shares together (every worker
past it replaced), each document limit a share meets; a share that cannot tell the result (its own text budget,
too many pages to OCR) makes the reader read the PDF whole."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from service_support import BRIEFS, write_pdf
from test_hardening_documents import content_of, pdf_file

import lexprobe.documents.extract as extract_module
import lexprobe.documents.limits as limits
from lexprobe.documents.errors import ExtractionError
from lexprobe.documents.extract import extract, extract_pdf_share, join_pdf_shares
from lexprobe.documents.readers import PdfShare
from lexprobe.errors import BadInputError
from lexprobe.service.document_reader import DocumentReader, ReadLimits

MEMO = (BRIEFS / "suppression_memo.txt").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def memo_pdf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The memo as a PDF of several pages (a page of 20 lines)."""
    path = write_pdf(MEMO, tmp_path_factory.mktemp("pdf") / "memo.pdf", lines_per_page=20)
    assert extract(path).page_count >= 4
    return path


@pytest.fixture()
def reader() -> Iterator[DocumentReader]:
    shared = DocumentReader(2)
    yield shared
    shared.close()


def joined(path: Path, of: int) -> object:
    """The shares of `of` processes, read here, joined."""
    return join_pdf_shares(path, [extract_pdf_share(path, share, of) for share in range(of)])


def test_shares_joined_read_as_one_whole_read(memo_pdf: Path, tmp_path: Path) -> None:
    one_page = write_pdf("Terry v. Ohio, 392 U.S. 1 (1968).", tmp_path / "one.pdf")
    blank = write_pdf("", tmp_path / "blank.pdf")
    for path in (memo_pdf, one_page, blank):
        for of in (2, 3, 5):
            assert joined(path, of) == extract(path)


def test_a_limit_before_the_pages_is_the_whole_reads_error(tmp_path: Path) -> None:
    heavy = pdf_file(tmp_path / "heavy.pdf", 3, content_of(5_000_000))  # each page over PDF_MAX_PAGE_CONTENT_BYTES
    with pytest.raises(ExtractionError) as whole:
        extract(heavy)
    assert "PDF_MAX_PAGE_CONTENT_BYTES" in whole.value.reason
    with pytest.raises(ExtractionError) as shared:
        joined(heavy, 2)
    assert shared.value.reason == whole.value.reason


def test_the_first_page_that_fails_decides_and_the_text_budget_is_the_whole_documents(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "document.pdf"
    shares = [PdfShare(["one", "three"], 6, error="page 5: over", error_page=5),
              PdfShare(["two"], 6, error="page 4: over", error_page=4)]  # fmt: skip
    with pytest.raises(ExtractionError, match="page 4: over"):
        join_pdf_shares(path, shares)
    monkeypatch.setattr(limits, "MAX_TEXT_CHARS", 8)  # "one" and "two" fit, "three" passes it: as a whole read
    with pytest.raises(ExtractionError, match="passes 14 characters"):
        join_pdf_shares(path, shares)


def test_a_share_that_cannot_tell_the_result_asks_for_a_whole_read(monkeypatch: pytest.MonkeyPatch) -> None:
    path = Path("document.pdf")
    over = [PdfShare(["one"], 4, error="budget", error_page=3, over_budget=True), PdfShare(["two", "four"], 4)]
    assert join_pdf_shares(path, over) is None
    monkeypatch.setattr(extract_module, "OCR_MAX_PAGES", 2)
    scanned = [PdfShare(["a", "c"], 4, scanned=2), PdfShare(["b", "d"], 4, scanned=1)]
    assert join_pdf_shares(path, scanned) is None
    assert join_pdf_shares(path, [PdfShare(["a"], 2, scanned=1), PdfShare(["b"], 2, scanned=1)]) is not None


def test_the_reader_shares_a_pdf_among_its_workers(
    reader: DocumentReader, memo_pdf: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[tuple] = []
    ask = DocumentReader._ask

    def spy(self: DocumentReader, workers: list, requests: list[tuple], deadline: float, shown: str) -> list:
        asked.extend(requests)
        return ask(self, workers, requests, deadline, shown)

    monkeypatch.setattr(DocumentReader, "_ask", spy)
    assert reader.read("memo.pdf", memo_pdf.read_bytes()) == extract(memo_pdf)
    assert [request[2:] for request in asked] == [(0, 2), (1, 2)]
    asked.clear()
    reader.read("memo.txt", MEMO.encode())  # other formats: one worker
    assert [request[2:] for request in asked] == [(0, 1)]


def test_a_whole_read_replaces_shares_that_cannot_tell(
    reader: DocumentReader, memo_pdf: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("lexprobe.service.document_reader.join_pdf_shares", lambda path, shares: None)
    assert reader.read("memo.pdf", memo_pdf.read_bytes()) == extract(memo_pdf)


def test_a_shared_read_keeps_the_page_limit(reader: DocumentReader, memo_pdf: Path) -> None:
    pages = extract(memo_pdf).page_count
    reader.limits = ReadLimits(max_pages=pages - 1)
    with pytest.raises(BadInputError, match=f"{pages} pages, over the limit of {pages - 1}"):
        reader.read("memo.pdf", memo_pdf.read_bytes())


def test_a_shared_read_keeps_the_time_limit_and_replaces_its_workers(reader: DocumentReader, memo_pdf: Path) -> None:
    data = memo_pdf.read_bytes()
    reader.limits = ReadLimits(seconds=0.001)
    with pytest.raises(BadInputError, match=r"took over 0\.001 s") as caught:
        reader.read("memo.pdf", data)
    assert "\n" not in str(caught.value)
    assert reader._idle.qsize() == 2  # both killed workers replaced by fresh ones
    reader.limits = ReadLimits()
    assert reader.read("memo.pdf", data) == extract(memo_pdf)


def test_a_shared_read_keeps_the_document_limits(reader: DocumentReader, tmp_path: Path) -> None:
    heavy = pdf_file(tmp_path / "heavy.pdf", 3, content_of(5_000_000))
    with pytest.raises(ExtractionError) as whole:
        extract(heavy)
    with pytest.raises(BadInputError) as served:
        reader.read("heavy.pdf", heavy.read_bytes())
    assert str(served.value) == f"cannot read heavy.pdf: {whole.value.reason}"
