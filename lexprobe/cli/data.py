"""`lexprobe data ...`: build, inspect and sample the case database. Thin: parse, call caselaw/, print."""

from __future__ import annotations

import csv
import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from lexprobe.caselaw.courts import LEVELS_TEXT, canonical_level
from lexprobe.cli.handler import LexprobeGroup
from lexprobe.cli.options import DbOpt, JsonOpt, open_case_db
from lexprobe.cli.output import err, literal, new_table, out
from lexprobe.errors import BadInputError, LexprobeError
from lexprobe.terminal import safe_markup, safe_text

data_app = typer.Typer(
    cls=LexprobeGroup,
    help="Build and query the case database of real public case-law data (SCDB, Fowler network, Library of "
    "Congress overruled table, CourtListener opinions and treatments, Courts of Appeals Database; lower-court "
    "cases from Caselaw Access Project and CourtListener files with `data build --cap/--courtlistener`).",
    no_args_is_help=True,
)


CAP_HELP = (
    "Also load Caselaw Access Project files (repeatable): a volume folder of the static export (CasesMetadata.json, "
    "cases/*.json), a volume zip (100.zip), a tree of reporters (walked), a case file (JSON object, JSON array or "
    "JSONL, optionally .gz/.xz/.bz2) or an old bulk zip (data/data.jsonl.xz). Example: --cap ~/cap/f3d"
)
COURTLISTENER_HELP = (
    "Also load CourtListener files (repeatable): bulk data CSV files (opinion-clusters-, opinions-, dockets-, "
    "citations-, citation-map-YYYY-MM-DD.csv.bz2) or a folder of them, streamed; or saved API pages (clusters, "
    "dockets, opinions; JSON/JSONL) or a folder of them, read together and joined. Example: --courtlistener ~/cl-bulk"
)


SourceOpt = Annotated[
    Path | None, typer.Option(help="Folder of the public data (default: $LEXPROBE_DATA or ../shared/data).")
]
ScdbZipOpt = Annotated[
    list[Path] | None, typer.Option("--scdb-zip", help="Also load an SCDB release zip, e.g. the Legacy file.")
]
CourtsOpt = Annotated[
    str | None,
    typer.Option(
        help="Keep only these courts of the --cap/--courtlistener files, read while streaming: comma-separated "
        "courts-db ids and levels (scotus, coa, district). Example: --courts coa,nysd"
    ),
]
YearsOpt = Annotated[
    str | None,
    typer.Option(help="Keep only cases of the --cap/--courtlistener files decided in FROM-TO. Example: 1990-2005"),
]
WorkDirOpt = Annotated[
    Path | None,
    typer.Option(
        help="Where loaders of large files keep their state, so that a restarted build skips finished files "
        "(default: <db>.staging beside the database; removed after a successful build)."
    ),
]


