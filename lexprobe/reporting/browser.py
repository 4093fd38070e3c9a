"""Render an HTML file in headless Chromium and report what went wrong, for tests and `docs/` screenshots.

`chromium --headless --screenshot` says nothing about console errors, so this starts Chromium with a DevTools port,
attaches to a new page over the DevTools protocol (a websocket, through the `websockets` package) and collects
console errors and warnings, uncaught exceptions, browser log errors and network requests while the page loads. A
self-contained page loads nothing from the network: every http(s)/ws(s) request is recorded in `external_requests`
and, by default, blocked, so it also shows up in `failed_requests`. `sideways` lists every box whose content is
wider than the box at the viewport's width (a table that scrolls or is cut sideways). Chromium and its temporary
profile are always removed, on errors and timeouts too.

Command line: `python -m lexprobe.reporting.browser page.html [--screenshot page.png]` prints the result as JSON.
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import dataclasses
import json
import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome")
CHROMIUM_FLAGS = (
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-extensions",
    "--disable-breakpad",
    "--disable-crash-reporter",
    "--disable-dev-shm-usage",
    "--no-first-run",
    "--no-default-browser-check",
    "--hide-scrollbars",
    "--mute-audio",
    "--remote-debugging-address=127.0.0.1",
    "--remote-debugging-port=0",
)
LOCAL_SCHEMES = ("file:", "data:", "blob:", "about:", "chrome:", "chrome-error:", "devtools:")
BLOCKED_URLS = ("http://*", "https://*", "ws://*", "wss://*")
MAX_SCREENSHOT_HEIGHT = 16384
PAGE_FACTS = """(() => {
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
})()"""
_DEVTOOLS_LINE = re.compile(r"DevTools listening on (ws://\S+)")


@dataclass
class RenderResult:
    """What loading one page showed. `ok` is True when nothing went wrong: no console errors, no exceptions, no
    failed or external requests (warnings do not count)."""

    url: str
    title: str = ""
    text_length: int = 0
    page_height: int = 0
    errors: list[str] = field(default_factory=list)  # console.error/assert and browser log errors
    warnings: list[str] = field(default_factory=list)  # console.warn and browser log warnings
    exceptions: list[str] = field(default_factory=list)  # uncaught JavaScript exceptions
    failed_requests: list[str] = field(default_factory=list)  # "URL: net::ERR_..."
    external_requests: list[str] = field(default_factory=list)  # every request not served from the file itself
    # boxes (and the page itself) whose content is wider than the box at this width: it scrolls or is cut sideways;
    # each named by its tag and classes, the heading above it and the two widths (not counted against `ok`)
    sideways: list[str] = field(default_factory=list)
    screenshot: Path | None = None

    @property
    def ok(self) -> bool:
        return not (self.errors or self.exceptions or self.failed_requests or self.external_requests)

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict, `ok` included."""
        data = dataclasses.asdict(self)
        data["screenshot"] = str(self.screenshot) if self.screenshot else None
        data["ok"] = self.ok
        return data


class BrowserError(RuntimeError):
    """Chromium could not be started or the DevTools protocol reported an error."""


def find_chromium() -> str | None:
    """Return the path of the first of `chromium`, `chromium-browser`, `google-chrome` on PATH, else None."""
    for name in CHROMIUM_NAMES:
        found = shutil.which(name)
        if found:
            return found
    return None


