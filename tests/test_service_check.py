"""Issue #49: `CheckService`, `lexprobe check` kept warm for `lexprobe mcp` and `lexprobe serve`. Its results are
`check --json`'s for the same document (a text and a PDF, against the CLI in a fresh process); uploads are read
within the document limits (bytes, pages, seconds) in worker processes and written only to a temporary folder
removed before the answer; concurrent requests give the same results; a quotation, a case and a page are answered
from the database; every failure is a lexprobe error of one line."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from service_support import BRIEFS, cli_check_json, same_but_path, write_pdf

from lexprobe.check.result_json import SCHEMA_VERSION
from lexprobe.errors import BadInputError
from lexprobe.service.check_service import CheckService
from lexprobe.service.document_reader import ReadLimits, upload_name
from lexprobe.service.errors import NotInDatabase

MEMO = (BRIEFS / "suppression_memo.txt").read_text(encoding="utf-8")
TERRY = (
    "whenever a police officer accosts an individual and restrains his freedom to walk away, he has seized that person"
)


@pytest.fixture(scope="module")
def service(case_db_path: Path) -> Iterator[CheckService]:
    checker = CheckService(case_db_path, readers=1)
    yield checker
    checker.close()


def test_a_text_gives_what_check_json_gives(service: CheckService, case_db_path: Path, tmp_path: Path) -> None:
    path = tmp_path / "suppression_memo.txt"
    path.write_text(MEMO, encoding="utf-8")
    result = service.check_text(MEMO, "suppression_memo.txt")
    assert result["schema_version"] == SCHEMA_VERSION
    assert same_but_path(cli_check_json(path, case_db_path), "suppression_memo.txt") == result
    assert {q["verdict"] for q in result["quotations"]} >= {"verified", "altered", "not_found", "other_case"}


def test_a_pdf_upload_gives_what_check_json_gives(service: CheckService, case_db_path: Path, tmp_path: Path) -> None:
    brief = (BRIEFS / "first_amendment_brief.txt").read_text(encoding="utf-8")
    path = write_pdf(brief, tmp_path / "brief.pdf")
    result = service.check_document("C:\\briefs\\brief.pdf", path.read_bytes())
    assert result["summary"]["files"][0]["path"] == "brief.pdf"
    assert result == same_but_path(cli_check_json(path, case_db_path), "brief.pdf")
    assert result["summary"]["verified"] > 5 and result["quotations"]


def test_uploads_are_written_only_to_a_folder_removed_before_the_answer(
    service: CheckService, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    service.check_document("../../etc/passwd.txt", MEMO.encode())
    with pytest.raises(BadInputError):
        service.check_document("broken.pdf", b"%PDF-1.4 not really")
    assert list(scratch.iterdir()) == []


def test_an_upload_over_a_limit_is_refused_in_one_line(case_db_path: Path, tmp_path: Path) -> None:
    pdf = write_pdf(MEMO, tmp_path / "memo.pdf").read_bytes()
    small = CheckService(case_db_path, readers=1, limits=ReadLimits(max_bytes=1_000, max_pages=1, seconds=0.001))
    try:
        cases = [("memo.txt", MEMO.encode(), "file too large"), ("memo.exe", b"x", "unknown format '.exe'"),
                 ("memo.txt", b"", "empty file")]  # fmt: skip
        for name, data, said in cases:
            with pytest.raises(BadInputError, match=said) as caught:
                small.check_document(name, data)
            assert "\n" not in str(caught.value)
        small.reader.limits = ReadLimits(max_bytes=len(pdf), max_pages=1, seconds=0.001)
        with pytest.raises(BadInputError, match=r"took over 0\.001 s"):  # the worker is killed and replaced
            small.check_document("memo.pdf", pdf)
        small.reader.limits = ReadLimits(max_bytes=len(pdf), max_pages=1)
        with pytest.raises(BadInputError, match="pages, over the limit of 1"):  # the fresh worker reads it
            small.check_document("memo.pdf", pdf)
    finally:
        small.close()


def test_a_text_over_the_character_limit_is_refused(case_db_path: Path) -> None:
    short = CheckService(case_db_path, readers=1, max_chars=300)  # the warm-up text fits
    try:
        with pytest.raises(BadInputError, match="301 characters, over the limit of 300"):
            short.check_text("x" * 301)
    finally:
        short.close()


def test_concurrent_requests_give_the_same_results(service: CheckService) -> None:
    expected = service.check_text(MEMO, "memo.txt")
    with ThreadPoolExecutor(8) as pool:
        texts = list(pool.map(lambda _: service.check_text(MEMO, "memo.txt"), range(8)))
        uploads = list(pool.map(lambda _: service.check_document("memo.txt", MEMO.encode()), range(4)))
    assert all(result == expected for result in texts + uploads)


def test_a_quotation_is_verified_with_its_passage(service: CheckService) -> None:
    found = service.verify_quotation(TERRY, "Terry v. Ohio, 392 U.S. 1, 16 (1968)")
    assert (found["verdict"], found["page"], found["pin_ok"]) == ("verified", 16, True)
    assert "restrains his freedom to walk away" in found["passage"]
    assert found["citation"]["verdict"] == "verified" and found["citation"]["pin"] == "16"
    invented = service.verify_quotation(
        "the Fourth Amendment permits a search of any pedestrian who declines to answer an officer's questions",
        "Terry v. Ohio, 392 U.S. 1 (1968)",
    )
    assert invented["verdict"] == "not_found" and "not in any opinion of Terry" in invented["reason"]
    with pytest.raises(BadInputError, match="no case citation"):
        service.verify_quotation(TERRY, "Terry v. Ohio")


def test_a_case_is_looked_up_with_its_treatment(service: CheckService) -> None:
    plessy = service.lookup_case("163 U.S. 537")
    assert plessy["case"]["case"]["name"] == "Plessy v. Ferguson"
    assert any(rule["overruling_year"] == 1954 for rule in plessy["case"]["overruled_by"])
    assert service.lookup_case("Plessy v. Ferguson")["matches"][0] == "scotus:163_U.S._537"
    json.dumps(plessy)  # plain JSON
    with pytest.raises(NotInDatabase, match="no case matches"):
        service.lookup_case("Zzyzx Quorble v. Flimflam Holdings")


def test_a_page_of_an_opinion_is_read_from_its_star_paging(service: CheckService) -> None:
    page = service.case_text("392 U.S. 1", 16)
    assert page["case"]["name"] == "Terry v. Ohio" and page["page"] == 16
    court = page["passages"][0]
    assert court["court"] and "restrains his freedom to walk away" in court["text"]
    with pytest.raises(NotInDatabase, match=r"no page 999 in the opinions of Terry v\. Ohio"):
        service.case_text("392 U.S. 1", 999)
    with pytest.raises(NotInDatabase, match="no case has the citation"):
        service.case_text("999 U.S. 999", 1)
    with pytest.raises(BadInputError, match="whole number"):
        service.case_text("392 U.S. 1", 0)


def test_coverage_says_what_the_database_holds(service: CheckService) -> None:
    coverage = service.coverage()
    assert coverage["levels"]["scotus"] > 1000 and coverage["coverage"]["scotus"]["opinion_text"] > 0
    assert "/" not in coverage["db"]  # the file's name, not where the server keeps it


def test_upload_names_are_shown_safely() -> None:
    assert upload_name("../../etc/passwd.txt") == "passwd.txt"
    assert upload_name("C:\\Users\\x\\brief.docx") == "brief.docx"
    assert "\x1b" not in upload_name("\x1b[31mred.txt")
    assert upload_name("") == "document" and len(upload_name("a" * 1000 + ".txt")) == 200
