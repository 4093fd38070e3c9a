"""Caselaw Access Project (CAP) case files → one `CaseBundle` per case: the case, its opinions, its citations.

`load_files(paths, options)` reads every form CAP publishes (see `plan` for where the case files are and `cap_json`
for how a file is decoded): a JSON file (one case object, a JSON array such as `CasesMetadata.json`, or
JSON Lines; plain, .gz, .xz or .bz2), a static-export volume folder (`cases/PPPP-NN.json`) or volume zip
(`json/`), CAP's older BagIt bulk zip (`data/data.jsonl.xz`, cases with `casebody {status, data}`), or a tree of
reporters. It streams: one case object is in memory at a time, the court and year filter is applied as each case
is read, progress goes to `options.progress` per path in bytes. A path that yields no case raises
`EmptySourceError` with one line naming the path, the format expected and what was found there.
`load(path)` is the same for one path, collected into a `LoadResult`.

What a case becomes (court, name, citations, author, opinions, edges, prominence): see docs/caselaw.md,
"Caselaw Access Project files". Besides: the court is resolved by `resolve_cap_court` and placed by `court_place`;
the author by `author_name`; a PageRank percentile already above 1 is taken as a 0-100 one (the raw PageRank goes
to `extra`); opinion ids are `cap:<case id>:<index>` with CAP's types mapped to the shared vocabulary ("majority"
→ "lead"); a partial decision date gives the year only (the raw text in `extra`); CAP has no disposition field.
"""

from __future__ import annotations

import datetime as dt
import functools
import json
import os
import re
import zipfile
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path, PurePosixPath
from typing import Any, Literal

from lexprobe.caselaw import courts
from lexprobe.caselaw.records import (
    CaseBundle,
    CaseRecord,
    CitationEdge,
    EmptySourceError,
    LoadOptions,
    LoadResult,
    OpinionRecord,
    RowIssue,
    SourceFilter,
    StreamedLoad,
)
from lexprobe.caselaw.sources.cap_json import (
    MAX_RATIO,
    MAX_VALUE_BYTES,
    JsonItem,
    JsonProblem,
    Layout,
    Opener,
    read_values,
)
from lexprobe.caselaw.sources.encoding import file_size
from lexprobe.caselaw.sources.markup import element_text, local_name, parse_markup

__all__ = [
    "EXPECTED",
    "JUNK_ROWS",
    "MAX_ISSUES_PER_PATH",
    "PROGRESS_STEP",
    "SOURCE",
    "author_name",
    "case_bundle",
    "court_place",
    "load",
    "load_files",
    "natural_key",
    "parse_partial_date",
    "resolve_cap_court",
]

SOURCE = "cap"

#: What a `--cap` path must hold, for the message when it holds no case.
EXPECTED = (
    "expected CAP case JSON (objects with id, name_abbreviation, decision_date and court: one object, a JSON array "
    "or JSON Lines, plain or .gz/.xz/.bz2), a CAP volume folder or zip, a BagIt bulk zip or a tree of reporters"
)
#: Issue rows kept per path; past this one row says how many more there were (a junk file makes one per line).
MAX_ISSUES_PER_PATH = 1000
#: A file whose first this many rows hold no case is junk: it is not read further.
JUNK_ROWS = 10_000
#: Progress is reported at least this often within a file (bytes).
PROGRESS_STEP = 8 * 1024 * 1024

#: Keys only a case object has (with its `id`); a jurisdiction entry has `name` too, but also `name_long`.
_CASE_KEYS = frozenset(("name", "name_abbreviation", "decision_date", "court", "casebody"))

_PROBLEM_PHRASES = {
    "not JSON": "lines that are not JSON",
    "not UTF-8": "lines that are not UTF-8",
    "UTF-16": "files not in UTF-8",
    "too large": "JSON values over the size limit",
    "unreadable": "files that cannot be read (damaged or truncated)",
}


