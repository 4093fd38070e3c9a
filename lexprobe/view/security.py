"""The viewer's safety rules in one place: the security headers every response carries, the same policy for the
static copy's `<meta>`, loopback detection for `--host`, and making hostile text visible before it is sent.

The policy forbids every script but the app's own files (no inline script, no `eval`), every style but its own CSS
files, every connection but to the app itself, and framing by another page."""

from __future__ import annotations

import ipaddress
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from lexprobe.terminal import safe_text

CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "font-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
#: The static copy's policy, in a `<meta http-equiv>`: the server's without frame-ancestors (ignored in a meta
#: element) and with no connection at all (the copy fetches nothing). Chromium counts the page's own file:// folder as
#: 'self' for its scripts and style sheets (tests/test_i32_view_export.py opens a copy from disk under it).
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


def is_loopback(host: str) -> bool:
    """Return whether `host` names only this machine (localhost, 127.0.0.0/8, ::1)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def visible(value: Any) -> Any:
    """Return `value` (JSON-like) with every string's control and bidirectional characters shown as escapes, as the
    terminal shows them (`lexprobe.terminal.safe_text`); the page then sets it as text, never as HTML."""
    if isinstance(value, str):
        return safe_text(value)
    if isinstance(value, dict):
        return {safe_text(str(key)): visible(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [visible(item) for item in value]
    return value
