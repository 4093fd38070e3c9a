"""`lexprobe serve`'s app: the check as an HTTP API, and a page to drop a brief on (docs/service.md).

    POST /api/check            a multipart upload in the field `file` (.txt, .md, .docx, .pdf) or JSON {"text": ...}
                               -> the JSON `lexprobe check --json` prints for that document
    POST /api/report           the same body -> {"result", "documents": [{"path", "text"}], "html"}: what the page
                               shows, the annotated page (`lexprobe check --html`'s) included
    POST /api/annotated.docx   the same body -> the document as a .docx, every citation and quotation shaded by
                               verdict with its reason and evidence as a Word comment (`check.annotated_docx`)
    GET  /api/case/{citation}  a case of the database by citation or name (404 when none)
    GET  /openapi.json         the OpenAPI description (`http_openapi`)
    GET  /                     the page; GET /static/NAME its script and style sheet (a fixed set, no path opened)

Bounds: the body is read to at most `ServeSettings.max_upload_bytes` (413 past it); the upload stays in memory and
goes to the check service, which reads it in a temporary folder removed after the answer; `ServeSettings.slots`
checks or lookups at once (503 when all are busy), each within `ServeSettings.time_limit_s` (504 past it). Every
answer is JSON except the page, its assets and the annotated DOCX, and carries a Content-Security-Policy that allows
nothing from another origin. The Host check and the token (`lexprobe.local_server.guard_hosts`,
`http_guard.require_token`) wrap the app in `build_app`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
from starlette.applications import Starlette
from starlette.datastructures import UploadFile
from starlette.exceptions import HTTPException
from starlette.formparsers import MultiPartException, MultiPartParser
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from lexprobe.documents.extract import MAX_BYTES
from lexprobe.errors import LexprobeError
from lexprobe.local_server import guard_hosts
from lexprobe.service.errors import NotInDatabase
from lexprobe.service.http_guard import BodyTooLarge, Slots, read_bounded, require_token
from lexprobe.service.http_openapi import MAX_CITATION_CHARS, openapi_document
from lexprobe.terminal import safe_text

__all__ = ["CONTENT_SECURITY_POLICY", "ServeSettings", "build_app"]

#: Nothing from another origin; scripts only from the server's own files; styles inline (the page frame's).
CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; connect-src 'self'; img-src 'self' "
    "data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
SECURITY_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}
STATIC_DIR = Path(__file__).parent / "static"
#: The page's assets: the only files a request can reach, by these names.
ASSETS = {"serve_page.js": "text/javascript; charset=utf-8", "serve_page.css": "text/css; charset=utf-8"}
#: The name of an upload that names none (its suffix: read as text).
DEFAULT_NAME = "upload.txt"


@dataclass(frozen=True)
class ServeSettings:
    """The server's bounds: the address it is bound to (for the Host check), extra Host names, the bearer token
    (None: none asked), the largest body, the checks at once and the seconds one may take."""

    host: str = "127.0.0.1"
    allow_hosts: tuple[str, ...] = ()
    token: str | None = None
    max_upload_bytes: int = MAX_BYTES
    slots: int = 4
    time_limit_s: float = 120.0


class ApiResponse(Response):
    """JSON written as `json.dumps` writes it (ASCII, so a lone surrogate is an escape, never an encoding error),
    with the security headers."""

    media_type = "application/json"

    def render(self, content: Any) -> bytes:
        return json.dumps(content).encode("ascii")


def _answer(content: Any, status: int = 200, headers: dict[str, str] | None = None) -> ApiResponse:
    return ApiResponse(content, status_code=status, headers={**SECURITY_HEADERS, **(headers or {})})


class _InMemoryParser(MultiPartParser):
    """Starlette's multipart parser keeping every part in memory (the body is already bounded): nothing spooled to
    disk."""

    spool_max_size = MAX_BYTES


async def _form_document(request: Request, body: bytes, limit: int) -> tuple[str | None, bytes | str]:
    """The document of a multipart body: (its name, its bytes), or (None, text) for a field that is no file."""

    async def stream():
        yield body

    parser = _InMemoryParser(request.headers, stream(), max_files=1, max_fields=10, max_part_size=limit)
    parser.spool_max_size = limit
    try:
        form = await parser.parse()
    except MultiPartException as exc:
        raise HTTPException(422, f"unreadable multipart body: {exc.message}") from None
    upload = form.get("file")
    if isinstance(upload, UploadFile):
        return upload.filename or DEFAULT_NAME, await upload.read()
    if isinstance(upload, str):  # a text sent as a plain field
        return None, upload
    raise HTTPException(422, "a multipart body needs the document in a field named `file`")


def _json_text(body: bytes) -> str:
    """The text of a JSON body {"text": "..."}."""
    try:
        payload = json.loads(body)
    except ValueError:
        raise HTTPException(422, "the body is not JSON") from None
    if not isinstance(payload, dict) or set(payload) != {"text"} or not isinstance(payload["text"], str):
        raise HTTPException(422, 'the JSON body must be {"text": "..."} and nothing else')
    text = payload["text"]
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise HTTPException(422, "the text holds a lone surrogate (\\uD800-\\uDFFF): not Unicode text") from None
    return text


async def _document(request: Request) -> tuple[str | None, bytes | str]:
    """What to check: (name, bytes) of an upload, or (None, text) of a JSON body."""
    limit = request.app.state.settings.max_upload_bytes
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind not in ("multipart/form-data", "application/json"):
        raise HTTPException(415, 'send a multipart/form-data upload (field `file`) or application/json {"text"}')
    try:
        body = await read_bounded(request, limit)
    except BodyTooLarge as exc:
        raise HTTPException(413, str(exc)) from None
    if kind == "application/json":
        return None, _json_text(body)
    return await _form_document(request, body, limit)


async def _in_slot(request: Request, job: Callable[[], Any]) -> Any:
    """Run `job` in a worker thread holding a slot (503 when none is free; 504 past the time limit)."""
    settings: ServeSettings = request.app.state.settings
    slots: Slots = request.app.state.slots
    if not slots.try_take():
        raise HTTPException(503, f"all {slots.size} check slots are busy; try again shortly", {"Retry-After": "1"})

    def work() -> Any:
        try:
            return job()
        finally:
            slots.give_back()

    try:
        with anyio.fail_after(settings.time_limit_s):
            return await anyio.to_thread.run_sync(work, abandon_on_cancel=True)
    except TimeoutError:
        raise HTTPException(504, f"the check took longer than {settings.time_limit_s:g} s") from None
    except NotInDatabase as exc:
        raise HTTPException(404, safe_text(str(exc))) from None
    except LexprobeError as exc:
        raise HTTPException(400, safe_text(str(exc))) from None


def _check_job(service: Any, name: str | None, document: bytes | str) -> Callable[[], Any]:
    """The check of an upload or a text as a job for `_in_slot`: check --json's result."""
    if isinstance(document, str):
        return lambda: service.check_text(document)
    return lambda: service.check_document(name, document)


