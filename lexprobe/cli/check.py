"""`lexprobe check FILE...`: verify the case citations in briefs or model answers (rules: docs/check.md).

Exit codes, like a linter: 0 when every citation is verified or unverifiable (nothing wrong was found); 1 when any
citation is a mismatch or not_found; 2 for bad input (an unreadable document, one over a limit of
`lexprobe.documents.limits`, no case database).

Document text, file names and database names are untrusted: everything printed goes through
`lexprobe.terminal.safe_text` / `safe_markup`, so no control sequence reaches the terminal and no Rich markup in a
document is read as markup. File names are shown through `lexprobe.check.render_html.display_name` (a byte that is not
valid UTF-8 as "\\xNN") on the terminal, in `--json` and in the `--html` page, which is written atomically (as is the
`--docx` document).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table
from rich.text import Text

from lexprobe.cli.options import DbOpt, html_option, json_flag, open_case_db
from lexprobe.cli.output import err, out, warning
from lexprobe.errors import BadInputError
from lexprobe.terminal import safe_markup, safe_text

if TYPE_CHECKING:
    from lexprobe.check.run_check import Note

#: `--online-timeout`'s default: `lexprobe.check.online.DEFAULT_ONLINE_TIMEOUT_S`, written out here because importing
#: `lexprobe.check` would load eyecite for every `--help` (a test keeps the two equal).
DEFAULT_ONLINE_TIMEOUT_S = 120.0

VERDICT_STYLES = {"verified": "green", "mismatch": "yellow", "not_found": "bold red", "unverifiable": "dim"}
QUOTE_STYLES = {
    "verified": "green",
    "altered": "yellow",
    "not_found": "bold red",
    "separate_opinion": "magenta",
    "other_case": "yellow",
    "unverifiable": "dim",
}
HOLDING_STYLES = {"supported": "green", "contradicted": "bold red", "not_supported": "yellow", "unjudged": "dim"}


def register(app: typer.Typer) -> None:
    """Add the top-level `check` command to `app`."""
    app.command("check")(check)


OnlineOpt = Annotated[
    bool,
    typer.Option(
        "--online",
        help="Ask CourtListener's citation lookup about citations the database cannot verify, and fetch the "
        "opinion texts it lacks to check quotations (COURTLISTENER_API_TOKEN; answers cached in LEXPROBE_CACHE).",
    ),
]
OnlineTimeoutOpt = Annotated[
    float,
    typer.Option(
        "--online-timeout",
        min=1.0,
        metavar="SECONDS",
        help="With --online: seconds all of CourtListener's requests may take together (lookups and opinion "
        "texts); past it --online is skipped for the rest and the offline verdicts stand.",
    ),
]
JudgeOpt = Annotated[
    str | None,
    typer.Option(
        "--judge",
        metavar="MODEL",
        help="Also ask this model (a spec as for --model: local, scripted:FILE, openai/...) whether each cited "
        "opinion supports the sentence citing it, given the opinion's most relevant passages (BM25); each "
        'judgement cached and labelled as the model\'s (docs/check.md, "Holdings and propositions").',
    ),
]
JudgeTemplateOpt = Annotated[
    Path | None,
    typer.Option("--judge-template", metavar="FILE", help="A Jinja template replacing the judge's prompt."),
]
JudgeMaxOpt = Annotated[
    int, typer.Option("--judge-max", min=1, help="With --judge: propositions judged per document at most.")
]
DocxOpt = Annotated[
    Path | None,
    typer.Option(
        "--docx",
        help="Also write the text as a Word document: every citation and quotation shaded by verdict, its reason and "
        "evidence as a comment.",
    ),
]
JudgeTimeoutOpt = Annotated[
    float, typer.Option("--judge-timeout", min=1.0, help="With --judge: seconds per judge request.")
]


def check(
    files: Annotated[list[Path], typer.Argument(help="Documents to check: .txt, .md, .docx or .pdf.")],
    db: DbOpt = None,
    as_json: json_flag('Print {"citations": [...], "summary": {...}} (see docs/check.md).') = False,
    html: html_option("Also write the text with every citation highlighted to this file.") = None,
    docx_out: DocxOpt = None,
    online: OnlineOpt = False,
    online_timeout: OnlineTimeoutOpt = DEFAULT_ONLINE_TIMEOUT_S,
    judge: JudgeOpt = None,
    judge_template: JudgeTemplateOpt = None,
    judge_max: JudgeMaxOpt = 50,
    judge_timeout: JudgeTimeoutOpt = 120.0,
) -> None:
    """Check every case citation in the documents (full citations, short forms, Id., supra) against the case
    database: verified, mismatch (name, year or page disagrees), not_found (no such case where the database is
    complete: likely fabricated) or unverifiable (not covered), with overruled cases and pin cites outside the
    opinion noted.

    With --judge MODEL, a model also judges whether each cited opinion supports the sentence citing it (a model's
    judgement, labelled so).

    Exit code 0: nothing wrong found; 1: a mismatch or not_found (or a quotation or, with --judge, a proposition
    found wanting); 2: bad input.
    Example: `lexprobe check brief.pdf --html brief-check.html`
    """
    from lexprobe.check.render_html import render_html
    from lexprobe.check.result_json import check_result
    from lexprobe.check.run_check import CheckSettings, check_documents, found_problems
    from lexprobe.check.verify import summarize

    judged = None
    if judge is not None:
        from lexprobe.check.holdings import JudgeSettings

        judged = JudgeSettings(judge, judge_template, judge_max, judge_timeout)
    settings = CheckSettings(online, online_timeout, judged)
    documents = check_documents(files, lambda: open_case_db(db), settings, _print_note)
    if as_json:
        print(json.dumps(check_result(documents, judge)))
    else:
        for document in documents:
            _print_table(document, summarize)
    if html is not None:
        _save(html, render_html(documents).encode("utf-8"), "HTML")
    if docx_out is not None:
        from lexprobe.check.annotated_docx import annotated_docx

        _save(docx_out, annotated_docx(documents), "DOCX")
    if found_problems(documents):
        raise typer.Exit(1)


def _save(path: Path, data: bytes, label: str) -> None:
    """Write a report file atomically and name it on stderr (a file that cannot be written is bad input)."""
    from lexprobe.check.render_html import display_name
    from lexprobe.reporting.html import write_file

    try:
        write_file(path, data)
    except OSError as exc:
        raise BadInputError(safe_text(f"cannot write {display_name(path)}: {exc.strerror or exc}")) from None
    err.print(
        f"[dim]{label}: {safe_markup(display_name(path.resolve()))}[/]", highlight=False, emoji=False, soft_wrap=True
    )


def _print_note(note: Note) -> None:
    """A note of the check on stderr: a warning after a yellow "warning:", a dim one dimmed."""
    if note.kind == "warning":
        warning(note.text, soft_wrap=note.wrap)
    else:
        err.print(Text(safe_text(note.text), style=note.kind), highlight=False, soft_wrap=note.wrap)


def _context(text: str, span: tuple[int, int], words: int = 8) -> Text:
    """A few words either side of the citation, the citation in bold (made terminal-safe by `safe_text`)."""
    start, end = span
    before = " ".join(text[max(0, start - 200) : start].split(" "))
    before = " ".join(" ".join(before.split("\n")).split(" ")[-(words + 1) :])
    after = " ".join(text[end : end + 200].split("\n")).split(" ")[: words + 1]
    line = Text(safe_text(("… " if start > len(before) else "") + " ".join(before.split())), style="dim")
    if before[-1:] == " ":
        line.append(" ")
    line.append(safe_text(" ".join(text[start:end].split())), style="bold")
    tail = " ".join(after)
    line.append(safe_text(tail.rstrip() + (" …" if end + len(tail) < len(text.rstrip()) else "")), style="dim")
    return line


def _findings_table(title: str, *columns: tuple[str, int | None]) -> Table:
    """A table of one document's findings: a number column, then `columns` (name, width ratio; None: a column that
    never wraps, right-aligned when it is a number: "cit.")."""
    table = Table(title=Text(safe_text(title)), show_lines=True, expand=True)
    table.add_column("#", justify="right", no_wrap=True)
    for name, ratio in columns:
        if ratio is None:
            table.add_column(name, justify="right" if name == "cit." else "left", no_wrap=True)
        else:
            table.add_column(name, ratio=ratio)
    return table


def _counts_text(counts: dict[str, int]) -> str:
    """ "3 verified, 1 mismatch, ...": each count and what it counts."""
    return ", ".join(f"{counts[k]} {k}" for k in counts)


def _print_table(document, summarize) -> None:
    counts = summarize(document.verdicts)
    title = f"{document.path}: {len(document.verdicts)} citations"
    table = _findings_table(title, ("verdict", None), ("citation in context", 3), ("reason", 4))
    for index, verdict in enumerate(document.verdicts, start=1):
        reason = Text(safe_text(verdict.reason))
        for note in verdict.notes:
            reason.append(safe_text(f"\nnote: {note}"), style="italic")
        table.add_row(
            str(index),
            Text(verdict.verdict, style=VERDICT_STYLES.get(verdict.verdict, "")),
            _context(document.text, verdict.span),
            reason,
        )
    out.print(table)
    summary = _counts_text(counts)
    if document.quotations:
        _print_quotations(document)
    if document.holdings:
        _print_holdings(document)
    out.print(Text(safe_text(f"{document.path}: {summary}")), highlight=False)
    if document.quotations:
        from lexprobe.check.quote_verdicts import summarize_quotations

        line = _counts_text(summarize_quotations(document.quotations))
        out.print(Text(safe_text(f"{document.path}: quotations: {line}")), highlight=False)
    if document.holdings or document.holdings_skipped:
        from lexprobe.check.holdings import Holdings, summarize_holdings

        line = _counts_text(summarize_holdings([Holdings(list(document.holdings), document.holdings_skipped)]))
        out.print(Text(safe_text(f"{document.path}: propositions (a model's judgement): {line}")), highlight=False)
    sys.stdout.flush()


def _print_quotations(document) -> None:
    """One row per quotation: number, verdict, the quotation (cut to 300 characters), its citation's number, the
    reason and, where one was found, the page."""
    title = f"{document.path}: {len(document.quotations)} quotations"
    table = _findings_table(title, ("verdict", None), ("quotation", 3), ("cit.", None), ("reason", 4))
    for index, quotation in enumerate(document.quotations, start=1):
        shown = " ".join(quotation.text.split())
        shown = shown if len(shown) <= 300 else shown[:299] + "…"
        table.add_row(
            str(index),
            Text(quotation.verdict, style=QUOTE_STYLES.get(quotation.verdict, "")),
            Text(safe_text(f"“{shown}”")),
            str(quotation.citation + 1),
            Text(safe_text(quotation.reason)),
        )
    out.print(table)


def _print_holdings(document) -> None:
    """One row per proposition: number, the judge's verdict (labelled as the model's), the sentence (cut to 300
    characters), its citation's number, the best passage's opinion and page, and the reason."""
    from lexprobe.check.holdings import passage_label

    judges = sorted({h.judge for h in document.holdings})
    title = f"{document.path}: {len(document.holdings)} propositions, judged by the model {', '.join(judges)}"
    table = _findings_table(
        title, ("model's verdict", None), ("proposition", 3), ("cit.", None), ("best passage", 2), ("reason", 4)
    )
    for index, holding in enumerate(document.holdings, start=1):
        shown = holding.sentence if len(holding.sentence) <= 300 else holding.sentence[:299] + "…"
        best = holding.passages[0] if holding.passages else None
        where = f"{passage_label(best)}{f', p. {best.page}' if best.page else ''}" if best else ""
        table.add_row(
            str(index),
            Text(holding.verdict, style=HOLDING_STYLES.get(holding.verdict, "")),
            Text(safe_text(shown)),
            str(holding.citation + 1),
            Text(safe_text(where)),
            Text(safe_text(holding.reason)),
        )
    out.print(table)
