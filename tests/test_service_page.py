"""`lexprobe serve`'s page in headless Chromium (issue 49, point 3): drop a PDF brief on it, read the verdicts it
shows, open a quotation's evidence, download the JSON, the annotated HTML and the annotated DOCX (opened with
python-docx); nothing is loaded from outside the server, no console error, and a hostile file name stays text."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import expect
from playwright_support import watched_page
from service_support import served
from test_check_annotated_docx import highlights
from test_service_http import BRIEF, _pdf
from tool_requirements import needs_chromium

from lexprobe.service.http_api import ServeSettings, build_app


@pytest.fixture(scope="module")
def page_url(case_db_path: Path) -> Iterator[str]:
    from lexprobe.service.check_service import CheckService

    service = CheckService(case_db_path)
    try:
        with served(build_app(service, ServeSettings())) as url:
            yield url + "/"
    finally:
        service.close()


DROP = """([name, data]) => {
  const bytes = Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
  const transfer = new DataTransfer();
  transfer.items.add(new File([bytes], name, { type: "application/pdf" }));
  return transfer;
}"""


@needs_chromium
def test_drop_a_pdf_and_read_the_verdicts(page_url: str, tmp_path: Path) -> None:
    name = '<img src=x onerror="window.__alerted=1">.pdf'
    with watched_page(allowed=(page_url,)) as watched:
        page = watched.page
        page.goto(page_url)
        transfer = page.evaluate_handle(DROP, [name, base64.b64encode(_pdf(BRIEF)).decode()])
        page.dispatch_event("#drop", "drop", {"dataTransfer": transfer})
        expect(page.locator("#result")).to_be_visible(timeout=60_000)
        verdicts = page.locator("#doc mark:not(.q)").evaluate_all("marks => marks.map(m => m.dataset.verdict)")
        assert verdicts == ["verified", "verified", "mismatch", "not_found"]
        shown = page.locator("#doc-name").text_content()  # as text (Chromium sends a quote in a file name as %22)
        assert shown.startswith("<img src=x onerror=") and shown.endswith(".pdf")
        assert page.evaluate("window.__alerted === undefined") and page.locator("main img").count() == 0
        expect(page.locator("#status")).to_contain_text("4 citations")
        # a quotation's evidence beside the text
        page.locator("#doc mark.q").first.click()
        expect(page.locator("#detail")).to_contain_text("quotation")
        expect(page.locator("#detail blockquote").first).to_contain_text("separate but equal")
        # a citation's reason
        page.locator("#doc mark.v-not_found").click()
        expect(page.locator("#detail")).to_contain_text("not_found")
        with page.expect_download() as download:
            page.click("#download-json")
        result = json.loads(Path(download.value.path()).read_text(encoding="utf-8"))
        assert [c["verdict"] for c in result["citations"]] == verdicts
        with page.expect_download() as download:
            page.click("#download-html")
        assert '<mark class="v-mismatch"' in Path(download.value.path()).read_text(encoding="utf-8")
        with page.expect_download(timeout=60_000) as download:
            page.click("#download-docx")
        assert download.value.suggested_filename.endswith("-check.docx")
        marks, comments, _ = highlights(Path(download.value.path()).read_bytes())
        cited = [mark for mark in marks if comments[mark["id"]].startswith("citation ")]
        assert [comments[mark["id"]].split(":")[0] for mark in cited] == [f"citation {v}" for v in verdicts]
        assert [mark["text"] for mark in cited] == [c["text"] for c in result["citations"]]
    assert watched.problems == []


@needs_chromium
def test_an_unreadable_upload_says_why(page_url: str) -> None:
    with watched_page(allowed=(page_url,)) as watched:
        page = watched.page
        page.goto(page_url)
        page.set_input_files("#file", files=[{"name": "brief.rtf", "mimeType": "text/rtf", "buffer": b"{\\rtf1}"}])
        expect(page.locator("#status.error")).to_contain_text("unknown format")
    assert [p for p in watched.problems if "400" not in p] == []
