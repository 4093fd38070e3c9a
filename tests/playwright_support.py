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

`watched_page` launches its own Chromium each time; a module that opens many pages can launch one for the module
with `launch_chromium()` (e.g. in a module-scoped fixture) and pass it as `watched_page(..., browser=browser)`: each
page then still gets a fresh browser context (no cookies, storage or routes shared between tests).
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from tool_requirements import find_chromium

#: URL prefixes a page may always load: local files, inline data and the browser's own pages.
LOCAL_PREFIXES = ("file:", "data:", "blob:", "about:", "chrome:", "chrome-error:", "devtools:")
#: Chromium's command-line flags for the tests: no sandbox (tests run as root in containers), nothing in the
#: background that would reach the network (component updates, safe browsing, metrics), no GPU.
CHROMIUM_ARGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-breakpad",
    "--disable-dev-shm-usage",
    "--no-first-run",
    "--hide-scrollbars",
    "--mute-audio",
)


@dataclass
class WatchedPage:
    """A Playwright page and what went wrong on it (or on a page opened from it): console errors (the browser's own
    ones included, such as a Content-Security-Policy violation), uncaught exceptions, dialogs (alert, confirm,
    prompt), failed requests and requests outside the allowed origins (those are also aborted), one line each."""

    page: Any
    problems: list[str] = field(default_factory=list)
    console: list[str] = field(default_factory=list)  # every console message, "type: text"


def chromium_path() -> str:
    """Return the Chromium executable the Makefile installs (`find_chromium`); raises RuntimeError when none."""
    found = find_chromium()
    if found is None:
        raise RuntimeError("no Chromium on PATH (make test installs it via apt)")
    return found


def is_local(url: str, allowed: Sequence[str] = ()) -> bool:
    """Whether `url` is a local scheme (file, data, blob, the browser's own pages) or starts with one of `allowed`."""
    return url.startswith(LOCAL_PREFIXES) or any(url.startswith(prefix) for prefix in allowed)


class _Driver:
    """The one Playwright driver of this process (the tests drive it from one thread), shared by every browser open
    at the same time (the sync API refuses a second `sync_playwright()` while one runs) and stopped when the last
    of them closes."""

    playwright: Any = None
    users = 0

    @classmethod
    @contextmanager
    def shared(cls) -> Iterator[Any]:
        from playwright.sync_api import sync_playwright

        if cls.users == 0:
            cls.playwright = sync_playwright().start()
        cls.users += 1
        try:
            yield cls.playwright
        finally:
            cls.users -= 1
            if cls.users == 0:
                playwright, cls.playwright = cls.playwright, None
                playwright.stop()


def chromium_env() -> dict[str, str]:
    """Chromium's environment: this one, with TMPDIR moved to /tmp when its path is so long that Chromium's singleton
    socket under it would pass the 107-byte limit of a Unix socket address (pytest's tmp_path is that long)."""
    env = dict(os.environ)
    if len(env.get("TMPDIR", "")) > 40 and os.path.isdir("/tmp"):
        env["TMPDIR"] = "/tmp"
    return env


@contextmanager
def launch_chromium() -> Iterator[Any]:
    """Yield a Playwright `Browser`: headless Debian Chromium (`chromium_path`, never a downloaded browser), closed
    afterwards (and the Playwright driver with it when no other browser uses it). Browsers may be open side by side,
    e.g. a module's and a test's own."""
    executable = chromium_path()
    with _Driver.shared() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=list(CHROMIUM_ARGS), env=chromium_env())
        try:
            yield browser
        finally:
            browser.close()


@contextmanager
def watched_page(
    allowed: Sequence[str] = (),
    *,
    width: int = 1280,
    height: int = 900,
    javascript: bool = True,
    browser: Any = None,
) -> Iterator[WatchedPage]:
    """Yield a fresh page in headless Chromium that may load only `allowed` URL prefixes (e.g. the local server's
    "http://127.0.0.1:PORT/") and local schemes; anything else is aborted and recorded as a problem. With `browser`
    (from `launch_chromium`), the page opens in a new context of that browser instead of a Chromium of its own."""
    if browser is None:
        with (
            launch_chromium() as launched,
            watched_page(allowed, width=width, height=height, javascript=javascript, browser=launched) as watched,
        ):
            yield watched
        return
    context = browser.new_context(viewport={"width": width, "height": height}, java_script_enabled=javascript)
    try:
        page = context.new_page()
        watched = WatchedPage(page)

        def route(route: Any) -> None:
            url = route.request.url
            if is_local(url, allowed):
                route.continue_()
            else:
                watched.problems.append(f"request outside the allowed origins: {url}")
                route.abort("blockedbyclient")

        def console(message: Any) -> None:
            watched.console.append(f"{message.type}: {message.text}")
            if message.type in ("error", "assert"):
                watched.problems.append(f"console {message.type}: {message.text}")

        def dialog(dialog: Any) -> None:  # alert(), confirm(), prompt(): injected script would call one
            watched.problems.append(f"dialog opened: {dialog.type} {dialog.message!r}")
            dialog.dismiss()

        # on the context, so that a page opened from this one (a link to a new tab) is watched as well
        context.route("**/*", route)
        context.on("console", console)
        context.on("dialog", dialog)
        context.on("weberror", lambda web_error: watched.problems.append(f"uncaught exception: {web_error.error}"))
        context.on(
            "requestfailed",
            lambda request: watched.problems.append(f"request failed: {request.url} ({request.failure})"),
        )
        yield watched
    finally:
        context.close()


#: Text a hostile model, document or file name could carry: markup that would create an element or run script
#: (an `alert` opens a dialog, which `watched_page` records) if it reached the page unescaped, a terminal colour
#: escape, a right-to-left override and other control characters (no NUL).
HOSTILE_TEXT = (
    '<img src=x onerror=alert(1)> </script><script>alert(2)</script> <b id="injected">bold</b> '
    "\x1b[31mred\x1b[0m \u202eevil\u202c \x07\x08\x7f end"
)
INJECTED_ELEMENTS = """() => {
  const found = [];
  for (const el of document.querySelectorAll('img[src="x"], #injected, script:not([src])')) found.push(el.outerHTML);
  for (const el of document.querySelectorAll("*")) {
    for (const attribute of el.attributes) {
      if (attribute.name.startsWith("on")) found.push(`${el.tagName.toLowerCase()}[${attribute.name}]`);
    }
  }
  return found;
}"""


def injected_elements(page: Any) -> list[str]:
    """Elements `HOSTILE_TEXT` would have created on `page` had it been inserted as markup (an `img` with src "x",
    the `#injected` element, an inline script, any inline event handler); empty when it was shown as text."""
    return page.evaluate(INJECTED_ELEMENTS)
