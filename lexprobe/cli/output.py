"""What every `lexprobe` command prints with: the stdout and stderr consoles and wide consoles for piped output.
Numbers are formatted by `lexprobe.reporting.numbers`; errors are printed by the one handler (`cli.handler`).

Results go to stdout (`out`), progress, notes and errors to stderr (`err`). A table printed to a pipe or a file gets
a wide console (`wide`) so that no column is cut at rich's 80-column default; on a terminal the terminal's width
rules.

Both consoles, and the wide ones, are inert (`terminal.make_inert`): whatever they print passes through
`terminal.safe_text`, so a control or bidi character from data, a run or a model spec never reaches the terminal
raw, even from a printer that forgot to escape it (escaping where the text is built still matters for alignment).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.text import Text

from lexprobe.terminal import make_inert, safe_text

if TYPE_CHECKING:  # imported where a table is made: `lexprobe --help` needs none
    from rich.table import Table

__all__ = ["err", "literal", "new_table", "out", "warning", "wide"]

out = make_inert(Console())
err = make_inert(Console(stderr=True))


def literal(text: str, console: Console = out) -> None:
    """Print `text` as it is: no rich markup read from it and no highlighting (names, citations and data values may
    hold brackets and numbers), with control and bidi characters shown as escapes (`safe_text`)."""
    console.print(safe_text(text), highlight=False, markup=False)


def wide(width: int = 160, console: Console | None = None) -> Console:
    """Return `console` (default `out`) on a terminal; when piped, a console at least `width` columns wide."""
    console = console or out
    if console.is_terminal:
        return console
    return make_inert(Console(width=max(console.width, width), stderr=console.stderr))


def warning(text: str, *, soft_wrap: bool = True) -> None:
    """Print `text` on stderr after a yellow "warning:", no markup read from it."""
    err.print(Text.assemble(("warning:", "yellow"), " ", safe_text(text)), highlight=False, soft_wrap=soft_wrap)


def new_table(
    title: str | Text | None,
    columns: Iterable[str],
    left: Collection[str] | None = None,
    plain: Collection[str] = (),
    **options: Any,
) -> Table:
    """Return a rich `Table` titled `title` with `columns`: all left-aligned when `left` is None, else those in `left`
    left-aligned and the others right-aligned; `options` (no_wrap, overflow) apply to every column not in `plain`."""
    from rich.table import Table

    table = Table(title=title)
    for column in columns:
        justify = "left" if left is None or column in left else "right"
        table.add_column(column, justify=justify, **({} if column in plain else options))
    return table
