"""Playwright for Python on the Debian Chromium (no browser download) for the browser tests: a page that records
every console error, uncaught exception, failed request and request outside the allowed origins, so a test can
assert that a page worked cleanly (`WatchedPage.problems` empty).

Use with the `needs_chromium` marker of tests/tool_requirements.py (skips on a laptop without Chromium, fails under
CI=true):

    @needs_chromium
    def test_page(viewer_url):
        with watched_page(allowed=(viewer_url,)) as watched:
            watched.page.goto(viewer_url)
            ...
        assert watched.problems == []
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

#: URL prefixes a page may always load: local files, inline data and the browser's own pages.
LOCAL_PREFIXES = ("file:", "data:", "blob:", "about:", "chrome:", "chrome-error:", "devtools:")


@dataclass
class WatchedPage:
    """A Playwright page and what went wrong on it: console errors, uncaught exceptions, failed requests and
    requests outside the allowed origins (those are also aborted), one line each."""

    page: Any
    problems: list[str] = field(default_factory=list)
    console: list[str] = field(default_factory=list)  # every console message, "type: text"


def chromium_path() -> str:
    """Return the Chromium executable the Makefile installs (`find_chromium`); raises RuntimeError when none."""
    from lexprobe.reporting.browser import find_chromium

    found = find_chromium()
    if found is None:
        raise RuntimeError("no Chromium on PATH (make test installs it via apt)")
    return found


@contextmanager
def watched_page(
    allowed: Sequence[str] = (), *, width: int = 1280, height: int = 900, javascript: bool = True
) -> Iterator[WatchedPage]:
    """Yield a fresh page in headless Chromium that may load only `allowed` URL prefixes (e.g. the local server's
    "http://127.0.0.1:PORT/") and local schemes; anything else is aborted and recorded as a problem."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium_path(), args=["--no-sandbox"])
        try:
            context = browser.new_context(viewport={"width": width, "height": height}, java_script_enabled=javascript)
            page = context.new_page()
            watched = WatchedPage(page)

            def route(route: Any) -> None:
                url = route.request.url
                if url.startswith(LOCAL_PREFIXES) or any(url.startswith(prefix) for prefix in allowed):
                    route.continue_()
                else:
                    watched.problems.append(f"request outside the allowed origins: {url}")
                    route.abort()

            def console(message: Any) -> None:
                watched.console.append(f"{message.type}: {message.text}")
                if message.type == "error":
                    watched.problems.append(f"console error: {message.text}")

            context.route("**/*", route)
            page.on("console", console)
            page.on("pageerror", lambda error: watched.problems.append(f"uncaught exception: {error}"))
            page.on(
                "requestfailed",
                lambda request: watched.problems.append(f"request failed: {request.url} ({request.failure})"),
            )
            yield watched
        finally:
            browser.close()
