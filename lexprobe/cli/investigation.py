"""`lexprobe investigation ...`: make, check, import and review InvestigationWorlds environments (the group's
help names every subcommand, those of `investigation_build`, `investigation_run`, `investigation_score` and
`investigation_qa_score` too). Thin: parse, call investigation/, print. Results go to stdout, the summary line and
problems of a failed command to stderr."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from lexprobe.cli.handler import LexprobeGroup
from lexprobe.cli.options import JsonOpt, json_flag
from lexprobe.cli.output import err, new_table, out, wide
from lexprobe.errors import BadInputError, LexprobeError
from lexprobe.investigation.environment.hf_names import DATASET_NAME
from lexprobe.investigation.environment.ladder import DEFAULT_LEVEL, LADDER_HELP
from lexprobe.terminal import safe_markup, safe_text

if TYPE_CHECKING:  # the library is imported inside the commands: `--help` needs none of it
    from rich.table import Table

    from lexprobe.investigation.environment.validate import Problem
    from lexprobe.investigation.review.sheets import ReviewReport

investigation_app = typer.Typer(
    cls=LexprobeGroup,
    help="Investigation environments (InvestigationWorlds) and agents investigating them: make an environment "
    "(sample, build, import-hf) and check it (validate); run agents through it (run), read their transcripts (show) "
    "and score them (score); ask its QA questions (qa, qa-score); run the attorney review (review-sheet, "
    "review-import).",
    no_args_is_help=True,
)
EnvArg = Annotated[Path, typer.Argument(help="An environment directory (environment.json, questions.json, corpus/).")]
NO_EXTRACTOR = "text extraction needs lexprobe.documents, which is not available; pass --no-extract"


def _problem_table(problems: list[Problem], title: str) -> Table:
    table = new_table(title, ("severity", "location", "message"), overflow="fold")
    for problem in problems:
        style = "red" if problem.severity == "error" else "yellow"
        table.add_row(
            f"[{style}]{safe_markup(problem.severity)}[/]", safe_markup(problem.location), safe_markup(problem.message)
        )
    return table


def _summary(env: Path, problems: list[Problem]) -> str:
    from lexprobe.investigation.environment.validate import errors_in

    errors = len(errors_in(problems))
    warnings = len(problems) - errors
    if not errors:
        return f"{env}: valid" + (f" ({warnings} warning(s))" if warnings else "")
    return f"{env}: {errors} error(s), {warnings} warning(s)"


@investigation_app.command("validate")
def validate(
    env: EnvArg,
    no_extract: Annotated[
        bool, typer.Option("--no-extract", help="Skip extracting the text of every corpus file (the slow check).")
    ] = False,
    as_json: json_flag('Print a JSON list of {"location", "message", "severity"}.') = False,
) -> None:
    """Check an environment directory and report every problem at once, each with where to fix it.

    Checks the schema, unique ids, and that every fact, entity and hypothesis id resolves.

    Checks the hypotheses: one court-adopted, one court-rejected, alternatives each refuted by a corpus document.

    Checks each role, and the files: inside corpus/, present, suffix matching the format, none left unlisted.

    Unless --no-extract, checks that every file extracts to text. docs/investigation.md lists every check.

    Exit status: 0 no errors (warnings allowed), 1 errors found, 2 ENV is not a directory. Summary on stderr.

    Example: lexprobe investigation validate envs/marshall-v-northrop --no-extract
    """
    from lexprobe.investigation.environment.validate import errors_in, validate_environment

    if not env.is_dir():
        raise BadInputError(f"{env} is not a directory")
    try:
        problems = validate_environment(env, extract=not no_extract)
    except ImportError:
        raise BadInputError(NO_EXTRACTOR) from None
    if as_json:
        print(json.dumps([problem.as_dict() for problem in problems]))
    elif problems:
        wide().print(_problem_table(problems, f"{len(problems)} problem(s) in {safe_markup(str(env))}"))
    err.print(_summary(env, problems), highlight=False, markup=False, soft_wrap=True)
    raise typer.Exit(1 if errors_in(problems) else 0)


@investigation_app.command("import-hf")
def import_hf(
    dataset_dir: Annotated[Path, typer.Argument(help=f"A local copy of the {DATASET_NAME} dataset.")],
    out_dir: Annotated[Path, typer.Option("--out", help="Parent folder: each case goes to OUT/<case_id>/.")],
    case: Annotated[list[str] | None, typer.Option("--case", help="Case id to import (repeatable).")] = None,
    all_cases: Annotated[bool, typer.Option("--all", help="Import every case of the dataset.")] = False,
    no_extract: Annotated[
        bool, typer.Option("--no-extract", help="Validate without extracting the text of the files.")
    ] = False,
    force: Annotated[bool, typer.Option("--force", help="Replace existing non-empty case folders.")] = False,
) -> None:
    """Import cases of the published dataset from a local folder (no network) as environment directories.

    Each case is written to OUT/<case_id>/ and validated. Inline document texts become .txt corpus files.

    The assumed dataset layout is in docs/investigation.md. Prints one line per case: its id and its folder.

    Exit status: 0 imported; 1 an imported environment has validation errors (on stderr; the folder is kept).

    Exit status 2: bad input (no such case, a row that does not fit the layout, an existing folder without --force).

    Example: lexprobe investigation import-hf ~/data/investigation-worlds --case cacd-2-16-cv-06794 --out envs
    """
    from lexprobe.investigation.environment.hf_dataset import HFDatasetError, import_hf_cases, load_hf_cases
    from lexprobe.investigation.environment.validate import EnvironmentInvalid

    if bool(case) == all_cases:
        try:
            known = load_hf_cases(dataset_dir)
        except HFDatasetError as exc:
            raise BadInputError(str(exc)) from None
        listed = ", ".join(known[:10]) + (" ..." if len(known) > 10 else "")
        raise BadInputError(f"pass either --case ID (repeatable) or --all; {len(known)} cases: {listed}")
    try:
        written = import_hf_cases(
            dataset_dir, out_dir, None if all_cases else case, extract=not no_extract, overwrite=force
        )
    except EnvironmentInvalid as exc:
        wide(console=err).print(_problem_table(exc.problems, f"problems in {safe_markup(str(exc.env_dir))}"))
        err.print(_summary(exc.env_dir, exc.problems), highlight=False, markup=False, soft_wrap=True)
        raise typer.Exit(1) from None
    except (HFDatasetError, FileExistsError) as exc:
        raise BadInputError(str(exc)) from None
    except ImportError:
        raise BadInputError(NO_EXTRACTOR) from None
    for folder in written:
        print(safe_text(f"{folder.name}\t{folder}"))


@investigation_app.command("review-sheet")
def review_sheet(
    env: EnvArg,
    out_file: Annotated[Path, typer.Option("--out", help="The workbook to write (.xlsx).")],
    per_role: Annotated[int, typer.Option("--per-role", min=0, help="Documents sampled per role.")] = 3,
    seed: Annotated[int, typer.Option(help="Sampling seed (the same seed gives the same sheet).")] = 0,
    force: Annotated[bool, typer.Option("--force", help="Overwrite an existing workbook.")] = False,
) -> None:
    """Write the attorney-review workbook of an environment (paper Section 2.4), one pass/fail verdict per row.

    Sheets: Instructions (with the reviewer's name cell), Hypotheses (the party hypotheses), Alternatives.

    Documents: a seeded sample of --per-role documents per role with text excerpts; Metadata: their type, date, author.

    Send one copy to each reviewer; read the filled copies back with `review-import`.

    Example: lexprobe investigation review-sheet envs/marshall-v-northrop --out review/marshall.xlsx --per-role 3
    """
    from lexprobe.investigation.review.sheets import ALTERNATIVES, DOCUMENTS, HYPOTHESES, write_review_sheet

    if out_file.suffix.lower() != ".xlsx":
        raise BadInputError(f"{out_file}: the review sheet is an .xlsx workbook")
    if out_file.exists() and not force:
        raise BadInputError(f"{out_file} already exists and may hold a review; pass --force")
    try:
        counts = write_review_sheet(env, out_file, per_role=per_role, seed=seed)
    except LexprobeError:  # a missing or malformed environment: to the handler, not "cannot write"
        raise
    except ImportError:
        raise BadInputError("document excerpts need lexprobe.documents, which is not available") from None
    except OSError as exc:
        raise BadInputError(f"cannot write {out_file}: {exc.strerror or exc}") from None
    print(
        f"{out_file}: {counts[HYPOTHESES]} party hypotheses, {counts[ALTERNATIVES]} alternatives, "
        f"{counts[DOCUMENTS]} documents (and their metadata)"
    )


def print_review(report: ReviewReport) -> None:
    """Print the Table 2 layout (stage | n | pass rate | shared items | agreement | kappa) and the reviewer pairs."""
    from lexprobe.reporting.numbers import share

    title = f"attorney review: {safe_markup(report.case_id)} ({len(report.reviewers)} reviewer(s))"
    table = new_table(
        title, ("stage", "n", "pass rate", "shared", "agreement", "kappa"), ("stage",), ("stage",), no_wrap=True
    )
    for row in report.stages:
        kappa = "-" if row.kappa is None else f"{row.kappa:.2f}"
        table.add_row(row.stage, str(row.n), share(row.pass_rate), str(row.shared), share(row.agreement), kappa)
    console = wide()
    console.print(table)
    if report.pairs:
        columns = ("reviewers", "n", "agreement", "kappa")
        pairs = new_table("agreement between reviewers (all items both judged)", columns, ("reviewers",))
        for pair in report.pairs:
            kappa = "-" if pair.kappa is None else f"{pair.kappa:.2f}"
            pairs.add_row(safe_markup(" vs ".join(pair.reviewers)), str(pair.n), share(pair.agreement), kappa)
        console.print(pairs)
    out.print(
        "n: verdicts (reviewer x item); shared: items judged by more than one reviewer, on which agreement and "
        "Cohen's kappa are computed (kappa: mean over reviewer pairs).",
        highlight=False,
        soft_wrap=True,
    )


@investigation_app.command("review-import")
def review_import(
    env: EnvArg,
    sheets: Annotated[list[Path], typer.Argument(help="Filled review workbooks, one per reviewer.")],
    as_json: JsonOpt = False,
) -> None:
    """Read filled review workbooks and report per-stage pass rates and reviewer agreement (paper Table 2).

    The reviewer is the workbook's name cell, else its file name. Verdicts are pass or fail; blanks are unreviewed.

    Any other verdict, a missing sheet or an unknown item is an error naming file, sheet and cell (exit status 2).

    Example: lexprobe investigation review-import envs/marshall-v-northrop review/alice.xlsx review/bob.xlsx
    """
    from lexprobe.investigation.review.sheets import ReviewSheetError, read_review_sheets

    try:
        report = read_review_sheets(env, sheets)
    except ReviewSheetError as exc:
        for line in exc.errors:
            err.print(line, highlight=False, markup=False, soft_wrap=True)
        raise BadInputError(f"{len(exc.errors)} problem(s) in the review sheets; nothing was computed") from None
    for reviewer, count in report.blank.items():
        if count:
            err.print(f"{reviewer}: {count} verdict(s) left blank", style="dim", highlight=False, markup=False)
    if as_json:
        print(json.dumps(report.as_dict()))
    else:
        print_review(report)


@investigation_app.command("sample")
def sample(
    out_dir: Annotated[Path, typer.Option("--out", help="Folder to write the environment into.")] = Path(
        "sample-environment"
    ),
    ablation: Annotated[str, typer.Option(help=f"Ablation level. {LADDER_HELP}")] = DEFAULT_LEVEL,
    force: Annotated[bool, typer.Option("--force", help="Replace an environment already in --out.")] = False,
) -> None:
    """Build the hand-written sample environment (a FICTIONAL breach-of-warranty case: 38 documents in five formats
    and six roles, four hypotheses, twelve QA questions) and print its path.

    Example: `lexprobe investigation sample --out envs/harlow --ablation merits`
    """
    from lexprobe.investigation.sample.build import build_sample_environment

    try:
        path = build_sample_environment(out_dir, ablation, overwrite=force)  # an unknown level: BadInputError
    except FileExistsError:
        raise BadInputError(f"{out_dir} already holds an environment; use --force to replace it") from None
    print(safe_text(str(path)))


# the commands of their own modules, listed after the ones above: build, run/show/qa, score, qa-score
from lexprobe.cli import investigation_build, investigation_qa_score, investigation_run, investigation_score  # noqa: E402

for _module in (investigation_build, investigation_run, investigation_score, investigation_qa_score):
    _module.register(investigation_app)
