"""`lexprobe check --html OUT`: one self-contained page (inline CSS, no scripts, nothing loaded from the network)
showing each checked document's text with every citation highlighted by verdict - a colour, a legend, and the
reason and notes as the highlight's tooltip (`title`) - followed by a table of the citations, one of the quotations
and, with `--judge`, the "Propositions" table: each judge model's verdict (labelled as a model's judgement, with the
judge's name), the sentence, the passages shown to the judge and the reason. Every piece of text is escaped
(`lexprobe.reporting.html.escape`: `terminal.safe_text`, then HTML)."""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass

from markupsafe import Markup

from lexprobe.check.holdings import CONTRADICTED, NOT_SUPPORTED, SUPPORTED, UNJUDGED, HoldingVerdict, passage_label
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

#: A lone surrogate: how Python carries a byte of a POSIX file name that is not UTF-8 ("surrogateescape"), which no
#: UTF-8 writer accepts and a terminal must not receive raw.
_SURROGATE = re.compile(r"[\ud800-\udfff]")


def _visible(match: re.Match[str]) -> str:
    code = ord(match.group())
    if 0xDC80 <= code <= 0xDCFF:  # an undecodable byte, as "surrogateescape" carries it
        return f"\\x{code - 0xDC00:02x}"
    return f"\\u{code:04x}"


def display_name(path: str | os.PathLike[str]) -> str:
    """Return `path` as text that encodes as UTF-8: every byte that was not valid UTF-8 shown as "\\xNN", any
    other lone surrogate as "\\uXXXX"; a valid name is returned unchanged."""
    return _SURROGATE.sub(_visible, os.fspath(path))


#: (background, text) colours of the verdicts: good, questionable, wrong, not judged.
GREEN, AMBER, RED, GREY = ("#c8ecd0", "#1e6b32"), ("#ffe0a8", "#8a5300"), ("#ffc4c4", "#9b1c1c"), ("#e3e3e8", "#4a4a55")
COLOURS = {VERIFIED: GREEN, MISMATCH: AMBER, NOT_FOUND: RED, UNVERIFIABLE: GREY}
MEANINGS = {
    VERIFIED: "in the database; name and year as given",
    MISMATCH: "in the database, but the name, year, page or parallel citation disagrees",
    NOT_FOUND: "no such case where the database lists every decision: likely fabricated",
    UNVERIFIABLE: "outside what the database covers: not judged",
}

QUOTE_COLOURS = {
    Q_VERIFIED: GREEN,
    Q_ALTERED: AMBER,
    Q_NOT_FOUND: RED,
    Q_SEPARATE: ("#ecd5f5", "#5d1f7a"),
    Q_OTHER_CASE: ("#fde7c8", "#7a4100"),
    Q_UNVERIFIABLE: GREY,
}
QUOTE_MEANINGS = {
    Q_VERIFIED: "found in the cited opinion as quoted",
    Q_ALTERED: "found in the cited opinion with changed words",
    Q_NOT_FOUND: "in no opinion of the cited case",
    Q_SEPARATE: "found only in a dissent or concurrence, given as the Court's",
    Q_OTHER_CASE: "found in another case the document cites",
    Q_UNVERIFIABLE: "no opinion text offline",
}

HOLDING_COLOURS = {SUPPORTED: GREEN, CONTRADICTED: RED, NOT_SUPPORTED: AMBER, UNJUDGED: GREY}
HOLDING_MEANINGS = {
    SUPPORTED: "the judge model says the Court's opinion says it",
    CONTRADICTED: "the judge model says the opinion says otherwise, or only a separate opinion says it",
    NOT_SUPPORTED: "the judge model says nothing in the passages says it",
    UNJUDGED: "no judgement: no opinion text, no answer, or no plain verdict",
}
#: Characters of a passage shown to the judge that the page shows.
SHOWN_PASSAGE_CHARS = 1_500


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


def _table(headings: Sequence[str], rows: Sequence[str], attributes: str = "") -> str:
    """A table of `rows` (each a `<tr>`) under `headings`."""
    head = "".join(f"<th>{heading}</th>" for heading in headings)
    return f"<table{attributes}><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"


def _cited(number: int, citation: int, reason: str) -> str:
    """The last cells of a quotation's or a proposition's row: a link to its citation, and the reason."""
    return f'<td><a href="#d{number}-c{citation}">{citation + 1}</a></td><td>{escape(reason)}</td></tr>'


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
            + _cited(number, quotation.citation, quotation.reason)
        )
    headings = ("#", "verdict", "quotation", "passage in the opinion", "citation", "reason")
    return _table(headings, rows, ' class="quotations"')


def _citation_table(document: CheckedDocument, number: int) -> str:
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
    return _table(("#", "verdict", "citation", "database case", "reason"), rows)


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
    """The "Propositions" section for one document (`number`: its place on the page, for the links to its
    citations)."""
    judges = sorted({holding.judge for holding in holdings})
    rows = []
    for index, holding in enumerate(holdings):
        label = "model's judgement" if holding.judged else "not judged"
        rows.append(
            f'<tr id="d{number}-h{index}"><td>{index + 1}</td>'
            f'<td><span class="badge hv-{holding.verdict}">{holding.verdict}</span><br><small>{label}: '
            f"{escape(holding.judge)}</small></td>"
            f'<td class="proposition">{escape(holding.sentence)}</td><td class="passage">{_passages(holding)}</td>'
            + _cited(number, holding.citation, holding.reason)
        )
    over = f" {skipped} more over the --judge-max limit were not judged." if skipped else ""
    headings = ("#", "verdict", "proposition", "passages shown to the judge", "citation", "reason")
    return (
        f"<h3>Propositions</h3><p>{len(holdings)} propositions, each judged by the model "
        f"{escape(', '.join(judges))} (a model's judgement, not a verified fact).{over}</p>"
        + _table(headings, rows, ' class="holdings"')
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
                "table": Markup(_citation_table(document, number)),
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