async def check(request: Request) -> Response:
    """POST /api/check: `lexprobe check --json`'s result for the document or text in the body."""
    name, document = await _document(request)
    return _answer(await _in_slot(request, _check_job(request.app.state.service, name, document)))


def _checked(service: Any, name: str | None, document: bytes | str) -> Any:
    """The upload or text read (an upload in the reader's processes) and checked: a `CheckedDocument`."""
    text = document if isinstance(document, str) else service.reader.read(name, document).text
    return service.checked_text(text, name or "text")


def _report_job(service: Any, name: str | None, document: bytes | str) -> Callable[[], dict[str, Any]]:
    """The page's job: the checked document as the result, its text, and `check --html`'s annotated page."""
    from lexprobe.check.render_html import render_html
    from lexprobe.check.result_json import check_result

    def job() -> dict[str, Any]:
        checked = _checked(service, name, document)
        return {
            "result": check_result([checked]),
            "documents": [{"path": checked.path, "text": checked.text}],
            "html": render_html([checked], title=f"Citation check: {checked.path}"),
        }

    return job


async def report(request: Request) -> Response:
    """POST /api/report: what the page shows (the result, the document's text, the annotated page)."""
    name, document = await _document(request)
    return _answer(await _in_slot(request, _report_job(request.app.state.service, name, document)))


