"""What every `lexprobe` command prints with: the stdout and stderr consoles and wide consoles for piped output.
Numbers are formatted by `lexprobe.reporting.numbers`; errors are printed by the one handler (`cli.handler`).

Results go to stdout (`out`), progress, notes and errors to stderr (`err`). A table printed to a pipe or a file gets
a wide console (`wide`) so that no column is cut at rich's 80-column default; on a terminal the terminal's width
rules.
"""

from __future__ import annotations

from rich.console import Console

__all__ = ["err", "literal", "out", "wide"]

out = Console()
err = Console(stderr=True)


def literal(text: str, console: Console = out) -> None:
    """Print `text` as it is: no rich markup read from it and no highlighting (names, citations and data values may
    hold brackets and numbers)."""
    console.print(text, highlight=False, markup=False)


def wide(width: int = 160, console: Console | None = None) -> Console:
    """Return `console` (default `out`) on a terminal; when piped, a console at least `width` columns wide."""
    console = console or out
    return console if console.is_terminal else Console(width=max(console.width, width), stderr=console.stderr)
