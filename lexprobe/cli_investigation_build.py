"""`lexprobe investigation build`: turn a summary-judgment record into an investigation environment. Thin: parse,
call lexprobe.investigation.pipeline, print. Progress goes to stderr, the build report to stdout.

Exit codes: 0 built (or built up to --stage); 1 a stage failed (the one-line reason names the stage and the item;
rerun the same command to resume after fixing it); 2 bad input (missing record folder, unknown stage, ablation or
model spec).
"""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from lexprobe.cli_common import err, error_exit, out
from lexprobe.engine import EngineConfig, ResponseCache
from lexprobe.investigation.pipeline import (
    ABLATION_LEVELS,
    STAGE_ORDER,
    BuildResult,
    BuildSettings,
    StageError,
    run_build,
)
from lexprobe.models import ModelConfigError, check_model


def register(app: typer.Typer) -> None:
    """Add the `build` command to the `lexprobe investigation` app."""
    app.command("build")(build)


def build(
    record_dir: Annotated[Path, typer.Argument(help="Folder of the record's filings (PDF or text files).")],
    out_dir: Annotated[Path, typer.Option("--out", help="Environment folder to build (resumable).")],
    generator: Annotated[str, typer.Option(help="Model spec that extracts, plans and writes.")] = "local",
    judge: Annotated[str | None, typer.Option(help="Model spec that judges (default: the generator).")] = None,
    stage: Annotated[
        str | None, typer.Option(help=f"Run the stages up to and including this one ({', '.join(STAGE_ORDER)}).")
    ] = None,
    ablation: Annotated[str, typer.Option(help=f"Corpus level: {', '.join(ABLATION_LEVELS)}.")] = "+chaff100",
    docs_per_role: Annotated[
        int,
        typer.Option(min=0, help="Signal and noise documents; pro-alternative and refuting documents per alternative."),
    ] = 2,
    chaff: Annotated[int, typer.Option(min=0, help="Chaff documents at +chaff100.")] = 4,
    shards: Annotated[int, typer.Option(min=0, help="Pattern facts spread over 3-5 shard documents each.")] = 1,
    regenerations: Annotated[int, typer.Option(min=0, help="Regenerations of a rejected document.")] = 3,
    max_attempts: Annotated[int, typer.Option(min=1, help="Requests per item until its output is valid.")] = 3,
    max_tokens: Annotated[int, typer.Option(min=16, help="Output tokens per request.")] = 2048,
    max_input_chars: Annotated[int, typer.Option(min=200, help="Characters of one source text in a prompt.")] = 24000,
    case_id: Annotated[str, typer.Option(help="Case id (default: the record folder's name).")] = "",
    category: Annotated[str, typer.Option(help="Federal case type, e.g. employment.")] = "",
    fictional: Annotated[bool, typer.Option("--fictional", help="Mark the record as fictional.")] = False,
    seed: Annotated[int, typer.Option(help="Rendering seed of synthetic documents.")] = 0,
    concurrency: Annotated[int | None, typer.Option(min=1, help="Requests in flight per model.")] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Bypass the shared response cache.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the build report as JSON.")] = False,
) -> None:
    """Build an InvestigationWorlds environment from a record: ingest, ground truth, entities, alternatives,
    document plans, generation with a judge, assembly at an ablation level.

    Example: `lexprobe investigation build records/acme --generator openai/gpt-4o-mini --out envs/acme`
    """
    if not record_dir.is_dir():
        raise error_exit(f"record folder not found: {record_dir}")
    if stage is not None and stage not in STAGE_ORDER:
        raise error_exit(f"unknown stage {stage!r}; stages: {', '.join(STAGE_ORDER)}")
    if ablation not in ABLATION_LEVELS:
        raise error_exit(f"unknown ablation level {ablation!r}; levels: {', '.join(ABLATION_LEVELS)}")
    settings = BuildSettings(
        generator=generator,
        judge=judge,
        ablation=ablation,  # type: ignore[arg-type]
        case_id=case_id,
        category=category,
        fictional=fictional,
        docs_per_role=docs_per_role,
        chaff_docs=chaff,
        shard_facts=shards,
        regenerations=regenerations,
        max_attempts=max_attempts,
        max_tokens=max_tokens,
        max_input_chars=max_input_chars,
        seed=seed,
    )
    try:
        for spec in dict.fromkeys([settings.generator, settings.judge_model]):
            check_model(spec)
    except ModelConfigError as exc:
        raise error_exit(str(exc)) from None
    logging.getLogger("pypdf").setLevel(logging.ERROR)  # "Rotated text discovered" and the like, per page
    config = EngineConfig(concurrency=concurrency, use_cache=not no_cache, progress=sys.stderr.isatty())
    cache = None if no_cache else ResponseCache()
    try:
        result = run_build(record_dir, out_dir, settings, until=stage, cache=cache, engine_config=config)
    except StageError as exc:
        if as_json:
            print(json.dumps({"status": "failed", "stage": exc.stage, "item": exc.item, "error": str(exc)}))
        raise error_exit(str(exc), code=1) from None
    except (ModelConfigError, ValueError) as exc:
        raise error_exit(str(exc)) from None
    _print(result, as_json)


def _print(result: BuildResult, as_json: bool) -> None:
    report = result.report
    if as_json:
        payload = {
            "status": "built" if report else "partial",
            "out": str(result.out_dir),
            "ran": result.ran,
            "skipped": result.skipped,
            "report": report.model_dump(mode="json") if report else None,
        }
        print(json.dumps(payload))
        return
    last = (result.ran or result.skipped)[-1] if (result.ran or result.skipped) else "-"
    err.print(
        f"ran {len(result.ran)} stage(s), skipped {len(result.skipped)} up to date; last: {last}", highlight=False
    )
    if report is None:
        out.print(
            f"{result.out_dir}: built up to stage {last} (stage files in {result.out_dir / 'stages'})", highlight=False
        )
        return
    table = Table(title=f"{report.case_id}: corpus at {report.ablation}")
    for column in ("role", "in corpus", "generated"):
        table.add_column(column, justify="right" if column != "role" else "left")
    for role in ("merits", "signal", "pro_alternative", "refuting", "noise", "chaff"):
        table.add_row(role, str(report.documents_by_role.get(role, 0)), str(report.generated_by_role.get(role, "-")))
    out.print(table)
    usage = (report.usage or {}).get("total", {})
    cost = usage.get("cost_usd")
    out.print(
        f"{report.questions} questions; {report.rejections} draft(s) refused {report.rejections_by}; "
        f"{len(report.failed_specs)} spec(s) failed; validator: "
        f"{'n/a' if report.validator is None else f'{len(report.validator)} problem(s)'}; "
        f"{usage.get('input_tokens', 0) + usage.get('output_tokens', 0):,} tokens, "
        f"{'n/a' if cost is None else f'${cost:.4f}'}",
        highlight=False,
    )
