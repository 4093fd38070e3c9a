"""The Starlette sub-app of one section (investigation runs or QA runs), mounted by the viewer at its `mount`.

Routes (relative to the mount): the pages of `pages.RunPages`, `static/runs.css`, and
`runs/<n>/api/rows?environment=&model=&outcome=&sort=&page=&limit=` (one page of the run's index rows as JSON). Query
parameters are validated: anything else, a page that is not a positive number, a filter longer than
`MAX_FILTER_CHARS` or an outcome that is not one of the choices is a 400 with a one-line message; an unknown run,
record or document is a 404.
"""

from __future__ import annotations

import re
from pathlib import Path

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from lexprobe.local_server import register_id_convertor
from lexprobe.view.investigation.index import SORT_COLUMNS
from lexprobe.view.investigation.pages import PAGE_SIZE, ListQuery, NotFound, RunPages
from lexprobe.view.run_gone import RunChangedError, error_response
from lexprobe.view.security import visible

register_id_convertor()  # `{name:id}`: a number of at most 18 digits, else no route (404)

MAX_FILTER_CHARS = 500
MAX_PAGE = 10_000_000
MAX_API_LIMIT = 500
QA_LABELS = ("correct", "partial", "incorrect", "unscored", "pending", "unreadable")
_KEY = re.compile(r"^[\w.-]{1,300}$")
STATIC_DIR = Path(__file__).parent / "static"


def _number(text: str, name: str, low: int, high: int) -> int:
    if not text.isdigit() or not low <= int(text) <= high:
        raise HTTPException(400, f"{name} must be a whole number from {low} to {high}")
    return int(text)


def parse_query(request: Request, kind: str, *, api: bool = False) -> tuple[ListQuery, int]:
    """The list filters and page of a request, and the page size; raises HTTPException(400) for a bad parameter."""
    allowed = {"environment", "model", "outcome", "page", "sort"} | ({"limit"} if api else set())
    unknown = sorted(set(request.query_params) - allowed)
    if unknown:
        raise HTTPException(400, f"unknown parameter {unknown[0]!r}; known: {', '.join(sorted(allowed))}")
    values = {name: request.query_params.get(name, "") for name in ("environment", "model", "outcome")}
    for name, value in values.items():
        if len(value) > MAX_FILTER_CHARS:
            raise HTTPException(400, f"{name} is longer than {MAX_FILTER_CHARS} characters")
    outcomes = ("yes", "no") if kind == "investigation" else QA_LABELS
    if values["outcome"] and values["outcome"] not in outcomes:
        raise HTTPException(400, f"outcome must be one of {', '.join(outcomes)}")
    sort = request.query_params.get("sort", "") or "key"
    columns = SORT_COLUMNS["episodes" if kind == "investigation" else "qa"]
    if sort.removeprefix("-") not in columns:
        raise HTTPException(400, f"sort must be one of {', '.join(columns)} (a leading '-' sorts descending)")
    page = _number(request.query_params.get("page", "1") or "1", "page", 1, MAX_PAGE)
    limit = _number(request.query_params.get("limit", str(PAGE_SIZE)), "limit", 1, MAX_API_LIMIT) if api else PAGE_SIZE
    return ListQuery(page=page, sort=sort, **values), limit


def _key(request: Request) -> str:
    key = request.path_params["key"]
    if not _KEY.match(key):
        raise HTTPException(400, "a record key holds only letters, digits, '-', '_' and '.'")
    return key


def _answer(render, *args) -> HTMLResponse:
    try:
        return HTMLResponse(render(*args))
    except NotFound as exc:
        raise HTTPException(404, str(exc)) from None


def build_app(pages: RunPages) -> Starlette:
    """The sub-app serving `pages` (see the module docstring)."""
    record_folder = "episodes" if pages.kind == "investigation" else "qa"

    def index(request: Request) -> HTMLResponse:
        return _answer(pages.index_page)

    def run_list(request: Request) -> HTMLResponse:
        query, limit = parse_query(request, pages.kind)
        return _answer(pages.list_page, request.path_params["number"], query, limit)

    def rows(request: Request) -> JSONResponse:
        query, limit = parse_query(request, pages.kind, api=True)
        try:
            found, total = pages.rows(request.path_params["number"], query, limit)
        except NotFound as exc:
            raise HTTPException(404, str(exc)) from None
        return JSONResponse(visible({"total": total, "page": query.page, "limit": limit, "rows": found}))

    def record(request: Request) -> HTMLResponse:
        return _answer(pages.record_page, request.path_params["number"], _key(request))

    def document(request: Request) -> HTMLResponse:
        return _answer(pages.document_page, request.path_params["number"], _key(request),
                       request.path_params["position"])  # fmt: skip

    return Starlette(
        routes=[
            Route("/", index),
            Route("/index.html", index),
            Route("/runs/{number:id}/", run_list),
            Route("/runs/{number:id}/index.html", run_list),
            Route("/runs/{number:id}/api/rows", rows),
            Route(f"/runs/{{number:id}}/{record_folder}/{{key}}.html", record),
            Route("/runs/{number:id}/documents/{key}/{position:id}.html", document),
            Mount("/static", StaticFiles(directory=STATIC_DIR), name="static"),
        ],
        exception_handlers={RunChangedError: error_response},
    )
