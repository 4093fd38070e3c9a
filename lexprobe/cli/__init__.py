"""The `lexprobe` command line: the root app, wired here from one module per command group.

Each command parses its options, calls the library and prints; results go to stdout, progress and logs to stderr.
Shared options live in `lexprobe.cli.options` (the engine options as one decorator, `engine_options`), consoles in
`lexprobe.cli.output`, number formatters in `lexprobe.reporting.numbers`.

Errors: every app uses `LexprobeGroup` (`lexprobe.cli.handler`), the one handler of the error model
(`lexprobe.errors`); the exit codes are those of docs/architecture.md ("Exit codes everywhere").
"""

from __future__ import annotations

import logging
from typing import Annotated

import typer

from lexprobe.cli import batch, check, data, export, hallucination, investigation, mcp, serve, toplevel, view
from lexprobe.cli.handler import LexprobeGroup
from lexprobe.cli.output import err, out

__all__ = ["app", "console_main"]

app = typer.Typer(
    cls=LexprobeGroup,
    name="lexprobe",
    help=(
        "Measure what language models know about law and how well they investigate legal evidence.\n\n"
        "Every command that talks to a model takes --model SPEC. Run `lexprobe models` to see the spec forms "
        "and which ones work on this machine right now.\n\n"
        'Examples: `lexprobe data build`, `lexprobe ask "Who wrote Miranda v. Arizona?"`, '
        "`lexprobe hallucination run --model local --tasks existence --n 5 --samples 0 --run-dir runs/smol`, "
        "`lexprobe check brief.pdf`, `lexprobe investigation run envs/harlow --model local --run-dir runs/inv`. "
        "Every command's --help shows an example of its own."
    ),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


# Every command and command group, in the order `lexprobe --help` lists them: Typer lists an app's own commands
# before its groups, so `view` comes from a Typer without a name, whose commands are listed in its place.
check.register(app)
mcp.register(app)
toplevel.register(app)
export.register(app)
serve.register(app)
for group, name in ((data.data_app, "data"), (hallucination.hallucination_app, "hallucination"),
                    (investigation.investigation_app, "investigation"), (batch.batch_app, "batch")):  # fmt: skip
    app.add_typer(group, name=name)
app.add_typer(view.view_app)


def version_callback(value: bool) -> None:
    """Print the version and stop (`--version`)."""
    if value:
        from lexprobe import __version__

        out.print(f"lexprobe {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    version: Annotated[
        bool, typer.Option("--version", callback=version_callback, is_eager=True, help="Print the version.")
    ] = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Log every retry and model load on stderr.")] = False,
) -> None:
    """lexprobe command line."""
    from rich.logging import RichHandler

    logging.basicConfig(
        level=logging.INFO if verbose else logging.WARNING,
        format="%(message)s",
        handlers=[RichHandler(console=err, show_path=False, show_time=False)],
    )


def console_main() -> None:
    """Run the `lexprobe` console script."""
    app()
