"""What every backend does with an SDK's answer and its errors: build the normalized `Response` (latency, cost,
the model that served it) and map the SDK's exceptions onto lexprobe's retryable or final `ModelError`s."""

from __future__ import annotations

from typing import Any

import httpx

from lexprobe.models.base import Model
from lexprobe.models.errors import ModelError, connection_error, http_status_error
from lexprobe.models.types import FinishReason, Response, ToolCall, Usage


def finished_response(
    model: Model,
    *,
    text: str,
    calls: tuple[ToolCall, ...],
    finish: FinishReason,
    usage: Usage,
    latency_s: float,
    served_by: str | None,
) -> Response:
    """Return the `Response` of one call to `model`: its cost from `usage`, and `served_by` (the model name the
    server reports; the spec's name when it reports none)."""
    return Response(
        text=text,
        tool_calls=calls,
        finish_reason=finish,
        usage=usage,
        latency_s=latency_s,
        cost_usd=model.cost(usage),
        model=served_by or model.spec.name,
    )


def classify_sdk_error(
    exc: Exception, connection: tuple[type[Exception], ...], status: type[Exception], retryable: frozenset[int]
) -> ModelError:
    """Map an SDK exception onto a lexprobe error: a timeout or dropped connection (`connection` types) is
    retryable (an `UnreachableError` when the connection could not be made at all: refused, unknown host), an HTTP
    error answer (`status` type, with `status_code`, `message`, `response`) is retryable for the `retryable`
    statuses and every 5xx, anything else is final."""
    if isinstance(exc, connection):
        return connection_error(exc, (httpx.ConnectError,))
    if isinstance(exc, status):
        error: Any = exc
        headers = error.response.headers if error.response is not None else None
        return http_status_error(error.status_code, error.message, headers, retryable)
    return ModelError(f"{type(exc).__name__}: {exc}")
