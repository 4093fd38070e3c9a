"""The options shared by lexprobe commands, defined once as `Annotated` aliases, and what they turn into.

Every command that talks to a model takes `--model` (or names its model options otherwise), `--no-cache`,
`--max-retries`, `--timeout` and `--concurrency`; `engine_config` turns the last four into the engine's settings.
Options whose help names what a command prints or keeps (`--json`, `--run-dir`) are built by `json_flag` and
`run_dir_option`, so the flag itself is still spelled in one place.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from lexprobe.caselaw.paths import default_db_path
from lexprobe.caselaw.query import CaseDatabase, CaseDatabaseMissing
from lexprobe.engine import EngineConfig
from lexprobe.errors import BadInputError
from lexprobe.models.spec import valid_forms_text

__all__ = [
    "HTML_REPORT_HELP",
    "MODEL_HELP",
    "ConcurrencyOpt",
    "DbOpt",
    "DryRunOpt",
    "JsonOpt",
    "ModelOpt",
    "NoCacheOpt",
    "RetriesOpt",
    "TimeoutOpt",
    "concurrency_option",
    "engine_config",
    "html_option",
    "json_flag",
    "open_case_db",
    "run_dir_option",
]

MODEL_HELP = f"Model spec, one of: {valid_forms_text()}. `lexprobe models` explains each form."
DEFAULT_RETRIES = 6

ModelOpt = Annotated[str, typer.Option("--model", "-m", help=MODEL_HELP)]
DbOpt = Annotated[
    Path | None,
    typer.Option("--db", help="Case database (default: caselaw.sqlite in the cache, `lexprobe data build`)."),
]
NoCacheOpt = Annotated[
    bool, typer.Option("--no-cache", help="Neither read nor write the shared response cache (LEXPROBE_CACHE).")
]
DryRunOpt = Annotated[
    bool, typer.Option("--dry-run", help="Print how many requests, tokens and dollars the job needs; send nothing.")
]
RetriesOpt = Annotated[
    int, typer.Option("--max-retries", min=0, help="Retries on rate limits, 5xx, timeouts and resets.")
]
TimeoutOpt = Annotated[float | None, typer.Option("--timeout", min=0.1, help="Per-request time limit in seconds.")]


def concurrency_option(help: str) -> Any:
    """Return the `--concurrency` option type with `help` (what runs in parallel differs between commands)."""
    return Annotated[int | None, typer.Option("--concurrency", min=1, help=help)]


def json_flag(help: str = "Print JSON instead of tables.") -> Any:
    """Return the `--json` flag type with `help` saying what the command prints."""
    return Annotated[bool, typer.Option("--json", help=help)]


def html_option(help: str) -> Any:
    """Return the optional `--html` option type (default None) with `help` saying what the page shows."""
    return Annotated[Path | None, typer.Option("--html", help=help)]


#: The `--html` option of the report commands (`hallucination report`, `investigation score`).
HTML_REPORT_HELP = "Also write a self-contained HTML report (figures embedded)."


def run_dir_option(help: str) -> Any:
    """Return the `--run-dir` option type with `help` saying what the command keeps there."""
    return Annotated[Path, typer.Option("--run-dir", help=help)]


ConcurrencyOpt = concurrency_option(
    "Requests in flight per model (default: 1 embedded, 4 compatible servers, 8-16 APIs)."
)
JsonOpt = json_flag()


def engine_config(
    concurrency: int | None,
    no_cache: bool,
    max_retries: int = DEFAULT_RETRIES,
    timeout: float | None = None,
    *,
    progress: bool | None = None,
) -> EngineConfig:
    """Return the engine settings of a command; a progress bar only when stderr is a terminal (unless `progress`)."""
    return EngineConfig(
        concurrency=concurrency,
        use_cache=not no_cache,
        max_retries=max_retries,
        timeout_s=timeout,
        progress=sys.stderr.isatty() if progress is None else progress,
    )


def open_case_db(db: Path | None) -> CaseDatabase:
    """Open the case database at `--db` (or the default); a missing one is a `BadInputError` naming the fix."""
    try:
        return CaseDatabase(db or default_db_path())
    except CaseDatabaseMissing as exc:
        raise BadInputError(str(exc)) from None
