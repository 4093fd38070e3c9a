"""What every `lexprobe` command prints with: the stdout and stderr consoles, wide consoles for piped output, the
one-line error exit and the number formatters of the tables.

Results go to stdout (`out`), progress, notes and errors to stderr (`err`). A table printed to a pipe or a file gets
a wide console (`wide`) so that no column is cut at rich's 80-column default; on a terminal the terminal's width
rules.
"""

from __future__ import annotations

from collections.abc import Sequence

import typer
from rich.console import Console

from lexprobe.terminal import safe_markup

__all__ = ["ci_text", "err", "error_exit", "fixed", "literal", "num", "out", "pct", "rate_se", "share", "wide"]

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


def error_exit(message: str, code: int = 2) -> typer.Exit:
    """Print a one-line reason on stderr and return the `typer.Exit` to raise (code 2: bad input or setup)."""
    err.print(f"[bold red]error:[/] {safe_markup(message)}", highlight=False, soft_wrap=True, emoji=False)
    return typer.Exit(code)


def pct(value: float | None) -> str:
    """A share as a percentage with one decimal ("33.3%"), "–" for None."""
    return "–" if value is None else f"{100 * value:.1f}%"


def ci_text(ci: Sequence[float] | None) -> str:
    """An interval as "[20.0, 45.0]" percentage points, "–" for None."""
    return "–" if not ci else f"[{100 * ci[0]:.1f}, {100 * ci[1]:.1f}]"


def num(value: float | None, digits: int = 1) -> str:
    """A number with thousands separators, "–" for None."""
    return "–" if value is None else f"{value:,.{digits}f}"


def fixed(value: float | None, digits: int = 3) -> str:
    """A number with `digits` decimals ("0.125"), "-" for None."""
    return "-" if value is None else f"{value:.{digits}f}"


def share(value: float | None) -> str:
    """A share as a percentage with one decimal ("33.3%"), "-" for None."""
    return "-" if value is None else f"{value:.1%}"


def rate_se(rate: float | None, se: float | None) -> str:
    """A rate and its standard error, "0.500 (0.020)", "-" for no rate."""
    return "-" if rate is None else f"{rate:.3f} ({se:.3f})"