def render_page(
    html_path: Path | str,
    screenshot: Path | str | None = None,
    width: int = 1280,
    height: int = 2000,
    timeout: float = 60,
    *,
    block_network: bool = True,
    settle: float = 0.3,
    chromium: str | None = None,
) -> RenderResult:
    """Load `html_path` in a `width` x `height` headless viewport and collect what went wrong; with `screenshot`,
    also save a full-page PNG there (the page's scroll height, at most 16384 px). `settle` seconds after the load
    event are still listened to (timers, late errors). Raises FileNotFoundError (no page, or no Chromium),
    TimeoutError after `timeout` seconds in all, BrowserError when Chromium fails."""
    page = Path(html_path).resolve()
    if not page.is_file():
        raise FileNotFoundError(f"no such page: {page}")
    executable = chromium or find_chromium()
    if executable is None:
        raise FileNotFoundError(f"no Chromium found on PATH (looked for {', '.join(CHROMIUM_NAMES)})")
    deadline = time.monotonic() + timeout
    result = RenderResult(url=page.as_uri())
    with _chromium(executable, deadline) as endpoint, _DevTools(endpoint, deadline) as devtools:
        session = devtools.open_page(width, height)
        collector = _Collector(result)
        devtools.listeners.append(collector.handle)
        for domain in ("Page", "Runtime", "Log", "Network"):
            devtools.call(f"{domain}.enable", session=session)
        if block_network:
            devtools.call("Network.setBlockedURLs", {"urls": list(BLOCKED_URLS)}, session=session)
        devtools.call("Page.setLifecycleEventsEnabled", {"enabled": True}, session=session)
        navigation = devtools.call("Page.navigate", {"url": result.url}, session=session)
        if navigation.get("errorText"):
            raise BrowserError(f"navigation to {result.url} failed: {navigation['errorText']}")
        devtools.wait_for(
            "Page.lifecycleEvent", session, name="load", frameId=navigation["frameId"], loaderId=navigation["loaderId"]
        )
        devtools.drain(time.monotonic() + settle)
        facts = devtools.evaluate(PAGE_FACTS, session)
        result.title, result.text_length, result.page_height = facts["title"], facts["text"], facts["height"]
        result.sideways = facts["sideways"]
        if screenshot is not None:
            shot_height = max(1, min(result.page_height, MAX_SCREENSHOT_HEIGHT))
            metrics = {"width": width, "height": shot_height, "deviceScaleFactor": 1, "mobile": False}
            devtools.call("Emulation.setDeviceMetricsOverride", metrics, session=session)
            image = devtools.call("Page.captureScreenshot", {"format": "png"}, session=session)
            target = Path(screenshot)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(base64.b64decode(image["data"]))
            result.screenshot = target
            devtools.drain(time.monotonic() + settle)  # the taller viewport may load more (lazy images)
    return result


class _Collector:
    """Turns DevTools events into the lists of a `RenderResult`."""

    def __init__(self, result: RenderResult) -> None:
        self.result = result
        self.urls: dict[str, str] = {}

    def handle(self, method: str, params: dict[str, Any]) -> None:
        result = self.result
        if method == "Runtime.consoleAPICalled":
            text = " ".join(_remote_text(arg) for arg in params.get("args", []))
            if params.get("type") in ("error", "assert"):
                result.errors.append(f"console.{params['type']}: {text}")
            elif params.get("type") == "warning":
                result.warnings.append(f"console.warn: {text}")
        elif method == "Runtime.exceptionThrown":
            details = params.get("exceptionDetails", {})
            description = details.get("exception", {}).get("description") or details.get("text", "exception")
            result.exceptions.append(f"{description} (line {details.get('lineNumber', 0) + 1})")
        elif method == "Log.entryAdded":
            entry = params.get("entry", {})
            message = f"{entry.get('source', 'log')}: {entry.get('text', '')}" + (
                f" ({entry['url']})" if entry.get("url") else ""
            )
            if entry.get("level") == "error":
                result.errors.append(message)
            elif entry.get("level") == "warning":
                result.warnings.append(message)
        elif method == "Network.requestWillBeSent":
            url = params.get("request", {}).get("url", "")
            self.urls[params.get("requestId", "")] = url
            if url and not url.startswith(LOCAL_SCHEMES):
                result.external_requests.append(url)
        elif method == "Network.loadingFailed":
            url = self.urls.get(params.get("requestId", ""), "?")
            reason = params.get("blockedReason")
            error = params.get("errorText") or ("blocked" if reason else "failed")
            result.failed_requests.append(f"{url}: {error}" + (f" (blockedReason: {reason})" if reason else ""))


