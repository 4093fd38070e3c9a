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
from lexprobe.caselaw.paths import default_db_path
from lexprobe.caselaw.query import CaseDatabase
from lexprobe.caselaw.sampling import eligible_count, parse_year_windows, window_text
from lexprobe.cli_common import DbOpt, LexprobeGroup, err, error_exit, open_case_db, out
from lexprobe.cli_labels import register as register_label_commands
from lexprobe.engine import EngineConfig, ResponseCache
from lexprobe.engine.interrupt import RunInterrupted, stop_on_sigint
from lexprobe.errors import BadInputError
from lexprobe.hallucination.calibration import DEFAULT_SAMPLES
from lexprobe.hallucination.coverage import dropped_text, shared_needs
from lexprobe.hallucination.external import LineError, read_answer_lines, score_lines
from lexprobe.hallucination.profile_stats import (
    BALANCED_TASKS,
    PROMPT_STYLE_SELECTIONS,
    SINGLE_CLASS_NOTE,
    profile,
    single_class_notes,
)
from lexprobe.hallucination.prompts import PROMPT_STYLES
from lexprobe.hallucination.report import ReportRow, report_json, report_rows
from lexprobe.hallucination.results import read_runs
from lexprobe.hallucination.run import PAPER_DESIGN, SELF_JUDGED, SELF_JUDGED_WARNING, ProfileSettings, run_profile
from lexprobe.hallucination.tasks import TASKS, resolve_tasks, task_names
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
def tasks(as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False, db: DbOpt = None) -> None:
    """List the study's tasks: question, complexity, method, prompt styles and court levels, and a note where the
    case database cannot give a task what the study had (a class-balanced task whose data has one class).

    Example: `lexprobe hallucination tasks --json`
    """
    notes = task_data_notes(db)
    if as_json:
        print(json.dumps([
            {"task": t.id, "question": t.question, "complexity": t.complexity,
             "method": "reference-free" if t.reference_free else "reference-based",
             "styles": list(t.styles), "levels": list(t.levels), "note": notes.get(t.id, "")}
            for t in TASKS.values()
        ]))  # fmt: skip
        return
    table = Table(title=f"{len(TASKS)} hallucination tasks")
    for column in ("task", "question", "complexity", "method", "styles", "levels", "note"):
        table.add_column(column)
    for t in TASKS.values():
        method = "reference-free" if t.reference_free else "reference-based"
        table.add_row(t.id, t.question, t.complexity, method, ",".join(t.styles), ",".join(t.levels),
                      notes.get(t.id, ""))  # fmt: skip
    out.print(table)


def task_data_notes(db: Path | None) -> dict[str, str]:
    """Return per task what the case database (`db`, else the default one) says about it (`single_class_notes`);
    {} when there is no database to ask (the task list needs none), with a note on stderr when `--db` was given."""
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


def rate_footnote() -> str:
    """Return the footnote under every rate table: what each rate column is."""
    return (
        "rate (s.e.) = hallucinations / scored answers (abstentions count as non-hallucinations; unscored answers, "
        "count and share in their column, left out of n); s.e. = sqrt(p(1-p)/n). For disposition and doctrinal "
        "agreement the headline rate is the class-balanced rate, marked 'balanced' (mean of the per-class rates, "
        "class = the true answer; s.e. = sqrt(sum p_c(1-p_c)/n_c) / C), with the raw rate beside it. strict (s.e.) = "
        "the study's Eq. 1 as written: unscored answers counted as hallucinations (answers without a reference left "
        f"out). Reference-free tasks ({task_names(lambda t: t.reference_free).replace('_', ' ')}) count "
        "contradictions between two samples found by the judge: their rates are lower bounds."
    )


def headline_cell(rate: float | None, se: float | None, name: str) -> str:
    """Return a headline rate cell, "0.500 (0.020) balanced" for a class-balanced rate."""
    return _cell(rate, se) + (" balanced" if name == "balanced" and rate is not None else "")


