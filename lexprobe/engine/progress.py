"""A rich progress bar on stderr: done/total, rate, ETA, running tokens and cost."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from rich.console import Console

if TYPE_CHECKING:  # rich.progress is imported when the bar is shown
    from rich.progress import Progress

    from lexprobe.models.types import Response

#: At most one repaint per this many seconds (cache replays advance thousands of times a second).
REDRAW_S = 0.1


def format_cost(cost: float | None) -> str:
    """Return a dollar amount for display, or 'n/a' when unknown."""
    return "n/a" if cost is None else f"${cost:,.4f}"


class RunProgress:
    """Tracks a run for the user. With `enabled=False` it only keeps the tallies."""

    def __init__(self, *, enabled: bool = True, console: Console | None = None, label: str = "requests") -> None:
        self.enabled = enabled
        self.console = console or Console(stderr=True)
        self.label = label
        self.tokens = 0
        self.cost: float | None = 0.0
        self._progress: Progress | None = None
        self._drawn_at = 0.0
        self._task = None

    def start(self, total: int, done: int = 0) -> None:
        """Show the bar for `total` requests, `done` of which were completed before this run."""
        if not self.enabled:
            return
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TaskProgressColumn,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        self._progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TaskProgressColumn(),
            TextColumn("{task.fields[rate]}"),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            TextColumn("{task.fields[tokens]} tok  {task.fields[cost]}"),
            console=self.console,
            transient=False,
            # Drawn when an answer arrives, never on a timer: a repaint thread would run while the model server
            # computes, on the same cores (see BENCHMARKS.md, "the pacing cost").
            auto_refresh=False,
        )
        self._progress.start()
        self._task = self._progress.add_task(
            self.label, total=total, completed=done, rate="", tokens=0, cost=format_cost(0.0)
        )

    def advance(self, response: Response) -> None:
        """Count one completed request; tokens and cost count only what was sent, not cache hits."""
        if not response.cached:
            self.tokens += response.usage.input_tokens + response.usage.output_tokens
        if self.cost is not None:
            self.cost = None if response.cost_usd is None else self.cost + response.cost_usd
        if self._progress is not None and self._task is not None:
            task = self._progress.tasks[0]
            speed = task.finished_speed or task.speed
            self._progress.update(
                self._task,
                advance=1,
                tokens=f"{self.tokens:,}",
                cost=format_cost(self.cost),
                rate=f"{speed:.1f}/s" if speed else "",
            )
            now = time.monotonic()
            if now - self._drawn_at >= REDRAW_S or task.completed >= (task.total or 0):
                self._drawn_at = now
                self._progress.refresh()

    def stop(self) -> None:
        """Remove the live display."""
        if self._progress is not None:
            self._progress.stop()
            self._progress = None
