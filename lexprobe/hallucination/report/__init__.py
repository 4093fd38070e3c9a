"""What a run's profile looks like to a reader: the scored summary rows of `hallucination report`
(`summary`), how many answers a `--reader` model read (`readings`) and the self-contained HTML page (`html`,
matplotlib imported there only). The paper's published
estimates beside a profile are the sibling package `hallucination.reference`.

May import: `labels`, `reader`, `tasks`, `scorers`, `profile`, `reference` of this domain; `lexprobe.engine`,
`lexprobe.reporting`, `lexprobe.models`. Never `lexprobe.investigation`: the demo's page combining both domains is
`lexprobe.demo.investigation_rows`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lexprobe.lazy import lazy_exports

if TYPE_CHECKING:
    from lexprobe.hallucination.report.html import figures, rate_tables, write_html_report
    from lexprobe.hallucination.report.readings import reader_counts, reader_line
    from lexprobe.hallucination.report.summary import (
        ReportRow,
        pending_judge_requests,
        report_json,
        report_rows,
        score_run,
        summarize,
    )

__all__ = [
    "ReportRow",
    "figures",
    "pending_judge_requests",
    "rate_tables",
    "reader_counts",
    "reader_line",
    "report_json",
    "report_rows",
    "score_run",
    "summarize",
    "write_html_report",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    globals(),
    {
        "ReportRow": "summary",
        "figures": "html",
        "pending_judge_requests": "summary",
        "rate_tables": "html",
        "reader_counts": "readings",
        "reader_line": "readings",
        "report_json": "summary",
        "report_rows": "summary",
        "score_run": "summary",
        "summarize": "summary",
        "write_html_report": "html",
    },
)
