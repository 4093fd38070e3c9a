"""Supreme Court Database release archives, as downloaded from scdb.wustl.edu → the SCDB loader.

The case-centered citation releases come as zips holding one CSV: `SCDB_2024_01_caseCentered_Citation.csv.zip`
(terms 1946 on) and `SCDB_Legacy_07_caseCentered_Citation.csv.zip` (1791-1945); both have the same 53 columns
and are often Windows-1252. `load` finds the CSV member(s) (macOS `__MACOSX/` entries skipped) and hands each,
byte for byte, to `sources.scdb.load`, which parses the rows and decodes UTF-8 falling back to cp1252. Because
that loader reads a path, each member is copied to a temporary file first; issue locations are rewritten to
`archive.zip!member.csv:line`.

A path that is not a zip (`.csv`, `.csv.gz`) goes straight to `sources.scdb.load`. The justices table defaults
to `justices.csv` beside the archive. A justice-centered release (one row per justice vote) is refused, and a
case-centered unit other than Citation (Docket, LegalProvision, Vote: a case may fill several rows) is loaded
with an issue saying so.
"""

from __future__ import annotations

import dataclasses
import shutil
import tempfile
import zipfile
from pathlib import Path, PurePosixPath

from lexprobe.caselaw.records import LoadResult, RowIssue
from lexprobe.caselaw.sources import scdb


def load(path: Path | str, justices: Path | None = None) -> LoadResult:
    """Load an SCDB case-centered release zip (or a plain .csv/.csv.gz) with `sources.scdb`.

    Raises ValueError when the archive is not a zip, holds no CSV, or is a justice-centered release.
    """
    path = Path(path)
    justices = justices if justices is not None else path.with_name("justices.csv")
    if not path.name.lower().endswith(".zip"):
        return scdb.load(path, justices)
    if not zipfile.is_zipfile(path):
        raise ValueError(f"{path}: not a zip archive")
    result = LoadResult()
    with zipfile.ZipFile(path) as archive, tempfile.TemporaryDirectory(prefix="lexprobe-scdb-") as scratch:
        members = csv_members(archive)
        if not members:
            names = ", ".join(archive.namelist()) or "nothing"
            raise ValueError(f"{path}: no CSV file in the archive (it holds {names}); download the .csv.zip form")
        for index, member in enumerate(members):
            location = f"{path}!{member}"
            if "justicecentered" in member.lower():
                raise ValueError(f"{location}: a justice-centered release; load the case-centered one")
            if "_citation" not in member.lower():
                result.issues.append(
                    RowIssue(scdb.SOURCE, location, "not the Citation unit: one case may fill several rows")
                )
            copy = Path(scratch) / str(index) / PurePosixPath(member).name
            copy.parent.mkdir()
            with archive.open(member) as source, copy.open("wb") as target:
                shutil.copyfileobj(source, target)
            try:
                part = scdb.load(copy, justices)
            except ValueError as exc:  # a file-level problem: name the member, not the temporary copy
                raise ValueError(str(exc).replace(str(copy), location)) from exc
            _absorb(result, part, str(copy), location)
            copy.unlink()
    return result


def csv_members(archive: zipfile.ZipFile) -> list[str]:
    """Return the names of the CSV files in an archive, leaving out directories and macOS metadata."""
    return [
        info.filename
        for info in archive.infolist()
        if not info.is_dir()
        and info.filename.lower().endswith(".csv")
        and not info.filename.startswith("__MACOSX/")
        and not PurePosixPath(info.filename).name.startswith("._")
    ]


def _absorb(result: LoadResult, part: LoadResult, copy: str, location: str) -> None:
    """Add `part` to `result`, naming the archive member where `part` names the temporary copy."""
    for item in dataclasses.fields(LoadResult):
        if item.name not in ("issues", "rows_read"):
            getattr(result, item.name).extend(getattr(part, item.name))
    for issue in part.issues:
        if issue.location == copy or issue.location.startswith(copy + ":"):
            issue = dataclasses.replace(issue, location=location + issue.location[len(copy) :])
        result.issues.append(issue)
    result.rows_read += part.rows_read
