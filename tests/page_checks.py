"""Open a finished page (an HTML file, or a URL of a local server) in headless Chromium through Playwright and
report what went wrong, for the report tests and for `docs/` screenshots.

`render` collects console errors and warnings (the browser's own log lines, such as a resource that failed to load
or a Content-Security-Policy violation, arrive as console messages too), uncaught exceptions, dialogs (an `alert`
is what injected script would call), failed requests (HTTP status 400 and above included) and every request that
is neither a local scheme nor under the page's own origin or an `allowed` prefix: those are recorded in
`external_requests` and, by default, aborted, so they show up in `failed_requests` as well. `sideways` lists every
box whose content is wider than the box at the viewport's width (a table that scrolls or is cut sideways). Each
page gets a fresh browser context; `PageChecker` launches Chromium once for many pages (a module-scoped fixture),
`render_page` launches one for a single page.

Command line (from the repository root): `python tests/page_checks.py page.html [--screenshot page.png]` (or a
URL such as http://127.0.0.1:8000/) prints the result as JSON and exits 1 when the page is not `ok`.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from playwright_support import is_local, launch_chromium
from tool_requirements import CHROMIUM_NAMES, find_chromium

#: A screenshot is at most this tall (Chromium's own limit on one capture).
MAX_SCREENSHOT_HEIGHT = 16384
PAGE_FACTS = """() => {
  const sideways = [];
  let heading = "";
  for (const el of document.querySelectorAll("*")) {
    if (/^H[1-4]$/.test(el.tagName)) heading = el.textContent.trim().slice(0, 80);
    const clips = ["auto", "scroll", "hidden", "clip"].includes(getComputedStyle(el).overflowX);
    if ((clips || el === document.documentElement) && el.scrollWidth > el.clientWidth + 1) {
      const name = el.tagName.toLowerCase() + (el.classList.length ? "." + [...el.classList].join(".") : "");
      sideways.push(`${name} after "${heading}": ${el.scrollWidth} px of content in ${el.clientWidth} px`);
    }
  }
  return {
    title: document.title,
    text: document.body ? document.body.innerText.length : 0,
    height: Math.max(document.documentElement.scrollHeight, document.body ? document.body.scrollHeight : 0),
    sideways: sideways,
  };
}"""


@dataclass
class RenderResult:
    """What loading one page showed. `ok` is True when nothing went wrong: no console errors, no exceptions, no
    dialogs, no failed or external requests (warnings do not count)."""

    url: str
    title: str = ""
    text_length: int = 0
    page_height: int = 0
    errors: list[str] = field(default_factory=list)  # console.error/assert and the browser's error log lines
    warnings: list[str] = field(default_factory=list)  # console.warn and the browser's warning log lines
    exceptions: list[str] = field(default_factory=list)  # uncaught JavaScript exceptions
    dialogs: list[str] = field(default_factory=list)  # alert/confirm/prompt opened (and dismissed)
    failed_requests: list[str] = field(default_factory=list)  # "URL: net::ERR_..." or "URL: HTTP 404"
    external_requests: list[str] = field(default_factory=list)  # every request outside the page's own files/origin
    # boxes (and the page itself) whose content is wider than the box at this width: it scrolls or is cut sideways;
    # each named by its tag and classes, the heading above it and the two widths (not counted against `ok`)
    sideways: list[str] = field(default_factory=list)
    screenshot: Path | None = None

    @property
    def ok(self) -> bool:
        """No console errors, exceptions, dialogs, failed or external requests."""
        return not (self.errors or self.exceptions or self.dialogs or self.failed_requests or self.external_requests)

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict, `ok` included."""
        data = dataclasses.asdict(self)
        data["screenshot"] = str(self.screenshot) if self.screenshot else None
        data["ok"] = self.ok
        return data


class BrowserError(RuntimeError):
    """Chromium could not open the page (a navigation error such as a refused connection)."""


def page_url(target: Path | str) -> str:
    """The URL to open: an http(s) URL as given, otherwise the file's `file://` URI (FileNotFoundError if none)."""
    if isinstance(target, str) and target.startswith(("http://", "https://")):
        return target
    page = Path(target).resolve()
    if not page.is_file():
        raise FileNotFoundError(f"no such page: {page}")
    return page.as_uri()


def _origin(url: str) -> tuple[str, ...]:
    """The prefix of `url`'s own origin ("http://127.0.0.1:8000/"), or nothing for a file."""
    parts = urlsplit(url)
    return (f"{parts.scheme}://{parts.netloc}/",) if parts.scheme in ("http", "https") else ()


