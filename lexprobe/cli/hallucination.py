"""`lexprobe hallucination ...`: the Large Legal Fictions profile. Thin: parse, call hallucination/, print."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from lexprobe.caselaw.courts import LEVELS_TEXT
from lexprobe.cli.handler import LexprobeGroup
from lexprobe.cli.options import (
    ENGINE_DEFAULTS,
    HTML_REPORT_HELP,
    DbOpt,
    EngineOptions,
    ModelOpt,
    engine_options,
    html_option,
    json_flag,
    open_case_db,
    run_dir_option,
)
from lexprobe.cli.output import err, new_table, out, warning
from lexprobe.errors import BadInputError
from lexprobe.hallucination.help_facts import DEFAULT_SAMPLES, READER_HELP, UNCALIBRATED_WITH_REFERENCE
from lexprobe.terminal import safe_markup, safe_text

if TYPE_CHECKING:
    from lexprobe.caselaw.query import CaseDatabase
    from lexprobe.hallucination.report.collect import CollectedReport
    from lexprobe.hallucination.run.runner import ProfileResult, ProfileSettings

hallucination_app = typer.Typer(
    cls=LexprobeGroup,
    help="Profile legal hallucinations (Dahl et al., Large Legal Fictions): ask a model about real cases, score every "
    "answer against public case-law data, report hallucination rates with standard errors.",
    no_args_is_help=True,
)


@hallucination_app.command("tasks")
def tasks(as_json: json_flag("Print JSON.") = False, db: DbOpt = None) -> None:
    """List the study's tasks: question, complexity, method, prompt styles and court levels, and a note where the
    case database cannot give a task what the study had (a class-balanced task whose data has one class).

    Example: `lexprobe hallucination tasks --json`
    """
    from lexprobe.hallucination.tasks import TASKS

    notes = task_data_notes(db)
    rows = [{"task": t.id, "question": t.question, "complexity": t.complexity,
             "method": "reference-free" if t.reference_free else "reference-based",
             "styles": list(t.styles), "levels": list(t.levels), "note": notes.get(t.id, "")}
            for t in TASKS.values()]  # fmt: skip
    if as_json:
        print(json.dumps(rows))
        return
    table = new_table(f"{len(TASKS)} hallucination tasks", list(rows[0]))
    for row in rows:
        table.add_row(*(",".join(value) if isinstance(value, list) else value for value in row.values()))
    out.print(table)


def task_data_notes(db: Path | None) -> dict[str, str]:
    """Return per task what the case database (`db`, else the default one) says about it (`single_class_notes`);
    {} when there is no database to ask (the task list needs none), with a note on stderr when `--db` was given."""
    from lexprobe.caselaw.paths import default_db_path
    from lexprobe.caselaw.query import CaseDatabase
    from lexprobe.hallucination.profile.stats import single_class_notes

    try:
        database = CaseDatabase(db or default_db_path())
    except FileNotFoundError:
        if db is not None:
            err.print(f"note: no case database at {safe_markup(str(db))}: class notes not checked", highlight=False,
                      soft_wrap=True)  # fmt: skip
        return {}
    try:
        return single_class_notes(database)
    finally:
        database.close()


LevelsOpt = Annotated[
    str | None,
    typer.Option(help=f"Comma list of court levels: {LEVELS_TEXT} (default scotus; all three with --design paper)."),
]
NOpt = Annotated[
    int | None, typer.Option("--n", min=1, help="Cases sampled per level (default 100; 5,000 with --design paper).")
]
YearsOpt = Annotated[
    str,
    typer.Option(
        help="Decision years sampled per level, inclusive: 'paper' (the study's: scotus=1794-2015, "
        "coa=1895-2019, district=1932-2019), 'all', FROM-TO for every level, or LEVEL=FROM-TO,... (levels not "
        "named keep the study's window; LEVEL=all lifts it)."
    ),
]
CompleteCasesOpt = Annotated[
    bool,
    typer.Option(
        "--complete-cases",
        help="Sample only cases with every fact the requested tasks need (a name, majority author, disposition, "
        "opinion text ...), as the study did, so every task asks the same cases.",
    ),
]
DesignOpt = Annotated[
    str | None,
    typer.Option(
        help="'paper': the study's design - 5,000 cases per level at all three levels, 100 for the reference-free "
        "tasks, 5,000 doctrinal pairs, every overruled case, 1,000 for the contra-factual tasks, K = 10, zero- "
        "and few-shot. Options given explicitly override it."
    ),
]
JudgeOpt = Annotated[
    str | None,
    typer.Option(help="Judge for the reference-free tasks' contradiction check (default: the model under test)."),
]
SamplesOpt = Annotated[
    int | None,
    typer.Option(
        "--samples",
        min=0,
        help=f"Calibration samples K per question at temperature 1 (default {DEFAULT_SAMPLES}; confidence = share "
        "agreeing with the greedy answer); the study's tasks with calibration only (not "
        f"{', '.join(UNCALIBRATED_WITH_REFERENCE)}, nor the reference-free ones). "
        "0 = no calibration.",
    ),
]


@hallucination_app.command("run")
@engine_options(dry_run=True, batch=True)
def run(
    model: ModelOpt = "local",
    task_list: Annotated[str, typer.Option("--tasks", help="Comma list of task ids, or 'all'.")] = "all",
    levels: LevelsOpt = None,
    prompt_styles: Annotated[str | None, typer.Option(help="Comma list: zero, few (default both).")] = None,
    n: NOpt = None,
    years: YearsOpt = "paper",
    complete_cases: CompleteCasesOpt = False,
    design: DesignOpt = None,
    judge: JudgeOpt = None,
    samples: SamplesOpt = None,
    reader: Annotated[str | None, typer.Option("--reader", help=READER_HELP)] = None,
    seed: Annotated[int, typer.Option(help="Sampling seed.")] = 47,
    run_dir: run_dir_option("Run directory (resumable; rerun the same command to resume).") = Path(
        "lexprobe-runs/hallucination"
    ),
    db: DbOpt = None,
    engine: EngineOptions = ENGINE_DEFAULTS,
    as_json: json_flag("Print the report as JSON (the engine's counts under `summary`).") = False,
) -> None:
    """Sample cases, ask every task at temperature 0 through the engine, score, and print the rate table.

    Levels may be spelled scotus/supreme, coa/appeals/circuit/uscoa, district/usdc; reports print
    scotus, coa, district. An --n beyond a level's eligible cases samples all of them, with a warning. Cases are
    sampled within the study's date windows unless --years says otherwise.

    Example: `lexprobe hallucination run --model local --tasks existence,author --n 20 --samples 0 --run-dir runs/smol`
    (about 50 requests; add `--dry-run` to count requests, tokens and cost first).
    """
    from lexprobe.cli.hallucination_tables import print_skipped
    from lexprobe.hallucination.run.from_options import RunOptions, profile_settings, sample_warnings
    from lexprobe.hallucination.run.runner import SELF_JUDGED_WARNING

    options = RunOptions(model, task_list, levels, prompt_styles, n, years, complete_cases, design, judge, samples,
                         reader, seed)  # fmt: skip
    settings = profile_settings(options, credentials=not engine.dry_run)  # a dry run sends nothing: no API key needed
    database = open_case_db(db)
    for line in sample_warnings(database, settings):
        warning(line)
    if settings.self_judged and any(task.reference_free for task in settings.tasks):
        warning(SELF_JUDGED_WARNING)
    result = _run_profile(settings, database, run_dir, engine)
    print_skipped(result.plan.skipped)
    if not result.plan.items:
        raise BadInputError("nothing to ask: every task was skipped at the chosen level(s) (reasons above)")
    if result.estimate is not None:
        if reader:
            err.print("note: --reader: which answers the reader reads is known only once they are scored; its "
                      "requests are not in this estimate", highlight=False, soft_wrap=True)  # fmt: skip
        print(json.dumps(result.estimate.to_dict()) if as_json else safe_text(result.estimate.lines()))
        return
    _print_run(result, settings, as_json)
    summary = result.summary
    if summary is not None:
        err.print(summary.one_line(), highlight=False)
        failure = summary.failure()  # exit 2 for a permanent failure, 1 while requests are pending
        if failure is not None:
            raise failure


def _run_profile(settings: ProfileSettings, database: CaseDatabase, run_dir: Path, engine: EngineOptions):
    """Run the profile (or, with --dry-run, estimate it); Ctrl-C stops cleanly, keeps what completed, exit 130."""
    import asyncio

    from lexprobe.engine.interrupt import RunInterrupted, stop_on_sigint
    from lexprobe.hallucination.run.runner import run_profile

    config, cache = engine.config(), engine.cache()
    try:  # a conflicting run directory, too few cases to fabricate from: a LexprobeError (one line, exit 2)
        with stop_on_sigint():
            return asyncio.run(run_profile(settings, database, run_dir, cache, config, dry_run=engine.dry_run))
    except RunInterrupted as exc:
        err.print(exc.summary.one_line(), highlight=False)
        raise


def _print_run(result: ProfileResult, settings: ProfileSettings, as_json: bool) -> None:
    """The rate table, coverage, readers and judge of a run (or all of it as one JSON object)."""
    from lexprobe.cli.hallucination_tables import print_coverage, print_readers, print_report
    from lexprobe.hallucination.report.summary import report_json
    from lexprobe.hallucination.run.runner import SELF_JUDGED

    model = settings.model
    coverage = [row.to_dict() for row in result.plan.coverage]
    if as_json:
        report = report_json(model, result.rows)
        from lexprobe.hallucination.report.collect import mark_self_judged

        report["rows"] = mark_self_judged(report["rows"], {model} if settings.self_judged else set(), model)
        engine_summary = result.summary.to_dict() if result.summary is not None else None  # with per-replica counts
        print(json.dumps(report | {"judge": settings.judge_model, "self_judged": settings.self_judged,
                                   "coverage": coverage, "samples": result.plan.samples, "reader": settings.reader,
                                   "readers": result.readers, "summary": engine_summary}))  # fmt: skip
        return
    print_report(model, result.rows, self_judged=settings.self_judged)
    print_coverage(coverage)
    print_readers(result.readers)
    if any(task.reference_free for task in settings.tasks):
        judged = f" ({SELF_JUDGED}: the model judged its own pairs)" if settings.self_judged else ""
        out.print(f"contradiction judge: {settings.judge_model}{judged}", highlight=False)


@hallucination_app.command("report")
def report(
    run_dirs: Annotated[
        list[Path], typer.Argument(help="One or more run directories written by `lexprobe hallucination run`.")
    ],
    as_json: json_flag("Print every statistic as one JSON object.") = False,
    html: html_option(HTML_REPORT_HELP) = None,
    bins: Annotated[int, typer.Option(min=2, help="Bins of the calibration error (both variants).")] = 10,
    holdout: Annotated[
        float,
        typer.Option(
            "--platt-holdout", min=0.0, max=0.9, help="Share of answers held out to evaluate Platt scaling (0 = none)."
        ),
    ] = 0.5,
    seed: Annotated[int, typer.Option(help="Seed of the bootstrap, the debiased ECE and the Platt split.")] = 0,
    prompt_style: Annotated[
        str,
        typer.Option(
            "--prompt-style",
            help="Answers of the pooled breakdowns, figures 1-5, 7-8 and the pooled ECE: few (the study's choice: "
            "few-shot answers, zero-shot for tasks asked zero-shot only), zero, or all. Rate tables show every style.",
        ),
    ] = "few",
    viewer_url: Annotated[
        str,
        typer.Option(
            "--viewer-url",
            help="With --html: each rate links to its answers in `lexprobe view` at this address ('' for no links).",
        ),
    ] = "http://127.0.0.1:8765/",
    reference: Annotated[
        str,
        typer.Option(
            "--reference",
            help="paper: show the published estimates of Large Legal Fictions (Tables 3-7, Appendix Tables 3-6) "
            "beside your rows, with the difference, a z-test and what differs in the design; none (default): not.",
        ),
    ] = "none",
) -> None:
    """Print the rate tables, breakdowns and calibration of one or more runs; several runs are put side by side.

    Example: `lexprobe hallucination report runs/gpt runs/smol --html report.html`
    """
    from lexprobe.hallucination.report.collect import ReportSettings, collect_report

    collected = collect_report(run_dirs, ReportSettings(bins, holdout, seed, prompt_style, reference))
    if html is not None:
        _write_report_html(html, collected, viewer_url)
    if as_json:
        print(json.dumps(collected.to_json()))
        return
    _print_collected(collected)


def _write_report_html(html: Path, collected: CollectedReport, viewer_url: str) -> None:
    """`--html`: the report page (each model with its batch and reader counts), and a line on stderr naming it."""
    from lexprobe.hallucination.report.html import write_html_report
    from lexprobe.hallucination.report.readings import read_by

    try:
        with_batch = [model | counts | read_by(model["model"], collected.readers)
                      for model, counts in zip(collected.models, collected.batched, strict=True)]  # fmt: skip
        write_html_report(html, with_batch, collected.stats, collected.units, coverage=collected.coverage,
                          viewer_url=viewer_url, paper=collected.reference)  # fmt: skip
    except OSError as exc:
        raise BadInputError(f"cannot write {html}: {exc}") from None
    err.print(f"wrote {html}", highlight=False, soft_wrap=True)


def _print_collected(collected: CollectedReport) -> None:
    """The report's tables: rates (side by side for several runs), statistics, reference, coverage, readers."""
    from lexprobe.cli.hallucination_tables import (
        print_coverage,
        print_readers,
        print_reference,
        print_report,
        print_side_by_side,
        print_statistics,
    )
    from lexprobe.engine.batch.status import batch_count_lines
    from lexprobe.hallucination.report.summary import report_rows
    from lexprobe.hallucination.run.runner import SELF_JUDGED

    infos, models, stats = collected.infos, collected.models, collected.stats
    if len(infos) == 1:
        print_report(infos[0].model, report_rows(collected.units), self_judged=models[0]["self_judged"])
    else:
        print_side_by_side(stats["rates"], [info.label for info in infos])
    print_statistics(stats)
    if collected.reference is not None:
        print_reference(collected.reference)
    print_coverage(collected.coverage)
    print_readers(collected.readers, with_model=len(infos) > 1)
    for line in batch_count_lines(collected.batched):
        out.print(safe_text(line), highlight=False, markup=False)
    if any(row["lower_bound"] for row in stats["rates"]):
        for model in models:
            judged = f" ({SELF_JUDGED}: the model judged its own pairs)" if model["self_judged"] else ""
            out.print(f"contradiction judge for {model['model']}: {model['judge']}{judged}", highlight=False)


