"""The `lexprobe` command line: parse, call the library, print. Results go to stdout; progress and logs to stderr.

Exit codes: 0 success; 1 the work ran but some requests are still pending (rerun to resume); 2 bad input,
configuration or a permanent failure (unknown model spec, missing API key, conflicting run directory, a prompt
longer than the context window); 130 stopped by Ctrl-C (what completed is kept; rerun to resume).
"""

from __future__ import annotations

import asyncio
import json
import logging
import sys
import tempfile
from pathlib import Path
from typing import Annotated, NoReturn

import typer
from rich.logging import RichHandler
from rich.table import Table

from lexprobe import __version__
from lexprobe.caselaw.build import BuildError
from lexprobe.caselaw.paths import default_db_path
from lexprobe.caselaw.query import case_database_is_current
from lexprobe.cli_check import register as register_check
from lexprobe.cli_common import LexprobeGroup, err, error_exit, out
from lexprobe.cli_data import data_app
from lexprobe.cli_hallucination import hallucination_app, load_roster, print_report, print_skipped
from lexprobe.cli_investigation import investigation_app
from lexprobe.demo import DEMO_CASES, demo_settings, ensure_case_database, run_demo, run_demo_investigation
from lexprobe.engine import (
    Engine,
    EngineConfig,
    ResponseCache,
    RunConflictError,
    RunStore,
    default_cache_dir,
    estimate_run,
)
from lexprobe.engine.interrupt import RunInterrupted, stop_on_sigint
from lexprobe.engine.progress import format_cost
from lexprobe.hallucination.profile_stats import profile
from lexprobe.hallucination.results import read_runs
from lexprobe.models import ModelConfigError, Request, check_model, model_status
from lexprobe.models.spec import valid_forms_text

app = typer.Typer(
    cls=LexprobeGroup,
    name="lexprobe",
    help=(
        "Measure what language models know about law and how well they investigate legal evidence.\n\n"
        "Every command that talks to a model takes --model SPEC. Run `lexprobe models` to see the spec forms "
        "and which ones work on this machine right now.\n\n"
        'Examples: `lexprobe data build`, `lexprobe ask "Who wrote Miranda v. Arizona?"`, '
        "`lexprobe hallucination run --model local --tasks existence --n 5 --samples 0 --run-dir runs/smol`, "
        "`lexprobe check brief.pdf`, `lexprobe investigation run envs/harlow --model local --run-dir runs/inv`. "
        "Every command's --help shows an example of its own."
    ),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.add_typer(data_app, name="data")
app.add_typer(hallucination_app, name="hallucination")
app.add_typer(investigation_app, name="investigation")
register_check(app)

MODEL_HELP = f"Model spec, one of: {valid_forms_text()}. `lexprobe models` explains each form."


def fail(message: str, code: int = 2) -> NoReturn:
    """Print a one-line reason on stderr and exit with `code`."""
    raise error_exit(message, code)


def version_callback(value: bool) -> None:
    if value:
        out.print(f"lexprobe {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    version: Annotated[
        bool, typer.Option("--version", callback=version_callback, is_eager=True, help="Print the version.")
    ] = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Log every retry and model load on stderr.")] = False,
) -> None:
    """lexprobe command line."""
    logging.basicConfig(
        level=logging.INFO if verbose else logging.WARNING,
        format="%(message)s",
        handlers=[RichHandler(console=err, show_path=False, show_time=False)],
    )


ConcurrencyOpt = Annotated[
    int | None,
    typer.Option(min=1, help="Requests in flight per model (default: 1 embedded, 4 compatible servers, 8-16 APIs)."),
]
NoCacheOpt = Annotated[
    bool, typer.Option("--no-cache", help="Neither read nor write the shared response cache (LEXPROBE_CACHE).")
]
DryRunOpt = Annotated[
    bool, typer.Option("--dry-run", help="Print how many requests, tokens and dollars the job needs; send nothing.")
]
RetriesOpt = Annotated[int, typer.Option(min=0, help="Retries on rate limits, 5xx, timeouts and resets.")]
TimeoutOpt = Annotated[float | None, typer.Option(min=0.1, help="Per-request time limit in seconds.")]


def engine_config(concurrency: int | None, no_cache: bool, max_retries: int, timeout: float | None) -> EngineConfig:
    """Return the engine settings of a command, with a progress bar only when stderr is a terminal."""
    return EngineConfig(
        concurrency=concurrency,
        use_cache=not no_cache,
        max_retries=max_retries,
        timeout_s=timeout,
        progress=sys.stderr.isatty(),
    )


