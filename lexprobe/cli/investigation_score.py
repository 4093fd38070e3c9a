"""`lexprobe investigation score RUN_DIR...`: score investigation episodes (case solved, class accuracies,
commitment, coverage and signal recall, usage), with bootstrap intervals, exact naive baselines and paired
comparisons. Thin: load, call lexprobe.investigation.scoring, print. Results go to stdout; notes (missing
environments, episodes left out) to stderr; the exit codes are in the command's help.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from lexprobe.cli.options import HTML_REPORT_HELP, html_option, json_flag
from lexprobe.cli.output import err, out
from lexprobe.errors import BadInputError

if TYPE_CHECKING:
    from lexprobe.investigation.scoring.score_runs import ScoredRuns


def register(app: typer.Typer) -> None:
    """Add the `score` command to the `lexprobe investigation` app."""
    app.command("score")(score)


def _definitions_line(dont_know_as_reject: bool, partial_verdicts: bool = False) -> str:
    from lexprobe.investigation.scoring.metrics import DEFINITIONS

    reject = DEFINITIONS["reject_acc" if dont_know_as_reject else "reject_acc_strict"]
    solved = DEFINITIONS["case_solved_partial" if partial_verdicts else "case_solved"]
    return (
        f"case solved: {solved}; {DEFINITIONS['copied_example']}. believe: {DEFINITIONS['believe_acc']}; "
        f"don't believe: {reject}; worst class: {DEFINITIONS['worst_class_acc']}; "
        f"commit: {DEFINITIONS['commit_rate']}. CI: {DEFINITIONS['case_solved_ci']}. "
        f"coverage: {DEFINITIONS['coverage']}; signal recall: {DEFINITIONS['signal_recall']}."
    )


RunDirsOpt = Annotated[
    list[Path], typer.Argument(help="Run directories holding episodes/*.json (several are pooled by model).")
]
EnvRootOpt = Annotated[
    Path | None,
    typer.Option("--env-root", help="Folder to look for the episodes' environments in (by env_dir or case id)."),
]
StrictRejectOpt = Annotated[
    bool,
    typer.Option(
        "--strict-reject",
        help='Count only "don\'t believe" as correct on the do-not-believe class '
        '(default: "don\'t know" counts too, as not believing).',
    ),
]
CompleteOnlyOpt = Annotated[
    bool,
    typer.Option(
        "--complete-only",
        help="Score only complete outputs: Turn 1 finished and every verdict readable (Section 4.1). The "
        "number of complete outputs per model is shown either way.",
    ),
]
ReferenceOpt = Annotated[
    str | None,
    typer.Option(
        "--reference",
        help='Show published numbers beside yours: "paper" (InvestigationWorlds, Section 4), with the '
        "difference, a test where both sides have counts and what differs in the design.",
    ),
]
PartialVerdictsOpt = Annotated[
    bool,
    typer.Option(
        "--partial-verdicts",
        help="Count an episode that gave no readable verdict on some hypothesis other than h* as solved when the "
        "rest solve it (a missing verdict counts as not believing). Default: every hypothesis needs a verdict, "
        "as the paper scores complete outputs (Section 4.1).",
    ),
]


def score(
    run_dirs: RunDirsOpt,
    as_json: json_flag("Print the scores as one JSON object.") = False,
    html: html_option(HTML_REPORT_HELP) = None,
    env_root: EnvRootOpt = None,
    seed: Annotated[int, typer.Option(help="Seed of the bootstrap resamples.")] = 0,
    bootstrap: Annotated[int, typer.Option(min=0, help="Bootstrap resamples (0: no intervals).")] = 2000,
    strict_reject: StrictRejectOpt = False,
    complete_only: CompleteOnlyOpt = False,
    reference: ReferenceOpt = None,
    partial_verdicts: PartialVerdictsOpt = False,
) -> None:
    """Score investigation runs: case solved (95% cluster-bootstrap CI), class accuracies, commitment, coverage.

    Pools the complete episodes of every RUN_DIR by model and by model x ablation level, and prints the exact naive
    baselines (uniform random, believe one at random, always reject) and paired bootstrap comparisons between
    models and between consecutive ablation levels (Figure 5), and the verdicts on the alternatives from one level to
    the next (Figure 6), then the other analyses of Section 4: complete outputs per model, commitment on the cases
    every model completed, believing h* and an alternative, strategy against case solved, and case solved per
    generator. Definitions: docs/investigation.md ("Scoring").

    Exit status: 0 scored; 2 a RUN_DIR is missing, holds no episodes or a malformed one, none is complete (with
    --complete-only: no complete output), or an episode's ablation level or corpus hash differs from its
    environment's.

    With --reference paper, the numbers InvestigationWorlds prints (Section 4) are shown beside yours: extra rows,
    a `reference` block in --json, grey rows and marks in --html (docs/investigation.md, "Reference rows from the
    paper").

    Example: `lexprobe investigation score runs/haiku runs/sonnet --env-root envs --html scores.html`
    """
    from lexprobe.cli.investigation_tables import print_summary
    from lexprobe.investigation.scoring.score_runs import ScoreSettings, score_runs

    settings = ScoreSettings(seed, bootstrap, strict_reject, complete_only, partial_verdicts, reference)
    scored = score_runs(run_dirs, env_root, settings)
    paper = _paper_block(reference, scored)
    for note in scored.notes:
        err.print(note if note.startswith("warning: ") else f"note: {note}", highlight=False, markup=False,
                  soft_wrap=True)  # fmt: skip
    if html is not None:
        _write_html(html, scored, run_dirs, paper)
    if as_json:
        payload = scored.summary.model_dump(mode="json")
        if paper is not None:
            payload["reference"] = paper
        print(json.dumps(payload))
        return
    print_summary(scored.summary, reference=paper)
    out.print(_definitions_line(not strict_reject, partial_verdicts), highlight=False, soft_wrap=True)


def _paper_block(reference: str | None, scored: ScoredRuns) -> dict | None:
    """`--reference paper`: the paper's numbers beside the scores (None without it)."""
    if reference != "paper":
        return None
    from lexprobe.investigation.paper_figures.compare import paper_comparison

    return paper_comparison(scored.summary, scored.episodes)


def _write_html(html: Path, scored: ScoredRuns, run_dirs: list[Path], paper: dict | None) -> None:
    """`--html`: the report page, and a line on stderr naming it."""
    from lexprobe.investigation.report.html import write_investigation_report
    from lexprobe.investigation.scoring.coverage import coverage_points

    points = coverage_points(scored.episodes, scored.environments)
    try:
        write_investigation_report(html, scored.summary, runs=[str(r) for r in run_dirs], points=points,
                                   notes=scored.notes, paper=paper)  # fmt: skip
    except OSError as exc:
        raise BadInputError(f"cannot write {html}: {exc}") from None
    err.print(f"wrote {html}", highlight=False, soft_wrap=True)
