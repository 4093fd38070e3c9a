"""`lexprobe mcp`: the check service as an MCP server, driven by the official SDK's own client (`mcp.Client`).

Real data throughout: the case database built from the public data (`case_db_path`), real cases (Terry v. Ohio and
its page 21, Plessy v. Ferguson overruled by Brown, a fabricated U.S. citation). The server runs as the `lexprobe`
console script does, in a fresh interpreter: over stdio (the client starts it) and over streamable HTTP on
127.0.0.1 (a port the server picks, printed as `{"url": ...}`), with a bearer token. The detailed tool behaviour is
checked in-process (`Client(server)`), the same server object the command serves.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from service_support import validate, write_pdf
from typer.testing import CliRunner

from lexprobe.cli import app

pytest.importorskip("mcp")

from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

ROOT = Path(__file__).resolve().parents[1]
ENTRY = "import sys; sys.argv[0] = 'lexprobe'; from lexprobe.cli import console_main; sys.exit(console_main())"
TERRY_21 = (
    "And in justifying the particular intrusion the police officer must be able to point to specific and "
    "articulable facts which, taken together with rational inferences from those facts, reasonably warrant that "
    "intrusion."
)
BRIEF = (
    f"The officer needs more than a hunch: “{TERRY_21}” Terry v. Ohio, 392 U.S. 1, 21 (1968). Segregation was "
    "struck down in Brown v. Board of Educ., 347 U.S. 483, 495 (1954). See also Columbia University v. Rodham, "
    "564 U.S. 911 (2010).\n"
)
QUOTED = {"quotation": TERRY_21, "citation": "392 U.S. 1, 21"}
TOOLS = {"check_text", "verify_quotation", "lookup_case", "case_text"}
TOKEN = "test-token-7f3a"

pytestmark = pytest.mark.slow


def server_env() -> dict[str, str]:
    """The environment of a server process: this checkout first on the path, a quiet terminal."""
    return os.environ | {"PYTHONPATH": str(ROOT), "COLUMNS": "200"}


@pytest.fixture(scope="module")
def service(case_db_path: Path) -> Iterator[Any]:
    from lexprobe.service.mcp_server import start_service

    started = start_service(case_db_path)
    yield started
    started.close()


@pytest.fixture(scope="module")
def server(service: Any) -> Any:
    """The MCP server `lexprobe mcp` serves, over the module's service (a client connects to it in process: an
    async fixture would enter and leave the client's task group in different tasks)."""
    from lexprobe.service.mcp_server import build_server

    return build_server(service)


def structured(result: Any) -> dict[str, Any]:
    """A tool result's structured content, after checking it is no error and its text block says the same."""
    assert not result.is_error, result.content
    assert json.loads(result.content[0].text) == result.structured_content
    return result.structured_content


def error_text(result: Any) -> str:
    """A tool error's one message (and that it is one)."""
    assert result.is_error and result.structured_content is None, result
    return result.content[0].text


# --- the tools, in process ------------------------------------------------------------------------------------


async def test_every_tool_has_an_input_and_an_output_schema(server: Any) -> None:
    async with Client(server) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        assert set(tools) == TOOLS
        for tool in tools.values():
            assert tool.description and tool.input_schema["type"] == "object", tool.name
            assert tool.output_schema is not None and tool.output_schema["type"] == "object", tool.name
            assert tool.annotations is not None and tool.annotations.read_only_hint
        assert {"text", "document_base64", "file_name"} <= set(tools["check_text"].input_schema["properties"])
        assert set(tools["verify_quotation"].input_schema["required"]) == {"quotation", "citation"}
        assert set(tools["case_text"].input_schema["required"]) == {"citation", "page"}
        assert {"citations", "quotations", "summary"} <= set(tools["check_text"].output_schema["required"])


async def test_check_text_gives_check_json_for_a_text(server: Any, service: Any) -> None:
    async with Client(server) as client:
        result = structured(await client.call_tool("check_text", {"text": BRIEF}))
        assert result == json.loads(json.dumps(service.check_text(BRIEF)))  # the service's result, unchanged
        verdicts = [citation["verdict"] for citation in result["citations"]]
        assert verdicts == ["verified", "verified", "not_found"]
        assert result["summary"]["verified"] == 2 and result["summary"]["not_found"] == 1
        (quotation,) = result["quotations"]
        assert quotation["verdict"] == "verified" and quotation["citation"] == 0


