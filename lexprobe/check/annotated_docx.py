"""The annotated DOCX of a check (`lexprobe serve`'s download, `POST /api/annotated.docx`): each checked document's
text as Word paragraphs, every citation and quotation shaded in its verdict's colours (`render_html.COLOURS` and
`QUOTE_COLOURS`, the `--html` page's), its verdict, reason, notes and evidence passage as a Word comment anchored on
it, and a summary and legend at the top. Made from the same `CheckedDocument`s as the `--html` page and
`check --json` (no second notion of a verdict).

The text is untrusted: characters XML 1.0 forbids (C0 controls but tab, newline and carriage return; lone
surrogates; U+FFFE, U+FFFF) are removed piece by piece after the text is cut at the spans, so the highlights still
fall on the spans. Its size is bounded by the check's own limits (`documents.limits.MAX_TEXT_CHARS`, the service's
`MAX_CHECK_CHARS`); python-docx slows down quadratically with many comments and appended body paragraphs, so past
`MAX_COMMENTS` findings are shaded without a comment, and past `MAX_PARAGRAPHS` lines the rest of the line ends are
spaces (the summary says both)."""

from __future__ import annotations

import io
import re
from collections.abc import Sequence
from dataclasses import dataclass

import docx
from docx.document import Document as WordDocument
from docx.oxml import OxmlElement
from docx.oxml.ns import qn
from docx.shared import RGBColor
from docx.text.paragraph import Paragraph
from docx.text.run import Run

from lexprobe.check.quote_verdicts import QuotationVerdict, summarize_quotations
from lexprobe.check.render_html import (
    COLOURS,
    MEANINGS,
    QUOTE_COLOURS,
    QUOTE_MEANINGS,
    SHOWN_PASSAGE_CHARS,
    CheckedDocument,
    display_name,
)
from lexprobe.check.verify import VERDICTS, CitationVerdict, summarize

__all__ = ["DOCX_MEDIA_TYPE", "MAX_COMMENTS", "MAX_PARAGRAPHS", "annotated_docx", "xml_text"]

DOCX_MEDIA_TYPE = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
#: Comments written at most (python-docx numbers each new comment by scanning all the others).
MAX_COMMENTS = 1_000
#: Paragraphs of text written at most (over all documents: a 700-page brief has about 35,000 lines); past it, the
#: rest of the line ends are spaces.
MAX_PARAGRAPHS = 50_000
#: Characters of one comment at most.
MAX_COMMENT_CHARS = 4_000
AUTHOR, INITIALS = "lexprobe check", "LP"
#: What XML 1.0 forbids.
_NOT_XML = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def xml_text(text: str) -> str:
    """Return `text` without the characters XML 1.0 forbids (python-docx raises on them)."""
    return _NOT_XML.sub("", text)


@dataclass(frozen=True)
class _Mark:
    """One highlighted span: its colours, whether it is a quotation, and its comment."""

    start: int
    end: int
    colours: tuple[str, str]
    quotation: bool
    comment: str


def _citation_comment(verdict: CitationVerdict) -> str:
    lines = [f"citation {verdict.verdict}: {verdict.reason}"]
    if verdict.case is not None:
        case = verdict.case
        lines.append(f"database case: {case.name or ''} {case.citation or ''} ({case.year or '?'})")
    lines += [f"note: {note}" for note in verdict.notes]
    return "\n".join(lines)


def _quotation_comment(quotation: QuotationVerdict, cited: CitationVerdict | None) -> str:
    lines = [f"quotation {quotation.verdict}: {quotation.reason}"]
    if cited is not None:
        lines.append(f"cited: {cited.text}")
    if quotation.page is not None:
        lines.append(f"page {quotation.page}")
    evidence = quotation.evidence
    if evidence and evidence.get("passage"):
        who = ", ".join(str(evidence[k]) for k in ("case", "opinion_type", "author") if evidence.get(k))
        passage = str(evidence["passage"])
        if len(passage) > SHOWN_PASSAGE_CHARS:
            passage = passage[:SHOWN_PASSAGE_CHARS] + "…"
        lines.append(f"passage in the opinion ({who}): {passage}" if who else f"passage in the opinion: {passage}")
    return "\n".join(lines)


def _marks(document: CheckedDocument) -> tuple[list[_Mark], int]:
    """The document's marks in text order, overlapping ones left out (as on the `--html` page), and how many were."""
    marks = [_Mark(*v.span, COLOURS[v.verdict], False, _citation_comment(v)) for v in document.verdicts]
    for quotation in document.quotations:
        index = quotation.citation
        cited = document.verdicts[index] if 0 <= index < len(document.verdicts) else None
        comment = _quotation_comment(quotation, cited)
        marks.append(_Mark(*quotation.span, QUOTE_COLOURS[quotation.verdict], True, comment))
    kept: list[_Mark] = []
    position = 0
    for mark in sorted(marks, key=lambda m: (m.start, m.end)):
        if mark.start < position or mark.end <= mark.start or mark.end > len(document.text):
            continue
        kept.append(mark)
        position = mark.end
    return kept, len(marks) - len(kept)


def _shade(run: Run, colours: tuple[str, str], quotation: bool) -> None:
    """Give `run` the verdict's background (a shading) and text colour; a quotation is also underlined dashed."""
    background, foreground = colours
    shading = OxmlElement("w:shd")
    shading.set(qn("w:val"), "clear")
    shading.set(qn("w:color"), "auto")
    shading.set(qn("w:fill"), background.lstrip("#").upper())
    run._r.get_or_add_rPr().append(shading)
    run.font.color.rgb = RGBColor.from_string(foreground.lstrip("#").upper())
    if quotation:
        from docx.enum.text import WD_UNDERLINE

        run.font.underline = WD_UNDERLINE.DASH


