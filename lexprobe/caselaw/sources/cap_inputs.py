"""Where the case files of a `--cap` path are: a file, a volume folder, a volume zip, CAP's older BagIt bulk zip,
or a tree of reporters, each turned into `CapUnit`s (one volume, zip or file each) and their `CapDocument`s.

Layouts (the static export, written by harvard-lil/capstone `scripts/export_cap_static.py`):
- a tree: `ReportersMetadata.json`, `VolumesMetadata.json`, `JurisdictionsMetadata.json` at the top, a folder
  per reporter (`ReporterMetadata.json`, `VolumesMetadata.json`) holding a folder and/or a zip per volume;
- a volume folder: `VolumeMetadata.json`, `CasesMetadata.json` (the cases without `casebody`), `cases/PPPP-NN.json`
  (one case each, with `casebody`), `html/`; the cases are read from `cases/` (or `json/`, an unzipped volume zip);
  `CasesMetadata.json` alone gives the cases without their opinions (`CapDocument.metadata_only`);
- a volume zip as published: `json/PPPP-NN.json`, `html/`, `metadata/CasesMetadata.json`;
- the older bulk download: a BagIt zip (`bagit.txt`, `data/data.jsonl.xz`), JSON Lines of cases;
- any other file: JSON (an object, an array, JSON Lines), plain or compressed; see `cap_json`.

A tree is walked in a stable order (names compared with their numbers as numbers: volume 99 before 100), and a
volume given both as a folder and as a zip beside it is read once, from the folder. Zip members are read in place,
never extracted: a member whose name is absolute or climbs out with "..", or one that is too large or inflates
suspiciously (a zip bomb), is skipped and reported.
"""

from __future__ import annotations

import os
import re
import zipfile
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path, PurePosixPath
from typing import IO, Literal

from lexprobe.caselaw.sources.cap_json import MAX_RATIO, MAX_VALUE_BYTES, Layout, Opener
from lexprobe.caselaw.sources.encoding import file_size

#: Files of the static export that describe reporters, volumes and jurisdictions, not cases.
METADATA_NAMES = frozenset(
    name.lower()
    for name in (
        "ReportersMetadata.json",
        "ReporterMetadata.json",
        "VolumesMetadata.json",
        "VolumeMetadata.json",
        "JurisdictionsMetadata.json",
    )
)
CASES_METADATA = "casesmetadata.json"
BAGIT_NAMES = frozenset(("bagit.txt", "bag-info.txt"))
#: Names a case data file may have: JSON, JSON Lines, each plain or compressed.
_DATA_NAME = re.compile(r"\.(?:json|jsonl|ndjson)(?:\.(?:gz|xz|bz2))?$", re.IGNORECASE)
_CASE_MEMBER = re.compile(r"(?:^|/)(?:json|cases)/[^/]+\.json$", re.IGNORECASE)
#: A zip member that is not stored or deflated text (a `data.jsonl.xz` is stored) may be large; a JSON case is not.
MAX_MEMBER_BYTES = 64 * 1024 * 1024 * 1024
_RATIO_FREE_MEMBER_BYTES = 1024 * 1024
_ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")

UnitKind = Literal["file", "folder", "zip"]
Report = Callable[[str, str], None]  # report(location, message): a problem with one file or member


@dataclass(frozen=True)
class CapDocument:
    """One file (or zip member) of JSON to read: where it is, how to open it, its size on disk."""

    label: str
    open: Opener
    size: int
    metadata_only: bool = False  # CasesMetadata.json read for want of the case files: no opinion text
    layout: Layout | None = None  # "document" for a static export's case or metadata file; None: told from the text


@dataclass(frozen=True)
class CapUnit:
    """One step of a `--cap` path: a volume folder, a zip or a file."""

    path: Path
    kind: UnitKind
    size: int  # bytes on disk, for progress

    def documents(self, report: Report) -> Iterator[CapDocument]:
        """Yield the documents of this unit in a stable order; problems with members go to `report`. A zip stays
        open while its documents are read, so read each document before asking for the next."""
        if self.kind == "file":
            metadata_only = self.path.name.lower() == CASES_METADATA
            yield CapDocument(str(self.path), partial(open, self.path, "rb"), self.size, metadata_only)
        elif self.kind == "folder":
            yield from _folder_documents(self.path)
        else:
            yield from _zip_documents(self.path, report)