def print_report(model: str, rows: list[ReportRow], *, self_judged: bool = False) -> None:
    """Print the rate table (`self_judged`: the model judged its own reference-free pairs, marked on their rows):
    headline rate (balanced where the task has one) with the raw rate beside it, strict rate, abstentions, unscored
    and pending answers, and the row's note."""
    table = Table(title=f"hallucination rates: {model}")
    columns = ("task", "level", "prompt", "n", "rate (s.e.)", "raw rate (s.e.)", "strict (s.e.)", "abstain",
               "unscored", "pending", "note")  # fmt: skip
    for column in columns:
        table.add_column(column, justify="left" if column in ("task", "level", "prompt", "note") else "right",
                         no_wrap=column != "note")  # fmt: skip
    for row in rows:
        headline = row.headline
        raw = _cell(row.rate, row.se) if headline[2] == "balanced" else ""
        abstain = "-" if row.abstain_rate is None else f"{row.abstain_rate:.3f}"
        asked = row.n + row.unscored
        unscored = f"{row.unscored} ({row.unscored / asked:.0%})" if row.unscored else "0"
        task = row.task + (f" ({SELF_JUDGED})" if self_judged and TASKS.get(row.task) and
                           TASKS[row.task].reference_free else "")  # fmt: skip
        table.add_row(task, row.level, row.prompt_style, str(row.n), headline_cell(*headline), raw,
                      _cell(row.strict_rate, row.strict_se), abstain, unscored, str(row.pending), row.note)  # fmt: skip
    # piped output (make, files) gets room for every column instead of rich's 80-column default
    console = out if out.is_terminal else Console(width=max(out.width, 180))
    console.print(table)
    out.print(rate_footnote(), highlight=False, soft_wrap=True)
    print_notes([(row.task, row.note) for row in rows])


def print_notes(notes: list[tuple[str, str]]) -> None:
    """Print each task's row note once, unwrapped, under a rate table (the table may wrap the note column)."""
    for task, note in dict.fromkeys((task, note) for task, note in notes if note):
        why = " (its items have one class, so its balanced rate is its raw rate)" if note == SINGLE_CLASS_NOTE else ""
        out.print(f"note: {task}: {note}{why}", highlight=False, soft_wrap=True)


def print_skipped(skipped: list[tuple[str, str, str, str]]) -> None:
    """Say on stderr which task x level x style combinations were not asked, and why (one line each).

    Combinations the study never defines (a few-shot variant of a zero-shot-only task) are left out.
    """
    for task, level, style, reason in skipped:
        if "-shot template" not in reason:
            err.print(f"[dim]skipped {task} / {level} / {style}: {reason}[/]", highlight=False, soft_wrap=True)


def warn_sample_sizes(database: CaseDatabase, settings: ProfileSettings) -> None:
    """Warn on stderr about each level with fewer eligible cases than `n` in its date window (and, with
    `--complete-cases`, with every needed fact; the sample takes all of them); raise `BadInputError` when no level
    has any case to sample."""
    windows = settings.windows
    available = {}
    for level in settings.levels:
        require = shared_needs(settings.tasks, level) if settings.complete_cases else ()
        available[level] = eligible_count(database, level, windows[level], require)
    n = settings.n
    for level, count in available.items():
        where = f"decided {window_text(windows[level])}" + (", complete cases" if settings.complete_cases else "")
        if count == 0:
            err.print(f"[yellow]warning:[/] no {level} case in {safe_markup(str(database.path))} passes the "
                      f"sampling filter ({where}): nothing is asked at that level", highlight=False,
                      soft_wrap=True)  # fmt: skip
        elif count < n:
            err.print(f"[yellow]warning:[/] --n {n:,} is more than the {count:,} eligible {level} cases ({where}): "
                      f"sampling all {count:,}", highlight=False, soft_wrap=True)  # fmt: skip
    if not any(available.values()):
        raise BadInputError(f"no case to ask: {database.path} has no eligible case at level(s) "
                            f"{', '.join(settings.levels)}")  # fmt: skip


def mark_self_judged(rows: list[dict], self_judged: set[str], model: str | None = None) -> list[dict]:
    """Add `self_judged` to JSON rate rows: true on a reference-free task's row whose model (the row's `model`, else
    `model`) judged its own pairs."""
    for row in rows:
        task = TASKS.get(row.get("task", ""))
        row["self_judged"] = bool(task and task.reference_free and row.get("model", model) in self_judged)
    return rows


