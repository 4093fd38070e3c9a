"""`lexprobe batch ...`: the provider batches of a run (`--batch`). Thin: read `lexprobe.engine.batch.status`,
print. Sends nothing.

Exit codes: 0 printed; 2 a RUN_DIR that is not a run directory or cannot be read.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from lexprobe.cli.handler import LexprobeGroup
from lexprobe.cli.options import json_flag
from lexprobe.cli.output import new_table, out, wide

batch_app = typer.Typer(
    cls=LexprobeGroup,
    help="Provider batches of runs started with --batch (OpenAI Batch API, Anthropic Message Batches).",
    no_args_is_help=True,
)


@batch_app.command("status")
def status(
    run_dir: Annotated[Path, typer.Argument(help="Run directory of a command run with --batch.")],
    as_json: json_flag("Print the batches as one JSON object.") = False,
) -> None:
    """Show every batch of a run: provider id, model, state, requests, succeeded and failed, age; sends nothing.

    A batch is `submitting` until the provider's id is recorded, then holds the provider's status (OpenAI:
    validating, in_progress, finalizing, completed, expired, cancelling, cancelled, failed; Anthropic: in_progress,
    canceling, ended); `open` until its results are stored. Rerun the command that started it to resume polling.

    Example: `lexprobe batch status runs/gpt --json`
    """
    from rich.text import Text

    from lexprobe.engine.batch.status import age_text, batch_status
    from lexprobe.terminal import safe_text

    report = batch_status(run_dir)
    if as_json:
        print(json.dumps(report))
        return
    columns = ("batch", "provider id", "model", "round", "state", "requests", "succeeded", "failed", "age", "stored",
               "note")  # fmt: skip
    table = new_table(Text(safe_text(f"batches of {run_dir}")), columns, overflow="fold")
    for row in report["batches"]:
        cells = (row["local_id"], row["provider_id"] or "-", row["model"], str(row["round"]), row["state"],
                 str(row["requests"]), str(row["succeeded"]), str(row["failed"]), age_text(row["age_s"]),
                 "yes" if row["collected"] else "open", _note(row))  # fmt: skip
        table.add_row(*(Text(safe_text(str(cell))) for cell in cells))
    wide(160).print(table)
    out.print(
        f"{len(report['batches'])} batch(es), {report['open']} open; {report['batched_answers']:,} of "
        f"{report['answers']:,} stored answers came by batch; {report['pending']:,} request(s) pending",
        highlight=False,
    )


def _note(row: dict) -> str:
    """The batch's note and why its unanswered items have no answer ("expired: ... x3")."""
    parts = [row["note"]] if row["note"] else []
    parts += [f"{reason} x{count}" for reason, count in row["reasons"].items()]
    return "; ".join(parts)
