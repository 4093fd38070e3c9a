"""The JSON of a check result: what `lexprobe check --json` prints and what the service (`lexprobe serve`,
`lexprobe mcp`) answers, built by one function so the interfaces cannot drift apart. Its shape is published as a
JSON Schema in docs/check-result.schema.json, whose `$id` carries `SCHEMA_VERSION`: a field may be added within a
version, never removed or renamed."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lexprobe.check.quote_verdicts import summarize_quotations
from lexprobe.check.render_html import CheckedDocument
from lexprobe.check.verify import VERDICTS, summarize

__all__ = ["SCHEMA_VERSION", "check_result"]

#: The version of the result format (docs/check-result.schema.json); every result carries it as `schema_version`.
SCHEMA_VERSION = "1.0"


def check_result(documents: Sequence[CheckedDocument], judge: str | None = None) -> dict[str, Any]:
    """The result of checking `documents`: all their citations in one list, in document order, and
    `summary.files` saying which slice is whose; the quotations in one list too, each `citation` an index into the
    combined `citations` list (so its file is the one whose slice holds that index). With `judge` (the model that
    judged the propositions), a `holdings` list likewise, and its counts in the summary."""
    citations: list[dict[str, Any]] = []
    quotations: list[dict[str, Any]] = []
    holdings: list[dict[str, Any]] = []
    files = []
    for document in documents:
        counts = summarize(document.verdicts)
        files.append({"path": document.path, "first": len(citations), "count": len(document.verdicts), **counts})
        quotations.extend(q.to_json(len(citations)) for q in document.quotations)
        holdings.extend(h.to_json(len(citations)) for h in document.holdings)
        citations.extend(v.to_json() for v in document.verdicts)
    totals = summarize(v for document in documents for v in document.verdicts)
    quote_totals = summarize_quotations([q for document in documents for q in document.quotations])
    payload: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "citations": citations,
        "quotations": quotations,
        "summary": {**{k: totals[k] for k in VERDICTS}, "quotations": quote_totals, "files": files},
    }
    if judge is not None:
        from lexprobe.check.holdings import Holdings, summarize_holdings

        payload["holdings"] = holdings
        payload["summary"]["holdings"] = {
            "judge": judge,
            **summarize_holdings([Holdings(list(d.holdings), d.holdings_skipped) for d in documents]),
        }
    return payload
