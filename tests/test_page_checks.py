"""The browser harness of the tests (tests/page_checks.py and tests/playwright_support.py, Playwright on the Debian
Chromium): what a page does wrong is caught, nothing leaves the machine, and Chromium leaves nothing behind."""

from __future__ import annotations

import functools
import http.server
import json
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from page_checks import PageChecker, render_page
from playwright_support import HOSTILE_TEXT, injected_elements, launch_chromium, watched_page
from tool_requirements import find_chromium, needs_chromium


def _page(folder: Path, body: str, title: str = "Test page", name: str = "page.html", head: str = "") -> Path:
    page = folder / name
    head = f'<meta charset="utf-8"><title>{title}</title>{head}'
    page.write_text(f"<!doctype html><html><head>{head}</head><body>{body}</body></html>")
    return page


@pytest.fixture(scope="module")
def checker() -> Iterator[PageChecker]:
    """One Chromium for the module's pages."""
    with PageChecker() as opened:
        yield opened


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def site(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """A folder served on 127.0.0.1 by the standard library's file server: (base URL, folder)."""
    folder = tmp_path / "site"
    folder.mkdir()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_QuietHandler, directory=folder))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/", folder
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


@pytest.mark.slow
@needs_chromium
def test_console_errors_and_exceptions_are_caught(checker: PageChecker, tmp_path: Path) -> None:
    result = checker.render(_page(tmp_path, '<script>console.error("boom")</script><p>x</p>'))
    assert not result.ok and result.errors == ["console.error: boom"] and result.exceptions == []
    thrown = checker.render(_page(tmp_path, '<script>throw new Error("kaput")</script><p>x</p>'))
    assert not thrown.ok and len(thrown.exceptions) == 1 and "kaput" in thrown.exceptions[0]
    warned = checker.render(_page(tmp_path, '<script>console.warn("careful")</script><p>x</p>'))
    assert warned.ok and warned.warnings == ["console.warn: careful"]
    assert warned.title == "Test page" and warned.text_length == 1 and warned.sideways == []


@pytest.mark.slow
@needs_chromium
@pytest.mark.parametrize("block_network", [True, False])
def test_network_requests_are_reported(checker: PageChecker, tmp_path: Path, block_network: bool) -> None:
    page = _page(tmp_path, '<img src="http://example.invalid/x.png" alt="remote">')
    result = checker.render(page, block_network=block_network)
    assert not result.ok
    assert result.external_requests == ["http://example.invalid/x.png"]
    assert len(result.failed_requests) == 1 and result.failed_requests[0].startswith("http://example.invalid/x.png: ")
    if block_network:
        assert "ERR_BLOCKED_BY_CLIENT" in result.failed_requests[0]


@pytest.mark.slow
@needs_chromium
def test_boxes_wider_than_the_viewport_are_named(checker: PageChecker, tmp_path: Path) -> None:
    wide = '<h2>Wide table</h2><div class="scroller" style="overflow-x:auto"><p style="width:3000px">x</p></div>'
    result = checker.render(_page(tmp_path, wide), width=800, height=600)
    assert result.ok, result.to_json()
    assert len(result.sideways) == 1 and result.sideways[0].startswith('div.scroller after "Wide table": 3000 px')


@pytest.mark.slow
@needs_chromium
def test_a_page_on_a_local_server(checker: PageChecker, site: tuple[str, Path]) -> None:
    base, folder = site
    (folder / "style.css").write_text("p { color: #333; }")
    _page(folder, '<link rel="stylesheet" href="style.css"><p>served</p>', name="clean.html")
    clean = checker.render(base + "clean.html")
    assert clean.ok, clean.to_json()
    assert clean.url == base + "clean.html" and clean.title == "Test page"
    body = '<script src="missing.js"></script><img src="https://example.invalid/y.png" alt="remote"><p>x</p>'
    _page(folder, body, name="broken.html")
    broken = checker.render(base + "broken.html")
    assert not broken.ok
    assert broken.external_requests == ["https://example.invalid/y.png"]  # the server's own files are not external
    assert f"{base}missing.js: HTTP 404" in broken.failed_requests


@pytest.mark.slow
@needs_chromium
def test_a_timeout_or_a_missing_page_leaves_the_browser_usable(checker: PageChecker, tmp_path: Path) -> None:
    page = _page(tmp_path, "<p>x</p>")
    with pytest.raises(FileNotFoundError, match="no such page"):
        checker.render(tmp_path / "missing.html")
    with pytest.raises(TimeoutError):  # nothing can load in no time
        checker.render(page, timeout=0.001)
    assert checker.render(page).ok