def load_files(paths: Sequence[Path | str], options: LoadOptions | None = None) -> StreamedLoad:
    """Read CAP files, folders, zips or trees of reporters, one case at a time (see the module docstring).

    Raises FileNotFoundError for a path that does not exist and `EmptySourceError` for one that holds nothing to
    read, here; `EmptySourceError` while iterating for a path whose files held no case, or when the filter keeps
    none of the cases of all paths together.
    """
    options = options or LoadOptions()
    planned: list[tuple[Path, list[CapUnit], Findings]] = []
    for raw in paths:
        path = Path(raw)
        findings = Findings()
        units = plan(path, findings)
        if not units:
            raise EmptySourceError(f"{path}: no CAP case read: {EXPECTED}; found {_folder_findings(path, findings)}")
        planned.append((path, units, findings))
    result = LoadResult()
    return StreamedLoad(_Reader(options, result).bundles(planned), result)


def load(path: Path | str) -> LoadResult:
    """Read one CAP path (any form `load_files` takes) into cases, opinions and citation edges, all in memory.
    Raises `EmptySourceError` when it holds no case."""
    streamed = load_files([Path(path)])
    result = LoadResult()
    for bundle in streamed.bundles:
        result.cases.append(bundle.case)
        result.opinions.extend(bundle.opinions)
        result.edges.extend(bundle.edges)
    result.issues = streamed.result.issues
    result.rows_read = streamed.result.rows_read
    return result


def _folder_findings(path: Path, findings: Findings) -> str:
    if path.is_dir() and not findings.counts:
        return "an empty folder"
    return ("a folder with " if path.is_dir() else "") + findings.describe()


