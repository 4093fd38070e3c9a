"""Errors raised by the model layer.

The engine retries `TransientModelError` (rate limits, server errors, timeouts, dropped connections) and gives up
at once on everything else, because sending the same bad request again only costs money.
"""

from __future__ import annotations


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
