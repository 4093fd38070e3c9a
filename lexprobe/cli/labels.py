"""`lexprobe hallucination export-labels` / `agreement`: validate the contradiction judge (the study's Appendix C),
or the model reader of `run --reader`, against human coders. Thin: parse, call hallucination/scorers/labelsheet.py
(reader_sheet.py), print. `register(app)` adds both commands to a Typer app."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape

from lexprobe.cli.options import json_flag
from lexprobe.cli.output import err, new_table, out, wide
from lexprobe.errors import BadInputError
from lexprobe.terminal import safe_markup, safe_text

KAPPA_NOTE = (
    "Cohen's kappa corrects agreement for chance: above 0.80 is almost perfect, above 0.60 substantial, above 0.40 "
    "moderate (Landis & Koch 1977); the study reports 0.77-0.87 between GPT 4 and two human coders (Appendix Table 2)."
)


def export_labels(
    run_dir: Annotated[Path, typer.Argument(help="A run directory written by `lexprobe hallucination run`.")],
    out_file: Annotated[Path, typer.Option("--out", help="Where to write the CSV sheet (its key goes next to it).")],
    n: Annotated[int, typer.Option("--n", min=1, help="Judged pairs (or read answers) to sample.")] = 100,
    seed: Annotated[int, typer.Option(help="Sampling seed (the same seed gives the same sheet).")] = 0,
    force: Annotated[bool, typer.Option("--force", help="Overwrite an existing sheet and key.")] = False,
    check: Annotated[
        str,
        typer.Option(
            "--check",
            help="judge: the contradiction judge's verdicts on reference-free pairs; reader: the decisions of the "
            "--reader model on the answers the rules left unscored.",
        ),
    ] = "judge",
) -> None:
    """Export a blinded sheet for human coders, to check the contradiction judge (or, with --check reader, the model
    reader of `run --reader`).

    Judge: N sampled pairs the judge ruled on: row_id, question, response_1, response_2, coder_label, notes. Coders
    write yes (the two answers are consistent) or no (they contradict each other) in coder_label.

    Reader: N sampled answers the reader labelled: row_id, question, answer, wanted, coder_label, notes. Coders write
    what the answer gives as its answer: the value (1954, Earl Warren, affirmed, yes), or declined, or no answer.

    The verdicts (decisions) and the ids go to FILE.csv.key.json: keep that file from the coders.

    Example: `lexprobe hallucination export-labels runs/gpt4o --n 100 --out labels/sheet.csv`
    """
    from lexprobe.engine.store import RUN_DB_NAME, RunStore
    from lexprobe.hallucination.scorers.labelsheet import export_label_sheet, key_path, write_label_sheet
    from lexprobe.hallucination.scorers.reader_sheet import export_reader_sheet

    if check not in CHECKS:
        raise BadInputError(f"unknown --check {check!r}; valid: {', '.join(CHECKS)}")
    if not (run_dir / RUN_DB_NAME).is_file():
        raise BadInputError(f"{run_dir} is not a run directory (no {RUN_DB_NAME})")
    key = key_path(out_file)
    existing = [str(path) for path in (out_file, key) if path.exists()]
    if existing and not force:
        raise BadInputError(f"{' and '.join(existing)} already exist(s) and may hold coders' labels; pass --force")
    store = RunStore.open_read_only(run_dir)  # reading: no lock, works on a read-only run directory
    try:
        sheet = export_reader_sheet(store, n, seed) if check == "reader" else export_label_sheet(store, n, seed)
    except BadInputError as exc:
        raise BadInputError(f"{run_dir}: {exc}") from None
    finally:
        store.close()
    found, who = (
        (f"{sheet.read_answers} answer(s) read by the reader", f"reader: {sheet.reader}")
        if check == "reader"
        else (f"{sheet.judged_pairs} judged pair(s)", f"judge: {sheet.judge}")
    )
    if sheet.short:
        err.print(f"[yellow]warning:[/] {escape(str(run_dir))} has only {found}; the sheet holds all of them, not {n}",
                  highlight=False, soft_wrap=True)  # fmt: skip
    try:
        write_label_sheet(sheet, out_file)
    except OSError as exc:
        raise BadInputError(f"cannot write {out_file}: {exc.strerror or exc}") from None
    print(safe_text(f"{out_file}: {len(sheet.rows)} rows ({who}; key: {key}, keep it from the coders)"))


#: What `export-labels --check` exports a sheet of.
CHECKS = ("judge", "reader")


def print_agreement(report: dict[str, Any]) -> None:
    """Print the agreement table (Coders | kappa | agreement | n), its notes and the kappa reading guide."""
    from lexprobe.reporting.numbers import fixed, share

    checked = f"reader {report['reader']}" if report.get("check") == "reader" else f"judge {report['judge']}"
    title = f"intercoder reliability: {safe_markup(checked)}"
    table = new_table(title, ("Coders", "kappa", "agreement", "n"), ("Coders",), ("Coders",), no_wrap=True)
    for row in report["rows"]:
        table.add_row(safe_markup(str(row["coders"])), fixed(row["kappa"], 2), share(row["agreement"]), str(row["n"]))
    console = wide(132)
    console.print(table)
    for row in report["rows"]:
        if row["note"]:
            out.print(f"{row['coders']}: {row['note']}", highlight=False, soft_wrap=True, markup=False)
    out.print(KAPPA_NOTE, highlight=False, soft_wrap=True)


def agreement(
    sheets: Annotated[list[Path], typer.Argument(help="Filled sheets, one per coder (the file name names the coder).")],
    key: Annotated[
        Path | None,
        typer.Option("--key", help="The export's key file (default: <sheet>.key.json next to the sheets)."),
    ] = None,
    as_json: json_flag('Print {"judge", "key", "coders": [...], "rows": [{"coders", "kappa", ...}]}.') = False,
) -> None:
    """Compute Cohen's kappa between coders and the judge from filled label sheets (Appendix Table 2), or between
    coders and the model reader for sheets of `export-labels --check reader` (the key says which).

    Compares each coder with the judge (reader) and each pair of coders on the rows both labelled (n), with raw
    agreement. A reader's value and a coder's agree when one's words are the other's or a run of them.

    Rows the judge gave no parseable verdict (the reader no readable decision) are left out of those comparisons
    and counted.

    Example: `lexprobe hallucination agreement labels/alice.csv labels/bob.csv --key labels/sheet.csv.key.json`
    """
    from lexprobe.hallucination.scorers.labelsheet import agreement_report

    missing = [str(path) for path in [*sheets, *([key] if key else [])] if not path.is_file()]
    if missing:
        raise BadInputError(f"file not found: {', '.join(missing)}")
    report = agreement_report(sheets, key)  # a bad sheet or key: BadInputError naming file and line
    for coder in report["coders"]:
        if coder["coded"] < coder["rows"]:
            err.print(
                f"{coder['sheet']}: {coder['coded']} of {coder['rows']} rows coded",
                style="dim",
                highlight=False,
                markup=False,
                soft_wrap=True,
            )
    if as_json:
        print(json.dumps(report))
    else:
        print_agreement(report)


def register(app: typer.Typer) -> None:
    """Add `export-labels` and `agreement` to `app` (the `lexprobe hallucination` group)."""
    app.command("export-labels")(export_labels)
    app.command("agreement")(agreement)
