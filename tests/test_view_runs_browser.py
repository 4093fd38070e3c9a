"""The investigation, QA and check sections in headless Chromium (Playwright on the Debian Chromium), served by a
real uvicorn server on 127.0.0.1 under the viewer's security headers: open a run, filter, page, open an episode,
unfold a tool output, open a document, open a QA question and a check result and filter its citations, hostile
text shown as text, and the static copy opened from file://. Every test fails on a console error, an uncaught
exception or a request outside the local server."""

from __future__ import annotations

import shutil
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import uvicorn
from conftest import free_port
from playwright_support import watched_page
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.base import BaseHTTPMiddleware
from starlette.responses import RedirectResponse
from starlette.routing import Mount, Route
from test_view_runs_check import check_json
from test_view_runs_investigation import HOSTILE_NAME, runs  # noqa: F401 (the module's runs fixture)
from tool_requirements import needs_chromium

from lexprobe.view.runs import export_static, sections

#: The policy the viewer's top-level app sets on every response (part A's middleware; the same headers here).
CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
       "font-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")  # fmt: skip


class SecurityHeaders(BaseHTTPMiddleware):
    """The viewer's headers on every response."""

    async def dispatch(self, request, call_next):
        response = await call_next(request)
        response.headers["Content-Security-Policy"] = CSP
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Referrer-Policy"] = "no-referrer"
        return response


def viewer_app(paths: list[Path]) -> Starlette:
    """The sections of `paths` mounted as the viewer mounts them, under the security headers."""
    found, rejected = sections(paths)
    assert rejected == []
    routes = [Route("/", lambda request: RedirectResponse(found[0].mount + "/"))]
    routes += [Mount(section.mount, app=section.app) for section in found]
    return Starlette(routes=routes, middleware=[Middleware(SecurityHeaders)])


@pytest.fixture(scope="module")
def big_run(runs: dict[str, Path]) -> Path:  # noqa: F811
    """The scripted run with its episode records copied under 30 more names each (120 episodes: three pages)."""
    folder = runs["root"] / "big-run"
    if not folder.exists():
        (folder / "episodes").mkdir(parents=True)
        for record in (runs["run"] / "episodes").glob("*.json"):
            for copy in range(30):
                shutil.copyfile(record, folder / "episodes" / f"{record.stem}-copy{copy:02d}.json")
    return folder


@pytest.fixture(scope="module")
def viewer(runs: dict[str, Path], big_run: Path, tmp_path_factory: pytest.TempPathFactory,  # noqa: F811
           case_db_path: Path) -> Iterator[str]:  # fmt: skip
    """A uvicorn server on a free loopback port serving the big run, the QA run and a check result."""
    result = check_json(tmp_path_factory.mktemp("i32-browser-check"), case_db_path)
    server = uvicorn.Server(uvicorn.Config(viewer_app([big_run, runs["qa"], result]), host="127.0.0.1",
                                           port=free_port(), log_level="warning"))  # fmt: skip
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "the viewer did not start"
        time.sleep(0.05)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}/"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def no_element_from_data(page) -> None:
    """No element or dialog came from hostile text: the only images and scripts are none at all."""
    assert page.locator("main img").count() == 0
    assert page.locator("script").count() == 0


@needs_chromium
def test_list_filter_page_episode_output_and_document(viewer: str) -> None:
    with watched_page(allowed=(viewer,)) as watched:
        page = watched.page
        dialogs: list[str] = []
        page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
        page.goto(viewer + "investigation/")
        with page.expect_navigation():  # the next read sees the new page, not the old one
            page.click("text=big-run")
        assert "120 of 120 match" in page.text_content("#shown-count")
        assert page.locator("#records tbody tr").count() == 50
        with page.expect_navigation():  # the next read sees the new page, not the old one
            page.click("#next")
        assert "showing 51–100" in page.text_content("#shown-count")
        with page.expect_navigation():  # the next read sees the new page, not the old one
            page.click("#next")
        assert page.locator("#records tbody tr").count() == 20 and page.locator("#next").count() == 0
        page.select_option("select[name=outcome]", "no")
        page.select_option("select[name=sort]", "-ablation")
        # wait for the filtered page itself (its URL carries the filter), not any earlier navigation's end
        with page.expect_navigation(url=lambda url: "outcome=no" in url and "sort=-ablation" in url):
            page.click("#apply")
        page.wait_for_load_state("load")
        levels = page.locator("#records tbody tr td:nth-child(3)").all_text_contents()
        assert levels and levels == sorted(levels, reverse=True)
        assert "page=" not in page.url or "page=1" in page.url or "outcome=no" in page.url
        text = page.text_content("#shown-count")
        assert " of 120 match" in text
        assert all(cell == "no" for cell in page.locator("#records tbody tr td:nth-child(7)").all_text_contents())
        with page.expect_navigation():  # the next read sees the new page, not the old one
            page.locator("#records tbody tr td a").first.click()
        assert page.locator("#budget").text_content().startswith("4 of 6 tool calls")
        output = page.locator("details.output").first
        assert not output.locator("pre").is_visible()
        output.locator("summary").click()
        assert output.locator("pre").is_visible() and output.get_attribute("open") is not None
        no_element_from_data(page)
        with page.expect_navigation():  # the next read sees the new page, not the old one
            page.locator("a.doc:has-text('DOC-EVIL')").first.click()
        document = page.text_content("#document-text")
        assert "<img src=x onerror=alert(1)>" in document and "\\u202eevil" in document
        assert HOSTILE_NAME.replace("\u202e", "\\u202e") in page.text_content("dl.facts")
        no_element_from_data(page)
        assert dialogs == []
    assert watched.problems == []