class _Reader:
    """Reads planned paths into bundles, filling `result.rows_read` and `result.issues` as it goes."""

    def __init__(self, options: LoadOptions, result: LoadResult) -> None:
        self.filter: SourceFilter = options.filter
        self.progress = options.progress
        self.result = result
        self.unresolved: set[str] = set()
        self.seen_volumes: dict[tuple[str, str], Path] = {}
        self._path_issues = 0
        self._dropped_issues = 0
        self._done = 0
        self._total = 0
        self._label = ""
        self._last_reported = 0
        self.read = 0  # cases read, all paths
        self.kept = 0  # cases the filter kept, all paths

    def bundles(self, planned: list[tuple[Path, list[CapUnit], Findings]]) -> Iterator[CaseBundle]:
        self.read = self.kept = 0
        for path, units, findings in planned:
            yield from self._path(path, units, findings)
        # the filter is judged over all paths together: a path whose courts are not asked for is no mistake
        if self.read > 0 and self.kept == 0:
            names = ", ".join(str(path) for path, _, _ in planned)
            raise EmptySourceError(
                f"{names}: {self.read:,} CAP case(s) read, none in the courts and years asked for "
                f"({_describe(self.filter)})"
            )

    def _issue(self, location: str, message: str) -> None:
        """Record one issue row of the current path (past `MAX_ISSUES_PER_PATH`, only counted)."""
        if self._path_issues < MAX_ISSUES_PER_PATH:
            self.result.issues.append(RowIssue(SOURCE, location, message))
            self._path_issues += 1
        else:
            self._dropped_issues += 1

    def _report(self, done: int) -> None:
        if self.progress is not None:
            self.progress(self._label, done, self._total)
            self._last_reported = done

    def _on_bytes(self, unit_start: int, unit_size: int) -> Any:
        consumed = 0

        def on_bytes(n: int) -> None:
            nonlocal consumed
            consumed += n
            done = unit_start + min(consumed, unit_size)
            if done - self._last_reported >= PROGRESS_STEP:
                self._report(done)

        return on_bytes

    def _path(self, path: Path, units: list[CapUnit], findings: Findings) -> Iterator[CaseBundle]:
        self._path_issues = self._dropped_issues = 0
        self._label, self._total, self._done = f"cap {path.name or path}", sum(unit.size for unit in units), 0
        self._report(0)
        read = twice = 0
        for unit in units:
            key = volume_key(unit)
            if key in self.seen_volumes:
                self._issue(str(unit.path), f"the same volume or file as {self.seen_volumes[key]}: read once")
                twice += 1
            else:
                self.seen_volumes[key] = unit.path
                for bundle in self._unit(unit, findings):
                    read += 1
                    case = bundle.case
                    if self.filter.keeps_court(case.court_id) and self.filter.keeps_year(case.year):
                        self.kept += 1
                        yield bundle
            self._done += unit.size
            self._report(self._done)
        if self._dropped_issues:
            self.result.issues.append(
                RowIssue(SOURCE, str(path), f"{self._dropped_issues:,} more issue rows like the above not recorded")
            )
        self.read += read
        if read == 0 and twice == 0:  # a path that is only a volume already read is not empty
            raise EmptySourceError(f"{path}: no CAP case read: {EXPECTED}; found {findings.describe()}")

    def _unit(self, unit: CapUnit, findings: Findings) -> Iterator[CaseBundle]:
        def report(location: str, message: str) -> None:
            self._issue(location, message)
            where = location.rsplit("!", 1)[-1] if "!" in location else Path(location).name
            findings.add("zip members or files skipped", f"{where}: {message.split(':')[0]}")

        for document in unit.documents(report):
            if document.metadata_only:
                self._issue(
                    document.label,
                    "case metadata without casebody (no cases/ or json/ folder beside it): cases without opinion text",
                )
            bad_rows = cases = values = 0
            on_bytes = self._on_bytes(self._done, unit.size) if unit.kind == "file" else None
            for item in read_values(document.open, on_bytes, document.layout):
                values += 1
                if isinstance(item, JsonProblem):
                    if item.kind not in ("unreadable", "UTF-16"):
                        self.result.rows_read += 1
                        bad_rows += 1
                    # the first bad places, so that the message says where to look: "f.jsonl line 2, byte 9"
                    place = f": {item.message}" if item.kind == "UTF-16" else f" {item.where()}"
                    findings.add(_PROBLEM_PHRASES[item.kind], _short(document.label) + place)
                    where = f" (byte {item.offset:,})" if item.offset is not None else ""
                    self._issue(f"{document.label}:{item.line}", item.message + where)
                else:
                    self.result.rows_read += 1
                    bundle = self._case(item, document.label, findings)
                    if bundle is None:
                        bad_rows += 1
                    else:
                        cases += 1
                        yield bundle
                if cases == 0 and bad_rows >= JUNK_ROWS:
                    self._issue(document.label, f"no CAP case in its first {JUNK_ROWS:,} rows: not read further")
                    findings.add("files not read to the end (no case in their first rows)", Path(document.label).name)
                    break
            if values == 0:
                findings.add("empty file(s)", Path(document.label).name)

    def _case(self, item: JsonItem, label: str, findings: Findings) -> CaseBundle | None:
        """The bundle of one JSON value, or None (an issue row) when it is not a usable case object."""
        location = f"{label}:{item.line}"
        value = item.value
        if not isinstance(value, dict):
            findings.add("JSON values that are not objects", type(value).__name__)
            self._issue(location, f"expected a case object, got {type(value).__name__}")
            return None
        if not (_CASE_KEYS & value.keys()) or "name_long" in value:
            keys = ", ".join(sorted(map(str, value))[:6]) or "none"
            findings.add("JSON objects that are not CAP cases", f"keys {keys}")
            self._issue(location, f"not a CAP case object (keys: {keys})")
            return None
        try:
            bundle, problems = case_bundle(value, label, self.unresolved)
        except CaseError as exc:
            findings.add("case objects without an id")
            self._issue(location, f"malformed case object: {exc}")
            return None
        for problem in problems:
            self._issue(location, problem)
        return bundle


