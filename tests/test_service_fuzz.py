"""`lexprobe serve`'s API fuzzed by schemathesis against its own /openapi.json (issue 49, point 4): a real uvicorn on
127.0.0.1, a bounded number of generated requests per operation, valid and invalid; no answer is a 5xx, and every
answer's status, content type and body are the ones the description documents."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from lexprobe import __version__
from lexprobe.service.http_api import ServeSettings, build_app
from lexprobe.service.http_openapi import openapi_document

CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]


@pytest.fixture(scope="module")
def served(case_db_path: Path) -> Iterator[str]:
    """The API (a small upload limit, so the fuzzer also meets the 413) on a free port of 127.0.0.1."""
    import socket

    import uvicorn

    from lexprobe.service.check_service import CheckService

    service = CheckService(case_db_path)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    app = build_app(service, ServeSettings(max_upload_bytes=64_000, time_limit_s=60))
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=10)
    service.close()


#: The description the server serves at /openapi.json (`test_the_served_description_is_this_one` keeps them equal).
schema = schemathesis.openapi.from_dict(openapi_document(__version__))


def test_the_served_description_is_this_one(served: str) -> None:
    assert httpx.get(f"{served}/openapi.json").json() == openapi_document(__version__)


@schema.parametrize()
@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
def test_the_api_keeps_its_description(case, served: str) -> None:
    case.call_and_validate(base_url=served, checks=CHECKS, timeout=60)
