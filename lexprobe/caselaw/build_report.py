"""What a case database build says about itself: `BuildReport` (what it read and wrote, per source), the
`BuildProgress` events the CLI draws, and `BuildError`. Its own module so that `build` and `overrulings` both import
it and `overrulings` does not import `build` back."""

from __future__ import annotations

from dataclasses import dataclass, field

from lexprobe.caselaw.records import LoadResult
from lexprobe.errors import LexprobeError


class BuildError(LexprobeError, RuntimeError):
    """The build could not run (a source file is missing or unreadable, or a source yielded no case). The old
    database is untouched (exit 2)."""


@dataclass
class BuildReport:
    """What a build read and wrote. `cases_added[source]` counts the new cases a source started and
    `cases_joined[source]` its records that joined a case another source had started; `filtered[source]` the
    cases the builder's own check of `--courts` / `--years` left out (the loaders apply the filter while they read,
    and what they skip is not counted here)."""

    db_path: str
    elapsed_s: float = 0.0
    source_seconds: dict[str, float] = field(default_factory=dict)
    rows_read: dict[str, int] = field(default_factory=dict)
    issues: dict[str, int] = field(default_factory=dict)
    cases_added: dict[str, int] = field(default_factory=dict)
    cases_joined: dict[str, int] = field(default_factory=dict)
    filtered: dict[str, int] = field(default_factory=dict)
    tables: dict[str, int] = field(default_factory=dict)
    conflicts: dict[str, int] = field(default_factory=dict)
    shared_citations: int = 0
    unmatched: dict[str, int] = field(default_factory=dict)
    overruling_years: dict = field(default_factory=dict)  # see `overruling_year_sources`

    def to_dict(self) -> dict:
        """Return the report as JSON-ready data."""
        return dict(self.__dict__)


class BuildProgress:
    """Receives build events; the CLI shows them as a progress bar per source. The default is silent."""

    def source_started(self, name: str, description: str) -> None:
        """A source began loading."""

    def source_finished(self, name: str, result: LoadResult, seconds: float) -> None:
        """A source finished loading."""

    def advance(self, name: str, label: str, done: int, total: int) -> None:
        """A source's loader did `done` of `total` units (bytes, files) of its step `label`."""

    def streamed(self, name: str, added: int, joined: int) -> None:
        """A streamed source has so far added `added` cases and joined `joined` to existing ones."""

    def step(self, name: str) -> None:
        """A merge or write step began."""