def _short(label: str) -> str:
    """A document's file name (a zip member's name) for the message's examples."""
    return label.rsplit("!", 1)[-1].rsplit("/", 1)[-1] if "!" in label else Path(label).name


def _describe(source_filter: SourceFilter) -> str:
    parts = []
    if source_filter.courts is not None:
        parts.append("courts " + ", ".join(sorted(source_filter.courts)))
    if source_filter.years is not None:
        parts.append(f"years {source_filter.years[0]}-{source_filter.years[1]}")
    return "; ".join(parts) or "no filter"


# --- where the case files are -------------------------------------------------------------------------------
# A `--cap` path (a file, a volume folder, a volume zip, CAP's older BagIt bulk zip, or a tree of reporters; the
# layouts of harvard-lil/capstone `scripts/export_cap_static.py`, see docs/caselaw.md) becomes `CapUnit`s (one
# volume, zip or file each) and their `CapDocument`s. A tree is walked in a stable order (numbers compared as
# numbers), a volume given both as a folder and as a zip beside it is read once, from the folder; zip members are
# read in place, never extracted: one whose name leaves the archive, or too large or inflating like a bomb, is
# skipped and reported.

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
            yield CapDocument(str(self.path), functools.partial(open, self.path, "rb"), self.size, metadata_only)
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
    return (path / "cases").is_dir() or (path / "json").is_dir() or _cases_metadata(path) is not None


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
        units.append(CapUnit(folder, "folder", sum(document.size for document in _folder_documents(folder))))
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


def _folder_documents(folder: Path) -> Iterator[CapDocument]:
    files = _case_files(folder)
    for path in files:
        yield CapDocument(str(path), functools.partial(open, path, "rb"), file_size(path), layout="document")
    if not files:
        metadata = _cases_metadata(folder)
        if metadata is not None:
            opener = functools.partial(open, metadata, "rb")
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
            opener = functools.partial(archive.open, info)
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


# --- one case object ----------------------------------------------------------------------------------------

#: CAP opinion types → the shared vocabulary (CourtListener's types, as `sources.opinions` names them).
_OPINION_TYPES: dict[str, str] = {
    "majority": "lead",
    "concurring-in-part-and-dissenting-in-part": "concurrence_in_part",
    "on-motion-for-rehearing": "rehearing",
    "on-the-merits": "on_the_merits",
}


@dataclass(frozen=True)
class _Opinion:
    kind: str
    author: str | None  # the byline as printed
    text: str


class CaseError(ValueError):
    """A case object that cannot become a record."""


def _opinion_type(kind: str) -> str:
    return _OPINION_TYPES.get(kind, re.sub(r"[^a-z]+", "_", kind).strip("_") or "unknown")


