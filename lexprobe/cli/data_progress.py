"""The progress display of `lexprobe data build`: one line per source on stderr (imported when a build starts).

A streamed source (CAP volumes, CourtListener bulk files) gets a bar per step its loader reports through
`LoadOptions.progress` (bytes or files done of the total) and a line counting the cases it added and joined.
"""

from __future__ import annotations

from rich.progress import Progress

from lexprobe.caselaw.build_report import BuildProgress
from lexprobe.caselaw.records import LoadResult

__all__ = ["RichBuildProgress"]


def _amount(units: int) -> str:
    """Return a count of bytes or items compactly: 1,234 / 12.3 M."""
    return f"{units / 1e6:,.1f} M" if units >= 10_000_000 else f"{units:,}"


class RichBuildProgress(BuildProgress):
    """One progress line per source on stderr, and one per step of a streamed source's loader."""

    def __init__(self, progress: Progress) -> None:
        self.progress = progress
        self.tasks: dict[str, int] = {}
        self.cases: dict[str, str] = {}  # a streamed source's cases so far, kept for its finished line

    def source_started(self, name: str, description: str) -> None:
        self.tasks[name] = self.progress.add_task(f"{name}: {description}", total=1)

    def source_finished(self, name: str, result: LoadResult, seconds: float) -> None:
        issues = f", {len(result.issues)} issue(s)" if result.issues else ""
        cases = f", {self.cases[name]}" if name in self.cases else ""
        self.progress.update(
            self.tasks[name],
            completed=1,
            description=f"{name}: {result.rows_read:,} rows{cases}{issues} ({seconds:.1f}s)",
        )

    def advance(self, name: str, label: str, done: int, total: int) -> None:
        key = f"{name}\0{label}"
        if key not in self.tasks:
            self.tasks[key] = self.progress.add_task(f"  {name}: {label}", total=max(total, 1))
        amount = f"{_amount(done)} of {_amount(total)}" if total else _amount(done)  # total 0: not known
        self.progress.update(
            self.tasks[key],
            completed=min(done, total) if total else 0,
            total=max(total, 1),
            description=f"  {name}: {label} ({amount})",
        )

    def streamed(self, name: str, added: int, joined: int) -> None:
        self.cases[name] = f"{added:,} new cases, {joined:,} joined existing"
        task = self.tasks.get(name)
        if task is not None:
            self.progress.update(task, description=f"{name}: {self.cases[name]}")

    def step(self, name: str) -> None:
        previous = self.tasks.get("_step")
        if previous is not None:
            self.progress.update(previous, completed=1)
        self.tasks["_step"] = self.progress.add_task(name, total=1)