@data_app.command("build")
def build(
    source: SourceOpt = None,
    db: DbOpt = None,
    overruled_edition: Annotated[str, typer.Option(help="Library of Congress table edition: 2025 or 2022.")] = "2025",
    cap_file: Annotated[list[Path] | None, typer.Option("--cap", help=CAP_HELP)] = None,
    courtlistener_file: Annotated[list[Path] | None, typer.Option("--courtlistener", help=COURTLISTENER_HELP)] = None,
    scdb_zip: ScdbZipOpt = None,
    courts: CourtsOpt = None,
    years: YearsOpt = None,
    work_dir: WorkDirOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Load every source into one SQLite case database, atomically (a temporary file renamed when complete).

    The offline data (SCDB, Fowler, Songer, Library of Congress, CourtListener opinions and treatments) is always
    read; --cap and --courtlistener add lower-court cases. A source that yields no case fails (exit 2) and leaves
    the old database in place. Per source, the build prints how many cases it added and how many joined a case
    another source had started.

    Examples: `lexprobe data build`, then `lexprobe data case "163 U.S. 537"`;
    `lexprobe data build --cap ~/cap/f3d --courtlistener ~/cl-bulk --courts coa,district --years 1990-2005`.
    """
    from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    from lexprobe.caselaw.build_plan import BuildOptions, plan_build
    from lexprobe.caselaw.overrulings import describe_overruling_years
    from lexprobe.cli.data_progress import RichBuildProgress

    options = BuildOptions(source, db, overruled_edition, cap_file or [], courtlistener_file or [], scdb_zip or [],
                           courts, years, work_dir)  # fmt: skip
    plan = plan_build(options)
    columns = (SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), TimeElapsedColumn())
    with Progress(*columns, console=err) as progress:
        report = plan.run(RichBuildProgress(progress))
    db_path = plan.db_path
    if as_json:
        print(json.dumps(report.to_dict()))
        return
    _print_counts(f"case database built in {report.elapsed_s:.1f}s: {safe_markup(str(db_path))}", report.tables)
    out.print("cases per source:", highlight=False)
    for name, added in report.cases_added.items():
        joined, filtered = report.cases_joined.get(name, 0), report.filtered.get(name, 0)
        if added or joined or filtered:
            left_out = f", {filtered:,} left out by --courts/--years" if filtered else ""
            literal(f"  {name}: {added:,} new cases, {joined:,} joined existing cases{left_out}")
    issues = sum(report.issues.values())
    out.print(
        f"{issues} malformed row(s) reported (see table build_issues); conflicts between sources: "
        f"{report.conflicts or 'none'}; unmatched links: {report.unmatched}",
        highlight=False,
        soft_wrap=True,
    )
    out.print(describe_overruling_years(report.overruling_years), highlight=False, soft_wrap=True, markup=False)


def _print_counts(title: str, counts: dict[str, int], columns: tuple[str, str] = ("table", "rows")) -> None:
    """Print a two-column table of `counts` (name -> count), the counts right-aligned with thousands separators."""
    table = new_table(title, columns, columns[:1])
    for name, count in counts.items():
        table.add_row(safe_markup(name), f"{count:,}")
    out.print(table)


@data_app.command("info")
def info(db: DbOpt = None, as_json: JsonOpt = False) -> None:
    """Counts per table, cases per court level (scotus, coa, district, other courts, unknown) and per source, the
    cases each source added at the build, and coverage per court level (name, citation, author, disposition,
    opinion text, overruling, prominence).

    Example: `lexprobe data info --json`
    """
    from lexprobe.caselaw.overrulings import describe_overruling_years

    database = open_case_db(db)
    counts, coverage, build_info = database.table_counts(), database.coverage(), database.build_info()
    levels, sources = database.level_counts(), database.source_counts()
    overruling_years = json.loads(build_info.get("overruling_years") or "{}")
    if as_json:
        payload = {"db": str(database.path), "tables": counts, "levels": levels, "sources": sources}
        payload |= {"coverage": coverage, "build": build_info}
        print(json.dumps(payload | {"overruling_years": overruling_years}))
        return
    _print_counts(f"tables in {safe_markup(str(database.path))}", counts)
    _print_counts("cases per court level", levels, ("level", "cases"))
    added, joined = (json.loads(build_info.get(key) or "{}") for key in ("cases_added", "cases_joined"))
    _print_counts("cases per source (a case several sources describe counts for each)", sources, ("source", "cases"))
    if added:
        built = new_table(
            "what each source added at the build", ("source", "new cases", "joined existing"), ("source",)
        )
        for name, count in added.items():
            if count or joined.get(name):
                built.add_row(safe_markup(name), f"{count:,}", f"{joined.get(name, 0):,}")
        out.print(built)
    columns = list(next(iter(coverage.values())).keys())
    cov = new_table("coverage per court level (cases with each fact)", ("level", *columns), ("level",))
    for level, row in coverage.items():
        cov.add_row(level, *(f"{row[c]:,}" for c in columns))
    out.print(cov)
    if overruling_years:
        out.print(describe_overruling_years(overruling_years), highlight=False, soft_wrap=True, markup=False)


@data_app.command("case")
def case(
    citation_or_name: Annotated[str, typer.Argument(help='A citation ("163 U.S. 537") or a case name.')],
    db: DbOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Everything known about one case, with the source of each fact.

    Example: `lexprobe data case "163 U.S. 537"` shows Plessy v. Ferguson, 1896, overruled 1954 by Brown.
    """
    from rich.text import Text

    database = open_case_db(db)
    ids = database.find(citation_or_name)
    if not ids:
        raise LexprobeError(f"no case matches {citation_or_name!r}", exit_code=1)
    details = [database.case(case_id) for case_id in ids[:1]]
    if as_json:
        print(json.dumps({"matches": ids, "case": details[0].as_dict() if details[0] else None}))
        return
    info = details[0]
    assert info is not None  # `find` returned its id
    row = info.case
    out.print(
        f"[bold]{safe_markup(row.name or '(no name)')}[/], "
        + safe_markup(f"{row.citation} ({row.year}) — {row.court_id}"),
        highlight=False,
        emoji=False,
    )
    if len(ids) > 1:
        out.print(f"[dim]other matches: {safe_markup(', '.join(ids[1:]))}[/]", highlight=False, emoji=False)
    table = new_table(None, ("fact", "value", "source"))
    for field_name, entries in sorted(info.facts.items()):
        for entry in entries:
            table.add_row(*(Text(safe_text(str(cell))) for cell in (field_name, entry.value, entry.source)))
    out.print(table)
    for rule in info.overruled_by:
        part = " (in part)" if rule.in_part else ""
        by = rule.overruling_citation or ("No. " + (rule.overruling_docket or "?"))
        literal(f"overruled{part} {rule.overruling_year} by {rule.overruling_name} {by} [{rule.source}]")
    for overruled in info.overrules:
        literal(f"overrules {overruled.overruled_name} {overruled.overruled_citation or ''}")
    for opinion in info.opinions:
        flag = " (majority)" if opinion.is_majority else ""
        literal(
            f"opinion {opinion.opinion_id}: {opinion.opinion_type}{flag}, author {opinion.author or '?'}, "
            f"{opinion.characters:,} characters"
        )
    out.print(f"cites {info.cites} case(s); cited by {info.cited_by}", highlight=False)
    for conflict in info.conflicts:
        out.print(
            f"[yellow]sources disagree on {safe_markup(conflict.field)}:[/] "
            + safe_markup(f"{conflict.value_a} ({conflict.source_a}) vs {conflict.value_b} ({conflict.source_b})"),
            highlight=False,
            emoji=False,
        )


@data_app.command("sample")
def sample(
    level: Annotated[str, typer.Option(help=f"Court level: {LEVELS_TEXT}.")] = "scotus",
    n: Annotated[int, typer.Option("--n", min=1, help="How many cases to draw.")] = 5000,
    seed: Annotated[int, typer.Option(help="Random seed; the same seed draws the same sample.")] = 47,
    out_file: Annotated[
        Path | None, typer.Option("--out", help="Write the sample here (.jsonl or .csv); default stdout (JSONL).")
    ] = None,
    years: Annotated[
        str,
        typer.Option(
            help="Decision years sampled, inclusive: 'paper' (the study's window for the level, as "
            "`hallucination run`), 'all', or FROM-TO."
        ),
    ] = "paper",
    db: DbOpt = None,
) -> None:
    """Draw the study's stratified sample of one court level (see `lexprobe.caselaw.sampling` for the filters),
    within the study's date window for that level unless --years says otherwise.

    An --n beyond the eligible cases draws all of them, with a warning; a level with no eligible case exits 2.

    Example: `lexprobe data sample --level scotus --n 5000 --seed 47 --out scotus.jsonl`
    """
    from lexprobe.caselaw.sampling import describe_allocation, parse_year_windows, sample_cases, window_text

    level = canonical_level(level)
    database = open_case_db(db)
    window = parse_year_windows(years, [level])[level]
    result = sample_cases(database, level, n, seed, years=window)
    if not result.rows:
        raise BadInputError(
            f"no {level} case in {database.path} passes the sampling filter (see `lexprobe data info`): "
            "the sample would be empty; nothing written"
        )
    if out_file is None:
        for row in result.rows:
            sys.stdout.write(json.dumps(row) + "\n")
    elif out_file.suffix == ".csv":
        with out_file.open("w", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(result.rows[0]))
            writer.writeheader()
            writer.writerows(result.rows)
    else:
        with out_file.open("w") as handle:
            handle.writelines(json.dumps(row) + "\n" for row in result.rows)
    err.print(
        f"drew {len(result.rows):,} of {n:,} requested {level} cases from {result.eligible:,} eligible decided in "
        f"{window_text(window)}; seed {seed}; {describe_allocation(result)}",
        highlight=False,
        soft_wrap=True,
    )
    if result.short_strata:
        err.print(f"[yellow]{len(result.short_strata)} strata had fewer cases than the equal share[/]", highlight=False)
    if result.shortfall:
        err.print(
            f"[yellow]warning:[/] --n {n:,} is more than the {result.eligible:,} eligible {level} cases: "
            f"drew all {len(result.rows):,} (short by {result.shortfall:,})",
            highlight=False,
        )
