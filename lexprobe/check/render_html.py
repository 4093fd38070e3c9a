"""`lexprobe check --html OUT`: one self-contained page (inline CSS, no scripts, nothing loaded from the network)
showing each checked document's text with every citation highlighted by verdict - a colour, a legend, and the
reason and notes as the highlight's tooltip (`title`) - followed by a table of the citations."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from markupsafe import Markup

from lexprobe.check.holding_html import HOLDING_COLOURS, HOLDING_MEANINGS, holdings_table
from lexprobe.check.holdings import HoldingVerdict
from lexprobe.check.names import display_name
from lexprobe.check.quote_verdicts import (
    Q_ALTERED,
    Q_NOT_FOUND,
    Q_OTHER_CASE,
    Q_SEPARATE,
    Q_UNVERIFIABLE,
    Q_VERIFIED,
    QuotationVerdict,
    summarize_quotations,
)
from lexprobe.check.verify import MISMATCH, NOT_FOUND, UNVERIFIABLE, VERDICTS, VERIFIED, CitationVerdict, summarize
from lexprobe.reporting.html import escape, render_report
from lexprobe.terminal import safe_text

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

QUOTE_COLOURS = {
    Q_VERIFIED: ("#c8ecd0", "#1e6b32"),
    Q_ALTERED: ("#ffe0a8", "#8a5300"),
    Q_NOT_FOUND: ("#ffc4c4", "#9b1c1c"),
    Q_SEPARATE: ("#ecd5f5", "#5d1f7a"),
    Q_OTHER_CASE: ("#fde7c8", "#7a4100"),
    Q_UNVERIFIABLE: ("#e3e3e8", "#4a4a55"),
}
QUOTE_MEANINGS = {
    Q_VERIFIED: "found in the cited opinion as quoted",
    Q_ALTERED: "found in the cited opinion with changed words",
    Q_NOT_FOUND: "in no opinion of the cited case",
    Q_SEPARATE: "found only in a dissent or concurrence, given as the Court's",
    Q_OTHER_CASE: "found in another case the document cites",
    Q_UNVERIFIABLE: "no opinion text offline",
}


@dataclass(frozen=True)
class CheckedDocument:
    """One checked document: its name, its extracted text and the verdicts (spans index into `text`)."""

    path: str
    text: str
    verdicts: Sequence[CitationVerdict]
    quotations: Sequence[QuotationVerdict] = ()
    holdings: Sequence[HoldingVerdict] = ()  # `--judge` only
    holdings_skipped: int = 0


def _tooltip(verdict: CitationVerdict) -> str:
    lines = [f"{verdict.verdict}: {verdict.reason}", *(f"note: {note}" for note in verdict.notes)]
    return "\n".join(lines)


def _quote_tooltip(quotation: QuotationVerdict) -> str:
    lines = [f"quotation {quotation.verdict}: {quotation.reason}"]
    if quotation.evidence:
        lines.append(f"passage: {quotation.evidence['passage'][:600]}")
    return "\n".join(lines)


def _highlighted(document: CheckedDocument, number: int) -> str:
    """The document's text, escaped, with every citation and quotation marked (overlapping ones only listed)."""
    marks: list[tuple[tuple[int, int], str, str]] = []
    for index, verdict in enumerate(document.verdicts):
        marks.append((verdict.span, f'class="v-{verdict.verdict}" id="d{number}-c{index}"', _tooltip(verdict)))
    for index, quotation in enumerate(document.quotations):
        marks.append(
            (quotation.span, f'class="q qv-{quotation.verdict}" id="d{number}-q{index}"', _quote_tooltip(quotation))
        )
    parts: list[str] = []
    position = 0
    for (start, end), attributes, tooltip in sorted(marks, key=lambda item: item[0]):
        if start < position or end <= start:
            continue  # overlapping spans are listed in the table only
        parts.append(escape(document.text[position:start]))
        parts.append(f'<mark {attributes} title="{escape(tooltip)}">{escape(document.text[start:end])}</mark>')
        position = end
    parts.append(escape(document.text[position:]))
    return "".join(parts)


def _quotation_table(document: CheckedDocument, number: int) -> str:
    """Each quotation beside the passage found for it (or the closest one), with its verdict and reason."""
    rows = []
    for index, quotation in enumerate(document.quotations):
        shown = quotation.text if len(quotation.text) <= 2000 else quotation.text[:1999] + "…"
        evidence = quotation.evidence
        passage = ""
        if evidence:
            who = ", ".join(str(part) for part in (evidence.get("case"), evidence.get("opinion_type"),
                                                   evidence.get("author")) if part)  # fmt: skip
            passage = f"<blockquote>{escape(evidence['passage'])}</blockquote><small>{escape(who)}</small>"
        page = f"<br><small>page {quotation.page}</small>" if quotation.page is not None else ""
        rows.append(
            f'<tr><td><a href="#d{number}-q{index}">{index + 1}</a></td>'
            f'<td><span class="badge qv-{quotation.verdict}">{quotation.verdict}</span></td>'
            f'<td class="quote">{escape(shown)}</td><td class="passage">{passage}{page}</td>'
            f'<td><a href="#d{number}-c{quotation.citation}">{quotation.citation + 1}</a></td>'
            f"<td>{escape(quotation.reason)}</td></tr>"
        )
    return (
        '<table class="quotations"><thead><tr><th>#</th><th>verdict</th><th>quotation</th><th>passage in the '
        f"opinion</th><th>citation</th><th>reason</th></tr></thead><tbody>{''.join(rows)}</tbody></table>"
    )


def _table(document: CheckedDocument, number: int) -> str:
    rows = []
    for index, verdict in enumerate(document.verdicts):
        case = verdict.case
        case_cell = escape(f"{case.name or ''} {case.citation or ''} ({case.year or '?'})") if case else ""
        notes = "".join(f"<br><small>{escape(note)}</small>" for note in verdict.notes)
        rows.append(
            f'<tr><td><a href="#d{number}-c{index}">{index + 1}</a></td>'
            f'<td><span class="badge v-{verdict.verdict}">{verdict.verdict}</span></td>'
            f"<td>{escape(verdict.text)}</td><td>{case_cell}</td>"
            f"<td>{escape(verdict.reason)}{notes}</td></tr>"
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
                "path": safe_text(display_name(document.path)),  # valid UTF-8 even for a name that was not
                "n_citations": len(document.verdicts),
                "counts": ", ".join(f"{own[verdict]} {verdict}" for verdict in VERDICTS),
                "highlighted": Markup(_highlighted(document, number)),  # escaped piece by piece
                "table": Markup(_table(document, number)),
                "n_quotations": len(document.quotations),
                "quote_counts": ", ".join(f"{n} {k}" for k, n in summarize_quotations(document.quotations).items()),
                "quotation_table": Markup(_quotation_table(document, number)) if document.quotations else "",
                "holdings_table": Markup(holdings_table(document.holdings, document.holdings_skipped, number))
                if document.holdings or document.holdings_skipped
                else "",
            }
        )
    return render_report(
        "lexprobe.check:report.html.j2",
        title=title,
        colours=COLOURS,
        quote_colours=QUOTE_COLOURS,
        quote_meanings=QUOTE_MEANINGS,
        holding_colours=HOLDING_COLOURS,
        holding_meanings=HOLDING_MEANINGS if any(d.holdings for d in documents) else {},
        meanings=MEANINGS,
        verdicts=VERDICTS,
        n_citations=sum(len(d.verdicts) for d in documents),
        totals=", ".join(f"{counts[verdict]} {verdict}" for verdict in VERDICTS),
        documents=pages,
    )
