"""A real HTTP proxy on loopback that injects faults in front of an OpenAI-compatible server.

    with FaultProxy("http://127.0.0.1:8000/v1", schedule=["pass", "429", "hang"]) as proxy:
        spec = f"openai-compatible/smol@{proxy.base_url}"
        ...
        assert proxy.actions == ["pass", "429", "pass", "hang", "pass"]

Each incoming request consumes the next action of the schedule; once the schedule is used up every request
passes. The actions:

- ``pass``: forward the request to the upstream server with httpx and relay its answer.
- ``429``: answer 429 with ``Retry-After: 0`` and an OpenAI-style JSON error body.
- ``500``: answer 500 with an OpenAI-style JSON error body.
- ``hang``: read the request and never answer; the socket is closed only when the proxy stops.
- ``reset``: read the request, then close the connection abruptly (SO_LINGER 0, so the client sees a RST).
- ``wrong_shape``: answer 200 with a JSON body that is no answer: ``{"choices": "nope"}``.
- ``not_json``: answer 200 with an HTML page (``text/html``).
- ``broken_json``: answer 200 with ``application/json`` and a body cut in the middle of its JSON.

Every answer carries ``Connection: close`` and the proxy closes the socket after it, so each request arrives
on a fresh connection and keep-alive clients (the openai SDK) never reuse a connection the proxy dropped.
"""

from __future__ import annotations

import contextlib
import json
import socket
import struct
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

import httpx

ACTIONS = ("pass", "429", "500", "hang", "reset", "wrong_shape", "not_json", "broken_json")
#: The malformed 200 answers: (content type, body).
MALFORMED = {
    "wrong_shape": ("application/json", b'{"choices": "nope"}'),
    "not_json": ("text/html", b"<html><body>502 Bad Gateway</body></html>"),
    "broken_json": ("application/json", b'{"id": "chatcmpl-1", "choices": [{"message": '),
}
#: Request headers not forwarded upstream: hop-by-hop ones, and the encoding (so relayed bodies stay plain).
_DROP_REQUEST_HEADERS = {"host", "connection", "keep-alive", "content-length", "accept-encoding", "proxy-connection"}
#: Upstream response headers not relayed: the proxy sets its own length and connection headers.
_DROP_RESPONSE_HEADERS = {"connection", "keep-alive", "content-length", "transfer-encoding", "content-encoding"}
_REASONS = {200: "OK", 400: "Bad Request", 429: "Too Many Requests", 500: "Internal Server Error"}
_MAX_HEADER_BYTES = 64 * 1024


@dataclass(frozen=True)
class ProxiedRequest:
    """One request the proxy received (its body as sent), and what the proxy did with it."""

    method: str
    path: str
    action: str
    body: bytes


class _ClientGone(Exception):
    """The client closed the connection before sending a whole request."""


def _read_request(conn: socket.socket) -> tuple[str, str, list[tuple[str, str]], bytes]:
    """Read one HTTP/1.1 request (headers and a Content-Length body) from `conn`."""
    buffer = b""
    while b"\r\n\r\n" not in buffer:
        chunk = conn.recv(65536)
        if not chunk:
            raise _ClientGone
        buffer += chunk
        if len(buffer) > _MAX_HEADER_BYTES:
            raise ValueError("request headers too large")
    head, _, body = buffer.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    method, path, _version = lines[0].split(" ", 2)
    headers = []
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers.append((name.strip(), value.strip()))
    length = next((int(v) for k, v in headers if k.lower() == "content-length"), 0)
    if any(k.lower() == "transfer-encoding" and "chunked" in v.lower() for k, v in headers):
        raise ValueError("chunked request bodies are not supported")
    while len(body) < length:
        chunk = conn.recv(65536)
        if not chunk:
            raise _ClientGone
        body += chunk
    return method, path, headers, body[:length]


def _http_response(status: int, body: bytes, headers: Iterable[tuple[str, str]] = ()) -> bytes:
    reason = _REASONS.get(status, "Status")
    lines = [f"HTTP/1.1 {status} {reason}"]
    lines += [f"{name}: {value}" for name, value in headers]
    lines += [f"Content-Length: {len(body)}", "Connection: close"]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


def _error_body(message: str, kind: str, code: str) -> bytes:
    return json.dumps({"error": {"message": message, "type": kind, "param": None, "code": code}}).encode()


