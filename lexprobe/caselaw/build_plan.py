"""`lexprobe data build`'s work: the build's options checked and its sources gathered (the public data folder and
the files given with --cap, --courtlistener and --scdb-zip) before anything is read, then the build itself."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from lexprobe.errors import BadInputError

if TYPE_CHECKING:
    from lexprobe.caselaw.build import ExtraSource
    from lexprobe.caselaw.build_report import BuildProgress, BuildReport
    from lexprobe.caselaw.records import SourceFilter

__all__ = ["BuildOptions", "BuildPlan", "plan_build"]


@dataclass(frozen=True)
class BuildOptions:
    """What `lexprobe data build` was asked: folders, files and filters (None: the default)."""

    source: Path | None = None
    db: Path | None = None
    overruled_edition: str = "2025"
    cap: list[Path] = field(default_factory=list)
    courtlistener: list[Path] = field(default_factory=list)
    scdb_zips: list[Path] = field(default_factory=list)
    courts: str | None = None
    years: str | None = None
    work_dir: Path | None = None


@dataclass
class BuildPlan:
    """A checked build: where from, where to, the extra sources and the filter of their cases."""

    source_dir: Path
    db_path: Path
    overruled_edition: str
    extra: list[ExtraSource]
    keep: SourceFilter
    work_dir: Path | None

    def run(self, progress: BuildProgress | None = None) -> BuildReport:
        """Build the database (a source that cannot be read or yields no case: `BuildError`, exit 2)."""
        from lexprobe.caselaw.build import build_database

        return build_database(self.source_dir, self.db_path, overruled_edition=self.overruled_edition,
                              extra_sources=self.extra, progress=progress, source_filter=self.keep,
                              work_dir=self.work_dir)  # fmt: skip


def plan_build(options: BuildOptions) -> BuildPlan:
    """Check `options` (edition, --courts, --years, every file exists) and gather the sources; BadInputError."""
    from lexprobe.caselaw.build_filter import source_filter
    from lexprobe.caselaw.paths import data_root, default_db_path

    if options.overruled_edition not in ("2025", "2022"):
        raise BadInputError(f"--overruled-edition must be 2025 or 2022, not {options.overruled_edition!r}")
    source_dir = options.source or data_root()
    db_path = options.db or default_db_path()
    keep = source_filter(options.courts, options.years)
    extra = _extra_sources(options.cap, options.courtlistener, options.scdb_zips)
    return BuildPlan(source_dir, db_path, options.overruled_edition, extra, keep, options.work_dir)


def _extra_sources(cap_paths: list[Path], courtlistener_paths: list[Path], scdb_zips: list[Path]) -> list:
    """Return the build's user-supplied sources: all --cap paths read together, CourtListener bulk files together,
    CourtListener API pages together, and each SCDB zip."""
    from lexprobe.caselaw.build import ExtraSource

    for path in [*cap_paths, *courtlistener_paths, *scdb_zips]:
        if not path.exists():
            raise BadInputError(f"not found: {path}")
    extra = []
    if cap_paths:
        from lexprobe.caselaw.sources import cap

        paths = tuple(cap_paths)
        extra.append(ExtraSource("cap", paths, lambda o: cap.load_files(paths, o), _described("CAP", paths)))
    if courtlistener_paths:
        from lexprobe.caselaw.sources import courtlistener_api, courtlistener_bulk

        bulk = tuple(p for p in courtlistener_paths if courtlistener_bulk.is_bulk_path(p))
        api = tuple(p for p in courtlistener_paths if p not in bulk)
        if bulk:
            extra.append(ExtraSource("courtlistener-bulk", bulk, lambda o: courtlistener_bulk.load_files(bulk, o),
                                     _described("CourtListener bulk", bulk)))  # fmt: skip
        if api:
            extra.append(ExtraSource("courtlistener-api", api, lambda o: courtlistener_api.load_files(api, o),
                                     _described("CourtListener API", api)))  # fmt: skip
    for path in scdb_zips:
        from lexprobe.caselaw.sources import scdb_release

        extra.append(
            ExtraSource(f"scdb-zip:{path.name}", (path,), lambda o, p=path: scdb_release.load(p), f"SCDB zip {path}")
        )
    return extra


def _described(what: str, paths: tuple[Path, ...]) -> str:
    """`what` and the first two file names (and how many more)."""
    names = ", ".join(p.name for p in paths[:2]) + (f" and {len(paths) - 2} more" if len(paths) > 2 else "")
    return f"{what} ({names})"
