"""Issue 49's "done when": the three interfaces give the same result for the same document. One brief, as a PDF,
checked by `lexprobe check --json` in a fresh process, uploaded to `lexprobe serve`'s API, and sent as bytes to
`lexprobe mcp`'s `check_text` tool through the official MCP client: the three answers are one JSON (the file's
name aside: the CLI shows the path it was given, the services the upload's name), valid under the published
schema."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from service_support import BRIEF, cli_check_json, same_but_path, validate, write_pdf
from starlette.testclient import TestClient

pytest.importorskip("mcp")

from mcp import Client

from lexprobe.service.check_service import CheckService
from lexprobe.service.http_api import ServeSettings, build_app
from lexprobe.service.mcp_server import build_server

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def service(case_db_path: Path) -> Iterator[CheckService]:
    warm = CheckService(case_db_path)
    yield warm
    warm.close()


async def test_cli_http_and_mcp_give_one_result(service: CheckService, case_db_path: Path, tmp_path: Path) -> None:
    pdf = write_pdf(BRIEF, tmp_path / "brief.pdf")
    data = pdf.read_bytes()

    from_cli = same_but_path(cli_check_json(pdf, case_db_path), "brief.pdf")
    with TestClient(build_app(service, ServeSettings()), base_url="http://127.0.0.1") as client:
        answer = client.post("/api/check", files={"file": ("brief.pdf", data)})
    assert answer.status_code == 200, answer.text
    from_http = answer.json()
    async with Client(build_server(service)) as mcp_client:
        arguments = {"document_base64": base64.b64encode(data).decode(), "file_name": "brief.pdf"}
        result: Any = await mcp_client.call_tool("check_text", arguments)
    assert not result.is_error, result.content
    from_mcp = result.structured_content

    assert from_http == from_cli
    assert from_mcp == from_cli
    validate(from_cli)
    verdicts = [citation["verdict"] for citation in from_cli["citations"]]
    assert {"verified", "mismatch", "not_found"} <= set(verdicts)
