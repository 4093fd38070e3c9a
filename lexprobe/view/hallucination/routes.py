"""The Starlette sub-app of the hallucination view, mounted at `/hallucination`: the list page, its JSON API
(`api/facets`, `api/units`, `api/unit/{run}/{uid}`, `api/same`) and each run's report with links relative to the
viewer (`report`). A number in a path has at most 18 digits (else no route: 404); a run deleted, replaced or
changed since the viewer started is one error naming it (`view.run_gone`)."""

from __future__ import annotations

import re
from pathlib import Path

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from lexprobe.errors import BadInputError, LexprobeError
from lexprobe.local_server import register_id_convertor
from lexprobe.reporting.html import render_report
from lexprobe.view.hallucination.detail import unit_detail
from lexprobe.view.hallucination.queries import SORT_COLUMNS, UnitStore, parse_query
from lexprobe.view.run_gone import RunChangedError, error_response
from lexprobe.view.security import visible

register_id_convertor()  # `{name:id}`: a number of at most 18 digits, else no route (404)

_STYLE_BLOCK = re.compile(r"<style>(.*?)</style>", re.DOTALL)


def _error(message: str, status: int = 400) -> JSONResponse:
    return JSONResponse({"error": visible(message)}, status_code=status)


def facets(store: UnitStore) -> dict:
    """Return the filter menus' choices: each facet column's values over every run, the models and the years."""
    values: dict[str, set[str]] = {}
    for index in store.indexes:
        for column, found in index.facets.items():
            values.setdefault(column, set()).update(found)
    years = [year for index in store.indexes for year in index.years if year is not None]
    return {
        "facets": {column: sorted(found) for column, found in values.items()} | {"model": list(store.labels)},
        "years": [min(years), max(years)] if years else [None, None],
        "total": sum(index.units for index in store.indexes),
        "sort_columns": list(SORT_COLUMNS),
    }


def report_page(run_dirs: list[Path], viewer_url: str) -> tuple[str, str]:
    """Return the runs' HTML report (its rate cells linking to `viewer_url`) with its style block moved out, and
    that style sheet (the viewer's policy allows no inline style)."""
    import tempfile

    from lexprobe.caselaw.judges import load_roster
    from lexprobe.hallucination.profile.results import read_runs
    from lexprobe.hallucination.profile.stats import profile
    from lexprobe.hallucination.report.html import write_html_report
    from lexprobe.hallucination.tasks import TASKS

    infos, units = read_runs(run_dirs)
    stats = profile(units, load_roster())
    models = [info.as_row() for info in infos]
    self_judged = {row["model"] for row in models if row["self_judged"]}
    for row in stats["rates"]:
        task = TASKS.get(row.get("task", ""))
        row["self_judged"] = bool(task and task.reference_free and row.get("model") in self_judged)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "report.html"
        coverage = [row for info in infos for row in info.coverage_rows()]
        write_html_report(path, models, stats, units, coverage=coverage, viewer_url=viewer_url)
        html = path.read_text(encoding="utf-8")
    styles = "\n".join(_STYLE_BLOCK.findall(html))
    return _STYLE_BLOCK.sub('<link rel="stylesheet" href="report.css">', html, count=1), styles


def hallucination_app(store: UnitStore) -> Starlette:
    """Return the sub-app over `store` (the runs' indexes)."""
    pages = _Pages(store)
    static = Path(__file__).with_name("static")
    return Starlette(
        routes=[
            Route("/", pages.list_page),
            Route("/api/facets", pages.api_facets),
            Route("/api/units", pages.api_units),
            Route("/api/unit/{run:id}/{uid:id}", pages.api_unit),
            Route("/api/same", pages.api_same),
            Route("/report/", pages.report),
            Route("/report/report.css", pages.report_css),
            Mount("/static", StaticFiles(directory=static), name="static"),
        ],
        exception_handlers={RunChangedError: error_response},
    )


class _Pages:
    """The sub-app's endpoints over one `UnitStore`; the report page is rendered once and kept."""

    def __init__(self, store: UnitStore) -> None:
        self.store = store
        self.run_dirs = [index.run_dir for index in store.indexes]
        self.cached_report: dict[str, tuple[str, str]] = {}

    def list_page(self, request: Request) -> HTMLResponse:
        html = render_report("lexprobe.view.hallucination:units.html", title="Hallucination runs", root="../",
                             static_csp="", mode="server", notice="", data_files=[])  # fmt: skip
        return HTMLResponse(html)

    def api_facets(self, request: Request) -> JSONResponse:
        self.store.check()
        return JSONResponse(visible(facets(self.store)))

    def api_units(self, request: Request) -> JSONResponse:
        params: dict[str, list[str]] = {}
        for key, value in request.query_params.multi_items():
            params.setdefault(key, []).append(value)
        try:
            return JSONResponse(visible(self.store.page(parse_query(params))))
        except BadInputError as exc:
            return _error(str(exc))

    def api_unit(self, request: Request) -> JSONResponse:
        run, uid = request.path_params["run"], request.path_params["uid"]
        row = self.store.unit(run, uid)
        if row is None:
            return _error(f"no unit {run}/{uid}", 404)
        try:
            detail = unit_detail(self.store.indexes[run].run_dir, row["request_id"])
        except RunChangedError:
            raise
        except LexprobeError as exc:
            return _error(str(exc), 500)
        return JSONResponse(visible({"unit": row, "detail": detail}))

    def api_same(self, request: Request) -> JSONResponse:
        key = request.query_params.get("key", "")
        if not key or len(key) > 1000:
            return _error("key must name one question (its item key)")
        return JSONResponse(visible({"key": key, "rows": self.store.same_question(key)}))

    def _report(self) -> tuple[str, str]:
        self.store.check()
        if "page" not in self.cached_report:
            self.cached_report["page"] = report_page(self.run_dirs, "../../")
        return self.cached_report["page"]

    def report(self, request: Request) -> HTMLResponse:
        return HTMLResponse(self._report()[0])

    def report_css(self, request: Request) -> Response:
        return Response(self._report()[1], media_type="text/css")
