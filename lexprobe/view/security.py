"""The viewer's safety rules in one place: the security headers every response carries, the same policy for the
static copy's `<meta>`, and making hostile or huge text safe before it is sent (`visible`: every string cut at
`MAX_FIELD_CHARS`, then its control and bidi characters shown as escapes). The Host check and loopback detection
every lexprobe server shares are in `lexprobe.local_server`.

The policy forbids every script but the app's own files (no inline script, no `eval`), every style but its own CSS
files, every connection but to the app itself, and framing by another page."""

from __future__ import annotations

from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from lexprobe.terminal import safe_text

__all__ = ["MAX_FIELD_CHARS", "SecurityHeaders", "cut_text", "visible"]

CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "font-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
#: The static copy's policy, in a `<meta http-equiv>`: the server's without frame-ancestors (ignored in a meta
#: element) and with no connection at all (the copy fetches nothing). Chromium counts the page's own file:// folder as
#: 'self' for its scripts and style sheets (tests/test_view_export.py opens a copy from disk under it).
STATIC_CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'none'; "
    "font-src 'self'; base-uri 'none'; form-action 'none'"
)
SECURITY_HEADERS = (
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
)
_SET = {name for name, _ in SECURITY_HEADERS}
#: Longest text of one field the viewer sends (a hostile store may hold huge answers); a longer one is cut there and
#: ends with `CUT_NOTE`.
MAX_FIELD_CHARS = 200_000
CUT_NOTE = f" [... cut at {MAX_FIELD_CHARS:,} characters]"


class SecurityHeaders:
    """ASGI middleware: put `SECURITY_HEADERS` on every HTTP response of the wrapped app (replacing any it set)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Pass the request on; add the headers to the response's start message."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", []) if k.lower() not in _SET]
                message = {**message, "headers": [*headers, *SECURITY_HEADERS]}
            await send(message)

        await self.app(scope, receive, send_with_headers)


def cut_text(text: object) -> str:
    """Return `text` (None as "", anything else as its `str`) cut at `MAX_FIELD_CHARS` characters, with a note
    saying so; text already cut by it comes back as it is (the note is not cut again)."""
    text = text if isinstance(text, str) else ("" if text is None else str(text))
    if len(text) <= MAX_FIELD_CHARS or (len(text) == MAX_FIELD_CHARS + len(CUT_NOTE) and text.endswith(CUT_NOTE)):
        return text
    return text[:MAX_FIELD_CHARS] + CUT_NOTE


def visible(value: Any) -> Any:
    """Return `value` (JSON-like) with every string cut at `MAX_FIELD_CHARS` (`cut_text`) and its control and
    bidirectional characters shown as escapes, as the terminal shows them (`lexprobe.terminal.safe_text`); the page
    then sets it as text, never as HTML. Every JSON answer and data file of the viewer goes through it."""
    if isinstance(value, str):
        return safe_text(cut_text(value))
    if isinstance(value, dict):
        return {safe_text(str(key)): visible(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [visible(item) for item in value]
    return value
