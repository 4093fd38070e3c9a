"""`lexprobe mcp`'s server: the warm check service (`check_service.CheckService`) as a Model Context Protocol server
on the official `mcp` SDK (`MCPServer`, version 2).

Tools, each with a JSON Schema for its input and its output (structured output):

* `check_text`: a text, or a document's bytes (base64) with its file name → the same JSON as `lexprobe check --json`;
* `verify_quotation`: a quotation and the citation it is attributed to → the verdict and the opinion's passage;
* `lookup_case`: a citation or a case name → the case's facts and treatment history in the database;
* `case_text`: a passage of an opinion by citation and page.

Resources: `lexprobe://coverage` (what the case database holds, per court level) and `lexprobe://coverage/{level}`.

A tool's expected failure (bad input, a case the database lacks) is a `LexprobeError` of the service, answered as a
tool error carrying its one line (`is_error`), never a crash; an unexpected exception is answered by the SDK as a
tool error without its details (logged on stderr). Inputs are bounded by their schemas (`MAX_TEXT_CHARS`,
`MAX_DOCUMENT_BASE64`) before the service sees them; a document's bytes are read by the service within
`lexprobe.documents`' limits and never written anywhere but a temporary folder.

Over HTTP the app sits behind `local_server.guard_hosts` (the Host check) and, with a token,
`local_server.require_token` (a bearer token on every request).
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from lexprobe.errors import BadInputError, LexprobeError

if TYPE_CHECKING:
    from lexprobe.service.check_service import CheckService
    from mcp.server.mcpserver import MCPServer

__all__ = [
    "COVERAGE_URI",
    "MAX_DOCUMENT_BASE64",
    "MAX_TEXT_CHARS",
    "CaseFacts",
    "CasePassage",
    "CheckResult",
    "QuotationResult",
    "build_server",
    "http_app",
    "run_stdio",
    "start_service",
]

SERVER_NAME = "lexprobe"
COVERAGE_URI = "lexprobe://coverage"
#: The longest text `check_text` takes (characters): a 3,000-page brief has about 6 million.
MAX_TEXT_CHARS = 10_000_000
#: The longest base64 document `check_text` takes: `lexprobe.documents.extract.MAX_BYTES` (50 MB) encoded.
MAX_DOCUMENT_BASE64 = (50 * 1024 * 1024 + 2) // 3 * 4
#: What an HTTP request's body may hold beyond the longest document (the JSON-RPC envelope, the file name).
MAX_REQUEST_SLACK = 1024 * 1024
#: The longest quotation, citation, case name or file name a tool takes.
MAX_SHORT_CHARS = 20_000

INSTRUCTIONS = (
    "lexprobe checks case citations offline against its case database and the opinions' texts: every citation is "
    "verified, mismatch (name, year or page disagrees), not_found (no such case where the database is complete: "
    "likely fabricated) or unverifiable (the database does not cover it; never a guess). Quotations are checked "
    "against the cited opinion's text. Read lexprobe://coverage for what the database covers."
)

_Result = TypeVar("_Result")


class _Open(BaseModel):
    """A result object: the fields named are always there; others the service adds pass through."""

    model_config = ConfigDict(extra="allow")


class CheckResult(_Open):
    """What `lexprobe check --json` prints (docs/check.md, docs/check-result.schema.json)."""

    citations: list[dict[str, Any]] = Field(
        description="Every case citation found, in order: its text, span, verdict (verified, mismatch, not_found, "
        "unverifiable), reason, the case it resolved to and its pin."
    )
    quotations: list[dict[str, Any]] = Field(
        description="Every quotation attributed to a citation: its span, verdict, reason and the evidence passage; "
        "`citation` is an index into `citations`."
    )
    summary: dict[str, Any] = Field(description="Counts of each verdict, for citations and quotations.")


class QuotationResult(_Open):
    """A quotation checked against the opinion of the case cited for it."""

    verdict: str = Field(
        description="verified, altered, not_found, separate_opinion, other_case or unverifiable (docs/check.md)."
    )
    reason: str = Field(description="Why, in one sentence.")


class CaseFacts(_Open):
    """One case of the database: its facts and its treatment history."""


class CasePassage(_Open):
    """A passage of one opinion's text around a page."""


