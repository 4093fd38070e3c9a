"""`lexprobe investigation build`: turn a summary-judgment record into an investigation environment. Thin: parse,
call lexprobe.investigation.pipeline, print. Progress goes to stderr, the build report to stdout.

Exit codes: 0 built (or built up to --stage); 1 a stage failed (the one-line reason names the stage and the item;
rerun the same command to resume after fixing it); 2 bad input (missing record folder, unknown stage, ablation or
model spec).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from lexprobe.cli.options import ENGINE_DEFAULTS, EngineOptions, engine_options, json_flag
from lexprobe.cli.output import err, new_table, out
from lexprobe.errors import LexprobeError
from lexprobe.investigation.environment.ladder import LADDER_HELP
from lexprobe.investigation.pipeline.registry import STAGE_ORDER
from lexprobe.terminal import safe_markup, safe_text

if TYPE_CHECKING:  # the pipeline is imported inside the command: `--help` needs none of it
    from lexprobe.investigation.pipeline.runner import BuildResult


def register(app: typer.Typer) -> None:
    """Add the `build` command to the `lexprobe investigation` app."""
    app.command("build")(build)


StageOpt = Annotated[
    str | None, typer.Option(help=f"Run the stages up to and including this one ({', '.join(STAGE_ORDER)}).")
]
AblationOpt = Annotated[str, typer.Option(help=f"Corpus level of a one-level build, written at --out. {LADDER_HELP}")]
LevelsOpt = Annotated[
    str | None,
    typer.Option(
        help="Assemble several levels, one environment folder each (OUT/merits, OUT/pro_alternative, OUT/noise, "
        "OUT/chaff50, OUT/chaff100): 'all' or a comma list such as 'merits,+noise'."
    ),
]
SizeOpt = Annotated[
    str,
    typer.Option(
        help="Preset of the per-role counts: 'small' (2 per role, 4 chaff, 1 shard fact) or 'paper' (section 4.2 "
        "of the paper: 10 pro-alternative documents per alternative, 20 in all; 57 noise; 500 chaff at +chaff100, "
        "250 at +chaff50; and, where the paper gives no number, 10 signal, 2 shard facts, 3 refuting per "
        "alternative: about 600 documents). Any count option below overrides its preset value.",
    ),
]
DocsPerRoleOpt = Annotated[
    int | None,
    typer.Option(min=0, help="Default of --signal, --pro-alternative, --refuting and --noise (preset: by --size)."),
]
ProAlternativeOpt = Annotated[
    int | None, typer.Option(min=0, help="Pro-alternative documents per alternative (paper preset: 10, 20 in all).")
]
RefutingOpt = Annotated[int | None, typer.Option(min=0, help="Refuting documents per alternative (paper preset: 3).")]
ShardsOpt = Annotated[
    int | None, typer.Option(min=0, help="Pattern facts spread over 3-5 shard documents each (paper preset: 2).")
]
MaxInputCharsOpt = Annotated[
    int | None,
    typer.Option(
        min=200,
        help="Cap on the characters of each source that reach a model (default: none, every page is read in "
        "chunks); with a cap the build report shows less than 100 % read.",
    ),
]
ContextTokensOpt = Annotated[
    int | None,
    typer.Option(min=512, help="The generator's context window in tokens (default: the backend's): sets chunks."),
]


@engine_options(batch=True)
def build(
    record_dir: Annotated[Path, typer.Argument(help="Folder of the record's filings (PDF or text files).")],
    out_dir: Annotated[Path, typer.Option("--out", help="Environment folder to build (resumable).")],
    generator: Annotated[str, typer.Option(help="Model spec that extracts, plans and writes.")] = "local",
    judge: Annotated[str | None, typer.Option(help="Model spec that judges (default: the generator).")] = None,
    stage: StageOpt = None,
    ablation: AblationOpt = "+chaff100",
    levels: LevelsOpt = None,
    size: SizeOpt = "small",
    docs_per_role: DocsPerRoleOpt = None,
    signal: Annotated[int | None, typer.Option(min=0, help="Signal documents (paper preset: 10).")] = None,
    pro_alternative: ProAlternativeOpt = None,
    refuting: RefutingOpt = None,
    noise: Annotated[int | None, typer.Option(min=0, help="Noise documents (paper preset: 57).")] = None,
    chaff: Annotated[int | None, typer.Option(min=0, help="Chaff documents at +chaff100 (paper preset: 500).")] = None,
    shards: ShardsOpt = None,
    regenerations: Annotated[int, typer.Option(min=0, help="Regenerations of a rejected document.")] = 3,
    max_attempts: Annotated[int, typer.Option(min=1, help="Requests per item until its output is valid.")] = 3,
    max_tokens: Annotated[int, typer.Option(min=16, help="Output tokens per request.")] = 2048,
    max_input_chars: MaxInputCharsOpt = None,
    context_tokens: ContextTokensOpt = None,
    case_id: Annotated[str, typer.Option(help="Case id (default: the record folder's name).")] = "",
    category: Annotated[str, typer.Option(help="Federal case type, e.g. employment.")] = "",
    fictional: Annotated[bool, typer.Option("--fictional", help="Mark the record as fictional.")] = False,
    seed: Annotated[int, typer.Option(help="Rendering seed of synthetic documents.")] = 0,
    engine: EngineOptions = ENGINE_DEFAULTS,
    as_json: json_flag("Print the build report as JSON.") = False,
) -> None:
    """Build an InvestigationWorlds environment from a record: ingest, ground truth, entities, alternatives,
    document plans, generation with a judge, assembly at an ablation level.

    Example: `lexprobe investigation build records/acme --generator openai/gpt-4o-mini --out envs/acme`
    """
    from lexprobe.investigation.pipeline.context import StageError
    from lexprobe.investigation.pipeline.runner import build_settings, counts_line, run_build

    settings = build_settings(
        record_dir, stage, ablation=ablation, levels=levels, size=size, generator=generator, judge=judge,
        case_id=case_id, category=category, fictional=fictional, docs_per_role=docs_per_role, signal_docs=signal,
        pro_alternative_docs=pro_alternative, refuting_docs=refuting, noise_docs=noise, chaff_docs=chaff,
        shard_facts=shards, regenerations=regenerations, max_attempts=max_attempts, max_tokens=max_tokens,
        max_input_chars=max_input_chars, context_tokens=context_tokens, seed=seed,
    )  # fmt: skip
    err.print(counts_line(settings), highlight=False)
    try:
        result = run_build(
            record_dir, out_dir, settings, until=stage, cache=engine.cache(), engine_config=engine.config()
        )
    except StageError as exc:
        if as_json:
            print(json.dumps({"status": "failed", "stage": exc.stage, "item": exc.item, "error": str(exc)}))
        raise LexprobeError(str(exc), exit_code=1) from None
    _print(result, as_json)


def _print_sources_read(rows: list[dict]) -> None:
    """Print what reached a model of each record file: "source / chars / read / %" (100 % unless capped)."""
    if not rows:
        return
    columns = ("source", "chars", "read", "%")
    table = new_table("record files read (characters read / characters in the source)", columns, ("source",))
    for row in rows:
        share = f"{100 * row['share']:.1f}" if row["stages"] else "-"
        table.add_row(safe_text(row["filename"]), f"{row['chars']:,}", f"{row['chars_read']:,}", share)
    out.print(table)


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
    by_level = report.documents_by_level or {report.ablation: report.documents_by_role}
    title = f"corpus at {report.ablation}" if len(by_level) == 1 else "corpus per level (one folder each)"
    columns = ["role", *(by_level if len(by_level) > 1 else ["in corpus"]), "generated"]
    table = new_table(f"{safe_markup(report.case_id)}: {title}", columns, ("role",))
    for role in ("merits", "signal", "pro_alternative", "refuting", "noise", "chaff"):
        counts = [str(docs.get(role, 0)) for docs in by_level.values()]
        table.add_row(safe_markup(role), *counts, str(report.generated_by_role.get(role, "-")))
    out.print(table)
    _print_sources_read(report.sources_read)
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