@dataclass
class Findings:
    """What a path held besides cases, for the one-line message when it yields none ("found ...")."""

    counts: Counter[str] = field(default_factory=Counter)
    examples: dict[str, list[str]] = field(default_factory=dict)

    def add(self, what: str, example: str | None = None, n: int = 1) -> None:
        """Count `n` of `what` ("lines that are not JSON"), remembering up to three examples."""
        self.counts[what] += n
        if example is not None:
            shown = self.examples.setdefault(what, [])
            if len(shown) < 3 and example not in shown:
                shown.append(example)

    def describe(self) -> str:
        """E.g. "1,504 lines that are not JSON; 2 other files (notes.txt, table.csv)"; "nothing" when empty."""
        parts = []
        for what, count in self.counts.most_common():
            shown = self.examples.get(what)
            parts.append(f"{count:,} {what}" + (f" ({', '.join(shown)})" if shown else ""))
        return "; ".join(parts) or "nothing"


def natural_key(name: str) -> list[int | str]:
    """Sort key comparing the numbers in a name as numbers ("99" before "100", "0036-01" before "0450-01")."""
    return [int(part) if part.isdigit() else part.lower() for part in re.split(r"(\d+)", name)]


def is_zip(path: Path) -> bool:
    """Whether `path` is a zip archive (told by its first bytes)."""
    try:
        with open(path, "rb") as handle:
            return handle.read(4) in _ZIP_MAGIC
    except OSError:
        return False


def volume_key(unit: CapUnit) -> tuple[str, str]:
    """Identity of a volume (the folder it is in, its name without ".zip"): a volume's folder and zip share it."""
    name = unit.path.name
    if unit.kind == "zip" and name.lower().endswith(".zip"):
        name = name[:-4]
    return str(unit.path.parent.resolve()), name


def is_volume_folder(path: Path) -> bool:
    """Whether a folder is one volume of the static export (it has `cases/`, `json/` or `CasesMetadata.json`)."""
    return (
        (path / "cases").is_dir()
        or (path / "json").is_dir()
        or (path / "CasesMetadata.json").is_file()
        or (path / "metadata" / "CasesMetadata.json").is_file()
    )


def plan(path: Path, findings: Findings) -> list[CapUnit]:
    """Return the units of a `--cap` path in reading order; what is not case data is counted in `findings`.
    Raises FileNotFoundError for a path that does not exist."""
    if not path.exists():
        raise FileNotFoundError(f"{path}: no such file or folder")
    if path.is_dir():
        units: list[CapUnit] = []
        _walk(path, units, findings)
        return units
    if is_zip(path):
        return [CapUnit(path, "zip", file_size(path))]
    if path.name.lower() in METADATA_NAMES:
        findings.add("CAP metadata file(s) without cases", path.name)
        return []
    return [CapUnit(path, "file", file_size(path))]


def _walk(folder: Path, units: list[CapUnit], findings: Findings) -> None:
    """Add the units under `folder` in stable order: a volume folder is one unit; zips beside a volume folder of the
    same name are left out (the same volume twice)."""
    if is_volume_folder(folder):
        units.append(CapUnit(folder, "folder", _folder_size(folder)))
        return
    try:
        entries = sorted(os.scandir(folder), key=lambda entry: natural_key(entry.name))
    except OSError as exc:
        findings.add("folders that cannot be read", f"{folder.name}: {exc.strerror}")
        return
    names = {entry.name for entry in entries}
    for entry in entries:
        child = Path(entry.path)
        lowered = entry.name.lower()
        if entry.is_dir(follow_symlinks=False):
            if lowered != "html":
                _walk(child, units, findings)
        elif not entry.is_file():
            continue
        elif lowered.endswith(".zip") and is_zip(child):
            if entry.name[:-4] in names and is_volume_folder(folder / entry.name[:-4]):
                continue  # the same volume as the folder beside it
            units.append(CapUnit(child, "zip", file_size(child)))
        elif lowered in METADATA_NAMES or lowered in BAGIT_NAMES or lowered.startswith(("manifest-", "tagmanifest-")):
            findings.add("CAP metadata file(s) without cases", entry.name)
        elif _DATA_NAME.search(entry.name):
            units.append(CapUnit(child, "file", file_size(child)))
        else:
            findings.add("other file(s)", entry.name)


def _case_files(folder: Path) -> list[Path]:
    """The case files of a volume folder: `cases/*.json`, else `json/*.json` (an unzipped volume zip)."""
    for sub in ("cases", "json"):
        if (folder / sub).is_dir():
            files = [p for p in (folder / sub).iterdir() if p.suffix.lower() == ".json" and p.is_file()]
            if files:
                return sorted(files, key=lambda p: natural_key(p.name))
    return []


def _cases_metadata(folder: Path) -> Path | None:
    for candidate in (folder / "CasesMetadata.json", folder / "metadata" / "CasesMetadata.json"):
        if candidate.is_file():
            return candidate
    return None


