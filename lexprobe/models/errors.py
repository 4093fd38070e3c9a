"""Errors raised by the model layer.

The engine retries `TransientModelError` (rate limits, server errors, timeouts, dropped connections); when the
retries run out the request stays pending (exit 1: rerun to resume). Any other `ModelError` is permanent (a prompt
longer than the context window, an exhausted script, HTTP 400): it is not retried, because sending the same bad
request again only costs money, and the command exits 2 naming the request and the reason. A `ModelConfigError`
means the model cannot answer anything (a missing key or file, a GGUF that does not load): it ends the run, exit 2.
`CallInterrupted` is a call stopped by Ctrl-C; the request simply stays pending.
"""

from __future__ import annotations

from typing import Any

from lexprobe.errors import LexprobeError


class ModelError(Exception):
    """A model call failed in a way that retrying will not fix (bad request, refused key, unparseable reply)."""


class CallInterrupted(ModelError):
    """A call stopped on request (Ctrl-C) before it finished; its request stays pending and nothing is stored."""


class TransientModelError(ModelError):
    """A model call failed in a way that may succeed on retry (429, 5xx, timeout, connection reset)."""

    def __init__(self, message: str, *, retry_after_s: float | None = None) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s


class UnreachableError(TransientModelError):
    """The connection to the server could not even be made (refused: nothing listens there; or its host name does
    not resolve). Before the server has ever answered this is a wrong URL or a server not started, and the engine
    ends the run at once naming the URL; after it has answered (a server restarting) it is retried like any
    transient fault."""

    def __init__(self, message: str, *, url: str) -> None:
        super().__init__(message)
        self.url = url


class ModelConfigError(LexprobeError, ValueError):
    """A model spec cannot be used: unknown form, missing API key, missing package or file, a model file that
    does not load.

    Raised before any work starts (`check_model`), or by the first call when the model only turns out to be unusable
    when it is loaded; the engine then ends the run. The message says what to fix.
    """


def connection_error(exc: Exception, unreachable: tuple[type[BaseException], ...] = ()) -> TransientModelError:
    """Return the retryable error for a timeout or dropped connection, naming the URL when the client knows it:
    an `UnreachableError` when the connection could not be made at all (a `ConnectionRefusedError`, a host name that
    does not resolve, or one of the client's `unreachable` types - its connect error - anywhere in the chain)."""
    request = getattr(exc, "request", None)
    where = f" ({request.url})" if request is not None else ""
    cause = _connect_failure(exc, unreachable)
    if cause is not None:
        url = str(request.url) if request is not None else "the server"
        if isinstance(cause, ConnectionRefusedError):
            reason = "connection refused"
        elif isinstance(cause, OSError) and cause.strerror:
            reason = cause.strerror
        else:
            reason = str(cause) or type(cause).__name__
        return UnreachableError(f"cannot connect to {url} ({reason}); check the URL and that the server is running",
                                url=url)  # fmt: skip
    return TransientModelError(f"{type(exc).__name__}: {exc}{where}")


def _connect_failure(exc: BaseException, unreachable: tuple[type[BaseException], ...]) -> BaseException | None:
    """Return the exception in `exc`'s chain that says the connection could not be made, or None."""
    import socket

    found: BaseException | None = None
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, (ConnectionRefusedError, socket.gaierror)):
            return current  # the most precise reason
        if unreachable and isinstance(current, unreachable) and not isinstance(current, TimeoutError):
            found = found or current
        current = current.__cause__ or current.__context__
    return found


def http_status_error(status: int, message: str, headers: Any, retryable: frozenset[int]) -> ModelError:
    """Return the error for an HTTP error answer: retryable (honouring a numeric Retry-After header) for the
    `retryable` statuses and every 5xx, final otherwise."""
    text = f"HTTP {status}: {message}"
    if status not in retryable and status < 500:
        return ModelError(text)
    header = headers.get("retry-after") if headers is not None else None
    try:
        retry_after = float(header) if header else None
    except ValueError:
        retry_after = None
    return TransientModelError(text, retry_after_s=retry_after)


def classify_sdk_error(
    exc: Exception, connection: tuple[type[Exception], ...], status: type[Exception], retryable: frozenset[int]
) -> ModelError:
    """Map an SDK exception onto a lexprobe error: a timeout or dropped connection (`connection` types) is
    retryable (an `UnreachableError` when the connection could not be made at all: refused, unknown host), an HTTP
    error answer (`status` type, with `status_code`, `message`, `response`) is retryable for the `retryable`
    statuses and every 5xx, anything else is final."""
    import httpx

    if isinstance(exc, connection):
        return connection_error(exc, (httpx.ConnectError,))
    if isinstance(exc, status):
        error: Any = exc
        headers = error.response.headers if error.response is not None else None
        return http_status_error(error.status_code, error.message, headers, retryable)
    return ModelError(f"{type(exc).__name__}: {exc}")
