"""`lexprobe hallucination ...`: the Large Legal Fictions profile. Thin: parse, call hallucination/, print."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from lexprobe.caselaw.courts import LEVELS_TEXT, parse_levels
from lexprobe.caselaw.judges import load_justices
from lexprobe.caselaw.query import CaseDatabase
from lexprobe.caselaw.sampling import eligible_count
from lexprobe.cli_common import DbOpt, LexprobeGroup, err, error_exit, open_case_db, out
from lexprobe.cli_labels import register as register_label_commands
from lexprobe.engine import EngineConfig, ResponseCache
from lexprobe.engine.interrupt import RunInterrupted, stop_on_sigint
from lexprobe.errors import BadInputError
from lexprobe.hallucination.calibration import DEFAULT_SAMPLES
from lexprobe.hallucination.external import LineError, read_answer_lines, score_lines
from lexprobe.hallucination.profile_stats import profile
from lexprobe.hallucination.prompts import PROMPT_STYLES
from lexprobe.hallucination.report import ReportRow, report_json, report_rows
from lexprobe.hallucination.results import read_runs
from lexprobe.hallucination.run import ProfileSettings, run_profile
from lexprobe.hallucination.tasks import TASKS, resolve_tasks
from lexprobe.models import ModelConfigError, check_model
from lexprobe.models.spec import valid_forms_text
from lexprobe.terminal import safe_markup, safe_text

hallucination_app = typer.Typer(
    cls=LexprobeGroup,
    help="Profile legal hallucinations (Dahl et al., Large Legal Fictions): ask a model about real cases, score every "
    "answer against public case-law data, report hallucination rates with standard errors.",
    no_args_is_help=True,
)


@hallucination_app.command("tasks")
def tasks(as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False) -> None:
    """List the study's tasks: question, complexity, method, prompt styles and court levels.

    Example: `lexprobe hallucination tasks --json`
    """
    if as_json:
        print(json.dumps([
            {"task": t.id, "question": t.question, "complexity": t.complexity,
             "method": "reference-free" if t.reference_free else "reference-based",
             "styles": list(t.styles), "levels": list(t.levels)}
            for t in TASKS.values()
        ]))  # fmt: skip
        return
    table = Table(title=f"{len(TASKS)} hallucination tasks")
    for column in ("task", "question", "complexity", "method", "styles", "levels"):
        table.add_column(column)
    for t in TASKS.values():
        method = "reference-free" if t.reference_free else "reference-based"
        table.add_row(t.id, t.question, t.complexity, method, ",".join(t.styles), ",".join(t.levels))
    out.print(table)


def print_report(model: str, rows: list[ReportRow]) -> None:
    """Print the rate table."""
    table = Table(title=f"hallucination rates: {model}")
    for column in ("task", "level", "prompt", "n", "rate", "s.e.", "abstain", "unscored", "pending"):
        table.add_column(column, justify="right" if column not in ("task", "level", "prompt") else "left", no_wrap=True)
    for row in rows:
        rate = "-" if row.rate is None else f"{row.rate:.3f}"
        se = "-" if row.se is None else f"({row.se:.3f})"
        abstain = "-" if row.abstain_rate is None else f"{row.abstain_rate:.3f}"
        asked = row.n + row.unscored
        unscored = f"{row.unscored} ({row.unscored / asked:.0%})" if row.unscored else "0"
        table.add_row(row.task, row.level, row.prompt_style, str(row.n), rate, se, abstain, unscored,
                      str(row.pending))  # fmt: skip
    # piped output (make, files) gets room for every column instead of rich's 80-column default
    console = out if out.is_terminal else Console(width=max(out.width, 132))
    console.print(table)
    out.print(
        "rate = hallucinations / scored answers (abstentions count as non-hallucinations); "
        "s.e. = sqrt(p(1-p)/n); unscored answers (count and share of answers) are excluded from n. "
        "Reference-free tasks (factual background, "
        "procedural posture, subsequent history, core legal question, central holding) count contradictions "
        "between two samples found by the judge: their rates are lower bounds.",
        highlight=False,
        soft_wrap=True,
    )


def print_skipped(skipped: list[tuple[str, str, str, str]]) -> None:
    """Say on stderr which task x level x style combinations were not asked, and why (one line each).

    Combinations the study never defines (a few-shot variant of a zero-shot-only task) are left out.
    """
    for task, level, style, reason in skipped:
        if "-shot template" not in reason:
            err.print(f"[dim]skipped {task} / {level} / {style}: {reason}[/]", highlight=False, soft_wrap=True)


def warn_sample_sizes(database: CaseDatabase, levels: list[str], n: int) -> None:
    """Warn on stderr about each level with fewer eligible cases than `n` (the sample takes all of them);
    raise `BadInputError` when no level has any case to sample."""
    available = {level: eligible_count(database, level) for level in levels}
    for level, count in available.items():
        if count == 0:
            err.print(f"[yellow]warning:[/] no {level} case in {safe_markup(str(database.path))} passes the "
                      "sampling filter: nothing is asked at that level", highlight=False, soft_wrap=True)  # fmt: skip
        elif count < n:
            err.print(f"[yellow]warning:[/] --n {n:,} is more than the {count:,} eligible {level} cases: "
                      f"sampling all {count:,}", highlight=False, soft_wrap=True)  # fmt: skip
    if not any(available.values()):
        raise BadInputError(f"no case to ask: {database.path} has no eligible case at level(s) {', '.join(levels)}")


@hallucination_app.command("run")
def run(
    model: Annotated[str, typer.Option("--model", "-m", help=f"Model spec, one of: {valid_forms_text()}.")] = "local",
    task_list: Annotated[str, typer.Option("--tasks", help="Comma list of task ids, or 'all'.")] = "all",
    levels: Annotated[str, typer.Option(help=f"Comma list of court levels: {LEVELS_TEXT}.")] = "scotus",
    prompt_styles: Annotated[str, typer.Option(help="Comma list: zero, few.")] = "zero,few",
    n: Annotated[int, typer.Option("--n", min=1, help="Cases sampled per level.")] = 100,
    judge: Annotated[
        str | None,
        typer.Option(help="Judge for the reference-free tasks' contradiction check (default: the model under test)."),
    ] = None,
    samples: Annotated[
        int,
        typer.Option(
            "--samples",
            min=0,
            help="Calibration samples K per question at temperature 1 (confidence = share agreeing with the greedy "
            "answer); the study's tasks with calibration only (not quotation, authority, false_dissent, nor the "
            "reference-free ones). 0 = no calibration.",
        ),
    ] = DEFAULT_SAMPLES,
    seed: Annotated[int, typer.Option(help="Sampling seed.")] = 47,
    run_dir: Annotated[Path, typer.Option(help="Run directory (resumable; rerun the same command to resume).")] = Path(
        "lexprobe-runs/hallucination"
    ),
    db: DbOpt = None,
    concurrency: Annotated[int | None, typer.Option(min=1, help="Requests in flight per model.")] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Bypass the shared response cache.")] = False,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Count requests, tokens and cost; send nothing.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
) -> None:
    """Sample cases, ask every task at temperature 0 through the engine, score, and print the rate table.

    Levels may be spelled scotus/supreme, coa/appeals/circuit/uscoa, district/usdc; reports print
    scotus, coa, district. An --n beyond a level's eligible cases samples all of them, with a warning.

    Example: `lexprobe hallucination run --model local --tasks existence,author --n 20 --samples 0 --run-dir runs/smol`
    (about 50 requests; add `--dry-run` to count requests, tokens and cost first).
    """
    try:
        check_model(model, credentials=not dry_run)  # a dry run sends nothing: no API key needed
        settings = ProfileSettings(
            model=model,
            tasks=resolve_tasks(task_list),
            levels=parse_levels(levels),
            styles=[s.strip() for s in prompt_styles.split(",") if s.strip()],
            n=n,
            seed=seed,
            judge=judge,
            samples=samples,
        )
        if judge:
            check_model(judge, credentials=not dry_run)
    except (ModelConfigError, ValueError) as exc:
        raise error_exit(str(exc)) from None
    bad_styles = [s for s in settings.styles if s not in PROMPT_STYLES]
    if bad_styles or not settings.styles:
        raise error_exit(f"unknown prompt style(s) {bad_styles}; valid: zero, few")
    database = open_case_db(db)
    warn_sample_sizes(database, settings.levels, n)
    config = EngineConfig(concurrency=concurrency, use_cache=not no_cache, progress=sys.stderr.isatty())
    cache = None if no_cache else ResponseCache()
    try:
        with stop_on_sigint():  # Ctrl-C: stop cleanly, keep what completed, exit 130
            result = asyncio.run(run_profile(settings, database, run_dir, cache, config, dry_run=dry_run))
    except (ValueError, ModelConfigError) as exc:
        raise error_exit(str(exc)) from None
    except RunInterrupted as exc:
        err.print(exc.summary.one_line(), highlight=False)
        raise
    print_skipped(result.plan.skipped)
    if not result.plan.items:
        raise BadInputError("nothing to ask: every task was skipped at the chosen level(s) (reasons above)")
    if result.estimate is not None:
        print(json.dumps(result.estimate.to_dict()) if as_json else result.estimate.one_line())
        return
    if as_json:
        print(json.dumps(report_json(model, result.rows) | {"judge": settings.judge_model}))
    else:
        print_report(model, result.rows)
        if any(task.reference_free for task in settings.tasks):
            out.print(f"contradiction judge: {settings.judge_model}", highlight=False)
    summary = result.summary
    if summary is not None:
        err.print(summary.one_line(), highlight=False)
        failure = summary.failure()  # exit 2 for a permanent failure, 1 while requests are pending
        if failure is not None:
            raise failure


@hallucination_app.command("report")
def report(
    run_dirs: Annotated[
        list[Path], typer.Argument(help="One or more run directories written by `lexprobe hallucination run`.")
    ],
    as_json: Annotated[bool, typer.Option("--json", help="Print every statistic as one JSON object.")] = False,
    html: Annotated[
        Path | None, typer.Option("--html", help="Also write a self-contained HTML report (figures embedded).")
    ] = None,
    bins: Annotated[int, typer.Option(min=2, help="Bins of the calibration error (both variants).")] = 10,
    holdout: Annotated[
        float,
        typer.Option(
            "--platt-holdout", min=0.0, max=0.9, help="Share of answers held out to evaluate Platt scaling (0 = none)."
        ),
    ] = 0.5,
    seed: Annotated[int, typer.Option(help="Seed of the bootstrap, the debiased ECE and the Platt split.")] = 0,
) -> None:
    """Print the rate tables, breakdowns and calibration of one or more runs; several runs are put side by side.

    Example: `lexprobe hallucination report runs/gpt runs/smol --html report.html`
    """
    try:
        infos, units = read_runs(run_dirs)
    except FileNotFoundError as exc:
        raise error_exit(str(exc)) from None
    stats = profile(units, load_roster(), bins=bins, seed=seed, holdout=holdout)
    models = [info.as_row() for info in infos]
    if html is not None:
        from lexprobe.hallucination.html_report import write_html_report

        try:
            write_html_report(html, models, stats, units)
        except OSError as exc:
            raise error_exit(f"cannot write {html}: {exc}") from None
        err.print(f"wrote {html}", highlight=False, soft_wrap=True)
    if as_json:
        single = {}
        if len(infos) == 1:
            single = report_json(infos[0].model, report_rows(units)) | {"judge": models[0]["judge"]}
        print(json.dumps(single | {"models": models} | stats))
        return
    if len(infos) == 1:
        print_report(infos[0].model, report_rows(units))
    else:
        print_side_by_side(stats["rates"], [info.label for info in infos])
    print_statistics(stats)
    if any(row["lower_bound"] for row in stats["rates"]):
        for model in models:
            out.print(f"contradiction judge for {model['model']}: {model['judge']}", highlight=False)


def load_roster() -> list:
    """Return the Supreme Court roster for the justice-bias table ([] when the data has none)."""
    try:
        return load_justices()
    except (FileNotFoundError, ValueError):
        return []


def _cell(rate: float | None, se: float | None) -> str:
    return "-" if rate is None else f"{rate:.3f} ({se:.3f})"


def print_side_by_side(rates: list[dict], models: list[str]) -> None:
    """Print one rate table with a column per model (the layout of the study's Tables 3-6)."""
    table = Table(title="hallucination rates, models side by side: rate (s.e.) [n]")
    for column in ("task", "level", "prompt", *models):
        table.add_column(column, no_wrap=True)
    cells: dict[tuple[str, str, str], dict[str, str]] = {}
    for row in rates:
        key = (row["task"] + (" (lower bound)" if row["lower_bound"] else ""), row["level"], row["prompt_style"])
        cells.setdefault(key, {})[row["model"]] = f"{_cell(row['rate'], row['se'])} [{row['n']}]"
    for (task, level, style), by_model in cells.items():
        table.add_row(task, level, style, *(by_model.get(model, "-") for model in models))
    console = out if out.is_terminal else Console(width=max(out.width, 160))
    console.print(table)


def print_statistics(stats: dict) -> None:
    """Print balanced rates, the main breakdowns and the calibration table."""
    console = out if out.is_terminal else Console(width=max(out.width, 160))
    balanced = [row for row in stats["rates"] if row["balanced_rate"] is not None]
    if balanced:
        table = Table(title="class-balanced rates (mean of per-class rates)")
        for column in ("model", "task", "level", "prompt", "n", "rate", "balanced"):
            table.add_column(column, no_wrap=True)
        for row in balanced:
            table.add_row(row["model"], row["task"], row["level"], row["prompt_style"], str(row["n"]),
                          _cell(row["rate"], row["se"]), f"{row['balanced_rate']:.3f}")  # fmt: skip
        console.print(table)
    for name, title in (("level", "by court level"), ("complexity", "by task complexity"),
                        ("contra_factual", "contra-factual (false-premise) tasks")):  # fmt: skip
        groups = stats["breakdowns"][name]
        if not groups:
            continue
        table = Table(title=f"{title}: rate (s.e.) [n]")
        for column in ("model", "group", "rate"):
            table.add_column(column, no_wrap=True)
        for group in groups:
            table.add_row(group["model"], group["group"], f"{_cell(group['rate'], group['se'])} [{group['n']}]")
        console.print(table)
    rows = stats["calibration"]
    if rows:
        table = Table(title="expected calibration error: (s.e.) bootstrap")
        for column in ("model", "task", "level", "prompt", "n", "conf", "acc", "ECE width/plug-in",
                       "ECE mass/debiased", "Platt ECE width", "Platt ECE mass"):  # fmt: skip
            table.add_column(column, no_wrap=True)
        for row in rows:
            table.add_row(
                row["model"], row["task"], row["level"], row["prompt_style"], str(row["n"]),
                _num(row["mean_confidence"]), _num(row["accuracy"]),
                _cell(row["ece_width"], row["ece_width_se"]),
                _cell(row["ece_mass_debiased"], row["ece_mass_debiased_se"]),
                _num(row["platt_ece_width"]), _num(row["platt_ece_mass_debiased"]),
            )  # fmt: skip
        console.print(table)
        out.print(
            f"ECE: {stats['estimators']['ece_width']}; {stats['estimators']['ece_mass_debiased']}; "
            f"{stats['estimators']['bins']} bins; {stats['estimators']['platt']}. Confidence = share of K samples at "
            "temperature 1 agreeing with the greedy answer; the debiased estimator can fall below 0 on small n.",
            highlight=False,
            soft_wrap=True,
        )


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


@hallucination_app.command("score-answers")
def score_answers(
    file: Annotated[Path, typer.Argument(help='JSON Lines: {"task", "case", "answer"} (+ "dissenter" / "case2").')],
    db: DbOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Accepted for symmetry: output is always JSON Lines.")] = True,
) -> None:
    """Score answers produced elsewhere (another harness, a commercial research tool) against the case database.

    Prints each line with "label" and "detail" added. Bad lines (not UTF-8, not a JSON object, over 1 MiB, nested
    too deep, a field missing) are reported on stderr by line number and left out; the good lines are still scored,
    and the command then exits 2. A file with a UTF-16 byte-order mark is decoded as UTF-16, with a note.

    Example: `lexprobe hallucination score-answers answers.jsonl > scored.jsonl`
    """
    if not file.is_file():
        raise BadInputError(f"file not found: {safe_text(str(file))}")
    database = open_case_db(db)
    name = safe_text(str(file))
    scored = errors = 0
    try:
        handle = file.open("rb")
    except OSError as exc:
        raise BadInputError(f"cannot read {name}: {exc.strerror or exc}") from None
    with handle:
        codec, lines = read_answer_lines(handle)
        if codec != "utf-8":
            err.print(f"note: {name} starts with a {codec} byte-order mark: read as {codec} (save JSON Lines as UTF-8)",
                      highlight=False, markup=False, soft_wrap=True)  # fmt: skip
        for result in score_lines(lines, database):
            if isinstance(result, LineError):
                errors += 1
                err.print(f"{name}:{result.line}: {safe_text(result.message)}", highlight=False, markup=False,
                          soft_wrap=True)  # fmt: skip
            else:
                scored += 1
                sys.stdout.write(json.dumps(result) + "\n")
    sys.stdout.flush()
    if errors:
        raise BadInputError(f"{errors} bad line(s) in {name} were not scored (listed above); {scored} line(s) scored")
    if not scored:
        raise BadInputError(f"{name} holds no answer lines (empty input); expected one JSON object a line")
    err.print(f"scored {scored} line(s) of {name}", highlight=False, markup=False, soft_wrap=True)


register_label_commands(hallucination_app)
