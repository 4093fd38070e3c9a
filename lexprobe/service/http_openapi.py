"""The OpenAPI 3.1 description of `lexprobe serve`'s API (served at `/openapi.json`; the fuzz test runs
schemathesis against it). The result schema is the outline of `check --json`'s output (docs/check.md)."""

from __future__ import annotations

from typing import Any

__all__ = ["MAX_CITATION_CHARS", "openapi_document"]

#: The longest citation or case name `GET /api/case/{citation}` takes.
MAX_CITATION_CHARS = 300

_ERROR = {
    "type": "object",
    "required": ["error"],
    "properties": {"error": {"type": "string"}},
}
_RESULT = {
    "type": "object",
    "description": "The JSON of `lexprobe check --json` (docs/check.md).",
    "required": ["citations", "quotations", "summary"],
    "properties": {
        "citations": {"type": "array", "items": {"type": "object"}},
        "quotations": {"type": "array", "items": {"type": "object"}},
        "summary": {"type": "object", "required": ["files"]},
    },
}
_REPORT = {
    "type": "object",
    "description": "What the page shows: the result, each document's extracted text and the annotated HTML page.",
    "required": ["result", "documents", "html"],
    "properties": {
        "result": {"$ref": "#/components/schemas/CheckResult"},
        "documents": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["path", "text"],
                "properties": {"path": {"type": "string"}, "text": {"type": "string"}},
            },
        },
        "html": {"type": "string"},
    },
}


def _error(description: str) -> dict[str, Any]:
    return {
        "description": description,
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
    }


def _check_body() -> dict[str, Any]:
    """The request body of the check endpoints: a document upload, or a text as JSON."""
    text = {"type": "object", "required": ["text"], "additionalProperties": False,
            "properties": {"text": {"type": "string"}}}  # fmt: skip
    upload = {"type": "object", "required": ["file"],
              "properties": {"file": {"type": "string", "format": "binary",
                                      "description": "A .txt, .md, .docx or .pdf document."}}}  # fmt: skip
    return {
        "required": True,
        "content": {
            "multipart/form-data": {"schema": upload},
            "application/json": {"schema": text},
        },
    }


def _bounds() -> dict[str, Any]:
    """The answers every bounded endpoint may give besides its own."""
    return {
        "400": _error("Unreadable input: not a document lexprobe reads, or over one of its document limits."),
        "401": _error("A bearer token is required (the server was started with --token)."),
        "413": _error("The upload is over the size limit."),
        "415": _error("Neither multipart/form-data nor application/json."),
        "422": _error("The body is not what the endpoint takes."),
        "503": _error("Every check slot is busy; try again shortly."),
        "504": _error("The check took longer than the time limit."),
    }


def _check_operation(summary: str, schema: str, operation_id: str) -> dict[str, Any]:
    ok = {
        "description": summary,
        "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{schema}"}}},
    }
    return {"operationId": operation_id, "summary": summary, "requestBody": _check_body(),
            "responses": {"200": ok, **_bounds()}}  # fmt: skip


def _docx_operation() -> dict[str, Any]:
    """POST /api/annotated.docx: the same body as the check, a Word document back."""
    from lexprobe.check.annotated_docx import DOCX_MEDIA_TYPE

    summary = "The document as a .docx: every citation and quotation shaded by verdict, its reason as a comment."
    ok = {"description": summary, "content": {DOCX_MEDIA_TYPE: {"schema": {"type": "string", "format": "binary"}}}}
    return {"operationId": "annotatedDocx", "summary": summary, "requestBody": _check_body(),
            "responses": {"200": ok, **_bounds()}}  # fmt: skip


def openapi_document(version: str) -> dict[str, Any]:
    """Return the OpenAPI description of the API of lexprobe `version`."""
    citation = {"name": "citation", "in": "path", "required": True,
                "schema": {"type": "string", "minLength": 1, "maxLength": MAX_CITATION_CHARS},
                "description": "A citation (347 U.S. 483) or a case name."}  # fmt: skip
    case = {"type": "object", "description": "The case's facts and treatment history from the case database."}
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "lexprobe serve",
            "version": version,
            "description": "Offline citation and quotation checks of legal documents (docs/service.md).",
        },
        "paths": {
            "/api/check": {
                "post": _check_operation(
                    "The check result, as `lexprobe check --json` prints it.", "CheckResult", "check"
                )
            },
            "/api/report": {
                "post": _check_operation("The result, the documents' text and the annotated page.", "Report", "report")
            },
            "/api/annotated.docx": {"post": _docx_operation()},
            "/api/case/{citation}": {
                "get": {
                    "operationId": "case",
                    "summary": "A case of the database by citation or name.",
                    "parameters": [citation],
                    "responses": {
                        "200": {"description": "The case.", "content": {"application/json": {"schema": case}}},
                        "404": _error("No case in the database has this citation or name."),
                        **{k: v for k, v in _bounds().items() if k in ("400", "401", "503", "504")},
                    },
                }
            },
        },
        "components": {"schemas": {"Error": _ERROR, "CheckResult": _RESULT, "Report": _REPORT}},
    }
