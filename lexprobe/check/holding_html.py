"""The "Propositions" section of the `lexprobe check --judge ... --html` page: one row per proposition with the judge
model's verdict (labelled as a model's judgement, with the judge's name), the sentence, the passages shown to the
judge beside it, and the reason. Every piece of text - the document's, the opinion's, the judge's reply - is
escaped (`lexprobe.reporting.html.escape`: `terminal.safe_text`, then HTML)."""

from __future__ import annotations

from collections.abc import Sequence

from lexprobe.check.holding_judge import CONTRADICTED, NOT_SUPPORTED, SUPPORTED
from lexprobe.check.holdings import UNJUDGED, HoldingVerdict, passage_label
from lexprobe.reporting.html import escape

HOLDING_COLOURS = {
    SUPPORTED: ("#c8ecd0", "#1e6b32"),
    CONTRADICTED: ("#ffc4c4", "#9b1c1c"),
    NOT_SUPPORTED: ("#ffe0a8", "#8a5300"),
    UNJUDGED: ("#e3e3e8", "#4a4a55"),
}
HOLDING_MEANINGS = {
    SUPPORTED: "the judge model says the Court's opinion says it",
    CONTRADICTED: "the judge model says the opinion says otherwise, or only a separate opinion says it",
    NOT_SUPPORTED: "the judge model says nothing in the passages says it",
    UNJUDGED: "no judgement: no opinion text, no answer, or no plain verdict",
}
#: Characters of a passage shown on the page.
SHOWN_PASSAGE_CHARS = 1_500


def _passages(holding: HoldingVerdict) -> str:
    parts = []
    for passage in holding.passages:
        text = passage.text if len(passage.text) <= SHOWN_PASSAGE_CHARS else passage.text[:SHOWN_PASSAGE_CHARS] + "…"
        where = passage_label(passage) + (f", page {passage.page}" if passage.page is not None else "")
        parts.append(
            f"<blockquote>{escape(text)}</blockquote><small>{escape(where)}; BM25 score {passage.score:.2f}</small>"
        )
    if len(parts) <= 1:
        return "".join(parts)
    more = f"<details><summary>{len(parts) - 1} more passage(s)</summary>{''.join(parts[1:])}</details>"
    return parts[0] + more  # the best one shown, the rest folded


def holdings_table(holdings: Sequence[HoldingVerdict], skipped: int, number: int) -> str:
    """The section for one document (`number`: its place on the page, for the links to its citations)."""
    judges = sorted({holding.judge for holding in holdings})
    rows = []
    for index, holding in enumerate(holdings):
        label = "model's judgement" if holding.judged else "not judged"
        rows.append(
            f'<tr id="d{number}-h{index}"><td>{index + 1}</td>'
            f'<td><span class="badge hv-{holding.verdict}">{holding.verdict}</span><br><small>{label}: '
            f"{escape(holding.judge)}</small></td>"
            f'<td class="proposition">{escape(holding.sentence)}</td><td class="passage">{_passages(holding)}</td>'
            f'<td><a href="#d{number}-c{holding.citation}">{holding.citation + 1}</a></td>'
            f"<td>{escape(holding.reason)}</td></tr>"
        )
    over = f" {skipped} more over the --judge-max limit were not judged." if skipped else ""
    return (
        f"<h3>Propositions</h3><p>{len(holdings)} propositions, each judged by the model "
        f"{escape(', '.join(judges))} (a model's judgement, not a verified fact).{over}</p>"
        '<table class="holdings"><thead><tr><th>#</th><th>verdict</th><th>proposition</th><th>passages shown to '
        "the judge</th><th>citation</th><th>reason</th></tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table>"
    )