@app.command()
def models(
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")] = False,
) -> None:
    """List the model spec forms and whether each is usable right now (key present, package installed).

    Examples: `lexprobe ask --model local "..."`, `--model openai/gpt-4o-mini`,
    `--model openai-compatible/llama3@http://127.0.0.1:8000/v1`, `--model anthropic/claude-3-5-haiku-latest`.
    """
    rows = model_status()
    if as_json:
        print(json.dumps([row.__dict__ for row in rows]))
        return
    table = Table(title="Model specs")
    table.add_column("spec")
    table.add_column("what it is")
    table.add_column("usable now")
    for row in rows:
        status = "[green]yes[/]" if row.usable else f"[yellow]no[/]: {row.reason}"
        table.add_row(row.form, row.description, status)
    out.print(table)
    out.print(f"Response cache: {default_cache_dir()} (set LEXPROBE_CACHE to move it)", highlight=False)


#: The kind of run `lexprobe ask --run-dir` records (see `RunStore.claim`).
ASK_KIND = "ask"


@app.command()
def ask(
    prompt: Annotated[str, typer.Argument(help="The question to ask.")],
    model: Annotated[str, typer.Option("--model", "-m", help=MODEL_HELP)] = "local",
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
    as_json: Annotated[
        bool, typer.Option("--json", help='Print {"text", "usage", "cost_usd", "latency_s", "cached"}.')
    ] = False,
    concurrency: ConcurrencyOpt = None,
    no_cache: NoCacheOpt = False,
    dry_run: DryRunOpt = False,
    max_retries: RetriesOpt = 6,
    timeout: TimeoutOpt = None,
) -> None:
    """Answer one prompt through the engine (cache, retries, usage and cost accounting).

    Example: `lexprobe ask --model local --json "Who wrote Marbury v. Madison?"`
    """
    try:
        check_model(model, credentials=not dry_run)  # a dry run sends nothing: no API key needed
        request = Request.from_prompt(
            model,
            prompt,
            system=system,
            temperature=temperature,
            seed=seed,
            max_tokens=max_tokens,
            sample_index=sample_index,
        )
        config = engine_config(concurrency, no_cache, max_retries, timeout)
        cache = ResponseCache() if config.use_cache else None
        store = RunStore.open(run_dir) if run_dir else RunStore.in_memory()
        if run_dir and dry_run:  # a run directory holds one kind of run of one model; a dry run records nothing
            store.check_claim(ASK_KIND, model)
        elif run_dir:
            store.claim(ASK_KIND, model)
        if dry_run:
            estimate = estimate_run([request], store, cache)
            print(json.dumps(estimate.to_dict()) if as_json else estimate.one_line())
            return
        with stop_on_sigint():  # Ctrl-C: the call stops cleanly, exit 130
            summary = asyncio.run(_run_once(store, cache, config, request))
    except (ModelConfigError, RunConflictError) as exc:
        fail(str(exc))
    except RunInterrupted as exc:
        err.print(exc.summary.one_line(), highlight=False)
        raise
    response = store.response(request.request_id)
    if response is None:
        if summary.permanent_errors:
            fail(f"the request failed permanently: {summary.permanent_errors[0].split(': ', 1)[-1]}")
        reason = summary.errors[0].split(": ", 1)[-1] if summary.errors else "no answer"
        fail(f"the request failed after {summary.retries} retries: {reason}; rerun to try again", code=1)
    if as_json:
        payload = {
            "text": response.text,
            "usage": response.usage.model_dump(),
            "cost_usd": response.cost_usd,
            "latency_s": response.latency_s,
            "cached": response.cached,
        }
        print(json.dumps(payload))
        return
    print(response.text)
    usage = response.usage
    err.print(
        f"[dim]{usage.input_tokens} in / {usage.output_tokens} out tokens, {format_cost(response.cost_usd)}, "
        f"{response.latency_s:.2f}s{', from cache' if response.cached else ''}[/]",
        highlight=False,
    )


async def _run_once(store: RunStore, cache: ResponseCache | None, config: EngineConfig, request: Request):
    engine = Engine(store, cache, config)
    try:
        return await engine.run([request])
    finally:
        await engine.aclose()