def _download_name(name: str | None) -> str:
    """The annotated DOCX's file name: the upload's stem in safe ASCII, then "-check.docx"."""
    stem = Path(name or "text").stem
    return (re.sub(r"[^A-Za-z0-9._-]+", "_", stem).strip("._")[:80] or "check") + "-check.docx"


async def annotated_docx(request: Request) -> Response:
    """POST /api/annotated.docx: the document or text checked, as a .docx with every citation and quotation shaded by
    verdict and commented with its reason and evidence (`check.annotated_docx`)."""
    from lexprobe.check.annotated_docx import DOCX_MEDIA_TYPE
    from lexprobe.check.annotated_docx import annotated_docx as write_docx

    name, document = await _document(request)
    service = request.app.state.service

    def job() -> bytes:
        checked = _checked(service, name, document)
        return write_docx([checked], title=f"Citation check: {checked.path}")

    data = await _in_slot(request, job)
    disposition = f'attachment; filename="{_download_name(name)}"'
    headers = {**SECURITY_HEADERS, "Content-Disposition": disposition}
    return Response(data, media_type=DOCX_MEDIA_TYPE, headers=headers)


async def case(request: Request) -> Response:
    """GET /api/case/{citation}: the case's facts and history, or 404."""
    citation = request.path_params["citation"]
    if not citation.strip() or len(citation) > MAX_CITATION_CHARS:
        raise HTTPException(400, f"a citation or case name of 1 to {MAX_CITATION_CHARS} characters")
    return _answer(await _in_slot(request, lambda: request.app.state.service.lookup_case(citation)))


async def openapi(request: Request) -> Response:
    """GET /openapi.json."""
    from lexprobe import __version__

    return _answer(openapi_document(__version__))


async def page(request: Request) -> Response:
    """GET /: the page to drop a brief on."""
    from lexprobe.check.render_html import COLOURS, MEANINGS, QUOTE_COLOURS, QUOTE_MEANINGS
    from lexprobe.reporting.html import render_report

    text = render_report("lexprobe.service:serve_page.html.j2", title="lexprobe: check a brief", colours=COLOURS,
                         quote_colours=QUOTE_COLOURS, meanings=MEANINGS, quote_meanings=QUOTE_MEANINGS)  # fmt: skip
    return HTMLResponse(text, headers=SECURITY_HEADERS)


async def asset(request: Request) -> Response:
    """GET /static/NAME: one of `ASSETS` (any other name is a 404; no path is opened from the request)."""
    name = request.path_params["name"]
    if name not in ASSETS:
        raise HTTPException(404, "no such asset")
    return Response((STATIC_DIR / name).read_bytes(), media_type=ASSETS[name], headers=SECURITY_HEADERS)


async def _error(request: Request, exc: Exception) -> Response:
    """Every error as JSON {"error": ...} with its status."""
    assert isinstance(exc, HTTPException)
    return _answer({"error": exc.detail}, exc.status_code, dict(exc.headers or {}))


def create_app(service: Any, settings: ServeSettings) -> Starlette:
    """The API over `service` (a `CheckService`), without the Host check and token (`build_app` adds them)."""
    routes = [
        Route("/", page, methods=["GET"]),
        Route("/static/{name}", asset, methods=["GET"]),
        Route("/openapi.json", openapi, methods=["GET"]),
        Route("/api/check", check, methods=["POST"]),
        Route("/api/report", report, methods=["POST"]),
        Route("/api/annotated.docx", annotated_docx, methods=["POST"]),
        Route("/api/case/{citation:path}", case, methods=["GET"]),
    ]
    app = Starlette(routes=routes, exception_handlers={HTTPException: _error})
    app.state.service = service
    app.state.settings = settings
    app.state.slots = Slots(settings.slots)
    return app


def build_app(service: Any, settings: ServeSettings) -> Any:
    """The served app: `create_app` behind the bearer token (when `settings.token`) and the Host check."""
    app: Any = create_app(service, settings)
    if settings.token:
        app = require_token(app, settings.token)
    return guard_hosts(app, settings.host, settings.allow_hosts)