def _remote_text(value: dict[str, Any]) -> str:
    """The text of a console argument (a DevTools RemoteObject)."""
    if "value" in value:
        return value["value"] if isinstance(value["value"], str) else json.dumps(value["value"])
    return str(value.get("description") or value.get("unserializableValue") or value.get("type", ""))


@contextlib.contextmanager
def _chromium(executable: str, deadline: float) -> Iterator[str]:
    """Start Chromium with a fresh profile, yield its DevTools websocket URL; afterwards kill Chromium's process
    group and delete the profile. Chromium's own temporary files (TMPDIR) go into the same folder."""
    scratch = Path(tempfile.mkdtemp(prefix="lexprobe-chromium-", dir=_short_temp_root()))
    (scratch / "tmp").mkdir()
    command = [executable, *CHROMIUM_FLAGS, f"--user-data-dir={scratch / 'profile'}", "about:blank"]
    environment = {**os.environ, "TMPDIR": str(scratch / "tmp")}
    process = None
    try:
        process = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            env=environment,
            start_new_session=True,
        )
        lines: queue.Queue[str | None] = queue.Queue()
        tail: deque[str] = deque(maxlen=40)
        threading.Thread(target=_read_lines, args=(process.stderr, lines, tail), daemon=True).start()
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError(f"Chromium printed no DevTools address in time:\n{''.join(tail)}")
            try:
                line = lines.get(timeout=remaining)
            except queue.Empty:
                continue
            if line is None:
                raise BrowserError(f"Chromium exited with {process.wait()} before DevTools started:\n{''.join(tail)}")
            match = _DEVTOOLS_LINE.search(line)
            if match:
                break
        yield match.group(1)
    finally:
        if process is not None:
            _stop(process)
        _remove_scratch(scratch)


def _short_temp_root() -> str:
    """The temporary folder, or /tmp when its path is so long that Chromium's singleton socket path under it would
    pass the 107-byte limit of a Unix socket address."""
    root = tempfile.gettempdir()
    return "/tmp" if len(root) > 40 and os.path.isdir("/tmp") else root


def _read_lines(stream, lines: queue.Queue[str | None], tail: deque[str]) -> None:
    """Forward Chromium's stderr lines to `lines` (then None at its end), keeping the last ones in `tail`; keeps
    reading so Chromium never blocks on a full pipe."""
    try:
        for raw in iter(stream.readline, b""):
            line = raw.decode("utf-8", "replace")
            tail.append(line)
            lines.put(line)
    except (OSError, ValueError):
        pass
    finally:
        lines.put(None)


def _stop(process: subprocess.Popen) -> None:
    """Terminate Chromium's process group (it was started in its own session), then kill what is left."""
    for sig, wait in ((signal.SIGTERM, 5.0), (signal.SIGKILL, 5.0)):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, sig)
        try:
            process.wait(timeout=wait)
            break
        except subprocess.TimeoutExpired:
            continue
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)  # helpers (renderer, zygote) still in the group
    if process.stderr is not None:
        process.stderr.close()


def _remove_scratch(scratch: Path) -> None:
    """Delete the profile and temporary folder; helpers that are still exiting may write into it: retry briefly."""
    for _ in range(10):
        shutil.rmtree(scratch, ignore_errors=True)
        if not scratch.exists():
            return
        time.sleep(0.1)