def print_coverage(coverage: list[dict]) -> None:
    """Print, per task and level, how many sampled cases the task could use and why it dropped the others."""
    if not coverage:
        return
    several = len({row.get("model") for row in coverage}) > 1
    table = Table(title="sample coverage: sampled cases each task could use")
    for column in (*(("model",) if several else ()), "task", "level", "sampled", "usable", "dropped (why)"):
        table.add_column(column, no_wrap=column != "dropped (why)")
    for row in coverage:
        sampled = "-" if row["sampled"] is None else str(row["sampled"])
        cells = (row["task"], row["level"], sampled, str(row["usable"]), dropped_text(row))
        table.add_row(*((safe_text(str(row.get("model"))),) if several else ()), *cells)
    console = out if out.is_terminal else Console(width=max(out.width, 132))
    console.print(table)


def design_settings(
    design: str | None, levels: str | None, styles: str | None, n: int | None, samples: int | None
) -> tuple[list[str], list[str], int, int, dict[str, int | None]]:
    """Return levels, prompt styles, n, K and per-task case counts: the options given, else the design's values
    (`--design paper`: `PAPER_DESIGN`), else the defaults. Raises `BadInputError` for an unknown design."""
    if design not in (None, "", "paper"):
        raise BadInputError(f"unknown --design {design!r}; valid: paper")
    paper = design == "paper"
    level_list = parse_levels(levels) if levels else list(PAPER_DESIGN["levels"] if paper else ["scotus"])
    style_list = [s.strip() for s in styles.split(",") if s.strip()] if styles is not None else ["zero", "few"]
    return (
        list(level_list),
        style_list,
        n if n is not None else (int(PAPER_DESIGN["n"]) if paper else 100),
        samples if samples is not None else (int(PAPER_DESIGN["samples"]) if paper else DEFAULT_SAMPLES),
        dict(PAPER_DESIGN["task_n"]) if paper else {},
    )


