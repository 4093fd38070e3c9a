"""Errors raised by the model layer.

The engine retries `TransientModelError` (rate limits, server errors, timeouts, dropped connections) and gives up
at once on everything else, because sending the same bad request again only costs money.
"""

from __future__ import annotations

from typing import Any


class ModelError(Exception):
    """A model call failed in a way that retrying will not fix (bad request, refused key, unparseable reply)."""


class TransientModelError(ModelError):
    """A model call failed in a way that may succeed on retry (429, 5xx, timeout, connection reset)."""

    def __init__(self, message: str, *, retry_after_s: float | None = None) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s


class ModelConfigError(ValueError):
    """A model spec cannot be used: unknown form, missing API key, missing package or file.

    Raised before any work starts, with a message that says what to fix.
    """


def connection_error(exc: Exception) -> TransientModelError:
    """Return the retryable error for a timeout or dropped connection, naming the URL when the client knows it."""
    request = getattr(exc, "request", None)
    where = f" ({request.url})" if request is not None else ""
    return TransientModelError(f"{type(exc).__name__}: {exc}{where}")


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