class _DevTools:
    """A minimal synchronous DevTools protocol client over one browser websocket, with flat page sessions."""

    def __init__(self, endpoint: str, deadline: float) -> None:
        self.endpoint = endpoint
        self.deadline = deadline
        self.listeners: list = []
        self.events: list[tuple[str, str | None, dict[str, Any]]] = []
        self._next_id = 0
        self._socket: Any = None
        self._exit = contextlib.ExitStack()
        self._closed: type[Exception] = Exception

    def __enter__(self) -> _DevTools:
        try:
            from websockets.exceptions import ConnectionClosed
            from websockets.sync.client import connect
        except ImportError as error:  # a dev dependency: pip install -e '.[dev]'
            raise BrowserError("render_page needs the `websockets` package (lexprobe's dev extras)") from error
        self._closed = ConnectionClosed
        client = connect(self.endpoint, open_timeout=self._remaining(), max_size=None, proxy=None, compression=None)
        self._socket = self._exit.enter_context(client)
        return self

    def __exit__(self, *exc_info: object) -> None:
        with contextlib.suppress(Exception):
            self._exit.close()

    def open_page(self, width: int, height: int) -> str:
        """Create a blank page of the given viewport, attach to it and return the session id."""
        target = self.call("Target.createTarget", {"url": "about:blank"})
        attached = self.call("Target.attachToTarget", {"targetId": target["targetId"], "flatten": True})
        session = attached["sessionId"]
        metrics = {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False}
        self.call("Emulation.setDeviceMetricsOverride", metrics, session=session)
        return session

    def call(self, method: str, params: dict[str, Any] | None = None, *, session: str | None = None) -> dict:
        """Send a command and return its result, dispatching the events that arrive meanwhile."""
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        self._socket.send(json.dumps(message))
        while True:
            reply = self._receive(self.deadline, f"the reply to {method}")
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise BrowserError(f"{method} failed: {reply['error']}")
                return reply.get("result", {})

    def wait_for(self, method: str, session: str | None, **match: Any) -> dict[str, Any]:
        """Wait for an event whose params include `match` (one already received counts) and return its params."""
        seen = 0
        while True:
            for event_method, event_session, params in self.events[seen:]:
                if (event_method, event_session) == (method, session) and match.items() <= params.items():
                    return params
            seen = len(self.events)
            self._receive(self.deadline, method)

    def drain(self, until: float) -> None:
        """Dispatch events until the monotonic time `until` (bounded by the deadline)."""
        while True:
            remaining = min(until, self.deadline) - time.monotonic()
            if remaining <= 0:
                return
            try:
                self._receive(time.monotonic() + remaining, "events", quiet=True)
            except TimeoutError:
                return

    def evaluate(self, expression: str, session: str) -> Any:
        """Evaluate a JavaScript expression in the page and return its JSON value."""
        reply = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True}, session=session)
        if "exceptionDetails" in reply:
            raise BrowserError(f"evaluating page facts failed: {reply['exceptionDetails']}")
        return reply["result"]["value"]

    def _receive(self, until: float, waiting_for: str, *, quiet: bool = False) -> dict[str, Any]:
        """Read one message; an event is stored and passed to the listeners before it is returned."""
        remaining = min(until, self.deadline) - time.monotonic()
        if remaining <= 0:
            raise TimeoutError(f"timed out waiting for {waiting_for}")
        try:
            message = json.loads(self._socket.recv(timeout=remaining))
        except TimeoutError:
            if quiet:
                raise
            raise TimeoutError(f"timed out waiting for {waiting_for}") from None
        except self._closed as error:
            raise BrowserError(f"Chromium closed the DevTools connection while waiting for {waiting_for}") from error
        if "method" in message:
            params = message.get("params", {})
            self.events.append((message["method"], message.get("sessionId"), params))
            for listener in self.listeners:
                listener(message["method"], params)
        return message

    def _remaining(self) -> float:
        return max(0.1, self.deadline - time.monotonic())


def main(argv: list[str] | None = None) -> int:
    """Render one page; print the result as JSON; exit 1 when the page is not `ok`."""
    parser = argparse.ArgumentParser(description="Render an HTML file in headless Chromium and report problems.")
    parser.add_argument("html", type=Path)
    parser.add_argument("--screenshot", type=Path)
    parser.add_argument("--width", type=int, default=1280)
    parser.add_argument("--height", type=int, default=2000)
    parser.add_argument("--timeout", type=float, default=60)
    args = parser.parse_args(argv)
    result = render_page(args.html, args.screenshot, args.width, args.height, args.timeout)
    print(json.dumps(result.to_json(), indent=2))
    return 0 if result.ok else 1


if __name__ == "__main__":
    sys.exit(main())