def case_bundle(
    case: dict[str, Any], source_file: str, unresolved: set[str] | None = None
) -> tuple[CaseBundle, list[str]]:
    """Map one CAP case object (either CAP format) to its bundle, with the messages of its problems (a court
    courts-db does not know, named once per `unresolved` set; a casebody without usable text).
    Raises `CaseError` for an object with no id."""
    unresolved = set() if unresolved is None else unresolved
    problems: list[str] = []
    case_id = case.get("id")
    if case_id is None or str(case_id).strip() == "":
        raise CaseError("no id")
    source_id = str(case_id)
    court = _mapping(case.get("court"))
    jurisdiction = _mapping(case.get("jurisdiction"))
    date_raw = _text(case.get("decision_date"))
    decision_date, year = parse_partial_date(date_raw)
    court_id = resolve_cap_court(_text(court.get("name")), _text(court.get("name_abbreviation")))
    court_label = _text(court.get("name")) or _text(court.get("name_abbreviation"))
    if court_id is None and court_label and court_label not in unresolved:
        unresolved.add(court_label)
        problems.append(f"court not found in courts-db: {court_label!r}")
    circuit, state = court_place(court_id, decision_date or date_raw)
    if state is None and court_id != "scotus" and court_id not in CIRCUIT_OF_COURT:
        state = state_code(_text(jurisdiction.get("name_long")) or _text(jurisdiction.get("name")))
    citations = _citations(case.get("citations"))
    opinions, problem = _opinions(case.get("casebody"))
    if problem:
        problems.append(problem)
    majority = next((op for op in opinions if op.kind == "majority"), None)
    name = _text(case.get("name_abbreviation")) or _text(case.get("name"))
    extra = _extra(case, court, jurisdiction, date_raw, decision_date)
    if majority is not None and majority.author:
        extra += (("author_byline", majority.author),)
    record = CaseRecord(
        source=SOURCE,
        source_id=source_id,
        court_id=court_id,
        name=name,
        citations=citations,
        decision_date=decision_date,
        year=year,
        docket=_text(case.get("docket_number")),
        author=author_name(majority.author) if majority else None,
        state=state,
        circuit=circuit,
        prominence=_prominence(case.get("analysis")),
        extra=extra,
    )
    return CaseBundle(record, _opinion_records(record, opinions, source_file), _edges(record, case)), problems


def _opinion_records(case: CaseRecord, opinions: list[_Opinion], source_file: str) -> tuple[OpinionRecord, ...]:
    """The case's opinions as records, numbered in the casebody's order."""
    return tuple(
        OpinionRecord(
            source=SOURCE,
            opinion_id=f"{SOURCE}:{case.source_id}:{index}",
            cluster_id=case.source_id,
            case_name=case.name,
            citations=case.citations,
            opinion_type=_opinion_type(opinion.kind),
            is_majority=opinion.kind == "majority",
            author=author_name(opinion.author),
            text=opinion.text,
            source_file=source_file,
            year=case.year,
        )
        for index, opinion in enumerate(opinions)
    )


def _edges(case: CaseRecord, raw: dict[str, Any]) -> tuple[CitationEdge, ...]:
    """The case's `cites_to` as citation edges, each cited citation once, in order."""
    citing = f"{SOURCE}:{case.source_id}"
    cited_seen: dict[str, None] = {}
    for entry in list_of(raw.get("cites_to")):
        cited = _text(entry.get("cite")) if isinstance(entry, dict) else None
        if cited:
            cited_seen.setdefault(cited)
    return tuple(CitationEdge(SOURCE, citing, cited) for cited in cited_seen)


def parse_partial_date(text: str | None) -> tuple[str | None, int | None]:
    """Return (ISO date or None, year or None) from "1954-05-17", "1954-05" or "1954"."""
    if not text:
        return None, None
    match = re.match(r"^(\d{4})(?:-(\d{1,2}))?(?:-(\d{1,2}))?", text.strip())
    if not match:
        return None, None
    year = int(match.group(1))
    if match.group(3) is None:
        return None, year
    try:
        return dt.date(year, int(match.group(2)), int(match.group(3))).isoformat(), year
    except ValueError:  # CAP has a few impossible dates ("1870-02-30"): keep the year
        return None, year


def _citations(entries: Any) -> tuple[str, ...]:
    official: list[str] = []
    others: list[str] = []
    for entry in list_of(entries):
        if not isinstance(entry, dict):
            continue
        cite = _text(entry.get("cite"))
        if cite:
            (official if entry.get("type") == "official" else others).append(cite)
    return tuple(dict.fromkeys(official + others))


def _prominence(analysis: Any) -> float | None:
    pagerank = _mapping(_mapping(analysis).get("pagerank"))
    value = pagerank.get("percentile")
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if 0 <= value <= 1:
        return round(float(value) * 100, 6)
    return float(value) if 1 < value <= 100 else None


