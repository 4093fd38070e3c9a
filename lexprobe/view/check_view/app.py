"""The check results section of the viewer (`lexprobe check ... --json` output files): its pages, for the server
and the static copy alike (paths relative to the mount), and the Starlette sub-app serving them:

    index.html          every check result file given to the viewer
    runs/<n>/           one result: per checked file the text with every citation highlighted by verdict (a CSS
                        class per verdict, a legend, the reason and notes as the highlight's title) and the table of
                        its citations, filtered by verdict with radio buttons and CSS alone (no script)
    runs/<n>/api/citations?verdict=    the result's citations as JSON (only one verdict's when given)
    static/check.css    the stylesheet

A verdict that is not one of lexprobe's, or any other parameter, is a 400; an unknown result is a 404. Text from the
result file and the checked document is made visible (`safe_text`) and HTML-escaped (autoescape).
"""

from __future__ import annotations

from pathlib import Path

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse
from starlette.routing import Route

from lexprobe.check.render_html import MEANINGS
from lexprobe.check.verify import VERDICTS
from lexprobe.local_server import register_id_convertor
from lexprobe.view.check_view.load import CheckResult, NotACheckResult, load_check_result
from lexprobe.view.investigation.pages import NotFound, SectionPages, section_app
from lexprobe.view.security import visible

register_id_convertor()  # `{name:id}`: a number of at most 18 digits, else no route (404)

STATIC_DIR = Path(__file__).parent / "static"


class CheckPages(SectionPages):
    """The pages of the check results among the viewer's paths."""

    title, templates, stylesheet = "Check results", "lexprobe.view.check_view", "check.css"

    def __init__(self, paths: list[Path], *, static: bool = False) -> None:
        super().__init__(static=static)
        self.paths = [Path(p) for p in paths]

    def result(self, number: int) -> CheckResult:
        """The result file behind `runs/<number>/`, read now; raises NotFound."""
        if not 0 <= number < len(self.paths):
            raise NotFound(f"no check result {number}")
        return load_check_result(self.paths[number])

    def _render(self, template: str, depth: int, **values: object) -> str:
        return super()._render(template, depth, verdicts=VERDICTS, meanings=MEANINGS, **values)

    def index_page(self) -> str:
        """Every result file with its counts."""
        results = [(number, path, self.result(number)) for number, path in enumerate(self.paths)]
        return self._render("check_index.html.j2", 0, results=results)

    def result_page(self, number: int, verdict: str = "", limit: int | None = None) -> str:
        """One result: each file's highlighted text and citations (only `verdict`'s when given; at most `limit`
        rows per table, the page saying so)."""
        result = self.result(number)
        return self._render("check_result.html.j2", 2, number=number, result=result, label=self.paths[number].name,
                            only=verdict, limit=limit)  # fmt: skip


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

    return section_app(index, result, STATIC_DIR, [Route("/runs/{number:id}/api/citations", citations)])
