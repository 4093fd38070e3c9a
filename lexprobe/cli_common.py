"""What every `lexprobe` sub-command shares: the stdout/stderr consoles, the one-line error exit, the --db option."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from lexprobe.caselaw.paths import default_db_path
from lexprobe.caselaw.query import CaseDatabase, CaseDatabaseMissing

out = Console()
err = Console(stderr=True)

DbOpt = Annotated[
    Path | None,
    typer.Option("--db", help="Case database (default: caselaw.sqlite in the cache, `lexprobe data build`)."),
]


def error_exit(message: str, code: int = 2) -> typer.Exit:
    """Print a one-line reason on stderr and return the `typer.Exit` to raise (code 2: bad input or setup)."""
    err.print(f"[bold red]error:[/] {message}", highlight=False, soft_wrap=True)
    return typer.Exit(code)


def open_case_db(db: Path | None) -> CaseDatabase:
    """Open the case database at `db` (or the default); raises typer.Exit with the fix when it is missing."""
    try:
        return CaseDatabase(db or default_db_path())
    except CaseDatabaseMissing as exc:
        raise error_exit(str(exc)) from None