async def test_check_text_reads_a_documents_bytes(server: Any, tmp_path: Path) -> None:
    pdf = write_pdf(BRIEF, tmp_path / "brief.pdf")
    async with Client(server) as client:
        for name, data in (("brief.txt", BRIEF.encode()), ("brief.pdf", pdf.read_bytes())):
            arguments = {"document_base64": base64.b64encode(data).decode(), "file_name": name}
            result = structured(await client.call_tool("check_text", arguments))
            assert [citation["verdict"] for citation in result["citations"]] == ["verified", "verified", "not_found"]
            assert result["summary"]["files"][0]["path"] == name
            validate(result)  # docs/check-result.schema.json, the published format


async def test_verify_quotation_gives_the_verdict_and_the_passage(server: Any) -> None:
    async with Client(server) as client:
        found = structured(
            await client.call_tool("verify_quotation", {"quotation": TERRY_21, "citation": "392 U.S. 1, 21"})
        )
        assert found["verdict"] == "verified" and found["page"] == 21 and found["pin_ok"] is True
        assert "specific and articulable facts" in found["passage"]
        assert found["citation"]["verdict"] == "verified"
        made_up = {
            "quotation": "the police may stop anyone they please for any reason at all",
            "citation": "392 U.S. 1",
        }
        wrong = structured(await client.call_tool("verify_quotation", made_up))
        assert wrong["verdict"] == "not_found" and wrong["quotation"]["verdict"] == "not_found"


async def test_lookup_case_gives_facts_and_treatment(server: Any) -> None:
    async with Client(server) as client:
        plessy = structured(await client.call_tool("lookup_case", {"query": "163 U.S. 537"}))
        assert plessy["matches"][0] == "scotus:163_U.S._537"
        assert "Brown" in json.dumps(plessy["case"])  # overruled by Brown v. Board of Education
        by_name = structured(await client.call_tool("lookup_case", {"query": "Terry v. Ohio"}))
        assert "scotus:392_U.S._1" in by_name["matches"]


async def test_case_text_gives_a_page_of_the_opinion(server: Any) -> None:
    async with Client(server) as client:
        page = structured(await client.call_tool("case_text", {"citation": "392 U.S. 1", "page": 21}))
        assert page["case"]["case_id"] == "scotus:392_U.S._1" and page["page"] == 21
        assert page["passages"][0]["court"] is True
        assert "specific and articulable facts" in page["passages"][0]["text"]


@pytest.mark.parametrize(
    ("tool", "arguments", "message"),
    [
        ("check_text", {}, "give either text or document_base64"),
        ("check_text", {"text": "x", "document_base64": "eA=="}, "give either text or document_base64"),
        ("check_text", {"document_base64": "not base64!"}, "document_base64 needs file_name"),
        ("check_text", {"document_base64": "not base64!", "file_name": "a.pdf"}, "not valid base64"),
        ("check_text", {"document_base64": "eA==", "file_name": "a.exe"}, "unknown format"),
        ("check_text", {"document_base64": base64.b64encode(b"%PDF-1.4 no").decode(), "file_name": "a.pdf"},
         "cannot read a.pdf"),
        ("verify_quotation", {"quotation": "", "citation": "392 U.S. 1"}, "quotation"),
        ("verify_quotation", {"quotation": "words and words", "citation": "nothing here"}, "no case citation"),
        ("lookup_case", {"query": "Nosuchcase v. Nobody"}, "no case matches"),
        ("case_text", {"citation": "392 U.S. 1", "page": 9000}, "no page 9000"),
        ("case_text", {"citation": "392 U.S. 1", "page": 0}, "page"),
        ("case_text", {"citation": "392 U.S. 1"}, "page"),
    ],
)  # fmt: skip
async def test_bad_input_is_a_tool_error_with_a_clear_message(
    server: Any, tool: str, arguments: dict[str, Any], message: str
) -> None:
    async with Client(server) as client:
        assert message in error_text(await client.call_tool(tool, arguments))
        assert structured(await client.call_tool("lookup_case", {"query": "392 U.S. 1"}))  # the server goes on


async def test_coverage_resources(server: Any) -> None:
    async with Client(server) as client:
        uris = {str(resource.uri) for resource in (await client.list_resources()).resources}
        assert "lexprobe://coverage" in uris
        templates = {template.uri_template for template in (await client.list_resource_templates()).resource_templates}
        assert "lexprobe://coverage/{level}" in templates
        whole = json.loads((await client.read_resource("lexprobe://coverage")).contents[0].text)
        assert whole["levels"]["scotus"] > 0 and whole["coverage"]["scotus"]["cases"] == whole["levels"]["scotus"]
        scotus = json.loads((await client.read_resource("lexprobe://coverage/scotus")).contents[0].text)
        assert scotus["level"] == "scotus" and scotus["cases"] == whole["levels"]["scotus"]


