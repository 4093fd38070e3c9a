"""`lexprobe view --out DIR` (issue 32, part A): a static copy that opens from disk in headless Chromium without
a server, holds at most --limit rows and says so, filters, sorts and opens details in the browser, keeps its data
in data-N.js files (no inline script), shows hostile answers as text, and links the copied report into it."""

from __future__ import annotations

import html
import json
from pathlib import Path

from playwright.sync_api import expect
from playwright_support import watched_page
from test_view_fixtures import Runs, cli, hallucination_runs  # noqa: F401
from tool_requirements import needs_chromium

from lexprobe.view.security import STATIC_CONTENT_SECURITY_POLICY


def _export(runs: Runs, out: Path, limit: int) -> dict:
    result = cli("view", str(runs.yes), str(runs.hostile), "--db", str(runs.case_db), "--out", str(out),
                 "--limit", str(limit), "--json")  # fmt: skip
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_static_copy_files(hallucination_runs: Runs, tmp_path: Path) -> None:  # noqa: F811
    written = _export(hallucination_runs, tmp_path / "copy", 10)
    assert written["rows"] == 10 and written["total"] == 24
    folder = tmp_path / "copy" / "hallucination"
    page = (folder / "index.html").read_text()
    assert f'content="{STATIC_CONTENT_SECURITY_POLICY}"' in html.unescape(page)
    assert "<script>" not in page and '<script src="data-0.js"></script>' in page
    assert "Showing 10 of 24 rows; the server viewer" in page
    data = (folder / "data-0.js").read_text()
    assert "<" not in data and "\x1b" not in data and "\u202e" not in data  # escaped for a script file
    report = (folder / "report" / "index.html").read_text()
    assert "<style>" not in report and "../index.html?task=" in report


@needs_chromium
def test_static_copy_opens_from_disk(hallucination_runs: Runs, tmp_path: Path) -> None:  # noqa: F811
    _export(hallucination_runs, tmp_path / "copy", 5000)
    index = tmp_path / "copy" / "index.html"
    with watched_page() as watched:  # file:// only: any http request is a problem
        page = watched.page
        page.on("dialog", lambda dialog: watched.problems.append(f"dialog opened: {dialog.message}"))
        page.goto(index.as_uri())
        page.click("text=Every answer")
        expect(page.locator("#status")).to_contain_text("24 rows")
        assert "Showing 24 of 24 rows" in page.locator("#static-notice").text_content()
        page.select_option("#f-model", hallucination_runs.hostile_model)
        page.select_option("#f-task", "existence")
        page.select_option("#f-sort", "year")
        page.select_option("#f-dir", "desc")
        page.click("#apply")
        expect(page.locator("#status")).to_contain_text("8 rows")
        years = [int(text) for text in page.locator("#rows tr td:nth-child(7)").all_text_contents()]
        assert years == sorted(years, reverse=True)
        page.fill("#f-q", "zebra")
        page.click("#apply")
        expect(page.locator("#status")).to_contain_text("8 rows")
        page.locator("#rows tr").first.click()
        page.wait_for_selector("#detail h2")
        detail = page.locator("#detail").inner_text()
        assert "<img src=x onerror=alert(1)>" in detail and "\\u202e" in detail and "Calibration samples" in detail
        assert page.locator("main img, main script:not([src])").count() == 0
        page.click("#same")
        page.wait_for_selector("#same-view .compare > div")
        assert page.locator("#same-view .compare > div").count() == 2
        page.goto((tmp_path / "copy" / "hallucination" / "report" / "index.html").as_uri())
        page.locator("a[href*='task=existence'][href*='style=zero']").first.click()
        expect(page.locator("#f-task")).to_have_value("existence")
        expect(page.locator("#status")).to_contain_text("4 rows")
    assert watched.problems == []


@needs_chromium
def test_static_copy_says_how_many_rows_it_holds(hallucination_runs: Runs, tmp_path: Path) -> None:  # noqa: F811
    _export(hallucination_runs, tmp_path / "small", 7)
    with watched_page() as watched:
        page = watched.page
        page.goto((tmp_path / "small" / "hallucination" / "index.html").as_uri())
        expect(page.locator("#status")).to_contain_text("7 rows")
        assert "Showing 7 of 24 rows" in page.locator("#static-notice").text_content()
    assert watched.problems == []
