"""The viewer in headless Chromium (Playwright, issue 32 part A): a real `lexprobe view` server over two real
scripted runs; open the list, click a row, filter, search, page, open a detail and "same question, every model",
follow a rate's link from the served report and from `hallucination report --html`; hostile answers show as text.
Every test fails on a console error, an uncaught exception or a request outside the local server."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import expect
from playwright_support import watched_page
from test_view_fixtures import (  # noqa: F401
    HOSTILE_ANSWER,
    Runs,
    Viewer,
    cli,
    hallucination_runs,
    start_viewer,
    stop_viewer,
    viewer,
)
from tool_requirements import needs_chromium


def _no_script_ran(page) -> None:
    assert page.evaluate("window.__alerted === undefined")
    assert page.locator("main img, main svg, main script:not([src]), main b").count() == 0


@needs_chromium
def test_list_row_detail_filter_search_and_page(viewer: Viewer, hallucination_runs: Runs) -> None:  # noqa: F811
    with watched_page(allowed=(viewer.url,)) as watched:
        page = watched.page
        page.on("dialog", lambda dialog: watched.problems.append(f"dialog opened: {dialog.message}"))
        page.goto(viewer.url)
        page.click("text=Every answer of 2 runs")
        page.wait_for_selector("#rows tr")
        assert "24 rows" in page.locator("#status").text_content()
        # filter on a column and on the task
        page.select_option("#f-task", "existence")
        page.select_option("#f-model", hallucination_runs.hostile_model)
        page.click("#apply")
        expect(page.locator("#status")).to_contain_text("8 rows")
        assert "task=existence" in page.url
        # page through them
        page.select_option("#f-size", "25")
        page.select_option("#f-task", "")
        page.select_option("#f-model", "")
        page.click("#apply")
        expect(page.locator("#status")).to_contain_text("page 1 of 1")
        page.evaluate("document.getElementById('f-size').appendChild(new Option('5', '5'))")
        page.select_option("#f-size", "5")
        page.click("#apply")
        expect(page.locator("#status")).to_contain_text("page 1 of 5")
        page.click("#next")
        expect(page.locator("#status")).to_contain_text("page 2 of 5")
        assert page.locator("#rows tr").count() == 5
        # full-text search over the answers, then open one: the hostile answer is text
        page.fill("#f-q", "zebra")
        page.click("#apply")
        expect(page.locator("#status")).to_contain_text("8 rows")
        page.locator("#rows tr").first.click()
        page.wait_for_selector("#detail h2")
        detail = page.locator("#detail").inner_text()
        assert "<img src=x onerror=alert(1)>" in detail and "</script><script>alert(2)</script>" in detail
        assert "\\x1b[31m" in detail and "\\u202e" in detail
        assert "Calibration samples (2)" in detail and "Prompt" in detail and "Reference scored against" in detail
        _no_script_ran(page)
        page.click("#same")
        page.wait_for_selector("#same-view .compare > div")
        assert page.locator("#same-view .compare > div").count() == 2  # both models, side by side
        # a reference-free pair: both samples and the judge's verdict
        page.fill("#f-q", "")
        page.select_option("#f-task", "factual_background")
        page.select_option("#f-model", hallucination_runs.hostile_model)
        page.click("#apply")
        expect(page.locator("#status")).to_contain_text("4 rows")
        page.locator("#rows tr").first.click()
        page.wait_for_selector("text=Judge's verdict")
        text = page.locator("#detail").inner_text()
        assert "Sample 2" in text and "They agree. So, the answer is yes." in text and "<svg onload=alert(3)>" in text
        _no_script_ran(page)
        # a bad query says why
        page.fill("#f-q", "!!!")
        page.click("#apply")
        page.wait_for_selector("#error:not(.hidden)")
        assert "no word" in page.locator("#error").text_content()
    assert watched.problems == []


@needs_chromium
def test_report_links_open_the_viewer_with_the_cell_filter(viewer: Viewer, hallucination_runs: Runs,  # noqa: F811
                                                           tmp_path: Path) -> None:  # fmt: skip
    report = tmp_path / "report.html"
    result = cli("hallucination", "report", str(hallucination_runs.yes), str(hallucination_runs.hostile),
                 "--html", str(report), "--viewer-url", viewer.url)  # fmt: skip
    assert result.returncode == 0, result.stderr
    with watched_page(allowed=(viewer.url,)) as watched:
        page = watched.page
        page.goto(report.as_uri())
        link = page.locator("a[href*='task=existence'][href*='style=few']").first
        link.click()
        page.wait_for_selector("#rows tr")
        assert page.url.startswith(viewer.url + "hallucination/?")
        expect(page.locator("#f-task")).to_have_value("existence")
        assert page.locator("#f-style").input_value() == "few"
        assert "4 rows" in page.locator("#status").text_content()
        models = set(page.locator("#rows tr td:nth-child(4)").all_text_contents())
        assert len(models) == 1
        # the report the viewer serves links relative to it
        page.goto(viewer.url + "hallucination/report/")
        page.locator("a[href*='task=factual_background']").first.click()
        page.wait_for_selector("#rows tr")
        assert page.locator("#f-task").input_value() == "factual_background"
        page.screenshot(path=str(tmp_path / "viewer.png"))
    assert watched.problems == []


HOSTILE_DIR = "<img src=x onerror=alert(1)>\u202ecod.exe\x1b[31m"


@needs_chromium
def test_hostile_run_directory_names_are_text(hallucination_runs: Runs, tmp_path: Path) -> None:  # noqa: F811
    """Two runs of one model are named `model (run directory)`: a directory name of markup, bidi and ANSI text
    shows as text on the index page, in the model menu and in the rows."""
    for name in ("plain", HOSTILE_DIR):
        (tmp_path / name).mkdir()
        (tmp_path / name / "run.sqlite").write_bytes((hallucination_runs.hostile / "run.sqlite").read_bytes())
    started = start_viewer(str(tmp_path / "plain"), str(tmp_path / HOSTILE_DIR))
    try:
        with watched_page(allowed=(started.url,)) as watched:
            page = watched.page
            page.on("dialog", lambda dialog: watched.problems.append(f"dialog opened: {dialog.message}"))
            page.goto(started.url)
            index_text = page.locator("main").inner_text()
            assert "<img src=x onerror=alert(1)>" in index_text and "\u202e" not in index_text
            assert page.locator("main img").count() == 0
            page.click("text=Every answer of 2 runs")
            expect(page.locator("#status")).to_contain_text("24 rows")
            labels = page.locator("#f-model option").all_text_contents()
            hostile = [label for label in labels if "onerror" in label]
            assert hostile and "\\u202e" in hostile[0] and "\\x1b" in hostile[0]
            page.select_option("#f-model", label=hostile[0])
            page.click("#apply")
            expect(page.locator("#status")).to_contain_text("12 rows")
            assert "\\u202ecod.exe" in page.locator("#rows tr td:nth-child(4)").first.text_content()
            _no_script_ran(page)
        assert watched.problems == []
    finally:
        stop_viewer(started)