# --- the command: stdio and streamable HTTP ---------------------------------------------------------------------


async def exercise(connected: Client) -> None:
    """What every transport must carry: the tool list, one call of each tool, a resource, a tool error."""
    assert {tool.name for tool in (await connected.list_tools()).tools} == TOOLS
    checked = structured(await connected.call_tool("check_text", {"text": BRIEF}))
    assert [citation["verdict"] for citation in checked["citations"]] == ["verified", "verified", "not_found"]
    quoted = structured(await connected.call_tool("verify_quotation", QUOTED))
    assert quoted["verdict"] == "verified"
    assert structured(await connected.call_tool("lookup_case", {"query": "Plessy v. Ferguson"}))["matches"]
    assert structured(await connected.call_tool("case_text", {"citation": "392 U.S. 1", "page": 21}))["passages"]
    coverage = json.loads((await connected.read_resource("lexprobe://coverage")).contents[0].text)
    assert coverage["levels"]["scotus"] > 0
    assert "no case matches" in error_text(await connected.call_tool("lookup_case", {"query": "Nosuchcase v. Nobody"}))


async def test_over_stdio(case_db_path: Path) -> None:
    command = StdioServerParameters(command=sys.executable, args=["-c", ENTRY, "mcp", "--db", str(case_db_path)],
                                    env=server_env())  # fmt: skip
    async with Client(command, read_timeout_seconds=300) as connected:
        await exercise(connected)


@pytest.fixture(scope="module")
def http_server(case_db_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`lexprobe mcp --http 0 --token ...` on 127.0.0.1; yields its MCP endpoint's URL."""
    log = tmp_path_factory.mktemp("mcp") / "server.log"
    with log.open("w") as errors:
        process = subprocess.Popen(
            [sys.executable, "-c", ENTRY, "mcp", "--db", str(case_db_path), "--http", "0", "--token", TOKEN],
            stdout=subprocess.PIPE, stderr=errors, text=True, env=server_env(),
        )  # fmt: skip
    try:
        line = process.stdout.readline() if process.stdout else ""
        assert line, f"server exited with {process.wait()}:\n{log.read_text()[-4000:]}"
        url = json.loads(line)["url"]
        assert url.startswith("http://127.0.0.1:") and url.endswith("/mcp")
        yield url
    finally:
        process.terminate()
        process.wait(timeout=30)


async def test_over_streamable_http_with_the_token(http_server: str) -> None:
    import httpx2

    async with (
        httpx2.AsyncClient(headers={"Authorization": f"Bearer {TOKEN}"}, timeout=300) as http,
        Client(streamable_http_client(http_server, http_client=http)) as connected,
    ):
        await exercise(connected)


async def test_over_http_the_token_is_required(http_server: str) -> None:
    import httpx2

    with pytest.raises(Exception):  # noqa: B017 - the SDK's error for a 401 at connect is not part of its API
        async with Client(http_server) as connected:
            await connected.list_tools()
    async with httpx2.AsyncClient(headers={"Authorization": "Bearer wrong"}) as http:
        with pytest.raises(Exception):  # noqa: B017
            async with Client(streamable_http_client(http_server, http_client=http)) as connected:
                await connected.list_tools()
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}
    headers = {"Accept": "application/json, text/event-stream"}
    for given in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": TOKEN}):
        refused = httpx.post(http_server, json=initialize, headers=headers | given, timeout=30)
        assert refused.status_code == 401 and "bearer token is required" in refused.json()["error"]
        assert refused.headers["www-authenticate"].startswith("Bearer")


def test_over_http_another_host_or_origin_is_refused(http_server: str) -> None:
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}
    headers = {"Accept": "application/json, text/event-stream", "Authorization": f"Bearer {TOKEN}"}
    rebinding = httpx.post(http_server, json=initialize, headers=headers | {"Host": "evil.example"}, timeout=30)
    assert rebinding.status_code == 400 and rebinding.text == "Invalid host header"
    page = httpx.post(http_server, json=initialize, headers=headers | {"Origin": "http://evil.example"}, timeout=30)
    assert page.status_code == 403


def test_off_loopback_needs_a_token_and_stdio_takes_no_network_options(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LEXPROBE_MCP_TOKEN", raising=False)
    result = CliRunner().invoke(app, ["mcp", "--http", "0", "--host", "0.0.0.0"])
    assert result.exit_code == 2 and "--host 0.0.0.0 is not loopback: give --token" in result.output
    result = CliRunner().invoke(app, ["mcp", "--host", "0.0.0.0"])
    assert result.exit_code == 2 and "go with --http PORT" in result.output
