"""The bounds of `lexprobe serve`, as small ASGI pieces around the app (docs/service.md):

* `require_token(app, token)`: every request must carry `Authorization: Bearer TOKEN` (compared in constant time),
  else 401 with no data.
* `Slots`: at most N checks or lookups at once; `try_take` fails at once when all are taken (the API answers 503),
  and the slot is given back by the worker thread when its work ends, so abandoned work still counts.
* `read_bounded(request, limit)`: the request's body, refused (`BodyTooLarge`, answered 413) past `limit` bytes
  from its `Content-Length` alone or as it streams in.
"""

from __future__ import annotations

import json
import secrets
import threading
from typing import Any

from lexprobe.errors import BadInputError

__all__ = ["BodyTooLarge", "Slots", "read_bounded", "require_token"]


class BodyTooLarge(BadInputError):
    """A request body over the upload limit."""


class Slots:
    """A bounded number of concurrent jobs (a non-blocking semaphore)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._free = threading.BoundedSemaphore(size)

    def try_take(self) -> bool:
        """Take a slot if one is free; False at once when none is."""
        return self._free.acquire(blocking=False)

    def give_back(self) -> None:
        """Free a slot taken by `try_take`."""
        self._free.release()


async def read_bounded(request: Any, limit: int) -> bytes:
    """Return the body of `request` (Starlette), raising `BodyTooLarge` once it passes `limit` bytes: at once when
    its `Content-Length` says so, else as it streams in (nothing past the limit is kept)."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise BodyTooLarge(f"the request body has {int(declared):,} bytes, over the limit of {limit:,}")
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise BodyTooLarge(f"the request body passes the limit of {limit:,} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


def _bearer(scope: dict) -> bytes:
    """The token of the request's `Authorization: Bearer ...` header (b"" when there is none)."""
    for name, value in scope.get("headers", ()):
        if name == b"authorization":
            scheme, _, token = value.partition(b" ")
            return token.strip() if scheme.lower() == b"bearer" else b""
    return b""


def require_token(app: Any, token: str) -> Any:
    """Return `app` (ASGI) answering only HTTP requests with `Authorization: Bearer <token>`; any other gets 401."""
    expected = token.encode("utf-8")

    async def guarded(scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or secrets.compare_digest(_bearer(scope), expected):
            await app(scope, receive, send)
            return
        body = json.dumps({"error": "a bearer token is required (Authorization: Bearer TOKEN)"}).encode()
        headers = [(b"content-type", b"application/json"), (b"www-authenticate", b'Bearer realm="lexprobe"'),
                   (b"content-length", str(len(body)).encode())]  # fmt: skip
        await send({"type": "http.response.start", "status": 401, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    return guarded