@hallucination_app.command("score-answers")
@engine_options()
def score_answers(
    file: Annotated[Path, typer.Argument(help='JSON Lines: {"task", "case", "answer"} (+ "dissenter" / "case2").')],
    db: DbOpt = None,
    reader: Annotated[str | None, typer.Option("--reader", help=READER_HELP)] = None,
    engine: EngineOptions = ENGINE_DEFAULTS,
    as_json: json_flag("Accepted for symmetry: output is always JSON Lines.") = True,
) -> None:
    """Score answers produced elsewhere (another harness, a commercial research tool) against the case database.

    "case" takes a citation ("384 U.S. 436"), a case id, or a case's full name ("Miranda v. Arizona") when only
    one case in the database bears it; a name several cases bear is left unscored, its detail listing them.
    "case2" takes a citation or a case id. For fake_existence "case" is the fabricated case as asked.

    Prints each line with "label" and "detail" added. Bad lines (not UTF-8, not a JSON object, over 1 MiB, nested
    too deep, a field missing, a field holding a NUL or a lone surrogate) are reported on stderr by line number and
    left out; the good lines are still scored, and the command then exits 2. A file with a UTF-16 byte-order mark
    is decoded as UTF-16, with a note.

    With --reader, the answers the rules leave unscored are read by that model first (their lines then carry
    "reader", "reader_decision", "reader_value" and "rules" as well); its replies are kept in the response cache.

    Example: `lexprobe hallucination score-answers answers.jsonl > scored.jsonl`
    """
    from lexprobe.hallucination.run.score_file import score_answer_file
    from lexprobe.hallucination.scorers.external import LineError

    def emit(item: dict | LineError | str) -> None:  # a scored line on stdout; a bad line or a note on stderr
        if isinstance(item, dict):
            sys.stdout.write(json.dumps(item) + "\n")
            return
        shown = f"{name}:{item.line}: {safe_text(item.message)}" if isinstance(item, LineError) else item
        err.print(shown, highlight=False, markup=False, soft_wrap=True)

    name = safe_text(str(file))
    result = score_answer_file(file, lambda: open_case_db(db), reader, lambda: (engine.cache(), engine.config()), emit)
    sys.stdout.flush()
    if result.summary is not None and result.summary.total:
        err.print(f"reader: {result.summary.one_line()}", highlight=False, markup=False, soft_wrap=True)
    failure = result.failure()
    if failure is not None:
        raise failure
    err.print(f"scored {result.scored} line(s) of {name}", highlight=False, markup=False, soft_wrap=True)


# `export-labels` and `agreement` live in their own module (lexprobe.cli.labels); listed after the commands above
from lexprobe.cli import labels  # noqa: E402

labels.register(hallucination_app)