@pytest.mark.slow
@needs_chromium
def test_command_line_prints_json_and_leaves_nothing_behind(tmp_path: Path) -> None:
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    os.utime(scratch, (0, 0))  # any file made (and removed) in it moves its modification time
    shot = tmp_path / "shot.png"
    page = _page(tmp_path, '<h1>Report</h1><script>console.warn("careful")</script>')
    env = os.environ | {"TMPDIR": str(scratch)}  # Playwright's driver puts Chromium's profile there
    command = [sys.executable, str(Path(__file__).with_name("page_checks.py")), str(page), "--screenshot", str(shot)]
    ran = subprocess.run(command, capture_output=True, text=True, env=env, timeout=120)
    assert ran.returncode == 0, ran.stderr
    result = json.loads(ran.stdout)
    assert result["ok"] and result["warnings"] == ["console.warn: careful"] and result["screenshot"] == str(shot)
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert os.listdir(scratch) == [] and scratch.stat().st_mtime > 0  # used, then emptied
    missing = subprocess.run([*command[:2], str(tmp_path / "missing.html")], capture_output=True, text=True, env=env,
                             timeout=120)  # fmt: skip
    assert missing.returncode == 2 and missing.stdout == "" and "no such page" in missing.stderr


def test_render_page_without_chromium(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shutil, "which", lambda name: None)
    assert find_chromium() is None
    with pytest.raises(FileNotFoundError, match="no Chromium"):
        render_page(_page(tmp_path, "<p>x</p>"))


@pytest.mark.slow
@needs_chromium
def test_watched_page_records_every_kind_of_problem(site: tuple[str, Path]) -> None:
    base, folder = site
    script = 'console.error("boom"); fetch("https://example.invalid/beacon"); throw new Error("kaput");'
    (folder / "boom.js").write_text(script)
    _page(folder, '<script src="boom.js"></script><p>x</p>', name="boom.html")
    _page(folder, "<p>calm</p>", name="calm.html")
    with launch_chromium() as browser:
        with watched_page(allowed=(base,), browser=browser) as watched:
            watched.page.goto(base + "boom.html")
            watched.page.wait_for_timeout(300)
        problems = "\n".join(watched.problems)
        assert "console error: boom" in problems and "kaput" in problems
        assert "request outside the allowed origins: https://example.invalid/beacon" in problems
        with watched_page(allowed=(base,), browser=browser) as calm:
            calm.page.goto(base + "calm.html")
            assert calm.page.text_content("p") == "calm"
        assert calm.problems == []
    with watched_page(allowed=(base,)) as alone:  # a Chromium of its own
        alone.page.goto(base + "calm.html")
    assert alone.problems == []


CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)


@pytest.mark.slow
@needs_chromium
def test_a_content_security_policy_violation_is_a_problem(site: tuple[str, Path]) -> None:
    base, folder = site
    meta = f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
    _page(folder, '<script>document.title = "ran"</script><p>x</p>', name="inline.html", head=meta)
    with watched_page(allowed=(base,)) as watched:
        watched.page.goto(base + "inline.html")
        assert watched.page.title() == "Test page"  # the inline script was refused
    assert any("Content Security Policy" in problem for problem in watched.problems), watched.problems


@pytest.mark.slow
@needs_chromium
def test_hostile_text_shown_as_text_or_injected_is_told_apart(site: tuple[str, Path]) -> None:
    base, folder = site
    (folder / "hostile.json").write_text(json.dumps({"text": HOSTILE_TEXT}))
    for way in ("textContent", "innerHTML"):
        show = f'document.getElementById("out").{way} = data.text;'
        script = f'fetch("hostile.json").then(response => response.json()).then(data => {{ {show} }});'
        (folder / f"{way}.js").write_text(script)
        _page(folder, f'<p id="out"></p><script src="{way}.js"></script>', name=f"{way}.html")
    with launch_chromium() as browser:
        with watched_page(allowed=(base,), browser=browser) as safe:
            safe.page.goto(base + "textContent.html")
            safe.page.wait_for_function("document.getElementById('out').textContent.length > 0")
            assert safe.page.text_content("#out") == HOSTILE_TEXT and injected_elements(safe.page) == []
        assert safe.problems == []
        with watched_page(allowed=(base,), browser=browser) as unsafe:
            unsafe.page.goto(base + "innerHTML.html")
            unsafe.page.wait_for_selector("#injected", state="attached")
            unsafe.page.wait_for_timeout(300)  # the broken image's onerror
            found = injected_elements(unsafe.page)
        assert any('src="x"' in element for element in found) and "img[onerror]" in found
        assert any("dialog opened: alert '1'" in problem for problem in unsafe.problems), unsafe.problems
