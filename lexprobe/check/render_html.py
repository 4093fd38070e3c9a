"""`lexprobe check --html OUT`: one self-contained page (inline CSS, no scripts, nothing loaded from the network)
showing each checked document's text with every citation highlighted by verdict - a colour, a legend, and the
reason and notes as the highlight's tooltip (`title`) - followed by a table of the citations."""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass

from markupsafe import Markup

from lexprobe.check.names import display_name
from lexprobe.check.quote_verdicts import QuotationVerdict
from lexprobe.check.verify import MISMATCH, NOT_FOUND, UNVERIFIABLE, VERDICTS, VERIFIED, CitationVerdict, summarize
from lexprobe.reporting.html import render_report

COLOURS = {
    VERIFIED: ("#c8ecd0", "#1e6b32"),
    MISMATCH: ("#ffe0a8", "#8a5300"),
    NOT_FOUND: ("#ffc4c4", "#9b1c1c"),
    UNVERIFIABLE: ("#e3e3e8", "#4a4a55"),
}
MEANINGS = {
    VERIFIED: "in the database; name and year as given",
    MISMATCH: "in the database, but the name, year, page or parallel citation disagrees",
    NOT_FOUND: "no such case where the database lists every decision: likely fabricated",
    UNVERIFIABLE: "outside what the database covers: not judged",
}


@dataclass(frozen=True)
class CheckedDocument:
    """One checked document: its name, its extracted text and the verdicts (spans index into `text`)."""

    path: str
    text: str
    verdicts: Sequence[CitationVerdict]
    quotations: Sequence[QuotationVerdict] = ()


def _tooltip(verdict: CitationVerdict) -> str:
    lines = [f"{verdict.verdict}: {verdict.reason}", *(f"note: {note}" for note in verdict.notes)]
    return "\n".join(lines)


def _highlighted(document: CheckedDocument, number: int) -> str:
    parts: list[str] = []
    position = 0
    for index, verdict in sorted(enumerate(document.verdicts), key=lambda item: item[1].span):
        start, end = verdict.span
        if start < position or end <= start:
            continue  # overlapping spans are listed in the table only
        parts.append(html.escape(document.text[position:start]))
        parts.append(
            f'<mark class="v-{verdict.verdict}" id="d{number}-c{index}" title="{html.escape(_tooltip(verdict))}">'
            f"{html.escape(document.text[start:end])}</mark>"
        )
        position = end
    parts.append(html.escape(document.text[position:]))
    return "".join(parts)


def _table(document: CheckedDocument, number: int) -> str:
    rows = []
    for index, verdict in enumerate(document.verdicts):
        case = verdict.case
        case_cell = html.escape(f"{case.name or ''} {case.citation or ''} ({case.year or '?'})") if case else ""
        notes = "".join(f"<br><small>{html.escape(note)}</small>" for note in verdict.notes)
        rows.append(
            f'<tr><td><a href="#d{number}-c{index}">{index + 1}</a></td>'
            f'<td><span class="badge v-{verdict.verdict}">{verdict.verdict}</span></td>'
            f"<td>{html.escape(verdict.text)}</td><td>{case_cell}</td>"
            f"<td>{html.escape(verdict.reason)}{notes}</td></tr>"
        )
    return (
        "<table><thead><tr><th>#</th><th>verdict</th><th>citation</th><th>database case</th><th>reason</th></tr>"
        f"</thead><tbody>{''.join(rows)}</tbody></table>"
    )


def render_html(documents: Sequence[CheckedDocument], title: str = "Citation check") -> str:
    """Return the page for `documents` as a string (`templates/report.html.j2` on the shared report base)."""
    counts = summarize(v for document in documents for v in document.verdicts)
    pages = []
    for number, document in enumerate(documents):
        own = summarize(document.verdicts)
        pages.append(
            {
                "path": display_name(document.path),  # valid UTF-8 even for a name that was not
                "n_citations": len(document.verdicts),
                "counts": ", ".join(f"{own[verdict]} {verdict}" for verdict in VERDICTS),
                "highlighted": Markup(_highlighted(document, number)),  # escaped piece by piece
                "table": Markup(_table(document, number)),
            }
        )
    return render_report(
        "lexprobe.check:report.html.j2",
        title=title,
        colours=COLOURS,
        meanings=MEANINGS,
        verdicts=VERDICTS,
        n_citations=sum(len(d.verdicts) for d in documents),
        totals=", ".join(f"{counts[verdict]} {verdict}" for verdict in VERDICTS),
        documents=pages,
    )
