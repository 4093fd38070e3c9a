"""The top-level commands `lexprobe models`, `ask` and `demo`: parse, call the library, print."""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from lexprobe.cli.options import ENGINE_DEFAULTS, EngineOptions, ModelOpt, engine_options, json_flag
from lexprobe.cli.output import err, out
from lexprobe.demo import DEMO_CASES
from lexprobe.errors import LexprobeError
from lexprobe.models.registry import check_model, model_status
from lexprobe.terminal import safe_text

if TYPE_CHECKING:
    from lexprobe.engine.cache import ResponseCache
    from lexprobe.engine.config import EngineConfig
    from lexprobe.investigation.scoring.schema import ScoreSummary

__all__ = ["ask", "demo", "models", "register"]

#: The narrowest console on which `lexprobe models` prints spec, description and status as three columns.
MODELS_THREE_COLUMNS = 110


def register(app: typer.Typer) -> None:
    """Add `models`, `ask` and `demo` to the root app."""
    app.command()(models)
    app.command()(ask)
    app.command()(demo)


def models(
    as_json: json_flag("Print JSON instead of a table.") = False,
) -> None:
    """List the model spec forms and whether each is usable right now (key present, package installed).

    Examples: `lexprobe ask --model local "..."`, `--model openai/gpt-4o-mini`,
    `--model openai-compatible/llama3@http://127.0.0.1:8000/v1`, `--model anthropic/claude-3-5-haiku-latest`.
    Replicas of one model: `--model openai-compatible/llama3@http://gpu1:8000/v1,http://gpu2:8000/v1` (requests go
    to the least busy replica, `--concurrency` counts per replica, a failed replica's requests go to another).
    """
    from rich.table import Table
    from rich.text import Text

    from lexprobe.engine.cache import default_cache_dir

    rows = model_status()
    if as_json:
        print(json.dumps([row.__dict__ for row in rows]))
        return
    # A spec is never cut: its column is as wide as the longest one. Below MODELS_THREE_COLUMNS columns (an
    # 80-column terminal) the description goes under its spec instead of into a column of its own.
    longest = max((len(row.form) for row in rows), default=4)
    three = out.width >= MODELS_THREE_COLUMNS
    table = Table(title="Model specs")
    table.add_column("spec" if three else "spec: what it is", min_width=longest)
    if three:
        table.add_column("what it is")
    table.add_column("usable now")
    for row in rows:
        status = Text.from_markup("[green]yes[/]") if row.usable else Text.assemble(("no", "yellow"), f": {row.reason}")
        if three:
            table.add_row(Text(row.form, no_wrap=True), row.description, status)
        else:
            table.add_row(Text.assemble((row.form, "bold"), "\n", (row.description, "dim")), status)
    out.print(table)
    out.print(f"Response cache: {default_cache_dir()} (set LEXPROBE_CACHE to move it)", highlight=False)


@engine_options(dry_run=True)
def ask(
    prompt: Annotated[str, typer.Argument(help="The question to ask.")],
    model: ModelOpt = "local",
    system: Annotated[str | None, typer.Option(help="Optional system prompt.")] = None,
    temperature: Annotated[float, typer.Option(min=0.0, max=2.0, help="0 is deterministic.")] = 0.0,
    seed: Annotated[
        int | None, typer.Option(help="Sampling seed; with temperature > 0 it reproduces a sample.")
    ] = None,
    max_tokens: Annotated[int, typer.Option(min=1, help="Longest answer, in tokens.")] = 256,
    sample_index: Annotated[int, typer.Option(min=0, help="Which of K samples (temperature > 0).")] = 0,
    run_dir: Annotated[
        Path | None, typer.Option(help="Keep the request and answer in this run directory (default: nowhere).")
    ] = None,
    as_json: json_flag('Print {"text", "usage", "cost_usd", "latency_s", "cached"}.') = False,
    engine: EngineOptions = ENGINE_DEFAULTS,
) -> None:
    """Answer one prompt through the engine (cache, retries, usage and cost accounting).

    Example: `lexprobe ask --model local --json "Who wrote Marbury v. Madison?"`
    """
    from lexprobe.engine.ask import ask_once, estimate_ask
    from lexprobe.engine.interrupt import RunInterrupted
    from lexprobe.engine.progress import format_cost
    from lexprobe.models.types import Request

    check_model(model, credentials=not engine.dry_run)  # a dry run sends nothing: no API key needed
    request = Request.from_prompt(model, prompt, system=system, temperature=temperature, seed=seed,
                                  max_tokens=max_tokens, sample_index=sample_index)  # fmt: skip
    config, cache = engine.config(), engine.cache()
    if engine.dry_run:  # a dry run writes nothing: it reads an existing run directory, creates none
        estimate = estimate_ask(request, run_dir, cache)
        print(json.dumps(estimate.to_dict()) if as_json else safe_text(estimate.one_line()))
        return
    try:
        response = ask_once(request, run_dir, cache, config)
    except RunInterrupted as exc:  # Ctrl-C: the call stopped cleanly, exit 130
        err.print(exc.summary.one_line(), highlight=False)
        raise
    if as_json:
        print(json.dumps({"text": response.text, "usage": response.usage.model_dump(), "cost_usd": response.cost_usd,
                          "latency_s": response.latency_s, "cached": response.cached}))  # fmt: skip
        return
    print(safe_text(response.text))  # the model's words; a control or bidi character shown as an escape
    usage = response.usage
    err.print(
        f"[dim]{usage.input_tokens} in / {usage.output_tokens} out tokens, {format_cost(response.cost_usd)}, "
        f"{response.latency_s:.2f}s{', from cache' if response.cached else ''}[/]",
        highlight=False,
    )


