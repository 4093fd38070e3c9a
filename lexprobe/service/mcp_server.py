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
tool error without its details (logged on stderr). Inputs are bounded by their schemas (the service's own limits,
`MAX_DOCUMENT_BASE64` for a document) before the service sees them; a document's bytes are read by the service within
`lexprobe.documents`' limits and never written anywhere but a temporary folder.

Over HTTP the app sits behind `local_server.guard_hosts` (the Host check) and, with a token,
`http_guard.require_token` (a bearer token on every request, as `lexprobe serve` checks it).
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from lexprobe.documents.extract import MAX_BYTES
from lexprobe.errors import BadInputError, LexprobeError
from lexprobe.service.check_service import MAX_CHECK_CHARS, MAX_CITATION_CHARS, MAX_QUOTATION_CHARS, CheckService

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

__all__ = [
    "COVERAGE_URI",
    "MAX_DOCUMENT_BASE64",
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
#: The longest base64 document `check_text` takes: the largest document (`documents.extract.MAX_BYTES`) encoded.
MAX_DOCUMENT_BASE64 = (MAX_BYTES + 2) // 3 * 4
#: What an HTTP request's body may hold beyond the longest document (the JSON-RPC envelope, the file name).
MAX_REQUEST_SLACK = 1024 * 1024
#: The longest file name `check_text` takes (only its last part and suffix are used).
MAX_FILE_NAME_CHARS = 1_000

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
    """What `lexprobe check --json` prints (docs/check.md; its JSON Schema: docs/check-result.schema.json)."""

    schema_version: str = Field(description="The version of the result format.")
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

    schema_version: str = Field(description="The version of the result format.")
    verdict: str = Field(
        description="verified, altered, not_found, separate_opinion, other_case or unverifiable (docs/check.md)."
    )
    reason: str = Field(description="Why, in one sentence.")
    page: int | None = Field(description="The page of the opinion the quotation was found on, when known.")
    pin_ok: bool | None = Field(description="Whether that page is one the citation's pin names (None: no pin).")
    passage: str | None = Field(description="The opinion's passage holding the quotation (None when not found).")
    quotation: dict[str, Any] = Field(description="The quotation's full finding, as in check --json.")
    citation: dict[str, Any] = Field(description="The citation's own verdict, as in check --json.")


class CaseFacts(_Open):
    """One case of the database: its facts (each with its source) and its treatment history."""

    matches: list[str] = Field(description="The ids of every case the query found; the first is described.")
    case: dict[str, Any] = Field(
        description="The first case: name, court, date, citations, judges and the other facts with their sources, "
        "and its treatment (the decisions overruling it and those it overrules), as `lexprobe data case --json`."
    )


class CasePassage(_Open):
    """One page of a case's opinions."""

    case: dict[str, Any] = Field(description="The case: id, name, citation, year.")
    page: int = Field(description="The reporter page.")
    passages: list[dict[str, Any]] = Field(
        description="The page's text in each opinion that has it, the opinion of the Court first: opinion id, "
        "type, author, whether it is the Court's, the text and whether it was cut."
    )


def start_service(db: Path | None) -> CheckService:
    """Open the warm check service on the case database `db` (None: the default one); `BadInputError` when there is
    none."""
    return CheckService(db)


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


TextArg = Annotated[
    str | None, Field(max_length=MAX_CHECK_CHARS, description="The text to check (a brief, an answer).")
]
DocumentArg = Annotated[
    str | None, Field(max_length=MAX_DOCUMENT_BASE64, description="Instead of text: a document's bytes, base64.")
]
FileNameArg = Annotated[
    str | None,
    Field(max_length=MAX_FILE_NAME_CHARS, description="With document_base64: its file name (.txt, .md, .docx, .pdf)."),
]
QuotationArg = Annotated[str, Field(min_length=1, max_length=MAX_QUOTATION_CHARS, description="The quoted words.")]
CitationArg = Annotated[
    str, Field(min_length=1, max_length=MAX_CITATION_CHARS, description='The citation, e.g. "392 U.S. 1, 21".')
]
QueryArg = Annotated[
    str, Field(min_length=1, max_length=MAX_CITATION_CHARS, description='A citation ("410 U.S. 113") or a case name.')
]
CaseCitationArg = Annotated[
    str, Field(min_length=1, max_length=MAX_CITATION_CHARS, description='The case\'s citation, e.g. "392 U.S. 1".')
]
PageArg = Annotated[int, Field(ge=1, le=100_000, description="The reporter page, e.g. 21.")]


class Tools:
    """The four tools, each a method over one `CheckService` (its docstring is what the client reads)."""

    def __init__(self, service: CheckService) -> None:
        self.service = service

    def check_text(
        self,
        text: TextArg = None,
        document_base64: DocumentArg = None,
        file_name: FileNameArg = None,
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
        return CheckResult.model_validate(_answer(lambda: self.service.check_document(file_name, data)))

    def verify_quotation(self, quotation: QuotationArg, citation: CitationArg) -> QuotationResult:
        """Check whether a quotation is in the opinion of the case a citation names (at its pin page when given):
        the verdict (verified, altered, not_found, separate_opinion, other_case, unverifiable), the reason and the
        opinion's passage."""
        return QuotationResult.model_validate(_answer(lambda: self.service.verify_quotation(quotation, citation)))

    def lookup_case(self, query: QueryArg) -> CaseFacts:
        """Look a case up in the database by citation or name: its name, court, date, citations, judges and the
        other facts the database holds, and its treatment history (overruled by whom, when)."""
        return CaseFacts.model_validate(_answer(lambda: self.service.lookup_case(query)))

    def case_text(self, citation: CaseCitationArg, page: PageArg) -> CasePassage:
        """Read one reporter page of a case's opinions (the opinion of the Court first, then any concurrence or
        dissent that has the page), to see what a pin cite points at."""
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
        """What the case database holds: cases per court level and per source, how many cases of each level have
        each kind of fact (name, citation, author, disposition, opinion text, overruling), the build's facts and
        the tables' sizes. A citation outside what it covers is unverifiable, never not_found."""
        return json.dumps(_answer(service.coverage))

    @server.resource(
        COVERAGE_URI + "/{level}", name="coverage_level", title="Coverage of one court level",
        mime_type="application/json",
    )  # fmt: skip
    def coverage_level(level: str) -> str:
        """One court level's coverage (scotus, coa or district): its cases and how many have each kind of fact."""
        from mcp.server.mcpserver.exceptions import ResourceError

        levels = _answer(service.coverage)["coverage"]
        if level not in levels:
            raise ResourceError(f"no court level {level!r}: one of {', '.join(levels)}")
        return json.dumps({"level": level, **levels[level]})


def run_stdio(server: MCPServer) -> None:
    """Serve `server` on stdin/stdout until the client closes them."""
    server.run("stdio")


def http_app(server: MCPServer, host: str, token: str | None, allow_hosts: tuple[str, ...] = ()) -> Any:
    """Return the ASGI app serving `server` as streamable HTTP at `/mcp`: behind the Host check for a server bound
    to `host` (`allow_hosts`: more names to answer) and, with `token`, a bearer-token check on every request. The
    SDK's own check refuses a request from a page of another origin (its `Origin` header); a body is at most a
    base64 document of the largest size a document may have."""
    from mcp.server.transport_security import TransportSecuritySettings

    from lexprobe.local_server import allowed_hosts, guard_hosts
    from lexprobe.service.http_guard import require_token

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