def _extra(
    case: dict[str, Any],
    court: dict[str, Any],
    jurisdiction: dict[str, Any],
    date_raw: str | None,
    decision_date: str | None,
) -> tuple[tuple[str, str], ...]:
    facts: list[tuple[str, str]] = []
    for key, value in (
        ("name_full", case.get("name")),
        ("cap_court", court.get("name")),
        ("cap_jurisdiction", jurisdiction.get("name_long") or jurisdiction.get("name")),
        ("pagerank_raw", _mapping(_mapping(case.get("analysis")).get("pagerank")).get("raw")),
    ):
        if value not in (None, ""):
            facts.append((key, str(value)))
    if date_raw and date_raw != decision_date:
        facts.append(("decision_date_raw", date_raw))
    body = _mapping(case.get("casebody"))
    data = body.get("data", body)
    judges = _mapping(data).get("judges")
    if isinstance(judges, list) and judges:
        facts.append(("judges", "; ".join(str(judge) for judge in judges)))
    return tuple(facts)


def _opinions(casebody: Any) -> tuple[list[_Opinion], str | None]:
    """Return the opinions of a casebody and, where its text is unusable, why."""
    if casebody is None:
        return [], None  # a metadata-only export
    if not isinstance(casebody, dict):
        return [], f"casebody is a {type(casebody).__name__}, not an object"
    data = casebody.get("data", casebody)
    if data is None:
        return [], f"casebody has no text (status {casebody.get('status')!r})"
    if isinstance(data, str):
        opinions = markup_opinions(data)
        return opinions, None if opinions else "casebody markup holds no opinion"
    if not isinstance(data, dict):
        return [], f"casebody data is a {type(data).__name__}"
    opinions = []
    for entry in list_of(data.get("opinions")):
        if isinstance(entry, dict):
            kind = (_text(entry.get("type")) or "unknown").lower()
            opinions.append(_Opinion(kind, _text(entry.get("author")), str(entry.get("text") or "").strip()))
    return opinions, None


def markup_opinions(markup: str) -> list[_Opinion]:
    """Opinions of a CAP casebody in its XML (`<opinion type>`) or HTML (`<article class="opinion">`) form."""
    root = parse_markup(markup)
    if root is None:
        return []
    opinions = []
    for element in root.iter():
        tag = local_name(element)
        classes = (element.get("class") or "").split()
        if tag == "opinion" or (tag == "article" and "opinion" in classes):
            kind = (element.get("type") or element.get("data-type") or "unknown").lower()
            author_element = next(
                (
                    child
                    for child in element.iter()
                    if local_name(child) == "author" or "author" in (child.get("class") or "").split()
                ),
                None,
            )
            author = " ".join(element_text(author_element).split()) if author_element is not None else None
            opinions.append(_Opinion(kind, author or None, element_text(element)))
    return opinions


# --- small helpers ------------------------------------------------------------------------------------------


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def list_of(value: Any) -> list[Any]:
    """The value when it is a list, else an empty one."""
    return value if isinstance(value, list) else []


def _text(value: Any) -> str | None:
    if value is None:
        return None
    text = str(value).strip()
    return text or None


#: Federal courts of appeals → their circuits ("ca9" → "9", "cadc" → "dc").
CIRCUIT_OF_COURT: dict[str, str] = {court_id: circuit for circuit, court_id in courts.CIRCUIT_IDS.items()}

