"""The HTML page of an investigation study (`lexprobe investigation score RUN_DIR... --html FILE`): the score summary
as tables and figures, with the paper's rows when a reference is given (`html`; its template is
`lexprobe/investigation/templates/report.html.j2`).

May import: `lexprobe.investigation.scoring`, `lexprobe.investigation.reference`, `lexprobe.reporting`,
`lexprobe.terminal`. The names below are exported lazily (`lexprobe.lazy`): importing the package does not import
matplotlib (`html` does).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lexprobe.lazy import lazy_exports

if TYPE_CHECKING:
    from lexprobe.investigation.report.html import write_investigation_report

__all__ = [
    "write_investigation_report",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    globals(),
    {
        "write_investigation_report": "html",
    },
)
