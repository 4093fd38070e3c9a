"""`lexprobe investigation qa-score RUN_DIR... --judge SPEC`: factual-QA scores per model (mean rubric score,
share fully correct, unscored and pending apart) with cluster-bootstrap intervals over cases. Thin: call
`lexprobe.investigation.scoring.qa`, print. Results go to stdout; warnings (self-grading) and notes to stderr; the
exit codes are in the command's help.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from lexprobe.cli.options import html_option, json_flag
from lexprobe.cli.output import err, wide
from lexprobe.errors import BadInputError
from lexprobe.terminal import safe_json, safe_text

if TYPE_CHECKING:
    from lexprobe.investigation.scoring.qa import QASummary


def register(app: typer.Typer) -> None:
    """Add the `qa-score` command to the `lexprobe investigation` app."""
    app.command("qa-score")(qa_score)


def print_qa_summary(summary: QASummary) -> None:
    """The per-model table of a `summarize_qa` result, and the definitions under it, on stdout."""
    from rich.table import Table
    from rich.text import Text

    from lexprobe.reporting.numbers import interval, pct

    console = wide(160)
    table = Table(title=Text(safe_text(f"Factual QA scores (judge {summary.judge})")))
    table.add_column("model", overflow="fold")
    for column in ("n graded", "cases", "mean rubric score", "95% CI", "fully correct", "95% CI", "unscored",
                   "pending", "no ANSWER:"):  # fmt: skip
        table.add_column(column, justify="right", no_wrap=True)
    for m in summary.models:
        name = safe_text(m.model) + (" (self-graded)" if m.self_graded else "")
        cells = (str(m.n_graded), str(m.n_cases), pct(m.mean_rubric_score), interval(m.mean_rubric_score_ci),
                 pct(m.fully_correct), interval(m.fully_correct_ci), str(m.n_unscored), str(m.n_pending),
                 str(m.n_no_answer))  # fmt: skip
        table.add_row(Text(name), *cells)
    console.print(table)
    definitions = summary.definitions
    for key in ("mean_rubric_score", "fully_correct", "ci", "graded", "unscored", "pending"):
        console.print(Text(safe_text(f"- {definitions[key]}")), highlight=False, soft_wrap=True)
    console.print(f"- bootstrap: {summary.replicates} resamples, seed {summary.seed}", highlight=False)


def qa_score(
    run_dirs: Annotated[list[Path], typer.Argument(help="Run directories of `investigation qa` (RUN_DIR/qa/).")],
    judge: Annotated[
        str, typer.Option("--judge", help="The rubric judge the records were graded by (model spec); required.")
    ],
    as_json: json_flag("Print the summary as JSON (only JSON on stdout).") = False,
    html: html_option("Also write a self-contained HTML page.") = None,
    seed: Annotated[int, typer.Option(help="Bootstrap seed.")] = 0,
    bootstrap: Annotated[int, typer.Option(min=0, help="Bootstrap resamples (0: no intervals).")] = 2000,
) -> None:
    """Score factual QA per model, pooled over run directories (Appendix D.3 rubric grades).

    Mean rubric score: per question, the share of its rubric items satisfied; averaged over graded questions.

    Fully correct: the share of graded questions with every rubric item satisfied. Both with 95% intervals of a
    cluster bootstrap over cases.

    Unscored (unreadable judge reply) and pending (unfinished) questions are counted apart, left out of the means.

    --judge must name the judge the records were graded by (a different or mixed judge: exit 2).

    A judge that is the model under test is self-grading: a warning on stderr, a note in JSON and HTML.

    Exit status: 0 scored; 2 bad input (no QA records in a RUN_DIR, an unreadable record, mixed judges).

    Example: `lexprobe investigation qa-score runs/qa-a runs/qa-b --judge openai/gpt-4o --html qa.html`
    """
    from rich.text import Text

    from lexprobe.investigation.scoring.qa import summarize_qa, write_qa_report

    summary = summarize_qa(run_dirs, judge, replicates=bootstrap, seed=seed)
    for warning in summary.warnings:
        err.print(Text(safe_text(f"warning: {warning}")), style="yellow")
    for note in summary.notes:
        err.print(Text(safe_text(f"note: {note}")), style="dim")
    if html is not None:
        try:
            write_qa_report(html, summary)
        except OSError as exc:
            raise BadInputError(f"cannot write {html}: {exc.strerror or exc}") from None
    if as_json:
        sys.stdout.write(safe_json(summary.model_dump_json()) + "\n")
    else:
        print_qa_summary(summary)
    if html is not None:
        err.print(Text(safe_text(f"wrote {html}")), highlight=False)
