"""The HTML pages of investigation and QA runs, rendered the same way for the server and for the static copy.

Page paths, relative to the section's mount (`/investigation` or `/qa`):

    index.html                                  the section's runs
    runs/<n>/                                   one run's episodes (or questions), filtered and paged in SQL
    runs/<n>/episodes/<key>.html                one episode (QA: runs/<n>/qa/<key>.html, one question)
    runs/<n>/documents/<key>/<number>.html      a document the record's transcript names, its extracted text
    static/runs.css                             the stylesheet (the only asset; there is no script)

The Starlette sub-app (`build_app`) also answers `runs/<n>/api/rows?environment=&model=&outcome=&sort=&page=&limit=`
(one page of the run's index rows as JSON). Query parameters are validated: anything else, a page that is not a
positive number, a filter longer than `MAX_FILTER_CHARS` or an outcome that is not one of the choices is a 400 with a
one-line message; an unknown run, record or document is a 404.

Every page links with paths relative to itself, so the same pages work under any mount and from disk. All text
from a run, a model, a tool or an environment is made visible (`lexprobe.terminal.safe_text`: ANSI, C1 and bidi
controls shown as escapes) and HTML-escaped by the template (Jinja2 autoescape).
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from lexprobe.investigation.agent.episode import EPISODES_DIR, Episode
from lexprobe.investigation.environment.format import Environment, load_environment
from lexprobe.investigation.qa.runner import QA_DIR, QARecord
from lexprobe.investigation.scoring.inputs import resolve_env_dir
from lexprobe.local_server import register_id_convertor
from lexprobe.reporting.html import render_report
from lexprobe.view.investigation.documents import read_document
from lexprobe.view.investigation.index import SORT_COLUMNS, connect_read_only, distinct, ensure_index, page_of
from lexprobe.view.investigation.transcript import episode_page, load_record, messages_of
from lexprobe.view.run_gone import RunChangedError, RunGoneError, error_response, run_gone_message
from lexprobe.view.security import visible

register_id_convertor()  # `{name:id}`: a number of at most 18 digits, else no route (404)

PAGE_SIZE = 50
MAX_FILTER_CHARS = 500
MAX_PAGE = 10_000_000
MAX_API_LIMIT = 500
QA_LABELS = ("correct", "partial", "incorrect", "unscored", "pending", "unreadable")
_KEY = re.compile(r"^[\w.-]{1,300}$")
STATIC_DIR = Path(__file__).parent / "static"
#: The policy of the static copy, in a <meta http-equiv>: the server's policy less `frame-ancestors` (which Chromium
#: ignores in a <meta> and reports as a console error).
STATIC_CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'self'"
)


class NotFound(LookupError):
    """A run, record, document or check result that does not exist (the server answers 404)."""


class SectionPages:
    """What the pages of every viewer section share: a title, links that work served and from disk, and rendering
    with the section's templates and style sheet."""

    title = ""
    templates = ""  # the package of the section's templates
    stylesheet = ""

    def __init__(self, *, static: bool = False) -> None:
        self.static = static

    def list_href(self, number: int) -> str:
        """The link to one run's (or result's) page, relative to the mount."""
        return f"runs/{number}/" + ("index.html" if self.static else "")

    def _render(self, template: str, depth: int, **values: object) -> str:
        return render_report(f"{self.templates}:{template}",
            root="../" * depth, static=self.static, stylesheet=self.stylesheet, csp=STATIC_CSP, section=self.title,
            list_href=self.list_href, **values,
        )  # fmt: skip


@dataclass(frozen=True)
class ListQuery:
    """The filters and page of a list (validated by the caller)."""

    environment: str = ""
    model: str = ""
    outcome: str = ""  # episodes: "yes" | "no" (case solved); QA: a label
    page: int = 1
    sort: str = "key"  # a column of index.SORT_COLUMNS, "-" first for descending

    def filters(self, kind: str) -> dict[str, object]:
        """The index filters (column -> value) this query sets."""
        chosen: dict[str, object] = {
            name: value for name, value in (("environment", self.environment), ("model", self.model)) if value
        }
        if self.outcome:
            chosen["solved" if kind == "investigation" else "label"] = (
                int(self.outcome == "yes") if kind == "investigation" else self.outcome
            )
        return chosen


