"""`lexprobe data build`'s work: the build's options checked and its sources gathered (the public data folder and
the files given with --cap, --courtlistener and --scdb-zip) before anything is read, then the build itself.

`--courts` is a comma-separated list of courts-db ids ("ca9,cadc,nysd") and level names: `scotus`, `coa` (every
federal court of appeals) and `district` (every federal district court), in any of the spellings
`courts.LEVEL_ALIASES` accepts. `--years` is one inclusive range FROM-TO ("1990-2005") or one year ("1997"). Both
make the `records.SourceFilter` of the user-supplied sources.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from lexprobe.caselaw.courts import COURT_LEVELS, LEVEL_ALIASES, court_level
from lexprobe.caselaw.records import SourceFilter
from lexprobe.errors import BadInputError

if TYPE_CHECKING:
    from lexprobe.caselaw.build import ExtraSource
    from lexprobe.caselaw.build_report import BuildProgress, BuildReport

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


@functools.cache
def courts_of_level(level: str) -> frozenset[str]:
    """Return the courts-db ids of every court of a canonical level ("coa" -> ca1 ... ca11, cadc, cafc)."""
    import courts_db  # imported on first use, as in `courts`

    return frozenset(court["id"] for court in courts_db.courts if court_level(court["id"]) == level)


@functools.cache
def _known_ids() -> frozenset[str]:
    import courts_db

    return frozenset(court["id"] for court in courts_db.courts)


def parse_courts(spec: str) -> frozenset[str]:
    """Return the court ids named by a `--courts` value. Raises `BadInputError` naming an unknown court."""
    ids: set[str] = set()
    for part in (p.strip() for p in spec.split(",")):
        if not part:
            continue
        squashed = "".join(c for c in part.lower() if c.isalnum())
        level = LEVEL_ALIASES.get(squashed)
        if level in COURT_LEVELS:
            ids |= courts_of_level(level)
        elif part.lower() in _known_ids():
            ids.add(part.lower())
        else:
            raise BadInputError(
                f"--courts: unknown court {part[:40]!r}: give courts-db ids (ca9, cadc, nysd) or a level "
                "(scotus, coa, district), comma-separated"
            )
    if not ids:
        raise BadInputError("--courts: no court given: e.g. --courts coa or --courts ca9,cand")
    return frozenset(ids)


def parse_years(spec: str) -> tuple[int, int]:
    """Return the inclusive year range of a `--years` value ("1990-2005" or "1997"). Raises `BadInputError`."""
    text = spec.strip()
    start, dash, end = text.partition("-")
    if not dash:
        end = start
    if not start.strip().isdigit() or not end.strip().isdigit():
        raise BadInputError(f"--years {text[:40]!r}: write FROM-TO (e.g. 1990-2005) or one year")
    years = (int(start), int(end))
    if years[0] > years[1]:
        raise BadInputError(f"--years {text[:40]!r}: the first year is after the last")
    return years


def source_filter(courts: str | None, years: str | None) -> SourceFilter:
    """Return the filter of `--courts` and `--years` (either may be None: no filter on that)."""
    return SourceFilter(
        courts=parse_courts(courts) if courts is not None else None,
        years=parse_years(years) if years is not None else None,
    )