def _folder_size(folder: Path) -> int:
    files = _case_files(folder)
    if files:
        return sum(file_size(p) for p in files)
    metadata = _cases_metadata(folder)
    return file_size(metadata) if metadata else 0


def _folder_documents(folder: Path) -> Iterator[CapDocument]:
    files = _case_files(folder)
    for path in files:
        yield CapDocument(str(path), partial(open, path, "rb"), file_size(path), layout="document")
    if not files:
        metadata = _cases_metadata(folder)
        if metadata is not None:
            opener = partial(open, metadata, "rb")
            yield CapDocument(str(metadata), opener, file_size(metadata), metadata_only=True, layout="document")


def unsafe_member_name(name: str) -> bool:
    """Whether a zip member's name would leave the folder it is extracted to (absolute, a drive, "..")."""
    if not name or name.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:", name) or "\x00" in name:
        return True
    return ".." in PurePosixPath(name.replace("\\", "/")).parts


def _member_problem(info: zipfile.ZipInfo) -> str | None:
    """Why a zip member is not read, or None: too large, or inflating like a zip bomb."""
    limit = MAX_VALUE_BYTES if _CASE_MEMBER.search(info.filename) else MAX_MEMBER_BYTES
    if info.file_size > limit:
        return f"member of {info.file_size:,} bytes, over the limit of {limit:,}: skipped"
    if info.file_size > _RATIO_FREE_MEMBER_BYTES and info.file_size > MAX_RATIO * max(info.compress_size, 1):
        return (
            f"member inflates from {info.compress_size:,} to {info.file_size:,} bytes (over {MAX_RATIO} times, "
            "a zip bomb?): skipped"
        )
    return None


def _zip_documents(path: Path, report: Report) -> Iterator[CapDocument]:
    """The case documents of a zip: the case files of its volume(s) (`json/`, `cases/`), else JSON Lines members
    (a BagIt `data/data.jsonl.xz`), else `CasesMetadata.json` (metadata only), else any other JSON member."""
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        report(str(path), f"not a readable zip: {exc}")
        return
    with archive:
        safe: list[zipfile.ZipInfo] = []
        for info in archive.infolist():
            if info.is_dir():
                continue
            if unsafe_member_name(info.filename):
                report(f"{path}!{info.filename}", "member path leaves the archive (absolute or '..'): skipped")
                continue
            problem = _member_problem(info)
            if problem:
                report(f"{path}!{info.filename}", problem)
                continue
            safe.append(info)
        chosen = _chosen_members(safe)
        if not chosen and safe:
            names = ", ".join(info.filename for info in safe[:3]) + (", ..." if len(safe) > 3 else "")
            report(str(path), f"no case file among its {len(safe):,} member(s) ({names})")
        for info, metadata_only in chosen:
            label = f"{path}!{info.filename}"
            layout: Layout | None = "document" if metadata_only or _CASE_MEMBER.search(info.filename) else None
            opener = partial(_open_member, archive, info)
            yield CapDocument(label, opener, info.compress_size, metadata_only, layout)


def _chosen_members(members: list[zipfile.ZipInfo]) -> list[tuple[zipfile.ZipInfo, bool]]:
    def ordered(infos: list[zipfile.ZipInfo]) -> list[zipfile.ZipInfo]:
        return sorted(infos, key=lambda info: natural_key(info.filename))

    cases = [info for info in members if _CASE_MEMBER.search(info.filename)]
    lines = [info for info in members if re.search(r"\.(?:jsonl|ndjson)(?:\.(?:gz|xz|bz2))?$", info.filename, re.I)]
    chosen = [(info, False) for info in ordered(cases + lines)]
    volumes_with_cases = {_volume_prefix(info.filename) for info in cases}
    for info in ordered(members):
        base = PurePosixPath(info.filename).name.lower()
        if base == CASES_METADATA and _volume_prefix(info.filename) not in volumes_with_cases and not lines:
            chosen.append((info, True))
    if not chosen:
        chosen = [
            (info, False)
            for info in ordered(members)
            if _DATA_NAME.search(info.filename) and PurePosixPath(info.filename).name.lower() not in METADATA_NAMES
        ]
    return chosen


def _volume_prefix(name: str) -> str:
    """The folder of the volume a member belongs to ("a2d/100/json/0036-01.json" → "a2d/100")."""
    parts = PurePosixPath(name).parts
    for index, part in enumerate(parts):
        if part.lower() in ("json", "cases", "metadata") and index < len(parts) - 1:
            return "/".join(parts[:index])
    return "/".join(parts[:-1])


def _open_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> IO[bytes]:
    return archive.open(info)
