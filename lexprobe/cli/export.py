"""`lexprobe export`: a run as an Inspect log (`--format inspect`), or hallucination items as a Hugging Face dataset
folder (`--format hf`, with or without a run). Calls `lexprobe.interop.export.export`; its summary is the --json
line on stdout, progress goes to stderr."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from lexprobe.cli.hallucination import CompleteCasesOpt, DesignOpt, LevelsOpt, NOpt, YearsOpt
from lexprobe.cli.options import DbOpt, json_flag, open_case_db
from lexprobe.cli.output import err, out

__all__ = ["export", "register"]


def register(app: typer.Typer) -> None:
    """Add `export` to the root app."""
    app.command("export")(export)


def export(
    run_dir: Annotated[
        Path | None,
        typer.Argument(
            help="A lexprobe run directory (hallucination, investigation or QA); optional with --format hf."
        ),
    ] = None,
    format: Annotated[
        str, typer.Option("--format", help="inspect (an Inspect .eval log) or hf (a Hugging Face dataset folder).")
    ] = "inspect",
    out_path: Annotated[
        Path | None, typer.Option("--out", help="The .eval file (inspect) or the folder (hf) to write (required).")
    ] = None,
    force: Annotated[bool, typer.Option("--force", help="Replace an existing --out.")] = False,
    kind: Annotated[
        str | None,
        typer.Option("--kind", help="hallucination, investigation or qa: which run, where a directory holds two."),
    ] = None,
    task_list: Annotated[str, typer.Option("--tasks", help="hf without a run: comma list of task ids, or 'all'.")] = (
        "all"
    ),
    levels: LevelsOpt = None,
    prompt_styles: Annotated[str | None, typer.Option(help="hf without a run: zero, few (default both).")] = None,
    n: NOpt = None,
    seed: Annotated[int, typer.Option(help="hf without a run: the sampling seed.")] = 47,
    years: YearsOpt = "paper",
    complete_cases: CompleteCasesOpt = False,
    design: DesignOpt = None,
    db: DbOpt = None,
    as_json: json_flag("Print the export's summary as one JSON line.") = False,
) -> None:
    """Write a lexprobe run where evaluation teams work: an Inspect log that `inspect view`, `read_eval_log` and
    `samples_df` read (one sample per item, episode or question; the transcript as messages, lexprobe's labels as
    scores with their reasons, its rates as metrics), or a Hugging Face dataset folder of the hallucination items
    (a parquet file per task, a `legal_eval` config in nguha/legal-eval's schema, a dataset card, an eval.yaml).
    Without a run, --format hf samples items as `hallucination run` does, with the same options.

    Examples:
    `lexprobe export runs/smol --format inspect --out smol.eval` (then `inspect view --log-dir .`),
    `lexprobe export runs/smol --format hf --out smol-hf`,
    `lexprobe export --format hf --tasks existence,author --n 50 --seed 1 --out llf-hf`.
    """
    from lexprobe.interop.export import ExportRequest, SampleOptions
    from lexprobe.interop.export import export as run_export

    sample = SampleOptions(task_list, levels, prompt_styles, n, seed, years, complete_cases, design)
    request = ExportRequest(format, out_path, run_dir, kind, force, db, sample)
    summary = run_export(request, open_case_db, lambda done: err.print(f"{done:,} samples written", highlight=False))
    if as_json:
        out.print(json.dumps(summary), markup=False, highlight=False, soft_wrap=True)
        return
    counts = summary.get("configs") or {"samples": summary.get("samples", 0)}
    shown = ", ".join(f"{name} {count:,}" for name, count in counts.items())
    out.print(f"wrote {summary['out']} ({shown})", markup=False, highlight=False)
