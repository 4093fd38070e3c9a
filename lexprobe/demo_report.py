"""The demo's combined page: the hallucination report with the demo's investigation table under it.

The page itself is the hallucination domain's (`hallucination/report/html.py`), which takes the investigation rows
as plain formatted cells; turning an investigation scoring summary into those rows lives here, above both domains,
so neither domain imports the other (docs/architecture.md, "Import rules").
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from lexprobe.investigation.scoring import BaselineSummary, ModelSummary, ScoreSummary

__all__ = ["investigation_rows"]


def _fmt(rate: float | None) -> str:
    """Format one rate as the hallucination report formats its cells: three decimals, or a dash when absent."""
    return "–" if rate is None else f"{rate:.3f}"


def _verdict_cells(record: ModelSummary | BaselineSummary) -> dict[str, str]:
    return {
        "case_solved": _fmt(record.case_solved),
        "believe_acc": _fmt(record.believe_acc),
        "reject_acc": _fmt(record.reject_acc),
        "worst_class_acc": _fmt(record.worst_class_acc),
        "commit_rate": _fmt(record.commit_rate),
    }


def investigation_rows(summary: ScoreSummary) -> list[dict]:
    """Return the rows of the demo's investigation table (formatted cells for the template): each model, then the
    exact naive baselines."""
    rows = []
    for record in summary.models:
        rows.append({"name": record.model, "n": record.n_episodes, **_verdict_cells(record),
                     "coverage": _fmt(record.coverage), "signal_recall": _fmt(record.signal_recall)})  # fmt: skip
    for name, baseline in summary.baselines.items():
        rows.append({"name": f"baseline: {name.replace('_', ' ')}", "n": "exact", **_verdict_cells(baseline),
                     "coverage": "–", "signal_recall": "–"})  # fmt: skip
    return rows