def start_service(db: Path | None, online: bool = False, online_timeout: float = 120.0) -> CheckService:
    """Open the warm check service on the case database `db` (None: the default one); `BadInputError` when there is
    none."""
    from lexprobe.service.check_service import CheckService

    return CheckService(db, online=online, online_timeout=online_timeout)


def _answer(call: Callable[[], _Result]) -> _Result:
    """Run one service call; a `LexprobeError` becomes a `ToolError` with its one line (the client sees it as a
    tool error, `is_error`)."""
    from mcp.server.mcpserver.exceptions import ToolError

    try:
        return call()
    except LexprobeError as exc:
        raise ToolError(str(exc)) from None


def _document_bytes(document_base64: str) -> bytes:
    """The bytes of a base64 document; `BadInputError` when it is not base64."""
    try:
        return base64.b64decode(document_base64, validate=True)
    except (binascii.Error, ValueError):
        raise BadInputError("document_base64 is not valid base64") from None


Text = Annotated[str, Field(max_length=MAX_SHORT_CHARS)]


class Tools:
    """The four tools, each a method over one `CheckService` (its docstring is what the client reads)."""

    def __init__(self, service: CheckService) -> None:
        self.service = service

    def check_text(
        self,
        text: Annotated[
            str | None, Field(max_length=MAX_TEXT_CHARS, description="The text to check (a brief, an answer).")
        ] = None,
        document_base64: Annotated[
            str | None,
            Field(max_length=MAX_DOCUMENT_BASE64, description="Instead of text: a document's bytes, base64."),
        ] = None,
        file_name: Annotated[
            str | None,
            Field(max_length=1000, description="With document_base64: its file name (.txt, .md, .docx or .pdf)."),
        ] = None,
    ) -> CheckResult:
        """Check every case citation and quotation in a text or a document (.txt, .md, .docx, .pdf) against the
        case database and the opinions: each citation verified, mismatch, not_found or unverifiable, each quotation
        verified, altered, not_found, in a separate opinion, from another case or unverifiable, with the reason
        and the evidence. Give `text`, or `document_base64` with `file_name`."""
        if (text is None) == (document_base64 is None):
            raise _tool_error("give either text or document_base64 (with file_name), not both nor neither")
        if text is not None:
            return CheckResult.model_validate(_answer(lambda: self.service.check_text(text)))
        if not file_name:
            raise _tool_error("document_base64 needs file_name (its extension says how to read it)")
        data = _answer(lambda: _document_bytes(document_base64))
        return CheckResult.model_validate(_answer(lambda: self.service.check_document(data, file_name)))

    def verify_quotation(
        self,
        quotation: Annotated[str, Field(min_length=1, max_length=MAX_SHORT_CHARS, description="The quoted words.")],
        citation: Annotated[
            str, Field(min_length=1, max_length=1000, description='The citation, e.g. "347 U.S. 483, 495".')
        ],
    ) -> QuotationResult:
        """Check whether a quotation is in the opinion of the case a citation names (at its pin page when given):
        the verdict (verified, altered, not_found, separate_opinion, other_case, unverifiable), the reason and the
        opinion's passage."""
        return QuotationResult.model_validate(_answer(lambda: self.service.verify_quotation(quotation, citation)))

    def lookup_case(
        self,
        query: Annotated[
            str,
            Field(min_length=1, max_length=1000, description='A citation ("410 U.S. 113") or a case name.'),
        ],
    ) -> CaseFacts:
        """Look a case up in the database by citation or name: its name, court, date, citations, judges and the
        other facts the database holds, and its treatment history (overruled by whom, when)."""
        return CaseFacts.model_validate(_answer(lambda: self.service.lookup_case(query)))

    def case_text(
        self,
        citation: Annotated[
            str, Field(min_length=1, max_length=1000, description='The case\'s citation, e.g. "347 U.S. 483".')
        ],
        page: Annotated[
            int | None, Field(ge=1, le=100_000, description="The reporter page (default: the first).")
        ] = None,
    ) -> CasePassage:
        """Read a passage of a case's opinion around a reporter page (the pages the citation's pin names)."""
        return CasePassage.model_validate(_answer(lambda: self.service.case_text(citation, page)))