@app.command()
def demo(
    model: Annotated[str, typer.Option("--model", "-m", help=MODEL_HELP)] = "local",
    run_dir: Annotated[Path | None, typer.Option(help="Run directory (default: a new temporary folder).")] = None,
    n: Annotated[int, typer.Option("--n", min=1, help="Supreme Court cases sampled.")] = DEMO_CASES,
    prompt_styles: Annotated[str, typer.Option(help="Comma list of prompt styles: zero, few.")] = "zero",
    samples: Annotated[int, typer.Option("--samples", min=0, help="Calibration samples K per question.")] = 3,
    html: Annotated[Path, typer.Option("--html", help="Where to write the HTML report.")] = Path("demo-report.html"),
    no_cache: NoCacheOpt = False,
) -> None:
    """A small hallucination profile of the embedded model (or --model): every task the shared data supports
    (Supreme Court cases; reference-free tasks judged by the model itself), K=3 calibration samples, scored against
    the case database, printed as tables and written as an HTML report (demo-report.html).

    Builds the case database first when there is none (`lexprobe data build`, about 10 s). Takes a few minutes on
    two CPU cores; rerunning is instant (cached).

    Example: `lexprobe demo --html demo-report.html`
    """
    try:
        check_model(model)
    except ModelConfigError as exc:
        fail(str(exc))
    db_path = default_db_path()
    if not case_database_is_current(db_path):
        err.print(f"[dim]building the case database at {db_path} (first run only)...[/]", highlight=False)
        try:
            ensure_case_database(db_path)
        except BuildError as exc:
            fail(str(exc))
    folder = run_dir or Path(tempfile.mkdtemp(prefix="lexprobe-demo-"))
    config = engine_config(None, no_cache, 6, None)
    cache = None if no_cache else ResponseCache()
    err.print(f"[dim]profiling {model}; run directory {folder}[/]", highlight=False)
    styles = tuple(s.strip() for s in prompt_styles.split(",") if s.strip())
    if not styles or set(styles) - {"zero", "few"}:
        fail(f"unknown prompt style(s) in {prompt_styles!r}; valid: zero, few")
    settings = demo_settings(model, n, styles, samples)
    try:
        with stop_on_sigint():  # Ctrl-C: stop cleanly, print what is done, exit 130; rerun to resume
            result = asyncio.run(run_demo(folder, db_path, cache, config, settings))
    except ValueError as exc:
        fail(str(exc))
    except RunInterrupted as exc:
        err.print(exc.summary.one_line(), highlight=False)
        err.print(f"resume with: lexprobe demo --run-dir {folder}", highlight=False, soft_wrap=True)
        raise
    print_skipped(result.plan.skipped)
    print_report(model, result.rows, self_judged=settings.self_judged)
    if result.summary is not None:
        out.print(result.summary.one_line(), highlight=False, soft_wrap=True)
        out.print(f"Reprint this table with: lexprobe hallucination report {folder}", highlight=False, soft_wrap=True)
        if not result.summary.complete:
            fail("some demo requests failed: " + "; ".join(result.summary.errors), code=1)
    err.print("[dim]investigating the fictional sample environment (two turns)...[/]", highlight=False)
    with stop_on_sigint():
        investigation, episodes = asyncio.run(run_demo_investigation(folder, model, cache, config))
    for episode in episodes:
        verdicts = " ".join(f"{v.label}={v.verdict or '?'}" for v in episode.verdicts)
        out.print(f"investigation episode {episode.episode_id}: {episode.status}, "
                  f"{sum(not c.denied for c in episode.tool_calls)} tool calls, verdicts {verdicts or '-'}",
                  highlight=False, soft_wrap=True)  # fmt: skip
    if investigation:
        record = investigation.models[0]
        transcript = f"lexprobe investigation show {folder / 'investigation'}"
        out.print(f"case solved {record.case_solved or 0:.0f}; worst-class accuracy {record.worst_class_acc or 0:.2f}; "
                  f"coverage {record.coverage or 0:.2f} (transcript: {transcript})",
                  highlight=False, soft_wrap=True)  # fmt: skip
    infos, units = read_runs([folder])
    # the figures pool few-shot answers as the study's do; a zero-shot-only demo pools its zero-shot ones (issue 13)
    stats = profile(units, load_roster(), prompt_style="few" if "few" in styles else "zero")
    models = [info.as_row() for info in infos]
    from lexprobe.hallucination.html_report import write_html_report  # matplotlib: imported only when needed

    try:
        write_html_report(html, models, stats, units, investigation,
                          coverage=[row for info in infos for row in info.coverage_rows()])  # fmt: skip
    except OSError as exc:
        fail(f"cannot write {html}: {exc}")
    out.print(f"HTML report: {html.resolve()}", highlight=False, soft_wrap=True)
