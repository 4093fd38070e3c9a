"""The one handler of the error model (`lexprobe.errors`): the command group class of every lexprobe Typer app.

A `LexprobeError` raised anywhere below a command prints as one line on stderr and exits with its code. Any other
exception is a bug: it is not caught here, so Python prints its traceback on stderr and the process exits 1.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer
from typer.core import TyperGroup

from lexprobe.cli.options import bare_ray_means_local
from lexprobe.cli.output import err
from lexprobe.errors import LexprobeError
from lexprobe.terminal import safe_markup

if TYPE_CHECKING:
    import click

__all__ = ["LexprobeGroup"]


class LexprobeGroup(TyperGroup):
    """The command group of every lexprobe Typer app: turns a `LexprobeError` into one line and its exit code."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        # Typer's parser has no option whose value may be left out: a bare `--ray` is given its `local` here
        return super().parse_args(ctx, bare_ray_means_local(args))

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except LexprobeError as exc:
            err.print(f"[bold red]error:[/] {safe_markup(str(exc))}", highlight=False, soft_wrap=True, emoji=False)
            raise typer.Exit(exc.exit_code) from None