class PageChecker:
    """One headless Chromium that renders pages, each in a fresh context; use as a context manager."""

    def __init__(self) -> None:
        self._exit = contextlib.ExitStack()
        self.browser: Any = None

    def __enter__(self) -> PageChecker:
        if find_chromium() is None:
            raise FileNotFoundError(f"no Chromium found on PATH (looked for {', '.join(CHROMIUM_NAMES)})")
        self.browser = self._exit.enter_context(launch_chromium())
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._exit.close()
        self.browser = None

    def render(
        self,
        target: Path | str,
        screenshot: Path | str | None = None,
        width: int = 1280,
        height: int = 2000,
        timeout: float = 60,
        *,
        block_network: bool = True,
        settle: float = 0.3,
        allowed: tuple[str, ...] = (),
    ) -> RenderResult:
        """Load `target` (a file, or an http URL whose origin it may load from) in a `width` x `height` viewport and
        collect what went wrong; with `screenshot`, also save a PNG of the whole page there (its scroll height, at
        most 16384 px). `settle` seconds after the load event are still listened to (timers, late errors).
        Raises FileNotFoundError (no page), TimeoutError after about `timeout` seconds, BrowserError when the
        navigation fails."""
        from playwright.sync_api import Error as PlaywrightError
        from playwright.sync_api import TimeoutError as PlaywrightTimeout

        url = page_url(target)
        deadline = time.monotonic() + timeout
        result = RenderResult(url=url)
        permitted = (*allowed, *_origin(url))
        context = self.browser.new_context(viewport={"width": width, "height": height}, device_scale_factor=1)
        try:
            _watch(context, result, permitted, block_network)
            page = context.new_page()
            try:
                page.goto(url, wait_until="load", timeout=_milliseconds_left(deadline))
                page.wait_for_timeout(settle * 1000)
                facts = page.evaluate(PAGE_FACTS)
                result.title, result.text_length, result.page_height = facts["title"], facts["text"], facts["height"]
                result.sideways = facts["sideways"]
                if screenshot is not None:
                    result.screenshot = _screenshot(page, Path(screenshot), width, result.page_height, deadline)
                    page.wait_for_timeout(settle * 1000)  # the taller viewport may load more (lazy images)
            except PlaywrightTimeout as error:
                raise TimeoutError(f"{url} did not load within {timeout} s") from error
            except PlaywrightError as error:
                raise BrowserError(f"opening {url} failed: {error.message}") from error
        finally:
            context.close()
        return result


def _watch(context: Any, result: RenderResult, permitted: tuple[str, ...], block_network: bool) -> None:
    """Route and listen on `context` so that what the page does lands in `result`."""

    def route(route: Any) -> None:
        url = route.request.url
        if is_local(url, permitted):
            route.continue_()
            return
        result.external_requests.append(url)
        if block_network:
            route.abort("blockedbyclient")
        else:
            route.continue_()

    def console(message: Any) -> None:
        if message.type in ("error", "assert"):
            result.errors.append(f"console.{message.type}: {message.text}")
        elif message.type == "warning":
            result.warnings.append(f"console.warn: {message.text}")

    def dialog(dialog: Any) -> None:
        result.dialogs.append(f"{dialog.type}: {dialog.message}")
        dialog.dismiss()

    def response(response: Any) -> None:
        if response.status >= 400:
            result.failed_requests.append(f"{response.url}: HTTP {response.status}")

    context.route("**/*", route)
    context.on("console", console)
    context.on("dialog", dialog)
    context.on("weberror", lambda web_error: result.exceptions.append(_exception_text(web_error.error)))
    context.on("requestfailed", lambda request: result.failed_requests.append(f"{request.url}: {request.failure}"))
    context.on("response", response)


def _exception_text(error: Any) -> str:
    """One line for an uncaught exception: its name and message."""
    name, message = getattr(error, "name", "") or "Error", getattr(error, "message", "") or str(error)
    return f"{name}: {message}"


def _milliseconds_left(deadline: float) -> float:
    """Milliseconds until `deadline`, at least 1 (Playwright reads 0 as no timeout at all)."""
    return max(1.0, (deadline - time.monotonic()) * 1000)


def _screenshot(page: Any, target: Path, width: int, page_height: int, deadline: float) -> Path:
    """Grow the viewport to the page's height (bounded) and save a PNG of it at `target`."""
    page.set_viewport_size({"width": width, "height": max(1, min(page_height, MAX_SCREENSHOT_HEIGHT))})
    target.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(target), timeout=_milliseconds_left(deadline))
    return target


def render_page(
    target: Path | str,
    screenshot: Path | str | None = None,
    width: int = 1280,
    height: int = 2000,
    timeout: float = 60,
    **options: Any,
) -> RenderResult:
    """`PageChecker.render` in a Chromium launched for this one page (FileNotFoundError when there is none)."""
    page_url(target)  # a missing page fails before Chromium starts
    with PageChecker() as checker:
        return checker.render(target, screenshot, width, height, timeout, **options)


def main(argv: list[str] | None = None) -> int:
    """Render one page; print the result as JSON; exit 1 when the page is not `ok`, 2 when it cannot be opened."""
    parser = argparse.ArgumentParser(description="Open a page in headless Chromium and report its problems.")
    parser.add_argument("page", help="an HTML file, or an http://127.0.0.1:PORT/... URL")
    parser.add_argument("--screenshot", type=Path, help="also save a PNG of the whole page here")
    parser.add_argument("--width", type=int, default=1280)
    parser.add_argument("--height", type=int, default=2000)
    parser.add_argument("--timeout", type=float, default=60)
    args = parser.parse_args(argv)
    try:
        result = render_page(args.page, args.screenshot, args.width, args.height, args.timeout)
    except (FileNotFoundError, TimeoutError, BrowserError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(json.dumps(result.to_json(), indent=2))
    return 0 if result.ok else 1


if __name__ == "__main__":
    sys.exit(main())