#: The circuit each state's district courts appeal to today.
_STATE_CIRCUITS: dict[str, str] = {
    **dict.fromkeys(("ME", "MA", "NH", "RI", "PR"), "1"),
    **dict.fromkeys(("CT", "NY", "VT"), "2"),
    **dict.fromkeys(("DE", "NJ", "PA", "VI"), "3"),
    **dict.fromkeys(("MD", "NC", "SC", "VA", "WV"), "4"),
    **dict.fromkeys(("LA", "MS", "TX"), "5"),
    **dict.fromkeys(("KY", "MI", "OH", "TN"), "6"),
    **dict.fromkeys(("IL", "IN", "WI"), "7"),
    **dict.fromkeys(("AR", "IA", "MN", "MO", "NE", "ND", "SD"), "8"),
    **dict.fromkeys(("AK", "AZ", "CA", "HI", "ID", "MT", "NV", "OR", "WA", "GU", "MP"), "9"),
    **dict.fromkeys(("CO", "KS", "NM", "OK", "UT", "WY"), "10"),
    **dict.fromkeys(("AL", "FL", "GA"), "11"),
    "DC": "dc",
}
#: Circuits split off later: (new circuit, start date, circuit before).
_CIRCUIT_SPLITS: tuple[tuple[str, str, str], ...] = (("11", "1981-10-01", "5"), ("10", "1929-02-28", "8"))


# --- courts -----------------------------------------------------------------------------------------------


@functools.cache
def _courts_by_id() -> dict[str, dict[str, Any]]:
    import courts_db

    return {court["id"]: court for court in courts_db.courts}


@functools.cache
def _state_codes() -> dict[str, str]:
    path = resources.files("courts_db") / "data" / "states.json"
    states: dict[str, str] = json.loads(path.read_text(encoding="utf-8"))
    codes = {name.lower(): code for code, name in states.items() if len(code) == 2}
    codes.update(dict.fromkeys(("washington d.c.", "washington, d.c.", "district of columbia"), "DC"))
    return codes


def state_code(name: str | None) -> str | None:
    """Two-letter code of a US state or territory named in full ("California" → "CA"); None if unknown."""
    if not name:
        return None
    text = name.strip()
    if len(text) == 2 and text.upper() in _state_codes().values():
        return text.upper()
    return _state_codes().get(text.lower())


@functools.cache
def resolve_cap_court(name: str | None, abbreviation: str | None = None) -> str | None:
    """Return the courts-db id for a CAP court: its full name, else its abbreviation ("N.D. Cal."), through
    `caselaw.courts.resolve_court`; a bankruptcy court (which that leaves out) through courts-db directly."""
    for text in (name, abbreviation):
        court_id = courts.resolve_court(text) if text else None
        if court_id:
            return court_id
    if name and "bankruptcy" in name.lower():
        import courts_db

        found = courts_db.find_court(name, bankruptcy=True)
        return found[0] if len(found) == 1 else None
    return None


def court_place(court_id: str | None, when: str | None = None) -> tuple[str | None, str | None]:
    """Return (circuit, state) for a courts-db id: the circuit of a federal court of appeals; the circuit and
    two-letter state of a federal district court; the state of a state court; else (None, None). `when` (ISO date
    or year) gives a district court its circuit before the 10th and 11th Circuits were split off."""
    if not court_id:
        return None, None
    level = courts.court_level(court_id)
    if level == "coa":
        return CIRCUIT_OF_COURT[court_id], None
    if level == "district":
        state = courts.district_state(court_id)
        return (_circuit_of_state(state, when) if state else None), state
    court = _courts_by_id().get(court_id)
    if court is not None and court.get("system") == "state":
        return None, state_code(court.get("location"))
    return None, None


def _circuit_of_state(state: str, when: str | None) -> str | None:
    circuit = _STATE_CIRCUITS.get(state)
    for new, start, before in _CIRCUIT_SPLITS:
        if circuit == new and when and when[: len(start)] < start:
            return before
    return circuit


# --- authors ------------------------------------------------------------------------------------------------
# CAP's `casebody.opinions[].author` is the byline of the printed opinion: the surname in capitals, then the judge's
# title after a comma ("CAYTON, Chief Judge", "HARLAN, J., dissenting."), or the title first ("Mr. Chief Justice
# Taft"). The name is kept as printed apart from its capitals: "McALLISTER" → "McAllister", "O'SCANNLAIN" →
# "O'Scannlain".