class RunPages(SectionPages):
    """The pages of one section: the investigation runs or the QA runs among the viewer's paths."""

    templates, stylesheet = "lexprobe.view.investigation", "runs.css"

    def __init__(self, kind: str, run_dirs: list[Path], *, static: bool = False) -> None:
        if kind not in ("investigation", "qa"):
            raise ValueError(f"unknown run kind {kind!r}")
        super().__init__(static=static)
        self.kind, self.run_dirs = kind, [Path(p) for p in run_dirs]
        self.title = "Investigation runs" if kind == "investigation" else "QA runs"
        self.table = "episodes" if kind == "investigation" else "qa"
        self.record_dir = EPISODES_DIR if kind == "investigation" else QA_DIR
        self.suffix = ".json" if kind == "investigation" else ".qa.json"

    # --- helpers ---------------------------------------------------------------------------------------------

    def run_dir(self, number: int) -> Path:
        """The run directory behind `runs/<number>/`; raises NotFound, or `RunGoneError` when it was deleted."""
        if not 0 <= number < len(self.run_dirs):
            raise NotFound(f"no run {number}")
        if not self.run_dirs[number].is_dir():
            raise RunGoneError(run_gone_message(self.run_dirs[number]))
        return self.run_dirs[number]

    def _render(self, template: str, depth: int, **values: object) -> str:
        return super()._render(template, depth, kind=self.kind, **values)

    def connection(self, number: int) -> sqlite3.Connection:
        """A read-only connection to the run's index, built or refreshed first (`ensure_index`)."""
        return connect_read_only(ensure_index(self.run_dir(number)))

    # --- pages ---------------------------------------------------------------------------------------------

    def index_page(self) -> str:
        """The section's runs, one row each."""
        runs = []
        for number, run_dir in enumerate(self.run_dirs):
            with self.connection(number) as connection:
                total = connection.execute(f"SELECT COUNT(*) FROM {self.table}").fetchone()[0]
            runs.append({"number": number, "label": run_dir.name or str(run_dir), "path": str(run_dir),
                         "total": total})  # fmt: skip
        return self._render("index.html.j2", 0, runs=runs)

    def rows(self, number: int, query: ListQuery, limit: int = PAGE_SIZE) -> tuple[list[dict], int]:
        """One page of the run's list (rows of the index) and the count of rows matching the filters."""
        with self.connection(number) as connection:
            offset = (query.page - 1) * limit
            return page_of(connection, self.table, query.filters(self.kind), offset, limit, query.sort)

    def list_page(self, number: int, query: ListQuery, limit: int = PAGE_SIZE) -> str:
        """A run's episodes (or questions): filters, one page of rows, links to the other pages."""
        run_dir = self.run_dir(number)
        rows, total = self.rows(number, query, limit)
        with self.connection(number) as connection:
            choices = {
                "environment": distinct(connection, self.table, "environment"),
                "model": distinct(connection, self.table, "model"),
                "label": distinct(connection, self.table, "label") if self.kind == "qa" else [],
            }
            everything = connection.execute(f"SELECT COUNT(*) FROM {self.table}").fetchone()[0]
        pages = max(1, -(-total // limit))
        return self._render("list.html.j2", 2, number=number, run_label=run_dir.name or str(run_dir),
                            run_path=str(run_dir), rows=rows, total=total, everything=everything, query=query,
                            choices=choices, pages=pages, first=(query.page - 1) * limit,
                            sort_columns=SORT_COLUMNS[self.table],
                            limit=limit)  # fmt: skip

    def _environment(self, episode: Episode, run_dir: Path) -> tuple[Path | None, Environment | None]:
        folder = resolve_env_dir(episode, run_dir, None)
        if folder is None:
            return None, None
        try:
            return folder, load_environment(folder)[0]
        except (OSError, ValueError):
            return folder, None

    def load(self, number: int, key: str) -> tuple[Episode, QARecord | None]:
        """The episode (and for QA the record around it) saved under `key`; raises NotFound."""
        run_dir = self.run_dir(number)
        try:
            text = load_record(run_dir / self.record_dir, key, self.suffix)
        except (FileNotFoundError, OSError):
            raise NotFound(f"no record {key!r} in run {number}") from None
        try:
            if self.kind == "qa":
                record = QARecord.model_validate_json(text)
                return record.episode, record
            return Episode.model_validate_json(text), None
        except ValueError as exc:
            raise NotFound(f"record {key!r} is not readable: {str(exc)[:300]}") from None

    def record_page(self, number: int, key: str) -> str:
        """One episode (investigation) or one question (QA)."""
        run_dir = self.run_dir(number)
        episode, record = self.load(number, key)
        folder, environment = self._environment(episode, run_dir)
        values = {"number": number, "key": key, "env_folder": str(folder) if folder else None,
                  "has_environment": environment is not None}  # fmt: skip
        if record is None:
            return self._render("episode.html.j2", 3, page=episode_page(episode, environment), **values)
        question = None
        if folder is not None:
            try:
                questions = load_environment(folder)[1].questions
                question = next((q for q in questions if q.question_id == record.question_id), None)
            except (OSError, ValueError):
                question = None
        rubric = []
        for position, item in enumerate(question.rubric if question else []):
            grade = record.grades[position] if record.grades and position < len(record.grades) else None
            rubric.append({"text": item.text, "fact_id": item.fact_id, "grade": grade})
        return self._render("question.html.j2", 3, record=record, question=question, rubric=rubric,
                            messages=messages_of(episode, environment), **values)  # fmt: skip

    def document_page(self, number: int, key: str, position: int) -> str:
        """The extracted text of document `position` of the environment of record `key`, when the record's
        transcript names it."""
        run_dir = self.run_dir(number)
        episode, _ = self.load(number, key)
        folder, environment = self._environment(episode, run_dir)
        if folder is None or environment is None or not 0 <= position < len(environment.documents):
            raise NotFound(f"no document {position} in the environment of {key!r}")
        document = environment.documents[position]
        named = {path for call in episode.tool_calls for path in call.documents}
        if document.path not in named:
            raise NotFound(f"the transcript of {key!r} names no document {position}")
        shown = read_document(folder, document)
        back = f"../../{self.record_dir}/{key}.html" if self.kind == "investigation" else f"../../qa/{key}.html"
        return self._render("document.html.j2", 4, shown=shown, number=number, key=key, back=back,
                            episode_id=episode.episode_id)  # fmt: skip

    def documents_named(self, number: int, key: str) -> list[int]:
        """The positions (in the environment) of the documents the record's transcript names (for the static copy)."""
        episode, _ = self.load(number, key)
        _, environment = self._environment(episode, self.run_dir(number))
        if environment is None:
            return []
        named = {path for call in episode.tool_calls for path in call.documents}
        return [position for position, doc in enumerate(environment.documents) if doc.path in named]


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

    routes = (
        Route("/runs/{number:id}/api/rows", rows),
        Route(f"/runs/{{number:id}}/{record_folder}/{{key}}.html", record),
        Route("/runs/{number:id}/documents/{key}/{position:id}.html", document),
    )
    return section_app(index, run_list, STATIC_DIR, routes, exception_handlers={RunChangedError: error_response})


def section_app(index: Callable, run: Callable, static_dir: Path, routes: Sequence[Route], **options: Any) -> Starlette:
    """A section's sub-app: `index` at / and index.html, `run` at runs/<n>/ and its index.html, then `routes` and the
    files of `static_dir` at static/; `options` go to Starlette."""
    pages = [Route(path, index) for path in ("/", "/index.html")]
    pages += [Route(path, run) for path in ("/runs/{number:id}/", "/runs/{number:id}/index.html")]
    static = Mount("/static", StaticFiles(directory=static_dir), name="static")
    return Starlette(routes=[*pages, *routes, static], **options)
