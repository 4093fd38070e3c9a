"""`errors.classify_sdk_error` and `base.finished_response`: the SDK-error mapping and the Response every backend
builds (table-driven)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from lexprobe.models.base import finished_response
from lexprobe.models.errors import ModelError, TransientModelError, classify_sdk_error
from lexprobe.models.types import Usage


class FakeTimeout(Exception):
    """Stands in for an SDK's timeout error."""


class FakeStatus(Exception):
    """Stands in for an SDK's HTTP status error."""

    def __init__(self, status_code: int, headers: dict[str, str] | None = None) -> None:
        super().__init__(f"status {status_code}")
        self.status_code = status_code
        self.message = "refused"
        self.response = SimpleNamespace(headers=headers or {}) if headers is not None else None


@pytest.mark.parametrize(
    ("exc", "kind", "text", "retry_after"),
    [
        (FakeTimeout("slow"), TransientModelError, "FakeTimeout: slow", None),
        (FakeStatus(429, {"retry-after": "7"}), TransientModelError, "HTTP 429: refused", 7.0),
        (FakeStatus(503, None), TransientModelError, "HTTP 503: refused", None),
        (FakeStatus(400, {}), ModelError, "HTTP 400: refused", None),
        (KeyError("x"), ModelError, "KeyError: 'x'", None),
    ],
)
def test_classify_sdk_error(exc: Exception, kind: type, text: str, retry_after: float | None) -> None:
    error = classify_sdk_error(exc, (FakeTimeout,), FakeStatus, frozenset({429}))
    assert type(error) is kind
    assert str(error) == text
    assert getattr(error, "retry_after_s", None) == retry_after


@pytest.mark.parametrize(
    ("served_by", "name"), [("served-model", "served-model"), (None, "spec-model"), ("", "spec-model")]
)
def test_finished_response_names_the_serving_model(served_by: str | None, name: str) -> None:
    model = SimpleNamespace(spec=SimpleNamespace(name="spec-model"), cost=lambda usage: 0.5)
    usage = Usage(input_tokens=3, output_tokens=4)
    response = finished_response(
        model,
        text="hi",
        calls=(),
        finish="stop",
        usage=usage,
        latency_s=1.5,
        served_by=served_by,  # type: ignore[arg-type]
    )
    assert (response.model, response.text, response.cost_usd, response.latency_s) == (name, "hi", 0.5, 1.5)
    assert response.usage == usage and response.finish_reason == "stop" and response.tool_calls == ()