def _tool_error(message: str) -> Exception:
    """A tool error the client reads as `message`."""
    from mcp.server.mcpserver.exceptions import ToolError

    return ToolError(message)


def build_server(service: CheckService) -> MCPServer:
    """Return the MCP server over `service`: the four tools and the coverage resources."""
    from mcp.server.mcpserver import MCPServer
    from mcp_types import ToolAnnotations

    from lexprobe import __version__

    server: MCPServer = MCPServer(
        SERVER_NAME, title="lexprobe citation check", version=__version__, instructions=INSTRUCTIONS,
        log_level="WARNING",
    )  # fmt: skip
    tools = Tools(service)
    read_only = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True)
    for tool in (tools.check_text, tools.verify_quotation, tools.lookup_case, tools.case_text):
        server.add_tool(tool, annotations=read_only, structured_output=True)
    _add_coverage(server, service)
    return server


def _add_coverage(server: MCPServer, service: CheckService) -> None:
    """The coverage resources: the whole database's, and one court level's."""

    @server.resource(COVERAGE_URI, name="coverage", title="Case database coverage", mime_type="application/json")
    def coverage() -> str:
        """What the case database holds: per court level, how many cases and how many with each kind of fact; which
        reporters' citations can be found not_found (the database is complete there) and which are unverifiable."""
        return json.dumps(_answer(service.coverage))

    @server.resource(
        COVERAGE_URI + "/{level}", name="coverage_level", title="Coverage of one court level",
        mime_type="application/json",
    )  # fmt: skip
    def coverage_level(level: str) -> str:
        """One court level's coverage (scotus, coa, district)."""
        from mcp.server.mcpserver.exceptions import ResourceError

        levels = _answer(service.coverage).get("levels", {})
        if level not in levels:
            raise ResourceError(f"no court level {level!r}: one of {', '.join(sorted(levels))}")
        return json.dumps(levels[level])


def run_stdio(server: MCPServer) -> None:
    """Serve `server` on stdin/stdout until the client closes them."""
    server.run("stdio")


def http_app(server: MCPServer, host: str, token: str | None, allow_hosts: tuple[str, ...] = ()) -> Any:
    """Return the ASGI app serving `server` as streamable HTTP at `/mcp`: behind the Host check for a server bound
    to `host` (`allow_hosts`: more names to answer) and, with `token`, a bearer-token check on every request. The
    SDK's own check refuses a request from a page of another origin (its `Origin` header); a body is at most a
    base64 document of the largest size a document may have."""
    from mcp.server.transport_security import TransportSecuritySettings

    from lexprobe.local_server import allowed_hosts, guard_hosts, require_token

    names = allowed_hosts(host, allow_hosts)
    origins = TransportSecuritySettings(
        allowed_hosts=[pattern for name in names for pattern in (name, f"{name}:*")],
        allowed_origins=[f"{scheme}://{name}{port}" for name in names for scheme in ("http", "https")
                         for port in ("", ":*")],
    )  # fmt: skip
    app = server.streamable_http_app(
        host=host, transport_security=origins, max_request_body_size=MAX_DOCUMENT_BASE64 + MAX_REQUEST_SLACK
    )
    if token:
        app = require_token(app, token)
    return guard_hosts(app, host, allow_hosts)
