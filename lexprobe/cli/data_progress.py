"""The progress display of `lexprobe data build`: one line per source on stderr (imported when a build starts)."""

from __future__ import annotations

from rich.progress import Progress

from lexprobe.caselaw.build import BuildProgress
from lexprobe.caselaw.records import LoadResult

__all__ = ["RichBuildProgress"]


class RichBuildProgress(BuildProgress):
    """One progress line per source on stderr."""

    def __init__(self, progress: Progress) -> None:
        self.progress = progress
        self.tasks: dict[str, int] = {}

    def source_started(self, name: str, description: str) -> None:
        self.tasks[name] = self.progress.add_task(f"{name}: {description}", total=1)

    def source_finished(self, name: str, result: LoadResult, seconds: float) -> None:
        issues = f", {len(result.issues)} issue(s)" if result.issues else ""
        self.progress.update(
            self.tasks[name], completed=1, description=f"{name}: {result.rows_read:,} rows{issues} ({seconds:.1f}s)"
        )

    def step(self, name: str) -> None:
        previous = self.tasks.get("_step")
        if previous is not None:
            self.progress.update(previous, completed=1)
        self.tasks["_step"] = self.progress.add_task(name, total=1)