class FaultProxy:
    """An HTTP proxy on 127.0.0.1 that follows a fault schedule; use it as a context manager."""

    def __init__(self, upstream_base_url: str, schedule: Iterable[str] = (), *, upstream_timeout_s: float = 120.0):
        schedule = list(schedule)
        unknown = [a for a in schedule if a not in ACTIONS]
        if unknown:
            raise ValueError(f"unknown proxy actions {unknown}; known: {ACTIONS}")
        parts = urlsplit(upstream_base_url)
        self.upstream_origin = f"{parts.scheme}://{parts.netloc}"
        self.base_path = parts.path.rstrip("/")
        self.upstream_timeout_s = upstream_timeout_s
        self.received: list[ProxiedRequest] = []
        self._schedule = schedule
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._listener: socket.socket | None = None
        self._threads: list[threading.Thread] = []
        self._open: set[socket.socket] = set()
        self._client: httpx.Client | None = None
        self.port = 0

    # -- public API ---------------------------------------------------------------------------------------------

    @property
    def base_url(self) -> str:
        """The proxy's URL with the upstream's path (e.g. http://127.0.0.1:PORT/v1)."""
        return f"http://127.0.0.1:{self.port}{self.base_path}"

    @property
    def actions(self) -> list[str]:
        """The action taken for each request received so far, in order."""
        with self._lock:
            return [r.action for r in self.received]

    def set_schedule(self, schedule: Iterable[str]) -> None:
        """Replace what is left of the schedule (requests already received keep their actions)."""
        with self._lock:
            self._schedule = list(schedule)

    def start(self) -> FaultProxy:
        """Listen on a free loopback port and start accepting connections."""
        self._client = httpx.Client(timeout=self.upstream_timeout_s)
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", 0))
        listener.listen(64)
        listener.settimeout(0.1)
        self._listener = listener
        self.port = listener.getsockname()[1]
        self._spawn(self._accept_loop)
        return self

    def stop(self) -> None:
        """Stop accepting, close every connection still open (hung ones included), and join the threads."""
        self._stopping.set()
        with self._lock:
            still_open = list(self._open)
        for conn in still_open:
            _close_quietly(conn)
        for thread in list(self._threads):
            thread.join(timeout=10)
        if self._listener is not None:
            self._listener.close()
        if self._client is not None:
            self._client.close()

    def __enter__(self) -> FaultProxy:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    # -- internals ----------------------------------------------------------------------------------------------

    def _spawn(self, target, *args) -> None:
        thread = threading.Thread(target=target, args=args, daemon=True)
        self._threads.append(thread)
        thread.start()

    def _accept_loop(self) -> None:
        assert self._listener is not None
        while not self._stopping.is_set():
            try:
                conn, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            conn.settimeout(None)
            with self._lock:
                self._open.add(conn)
            self._spawn(self._serve, conn)

    def _next_action(self, method: str, path: str, body: bytes) -> str:
        with self._lock:
            action = self._schedule.pop(0) if self._schedule else "pass"
            self.received.append(ProxiedRequest(method, path, action, body))
            return action

    def _serve(self, conn: socket.socket) -> None:
        try:
            try:
                method, path, headers, body = _read_request(conn)
            except (_ClientGone, OSError, ValueError):
                return
            action = self._next_action(method, path, body)
            if action == "hang":
                self._stopping.wait()  # stop() closes the socket
                return
            if action == "reset":
                conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                return  # the finally clause closes with a RST
            if action == "429":
                reply = _http_response(
                    429,
                    _error_body("Rate limit reached (injected by FaultProxy)", "requests", "rate_limit_exceeded"),
                    [("Content-Type", "application/json"), ("Retry-After", "0")],
                )
            elif action in MALFORMED:
                content_type, payload = MALFORMED[action]
                reply = _http_response(200, payload, [("Content-Type", content_type)])
            elif action == "500":
                reply = _http_response(
                    500,
                    _error_body("Internal server error (injected by FaultProxy)", "server_error", "internal_error"),
                    [("Content-Type", "application/json")],
                )
            else:
                reply = self._forward(method, path, headers, body)
            conn.sendall(reply)
        except OSError:
            pass  # the client went away (e.g. its timeout fired); nothing to answer
        finally:
            with self._lock:
                self._open.discard(conn)
            _close_quietly(conn)

    def _forward(self, method: str, path: str, headers: list[tuple[str, str]], body: bytes) -> bytes:
        assert self._client is not None
        forwarded = [(k, v) for k, v in headers if k.lower() not in _DROP_REQUEST_HEADERS]
        try:
            upstream = self._client.request(method, self.upstream_origin + path, headers=forwarded, content=body)
        except httpx.HTTPError as exc:
            return _http_response(502, _error_body(f"upstream failed: {exc!r}", "proxy_error", "bad_gateway"), [])
        relayed = [(k, v) for k, v in upstream.headers.items() if k.lower() not in _DROP_RESPONSE_HEADERS]
        return _http_response(upstream.status_code, upstream.content, relayed)


def _close_quietly(conn: socket.socket) -> None:
    with contextlib.suppress(OSError):
        conn.close()