@hallucination_app.command("run")
def run(
    model: Annotated[str, typer.Option("--model", "-m", help=f"Model spec, one of: {valid_forms_text()}.")] = "local",
    task_list: Annotated[str, typer.Option("--tasks", help="Comma list of task ids, or 'all'.")] = "all",
    levels: Annotated[
        str | None,
        typer.Option(
            help=f"Comma list of court levels: {LEVELS_TEXT} (default scotus; all three with --design paper)."
        ),
    ] = None,
    prompt_styles: Annotated[str | None, typer.Option(help="Comma list: zero, few (default both).")] = None,
    n: Annotated[
        int | None, typer.Option("--n", min=1, help="Cases sampled per level (default 100; 5,000 with --design paper).")
    ] = None,
    years: Annotated[
        str,
        typer.Option(
            help="Decision years sampled per level, inclusive: 'paper' (the study's: scotus=1794-2015, "
            "coa=1895-2019, district=1932-2019), 'all', FROM-TO for every level, or LEVEL=FROM-TO,... (levels not "
            "named keep the study's window; LEVEL=all lifts it)."
        ),
    ] = "paper",
    complete_cases: Annotated[
        bool,
        typer.Option(
            "--complete-cases",
            help="Sample only cases with every fact the requested tasks need (a name, majority author, disposition, "
            "opinion text ...), as the study did, so every task asks the same cases.",
        ),
    ] = False,
    design: Annotated[
        str | None,
        typer.Option(
            help="'paper': the study's design - 5,000 cases per level at all three levels, 100 for the reference-free "
            "tasks, 5,000 doctrinal pairs, every overruled case, 1,000 for the contra-factual tasks, K = 10, zero- "
            "and few-shot. Options given explicitly override it."
        ),
    ] = None,
    judge: Annotated[
        str | None,
        typer.Option(help="Judge for the reference-free tasks' contradiction check (default: the model under test)."),
    ] = None,
    samples: Annotated[
        int | None,
        typer.Option(
            "--samples",
            min=0,
            help=f"Calibration samples K per question at temperature 1 (default {DEFAULT_SAMPLES}; confidence = share "
            "agreeing with the greedy answer); the study's tasks with calibration only (not "
            f"{task_names(lambda t: not t.calibrated and not t.reference_free)}, nor the reference-free ones). "
            "0 = no calibration.",
        ),
    ] = None,
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
    scotus, coa, district. An --n beyond a level's eligible cases samples all of them, with a warning. Cases are
    sampled within the study's date windows unless --years says otherwise.

    Example: `lexprobe hallucination run --model local --tasks existence,author --n 20 --samples 0 --run-dir runs/smol`
    (about 50 requests; add `--dry-run` to count requests, tokens and cost first).
    """
    try:
        check_model(model, credentials=not dry_run)  # a dry run sends nothing: no API key needed
        level_list, style_list, n_cases, k, task_n = design_settings(design, levels, prompt_styles, n, samples)
        settings = ProfileSettings(
            model=model,
            tasks=resolve_tasks(task_list),
            levels=level_list,
            styles=style_list,
            n=n_cases,
            seed=seed,
            judge=judge,
            samples=k,
            years=parse_year_windows(years, level_list),
            complete_cases=complete_cases,
            task_n=task_n,
            design=design or "",
        )
        if judge:
            check_model(judge, credentials=not dry_run)
    except (ModelConfigError, ValueError) as exc:
        raise error_exit(str(exc)) from None
    bad_styles = [s for s in settings.styles if s not in PROMPT_STYLES]
    if bad_styles or not settings.styles:
        raise error_exit(f"unknown prompt style(s) {bad_styles}; valid: zero, few")
    database = open_case_db(db)
    warn_sample_sizes(database, settings)
    if settings.self_judged and any(task.reference_free for task in settings.tasks):
        err.print(f"[yellow]warning:[/] {SELF_JUDGED_WARNING}", highlight=False, soft_wrap=True)
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
    coverage = [row.to_dict() for row in result.plan.coverage]
    if result.estimate is not None:
        print(json.dumps(result.estimate.to_dict()) if as_json else result.estimate.lines())
        return
    self_judged = {model} if settings.self_judged else set()
    if as_json:
        report = report_json(model, result.rows)
        report["rows"] = mark_self_judged(report["rows"], self_judged, model)
        print(json.dumps(report | {"judge": settings.judge_model, "self_judged": settings.self_judged,
                                   "coverage": coverage, "samples": result.plan.samples}))  # fmt: skip
    else:
        print_report(model, result.rows, self_judged=settings.self_judged)
        print_coverage(coverage)
        if any(task.reference_free for task in settings.tasks):
            judged = f" ({SELF_JUDGED}: the model judged its own pairs)" if settings.self_judged else ""
            out.print(f"contradiction judge: {settings.judge_model}{judged}", highlight=False)
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
    prompt_style: Annotated[
        str,
        typer.Option(
            "--prompt-style",
            help="Answers of the pooled breakdowns, figures 1-5, 7-8 and the pooled ECE: few (the study's choice: "
            "few-shot answers, zero-shot for tasks asked zero-shot only), zero, or all. Rate tables show every style.",
        ),
    ] = "few",
) -> None:
    """Print the rate tables, breakdowns and calibration of one or more runs; several runs are put side by side.

    Example: `lexprobe hallucination report runs/gpt runs/smol --html report.html`
    """
    if prompt_style not in PROMPT_STYLE_SELECTIONS:
        raise BadInputError(f"unknown --prompt-style {prompt_style!r}; valid: {', '.join(PROMPT_STYLE_SELECTIONS)}")
    try:
        infos, units = read_runs(run_dirs)
    except FileNotFoundError as exc:
        raise error_exit(str(exc)) from None
    stats = profile(units, load_roster(), bins=bins, seed=seed, holdout=holdout, prompt_style=prompt_style)
    models = [info.as_row() for info in infos]
    self_judged = {row["model"] for row in models if row["self_judged"]}
    mark_self_judged(stats["rates"], self_judged)
    coverage = [row for info in infos for row in info.coverage_rows()]
    if html is not None:
        from lexprobe.hallucination.html_report import write_html_report

        try:
            write_html_report(html, models, stats, units, coverage=coverage)
        except OSError as exc:
            raise error_exit(f"cannot write {html}: {exc}") from None
        err.print(f"wrote {html}", highlight=False, soft_wrap=True)
    if as_json:
        single = {}
        if len(infos) == 1:
            single = report_json(infos[0].model, report_rows(units))
            single["rows"] = mark_self_judged(single["rows"], self_judged, models[0]["model"])
            single |= {"judge": models[0]["judge"], "self_judged": models[0]["self_judged"]}
        print(json.dumps(single | {"models": models} | stats | {"coverage": coverage}))
        return
    if len(infos) == 1:
        print_report(infos[0].model, report_rows(units), self_judged=models[0]["self_judged"])
    else:
        print_side_by_side(stats["rates"], [info.label for info in infos])
    print_statistics(stats)
    print_coverage(coverage)
    if any(row["lower_bound"] for row in stats["rates"]):
        for model in models:
            judged = f" ({SELF_JUDGED}: the model judged its own pairs)" if model["self_judged"] else ""
            out.print(f"contradiction judge for {model['model']}: {model['judge']}{judged}", highlight=False)


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
    table = Table(title="hallucination rates, models side by side: rate (s.e.) [n]; strict (s.e.)")
    for column in ("task", "level", "prompt", *models):
        table.add_column(column, no_wrap=True)
    cells: dict[tuple[str, str, str], dict[str, str]] = {}
    for row in rates:
        key = (row["task"] + (" (lower bound)" if row["lower_bound"] else ""), row["level"], row["prompt_style"])
        judged = f" {SELF_JUDGED}" if row.get("self_judged") else ""
        cells.setdefault(key, {})[row["model"]] = side_by_side_cell(row) + judged
    for (task, level, style), by_model in cells.items():
        table.add_row(task, level, style, *(by_model.get(model, "-") for model in models))
    console = out if out.is_terminal else Console(width=max(out.width, 160))
    console.print(table)
    out.print(rate_footnote(), highlight=False, soft_wrap=True)
    print_notes([(row["task"], row["note"]) for row in rates])


def side_by_side_cell(row: dict) -> str:
    """Return one model's cell of the side-by-side table: headline rate (s.e.) [n] (balanced where the task has
    one, then the raw rate), the strict rate, and the row's note."""
    balanced = row["task"] in BALANCED_TASKS
    headline = (row["balanced_rate"], row["balanced_se"], "balanced") if balanced else (row["rate"], row["se"], "rate")
    parts = [f"{headline_cell(*headline)} [{row['n']}]"]
    if balanced:
        parts.append(f"raw {_cell(row['rate'], row['se'])}")
    if row["strict_rate"] is not None:
        parts.append(f"strict {_cell(row['strict_rate'], row['strict_se'])}")
    return "; ".join(parts + ([row["note"]] if row["note"] else []))


