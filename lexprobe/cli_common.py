"""What every `lexprobe` sub-command shares: the stdout/stderr consoles, the one-line error exit, the --db option."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import click
import typer
from rich.console import Console
from typer.core import TyperGroup

from lexprobe.caselaw.paths import default_db_path
from lexprobe.caselaw.query import CaseDatabase, CaseDatabaseMissing
from lexprobe.errors import LexprobeError
from lexprobe.terminal import safe_markup

out = Console()
err = Console(stderr=True)

DbOpt = Annotated[
    Path | None,
    typer.Option("--db", help="Case database (default: caselaw.sqlite in the cache, `lexprobe data build`)."),
]


def error_exit(message: str, code: int = 2) -> typer.Exit:
    """Print a one-line reason on stderr and return the `typer.Exit` to raise (code 2: bad input or setup)."""
    err.print(f"[bold red]error:[/] {safe_markup(message)}", highlight=False, soft_wrap=True, emoji=False)
    return typer.Exit(code)


class LexprobeGroup(TyperGroup):
    """The command group of every lexprobe Typer app: the single handler of the error model (`lexprobe.errors`).

    A `LexprobeError` raised anywhere below prints as one line on stderr and exits with its code; any other
    exception is a bug and keeps its traceback.
    """

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except LexprobeError as exc:
            raise error_exit(str(exc), exc.exit_code) from None


def open_case_db(db: Path | None) -> CaseDatabase:
    """Open the case database at `db` (or the default); raises typer.Exit with the fix when it is missing."""
    try:
        return CaseDatabase(db or default_db_path())
    except CaseDatabaseMissing as exc:
        raise error_exit(str(exc)) from None
