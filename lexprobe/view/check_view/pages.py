"""The HTML pages of check results, for the server and the static copy alike (paths relative to the mount):

    index.html          every check result file given to the viewer
    runs/<n>/           one result: per checked file the text with every citation highlighted by verdict (a CSS
                        class per verdict, a legend, the reason and notes as the highlight's title) and the table of
                        its citations, filtered by verdict with radio buttons and CSS alone (no script)
    static/check.css    the stylesheet

Text from the result file and the checked document is made visible (`safe_text`) and HTML-escaped (autoescape).
"""

from __future__ import annotations

from pathlib import Path

from lexprobe.check.render_html import MEANINGS
from lexprobe.check.verify import VERDICTS
from lexprobe.reporting.html import render_report
from lexprobe.view.check_view.load import CheckResult, load_check_result
from lexprobe.view.investigation.pages import STATIC_CSP


class NotFound(LookupError):
    """A result number that does not exist (the server answers 404)."""


class CheckPages:
    """The pages of the check results among the viewer's paths."""

    title = "Check results"

    def __init__(self, paths: list[Path], *, static: bool = False) -> None:
        self.paths, self.static = [Path(p) for p in paths], static

    def result(self, number: int) -> CheckResult:
        """The result file behind `runs/<number>/`, read now; raises NotFound."""
        if not 0 <= number < len(self.paths):
            raise NotFound(f"no check result {number}")
        return load_check_result(self.paths[number])

    def list_href(self, number: int) -> str:
        """The link to one result's page, relative to the mount."""
        return f"runs/{number}/" + ("index.html" if self.static else "")

    def _render(self, template: str, depth: int, **values: object) -> str:
        return render_report(f"lexprobe.view.check_view:{template}",
            root="../" * depth, static=self.static, csp=STATIC_CSP, section=self.title, stylesheet="check.css",
            list_href=self.list_href, verdicts=VERDICTS, meanings=MEANINGS, **values,
        )  # fmt: skip

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