@needs_chromium
def test_qa_question_page(viewer: str) -> None:
    with watched_page(allowed=(viewer,)) as watched:
        page = watched.page
        page.goto(viewer + "qa/")
        with page.expect_navigation():  # the next read sees the new page, not the old one
            page.click("text=qa-run")
        page.select_option("select[name=outcome]", "partial")
        with page.expect_navigation():  # the next read sees the new page, not the old one
            page.click("#apply")
        with page.expect_navigation():  # the next read sees the new page, not the old one
            page.locator("#records tbody tr td a").first.click()
        assert page.text_content("#answer").startswith("229 units failed.")
        grades = page.locator("#rubric tbody tr td:nth-child(4)").all_text_contents()
        assert grades == ["satisfied", "not satisfied"]
        no_element_from_data(page)
    assert watched.problems == []


@needs_chromium
def test_check_result_highlights_and_filters_by_verdict(viewer: str) -> None:
    with watched_page(allowed=(viewer,)) as watched:
        page = watched.page
        page.goto(viewer + "check/")
        with page.expect_navigation():  # the next read sees the new page, not the old one
            page.click("text=brief-check.json")
        marks = page.locator("pre.checked-text a.cite")
        assert marks.count() >= 3
        assert page.locator("a.cite.v-not_found").count() == 1 and page.locator("a.cite.v-verified").count() >= 1
        colour = page.locator("a.cite.v-not_found").evaluate("e => getComputedStyle(e).backgroundColor")
        assert colour == "rgb(255, 196, 196)"  # the stylesheet applied under the policy
        rows = page.locator("tr.cite-row")
        total = rows.count()
        page.click("label[for=f0-not_found]")
        visible = [row for row in rows.all() if row.is_visible()]
        assert len(visible) == 1 and "v-not_found" in visible[0].get_attribute("class")
        page.click("label[for=f0-all]")
        assert sum(row.is_visible() for row in rows.all()) == total
        no_element_from_data(page)
    assert watched.problems == []


@needs_chromium
def test_static_copy_opens_from_disk(runs: dict[str, Path], tmp_path: Path, case_db_path: Path) -> None:  # noqa: F811
    result = check_json(tmp_path / "check", case_db_path)
    out = tmp_path / "static"
    links = export_static([runs["run"], runs["qa"], result], out, limit=2)
    with watched_page() as watched:
        page = watched.page
        page.goto((out / links[0][2]).as_uri())
        assert "showing 2 of 4 episodes" in page.text_content("#shown-count")
        background = page.locator("header.bar").evaluate("e => getComputedStyle(e).backgroundColor")
        assert background == "rgb(35, 35, 46)"  # the bundled stylesheet loads from file:// under the meta policy
        with page.expect_navigation():  # the next read sees the new page, not the old one
            page.locator("#records tbody tr td a").first.click()
        page.locator("details.output summary").first.click()
        with page.expect_navigation():  # the next read sees the new page, not the old one
            page.locator("a.doc").first.click()
        assert page.locator("#document-text").count() == 1
        page.goto((out / links[-1][2]).as_uri())
        assert page.locator("a.cite.v-not_found").count() == 1
        page.click("label[for=f0-verified]")
        assert all("v-verified" in row.get_attribute("class") for row in page.locator("tr.cite-row").all()
                   if row.is_visible())  # fmt: skip
        no_element_from_data(page)
    assert watched.problems == []