@engine_options()
def demo(
    model: ModelOpt = "local",
    run_dir: Annotated[
        Path | None,
        typer.Option(help="Run directory, kept (default: a temporary folder, removed when the demo ends)."),
    ] = None,
    n: Annotated[
        int, typer.Option("--n", min=1, help="Supreme Court cases sampled (with every fact the tasks need).")
    ] = DEMO_CASES,
    prompt_styles: Annotated[str, typer.Option(help="Comma list of prompt styles: zero, few.")] = "zero",
    samples: Annotated[int, typer.Option("--samples", min=0, help="Calibration samples K per question.")] = 3,
    html: Annotated[Path, typer.Option("--html", help="Where to write the HTML report.")] = Path("demo-report.html"),
    engine: EngineOptions = ENGINE_DEFAULTS,
) -> None:
    """A small hallucination profile of the embedded model (or --model): every task, on Supreme Court cases that
    have every fact the tasks need (decided 1794-2015; reference-free tasks judged by the model itself), K=3
    calibration samples, scored against the case database, printed as tables and written as an HTML report
    (demo-report.html) that sets the model beside the paper's GPT 4, GPT 3.5, PaLM 2 and Llama 2 (the study's
    published rates, each comparison with its design differences); then one investigation episode on the fictional
    sample environment.

    Builds the case database first when there is none (`lexprobe data build`, about 10 s). Takes a few minutes on
    two CPU cores; rerunning is instant (cached). Without --run-dir the runs go to a temporary folder that is
    removed at the end (kept, and named, when the demo is interrupted with Ctrl-C, so that it can resume there;
    removed when it is stopped with SIGTERM, exit 143).

    Example: `lexprobe demo --html demo-report.html`
    """
    from lexprobe.caselaw.paths import default_db_path
    from lexprobe.caselaw.query import case_database_is_current
    from lexprobe.demo import demo_styles, ensure_case_database, write_demo_report
    from lexprobe.engine.interrupt import stop_on_sigterm

    check_model(model)
    styles = demo_styles(prompt_styles)
    db_path = default_db_path()
    if not case_database_is_current(db_path):
        err.print(f"[dim]building the case database at {db_path} (first run only)...[/]", highlight=False)
        ensure_case_database(db_path)  # a BuildError: one line, exit 2
    temporary = run_dir is None  # the runs go to a temporary folder, removed at the end (kept when interrupted)
    # SIGTERM stops the demo like Ctrl-C instead of killing it, so the `finally` below removes the temporary folder
    on_sigterm = stop_on_sigterm()
    on_sigterm.__enter__()
    folder = run_dir or Path(tempfile.mkdtemp(prefix="lexprobe-demo-"))
    keep = [not temporary]  # set when an interrupted demo keeps its temporary folder to resume there
    try:
        config, cache = engine.config(), engine.cache()
        cases = _demo_profile(folder, db_path, model, (n, styles, samples), cache, config, temporary, keep)
        investigation, notes = _demo_investigation(folder, model, cache, config, keep[0])
        write_demo_report(folder, html, styles, cases, temporary=temporary, investigation=investigation,
                          investigation_notes=notes)  # fmt: skip
        out.print(f"HTML report: {html.resolve()} (with the paper's reference rows)", highlight=False, soft_wrap=True)
    finally:
        if not keep[0]:
            shutil.rmtree(folder, ignore_errors=True)
        on_sigterm.__exit__(None, None, None)
    if temporary:
        cached = " (the answers stay in the response cache, so a rerun is instant)" if cache is not None else ""
        err.print(f"[dim]the temporary run folder was removed; rerun with --run-dir DIR to keep the runs{cached}[/]",
                  highlight=False)  # fmt: skip