def print_statistics(stats: dict) -> None:
    """Print balanced rates, the main breakdowns and the calibration table."""
    console = out if out.is_terminal else Console(width=max(out.width, 160))
    balanced = [row for row in stats["rates"] if row["task"] in BALANCED_TASKS]
    if balanced:
        table = Table(title="class-balanced rates (the headline of these tasks): mean of per-class rates (s.e.)")
        for column in ("model", "task", "level", "prompt", "n", "balanced (s.e.)", "raw rate (s.e.)", "note"):
            table.add_column(column, no_wrap=column != "note")
        for row in balanced:
            table.add_row(row["model"], row["task"], row["level"], row["prompt_style"], str(row["n"]),
                          _cell(row["balanced_rate"], row["balanced_se"]), _cell(row["rate"], row["se"]),
                          row["note"])  # fmt: skip
        console.print(table)
    style = stats["estimators"]["prompt_style"]
    for name, title in (("level", "by court level"), ("complexity", "by task complexity"),
                        ("contra_factual", "contra-factual (false-premise) tasks")):  # fmt: skip
        groups = stats["breakdowns"][name]
        if not groups:
            continue
        table = Table(title=f"{title}, {style} answers (--prompt-style): rate (s.e.) [n]")
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
            "temperature 1 agreeing with the greedy answer; the debiased estimator can fall below 0 on small n. "
            f"Pooled rows: {stats['estimators']['pooled']}.",
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