class _Writer:
    """Appends text to the Word document paragraph by paragraph (in O(1) each: python-docx's `add_paragraph` looks
    for the section properties on every call), and comments while the budget lasts."""

    def __init__(self, document: WordDocument) -> None:
        self.document = document
        self.end = document.element.body.sectPr  # found once: python-docx looks for it through every paragraph
        self.paragraphs = 0
        self.comments = 0
        self.uncommented = 0
        self.joined = False  # whether line ends past `MAX_PARAGRAPHS` were made spaces
        self.paragraph = self.new_paragraph()

    def new_paragraph(self) -> Paragraph:
        """Start a paragraph at the end of the body (before its section properties)."""
        element = OxmlElement("w:p")
        self.end.addprevious(element)
        self.paragraphs += 1
        self.paragraph = Paragraph(element, self.document)
        return self.paragraph

    def write(self, text: str) -> list[Run]:
        """Write `text`, each line end starting a paragraph while under `MAX_PARAGRAPHS` (past it, the rest of the
        text's line ends are spaces); return its runs."""
        runs: list[Run] = []
        lines = [line.removesuffix("\r") for line in text.split("\n")]  # "\r\n": one line end
        lines[-1] = text.rsplit("\n", 1)[-1]  # the last piece has no line end after it
        room = max(MAX_PARAGRAPHS - self.paragraphs, 0)
        if len(lines) > room + 1:
            lines[room:] = [" ".join(lines[room:])]
            self.joined = True
        for number, line in enumerate(lines):
            if number:
                self.new_paragraph()
            if line:
                runs.append(self.paragraph.add_run(xml_text(line)))
        return runs

    def comment(self, runs: list[Run], text: str) -> None:
        """Anchor a comment saying `text` on `runs` (none past `MAX_COMMENTS`)."""
        if not runs:
            return
        if self.comments >= MAX_COMMENTS:
            self.uncommented += 1
            return
        text = xml_text(text if len(text) <= MAX_COMMENT_CHARS else text[: MAX_COMMENT_CHARS - 1] + "…")
        self.document.add_comment(runs, text=text, author=AUTHOR, initials=INITIALS)
        self.comments += 1


def _write_text(writer: _Writer, document: CheckedDocument, marks: Sequence[_Mark]) -> None:
    """The document's text with every mark shaded and commented."""
    position = 0
    for mark in marks:
        writer.write(document.text[position : mark.start])
        runs = writer.write(document.text[mark.start : mark.end])
        for run in runs:
            _shade(run, mark.colours, mark.quotation)
        writer.comment(runs, mark.comment)
        position = mark.end
    writer.write(document.text[position:])


def _legend(word: WordDocument) -> None:
    """One line per verdict: its colours on its name, and what it means."""
    word.add_paragraph("Legend (each highlight carries a comment: the verdict, the reason and the evidence):")
    for label, colours, meanings, quotation in (
        ("citation", COLOURS, MEANINGS, False),
        ("quotation", QUOTE_COLOURS, QUOTE_MEANINGS, True),
    ):
        for verdict, meaning in meanings.items():
            line = word.add_paragraph(style="List Bullet")
            _shade(line.add_run(f"{label} {verdict}"), colours[verdict], quotation)
            line.add_run(f": {meaning}")


def _counts(document: CheckedDocument) -> str:
    cited = summarize(document.verdicts)
    quoted = summarize_quotations(document.quotations)
    citations = ", ".join(f"{cited[v]} {v}" for v in VERDICTS)
    quotations = ", ".join(f"{n} {k}" for k, n in quoted.items() if n)
    return f"{len(document.verdicts)} citations ({citations}); {len(document.quotations)} quotations" + (
        f" ({quotations})" if quotations else ""
    )


def annotated_docx(documents: Sequence[CheckedDocument], title: str = "Citation check") -> bytes:
    """Return the annotated DOCX of `documents` (as `render_html.render_html` gets them) as the bytes of a .docx."""
    word = docx.Document()
    word.core_properties.title = xml_text(title)[:255]
    word.core_properties.author = AUTHOR
    word.add_heading(xml_text(title), level=0)
    summary = word.add_paragraph()
    for document in documents:
        summary.add_run(xml_text(f"{display_name(document.path)}: {_counts(document)}. "))
    _legend(word)
    writer = _Writer(word)
    skipped = 0
    for document in documents:
        writer.paragraph.add_run(xml_text(display_name(document.path))).bold = True
        writer.new_paragraph()
        marks, overlapping = _marks(document)
        skipped += overlapping
        _write_text(writer, document, marks)
        writer.new_paragraph()
    if skipped:
        summary.add_run(f"{skipped} overlapping finding(s) are not highlighted (they are in the JSON). ")
    if writer.uncommented:
        summary.add_run(f"Only the first {MAX_COMMENTS:,} findings carry a comment; {writer.uncommented:,} more are "
                        "highlighted without one (their reasons are in the JSON). ")  # fmt: skip
    if writer.joined:
        summary.add_run(f"Past {MAX_PARAGRAPHS:,} lines, the line ends are shown as spaces. ")
    buffer = io.BytesIO()
    word.save(buffer)
    return buffer.getvalue()