_LEADING_TITLE = re.compile(
    r"^(?:(?:opinion(?:\s+of\s+the\s+court)?\s+)?by\s+|before\s+|"
    r"(?:mr|mrs|ms|madam|the|hon|honorable|honourable)\b\.?\s*|"
    r"(?:chief|associate|senior|circuit|district|magistrate|bankruptcy|presiding|acting|special|"
    r"united\s+states|u\.\s?s\.)\s+|"
    r"(?:justices?|judges?)\b\.?\s*)",
    re.IGNORECASE,
)
_TRAILING_PHRASE = re.compile(
    r"\s+(?:delivered|announced|wrote|filed|concurr\w*|dissent\w*|for\s+the\s+(?:court|majority))\b.*$",
    re.IGNORECASE,
)
_TRAILING_TITLE = re.compile(
    r"[\s,]+(?:(?:chief|associate|senior|circuit|district|magistrate|bankruptcy|presiding|acting|special|"
    r"united\s+states)\s+)*(?:justices?|judges?|c\.\s?j\.?|j\.?|jj\.?|p\.\s?j\.?|s\.\s?j\.?|u\.\s?s\.\s?d\.\s?j\.?)$",
    re.IGNORECASE,
)
#: Bylines that name no judge.
_NO_AUTHOR = re.compile(
    r"\b(?:per\s+curiam|curiam|by\s+the\s+court|the\s+court|memorandum|opinion|order|judgment|syllabus|"
    r"unanimous|court)\b",
    re.IGNORECASE,
)
_SUFFIXES = {"JR", "SR", "II", "III", "IV"}
_MAX_WORDS = 5


@functools.lru_cache(maxsize=8192)  # bylines repeat: a court has few judges
def author_name(byline: str | None) -> str | None:
    """Return the judge's name from a CAP opinion byline without titles or roles, in the name's own capitals
    ("HOOD, Associate Judge." → "Hood"; "Mr. Justice Black" → "Black"), or None for a per curiam or unsigned
    opinion or a byline that names no one. Raises nothing."""
    if not byline:
        return None
    text = re.sub(r"\s+", " ", byline).strip(" .:;,*")
    previous = None
    while previous != text:
        previous = text
        text = _LEADING_TITLE.sub("", text).strip(" .:;,")
        text = _TRAILING_PHRASE.sub("", text).strip(" .:;,")
        text = _TRAILING_TITLE.sub("", text).strip(" .:;,")
    if not text or _NO_AUTHOR.search(text):
        return None
    parts = [part.strip() for part in text.split(",")]
    name = parts[0]
    suffixes = [part for part in parts[1:] if part.upper().rstrip(".") in _SUFFIXES]
    if suffixes:
        suffix = suffixes[0].upper().rstrip(".")
        name = f"{name} {suffix.capitalize() + '.' if suffix in ('JR', 'SR') else suffix}"
    words = name.split()
    if not words or len(words) > _MAX_WORDS or not re.search(r"[A-Za-z]", name):
        return None
    return " ".join(_word_case(word) for word in words)


def _word_case(word: str) -> str:
    """One word of a name in its usual capitals: "HOOD" → "Hood", "O'CONNOR" → "O'Connor", "McALLISTER" →
    "McAllister", "R." and "III" unchanged."""
    bare = word.rstrip(".,")
    if bare.upper() in _SUFFIXES and bare.upper() not in ("JR", "SR"):
        return word.upper()
    match = re.fullmatch(r"(Ma?c)([A-Z]{2,}.*)", word)
    if match:
        return match.group(1) + _capitalize(match.group(2))
    if word.isupper():
        return _capitalize(word)
    return word


def _capitalize(word: str) -> str:
    """Capitalize each part of a word split at apostrophes and hyphens ("O'SCANNLAIN" → "O'Scannlain")."""
    return re.sub(r"[^\W\d_]+", lambda match: match.group(0).capitalize(), word)
