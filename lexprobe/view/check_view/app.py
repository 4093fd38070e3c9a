"""The Starlette sub-app of check results: the pages of `pages.CheckPages`, `static/check.css`, and
`runs/<n>/api/citations?verdict=` (the result's citations as JSON, only one verdict's when given). A verdict that
is not one of lexprobe's, or any other parameter, is a 400; an unknown result is a 404."""

from __future__ import annotations

from pathlib import Path

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from lexprobe.check.verify import VERDICTS
from lexprobe.local_server import register_id_convertor
from lexprobe.view.check_view.load import NotACheckResult
from lexprobe.view.check_view.pages import CheckPages, NotFound
from lexprobe.view.security import visible

register_id_convertor()  # `{name:id}`: a number of at most 18 digits, else no route (404)

STATIC_DIR = Path(__file__).parent / "static"


def _verdict(request: Request) -> str:
    unknown = sorted(set(request.query_params) - {"verdict"})
    if unknown:
        raise HTTPException(400, f"unknown parameter {unknown[0]!r}; known: verdict")
    verdict = request.query_params.get("verdict", "")
    if verdict and verdict not in VERDICTS:
        raise HTTPException(400, f"verdict must be one of {', '.join(VERDICTS)}")
    return verdict


def build_app(pages: CheckPages) -> Starlette:
    """The sub-app serving `pages`."""

    def guarded(render, *args):
        try:
            return render(*args)
        except NotFound as exc:
            raise HTTPException(404, str(exc)) from None
        except (NotACheckResult, OSError) as exc:  # changed on disk since the viewer started
            raise HTTPException(409, f"the result file cannot be read now: {exc}") from None

    def index(request: Request) -> HTMLResponse:
        _verdict(request)
        return HTMLResponse(guarded(pages.index_page))

    def result(request: Request) -> HTMLResponse:
        return HTMLResponse(guarded(pages.result_page, request.path_params["number"], _verdict(request)))

    def citations(request: Request) -> JSONResponse:
        verdict = _verdict(request)
        found = guarded(pages.result, request.path_params["number"])
        rows = [{"index": c.index, "text": c.text, "span": list(c.span), "verdict": c.verdict, "case": c.case,
                 "reason": c.reason, "notes": list(c.notes)} for c in found.citations
                if not verdict or c.verdict == verdict]  # fmt: skip
        return JSONResponse(visible({"total": len(rows), "citations": rows}))

    return Starlette(
        routes=[
            Route("/", index),
            Route("/index.html", index),
            Route("/runs/{number:id}/", result),
            Route("/runs/{number:id}/index.html", result),
            Route("/runs/{number:id}/api/citations", citations),
            Mount("/static", StaticFiles(directory=STATIC_DIR), name="static"),
        ]
    )
