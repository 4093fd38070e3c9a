"""The `lexprobe` command line: the root app, wired here from one module per command group.

Each command parses its options, calls the library and prints; results go to stdout, progress and logs to stderr.
Shared options live in `lexprobe.cli.options` (the engine options as one decorator, `engine_options`), consoles in
`lexprobe.cli.output`, number formatters in `lexprobe.reporting.numbers`.

Errors: every app uses `LexprobeGroup` (`lexprobe.cli.handler`), the one handler of the error model
(`lexprobe.errors`): a `LexprobeError` prints as one line on stderr and exits with its code. Exit codes: 0 success;
1 the work ran but some requests are still pending (rerun to resume); 2 bad input, configuration or a permanent
failure (unknown model spec, missing API key, conflicting run directory, a prompt longer than the context window);
130 stopped by Ctrl-C (what completed is kept; rerun to resume). Any other exception is a bug: its traceback goes to
stderr and the exit code is 1.
"""

from __future__ import annotations

import gc
import logging
import sys
from collections.abc import Mapping
from typing import Annotated, ClassVar

import typer

from lexprobe.cli.lazy_commands import CommandSource, LazyRootGroup, command_group, registered_commands
from lexprobe.cli.output import err, out

__all__ = ["app", "console_main"]


class RootGroup(LazyRootGroup):
    """Every command and command group, wired in one place, in the order `lexprobe --help` lists them. Each is built
    (its module imported) when it is looked up: a command pays only for its own module (`lazy_commands`)."""

    sources: ClassVar[Mapping[str, CommandSource]] = {
        "check": registered_commands("lexprobe.cli.check"),
        **dict.fromkeys(("models", "ask", "demo"), registered_commands("lexprobe.cli.toplevel")),  # one source
        "data": command_group("data", "lexprobe.cli.data", "data_app"),
        "hallucination": command_group("hallucination", "lexprobe.cli.hallucination", "hallucination_app"),
        "investigation": command_group("investigation", "lexprobe.cli.investigation", "investigation_app"),
        "batch": command_group("batch", "lexprobe.cli.batch", "batch_app"),
        "view": registered_commands("lexprobe.cli.view"),
    }


app = typer.Typer(
    cls=RootGroup,
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
    """Run the `lexprobe` console script: the app, then an exit that does not free every object one by one.

    CPython's exit frees each object the process still holds (tens of thousands: modules, classes, the option and
    request models' validators) over repeated garbage collections, 50-100 ms at the end of every command here. So
    once the command has finished (and its exit, error or interruption is no longer held: the exception chain of an
    error exit keeps the command's frames, its open database connections among them, alive), garbage is collected
    once, which closes every file and database connection nothing refers to any more, as the exit would, and what is
    still reachable is frozen (`gc.freeze`): the exit's collections skip it and the kernel releases it with the
    process. Exit handlers (the run-directory lock's), `weakref.finalize` callbacks and the flushing of stdout and
    stderr run as before; the exit code is the command's. An exception other than an exit (a bug's traceback) takes
    the ordinary way out.
    """
    from lexprobe.cli.options import bare_ray_means_local

    sys.argv[1:] = bare_ray_means_local(sys.argv[1:])
    code: int | str | None = 0
    try:
        app()
    except SystemExit as stop:
        code = stop.code
    gc.collect()
    gc.freeze()
    sys.exit(code)