def _demo_profile(folder: Path, db_path: Path, model: str, shape: tuple[int, tuple[str, ...], int],
                  cache: ResponseCache | None, config: EngineConfig, temporary: bool,
                  keep: list[bool]) -> str:  # fmt: skip
    """The demo's profile of `model` (n cases, prompt styles, K samples) into `folder`, its tables printed; returns
    how its cases were chosen. Ctrl-C keeps the folder to resume there (`keep`), SIGTERM removes it."""
    import asyncio

    from lexprobe.cli.hallucination_tables import print_report, print_skipped
    from lexprobe.demo import demo_settings, run_demo
    from lexprobe.demo_notes import sample_note
    from lexprobe.engine.interrupt import RunInterrupted, Terminated, sigterm_received, stop_on_sigint

    where = f"a temporary folder {folder} (removed at the end; --run-dir keeps the runs)" if temporary else folder
    err.print(f"[dim]profiling {model}; run directory {where}[/]", highlight=False)
    settings = demo_settings(model, *shape)
    try:
        with stop_on_sigint():  # Ctrl-C: stop cleanly, print what is done, exit 130; rerun to resume
            result = asyncio.run(run_demo(folder, db_path, cache, config, settings))
    except RunInterrupted as exc:
        err.print(exc.summary.one_line(), highlight=False)
        if sigterm_received():  # nobody there to resume: the temporary folder goes
            raise Terminated() from None
        keep[0] = True  # kept on purpose, so that the demo can resume there
        err.print(f"resume with: lexprobe demo --run-dir {folder}", highlight=False, soft_wrap=True)
        raise
    print_skipped(result.plan.skipped)
    print_report(model, result.rows, self_judged=settings.self_judged)
    cases = sample_note(result.plan, settings.seed, settings.task_n)
    out.print(f"cases: {cases}", highlight=False, soft_wrap=True)
    if result.summary is not None:
        out.print(result.summary.one_line(), highlight=False, soft_wrap=True)
        if not temporary:
            out.print(f"Reprint this table with: lexprobe hallucination report {folder}", highlight=False,
                      soft_wrap=True)  # fmt: skip
        if not result.summary.complete:
            raise LexprobeError("some demo requests failed: " + "; ".join(result.summary.errors), exit_code=1)
    return cases


def _demo_investigation(folder: Path, model: str, cache: ResponseCache | None, config: EngineConfig,
                        keep: bool) -> tuple[ScoreSummary | None, list[str]]:  # fmt: skip
    """The demo's investigation episode on the fictional sample environment, printed; returns its scoring summary
    and the notes on why it gave no verdicts (for the report too)."""
    import asyncio

    from rich.text import Text

    from lexprobe.demo import run_demo_investigation
    from lexprobe.demo_notes import investigation_note
    from lexprobe.engine.interrupt import stop_on_sigint

    err.print("[dim]investigating the fictional sample environment (two turns)...[/]", highlight=False)
    with stop_on_sigint():
        investigation, episodes = asyncio.run(run_demo_investigation(folder, model, cache, config))
    for episode in episodes:
        verdicts = " ".join(f"{v.label}={v.verdict or '?'}" for v in episode.verdicts)
        out.print(f"investigation episode {episode.episode_id}: {episode.status}, "
                  f"{sum(not c.denied for c in episode.tool_calls)} tool calls, verdicts {verdicts or '-'}",
                  highlight=False, soft_wrap=True)  # fmt: skip
    notes = [note for note in map(investigation_note, episodes) if note]
    for note in notes:  # why there are no verdicts, and what to run instead
        out.print(Text(note), highlight=False, soft_wrap=True)
    if investigation:
        record = investigation.models[0]
        transcript = f" (transcript: lexprobe investigation show {folder / 'investigation'})" if keep else ""
        out.print(f"case solved {record.case_solved or 0:.0f}; worst-class accuracy "
                  f"{record.worst_class_acc or 0:.2f}; coverage {record.coverage or 0:.2f}{transcript}",
                  highlight=False, soft_wrap=True)  # fmt: skip
    return investigation, notes
