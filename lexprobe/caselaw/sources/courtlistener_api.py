"""CourtListener REST API v4 responses saved as JSON → cases and opinions, joined across every file given.

What a user saves from the API: list pages `{"count", "next", "previous", "results": [...]}`, single objects, JSON
arrays, or JSON Lines of any of these (`.json`, `.jsonl`, `.ndjson`, each optionally `.gz`, `.bz2` or `.xz`), one
file per endpoint and page, in folders of any depth. `load_files` reads every file and folder it is given together
(folders recursively, files in path order, hidden files skipped) and joins them afterwards, so the order of files
does not matter. Objects may be clusters (`/clusters/`), opinions (`/opinions/`), dockets (`/dockets/`), courts
(`/courts/`) or opinion search results (`/search/?type=o`); their kind is read from `resource_uri`, else from
their fields.

The join:
- a cluster takes its court and docket number from its docket: the cluster's `docket` URL (or `docket_id`), or the
  docket's `clusters` list; a search result carries its own `court_id`. A cluster whose docket was not saved keeps
  court None and is reported once per file (a `RowIssue` naming the missing dockets), never guessed;
- an opinion attaches to its cluster by `cluster_id`/`cluster` URL, or by the cluster's `sub_opinions` list; an
  opinion whose cluster was not saved is reported once per file and not kept (nothing could name its case);
- a cluster's author is its majority opinion's author (`author_str`, else the name the opinion text opens with),
  without titles or roles by CAP's rules (`cap_authors`): "HOOD, Associate Judge." → "Hood"; a per curiam
  opinion, or a byline of titles only ("The CHIEF JUSTICE"), has no author;
- `disposition` (free text on the cluster) gives "affirm" ("Affirmed") or "reverse" ("Reversed and remanded",
  "Vacated"); mixed or other texts give None; the text is kept as `disposition_raw`;
- citations: official reporters first (CourtListener type 1 federal and 5 early Supreme Court, then state,
  neutral, regional, specialty), vendor cites last (7 WEST "1997 WL 1234", then 6 LEXIS "1997 U.S. App. LEXIS
  22161"); "U.S. App. D.C." follows the other federal reporters of its case;
- `LoadOptions.filter` (courts, years) is applied after the join.

Opinion text is `plain_text`, else the first HTML/XML field present (`html_with_citations`, `html`, ...) stripped
of tags with lxml. Locations are `path:line` for JSON Lines and malformed JSON, `path:results[i]` (or `path:[i]`)
inside a saved page.

Bounds: a whole JSON document may be at most `MAX_DOCUMENT_BYTES` once decompressed, a JSON Lines line at most
`MAX_LINE_BYTES`; larger ones are reported and skipped. Everything read is held until the join, so all files
together may hold at most `MAX_TOTAL_BYTES` (decompressed); sets larger than that belong to the bulk CSV loader
(`courtlistener_bulk`).

Fails loudly: a given path that holds no API object of the kinds above, or a set of paths that yields no case
(or none the filter keeps), raises `EmptySourceError` with one line naming the paths, the format expected and
what was found there. A path that does not exist raises `FileNotFoundError`.

This module reads the files; `courtlistener_api_objects` (what each object is), `courtlistener_api_values` (field
values) and `courtlistener_api_join` (the join and its messages) hold the rest.
"""

from __future__ import annotations

import bz2
import errno
import gzip
import json
import lzma
import os
import re
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

from lexprobe.caselaw.records import (
    LoadOptions,
    LoadResult,
    RowIssue,
)
from lexprobe.caselaw.sources.courtlistener_api_join import PathTally, join_collected, refuse_junk
from lexprobe.caselaw.sources.courtlistener_api_objects import (
    EXPECTED,
    KINDS,
    SOURCE,
    Collected,
    Docket,
    object_kind,
    other_kind,
    read_cluster,
    read_opinion,
    read_search_result,
)
from lexprobe.caselaw.sources.courtlistener_api_values import (
    court_of,
    id_of,
    ids_of,
    text_of,
)
from lexprobe.caselaw.sources.encoding import SNIFF_BYTES, wide_encoding, wide_encoding_message

__all__ = [
    "EXPECTED",
    "MAX_DOCUMENT_BYTES",
    "MAX_LINE_BYTES",
    "MAX_TOTAL_BYTES",
    "PROGRESS_LABEL",
    "SOURCE",
    "load",
    "load_files",
    "object_kind",
]

PROGRESS_LABEL = "courtlistener API files"

MAX_DOCUMENT_BYTES = 256 * 1024 * 1024  # one saved page or array, decompressed
MAX_LINE_BYTES = 64 * 1024 * 1024  # one JSON Lines line
MAX_TOTAL_BYTES = 4 * 1024 * 1024 * 1024  # everything read in one call, decompressed


_DATA_SUFFIXES = (".json", ".jsonl", ".ndjson")
_LINES_SUFFIXES = (".jsonl", ".ndjson")
_COMPRESSED = (".gz", ".bz2", ".xz")
_PROGRESS_EVERY_LINES = 5000
_JSON_SPACE = re.compile(r"[ \t\n\r]*")


def load_files(paths: Sequence[Path | str], options: LoadOptions | None = None) -> LoadResult:
    """Read every saved CourtListener v4 API file and folder in `paths` together and join them into cases
    (clusters with their dockets' courts) and opinions (attached to their clusters); apply `options.filter`.

    Raises `FileNotFoundError` for a path that does not exist and `EmptySourceError` when a path holds no API
    object, or when all of them together yield no case (or none the filter keeps).
    """
    return _load([Path(p) for p in paths], options or LoadOptions(), court_hint=None)


def load(path: Path | str, court_id: str | None = None) -> LoadResult:
    """Read one saved CourtListener API file or folder (a one-path `load_files`).

    `court_id` is the courts-db id to use for clusters whose docket (and so court) is not among the files.
    """
    return _load([Path(path)], LoadOptions(), court_hint=court_id)


def _load(paths: list[Path], options: LoadOptions, court_hint: str | None) -> LoadResult:
    result = LoadResult()
    collected = Collected()
    tallies: list[PathTally] = []
    listing: list[tuple[PathTally, Path]] = []
    seen_files: set[Path] = set()
    for path in paths:
        tally = PathTally(path)
        tallies.append(tally)
        for file in _data_files(path, tally):
            resolved = file.resolve()
            if resolved not in seen_files:  # the same file named twice (a file and its folder) is read once
                seen_files.add(resolved)
                listing.append((tally, file))
    reader = _Reader(result, collected, options, total=sum(_size(file) for _, file in listing))
    for tally, file in listing:
        reader.read(file, tally)
    refuse_junk(tallies)
    join_collected(collected, court_hint, options, result, tallies)
    return result


# --- finding the files -----------------------------------------------------------------------------------------


def _data_files(path: Path, tally: PathTally) -> list[Path]:
    """The API files a given path stands for: itself, or every data file under the folder in path order."""
    if not path.exists():
        raise FileNotFoundError(errno.ENOENT, "no such file or folder", str(path))
    if not path.is_dir():
        tally.files += 1
        return [path]
    found: list[Path] = []
    for root, dirs, names in os.walk(path):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(names):
            if name.startswith("."):
                continue
            if _is_data_name(name):
                found.append(Path(root) / name)
            else:
                tally.other_files += 1
    tally.files += len(found)
    return found


def _is_data_name(name: str) -> bool:
    return _plain_name(name).endswith(_DATA_SUFFIXES)


def _plain_name(name: str) -> str:
    """The file name without its compression suffix, lowercase."""
    lower = name.lower()
    for suffix in _COMPRESSED:
        if lower.endswith(suffix):
            return lower.removesuffix(suffix)
    return lower


def _decompressed(file: Path, raw: IO[bytes]) -> IO[bytes]:
    """The bytes of `raw`, decompressed as the file name says (.gz, .bz2, .xz), else `raw` itself."""
    suffix = Path(file.name.lower()).suffix
    if suffix == ".gz":
        return gzip.GzipFile(fileobj=raw, mode="rb")
    if suffix == ".bz2":
        return bz2.BZ2File(raw)
    if suffix == ".xz":
        return lzma.LZMAFile(raw)
    return raw


def _size(file: Path) -> int:
    try:
        return file.stat().st_size
    except OSError:
        return 0


# --- reading -------------------------------------------------------------------------------------------------


class _Reader:
    """Reads files into `collected`, within the size bounds, reporting progress in bytes of the files on disk."""

    def __init__(self, result: LoadResult, collected: Collected, options: LoadOptions, total: int) -> None:
        self.result = result
        self.collected = collected
        self.progress = options.progress
        self.total = total
        self.done = 0  # bytes of finished files
        self.read_bytes = 0  # decompressed bytes read so far, against MAX_TOTAL_BYTES

    def read(self, file: Path, tally: PathTally) -> None:
        """Read one file; a problem with it becomes an issue (and a note for the empty-source message)."""
        try:
            with open(file, "rb") as raw, _decompressed(file, raw) as stream:
                if _plain_name(file.name).endswith(_LINES_SUFFIXES):
                    self._read_lines(file, stream, raw, tally)
                else:
                    self._read_document(file, stream, tally)
        except (EOFError, OSError, zlib.error, lzma.LZMAError) as exc:
            if isinstance(exc, FileNotFoundError | PermissionError | IsADirectoryError):
                raise
            self._problem(tally, str(file), f"unreadable compressed data: {exc}")
        self.done += _size(file)
        self._report()

    def _report(self) -> None:
        if self.progress is not None:
            self.progress(PROGRESS_LABEL, min(self.done, self.total), self.total)

    def _count(self, size: int) -> None:
        self.read_bytes += size
        if self.read_bytes > MAX_TOTAL_BYTES:
            raise ValueError(
                f"more than {MAX_TOTAL_BYTES // 1024**3} GiB of CourtListener API JSON in one build: "
                "load sets this large from CourtListener's bulk CSV files instead"
            )

    def _read_document(self, file: Path, stream: IO[bytes], tally: PathTally) -> None:
        data = stream.read(MAX_DOCUMENT_BYTES + 1)
        if len(data) > MAX_DOCUMENT_BYTES:
            limit = MAX_DOCUMENT_BYTES // 1024**2
            self._problem(tally, str(file), f"larger than {limit} MiB of JSON: not read (save it as JSON Lines)")
            return
        self._count(len(data))
        if encoding := wide_encoding(data[:SNIFF_BYTES]):  # UTF-16 is named, not "not UTF-8 (byte 0)"
            self._problem(tally, f"{file}:1", wide_encoding_message(encoding))
            return
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            line = data[: exc.start].count(b"\n") + 1
            self._problem(tally, f"{file}:{line}", f"not UTF-8 (byte {exc.start}): not JSON")
            return
        try:
            value = json.loads(text)
        except json.JSONDecodeError as exc:
            if exc.msg == "Extra data":  # JSON Lines saved as .json, or pages appended with `curl >>`
                self._read_sequence(file, text, tally)
                return
            self._problem(tally, f"{file}:{exc.lineno}", _json_problem(exc))
            return
        self._take(value, str(file), str(file), tally)

    def _read_sequence(self, file: Path, text: str, tally: PathTally) -> None:
        """Read JSON values one after another in one text; each is located by the line it starts on."""
        decoder = json.JSONDecoder()
        position, line, counted_to = 0, 1, 0
        while True:
            position = _JSON_SPACE.match(text, position).end()  # type: ignore[union-attr]
            if position >= len(text):
                return
            line += text.count("\n", counted_to, position)
            counted_to = position
            try:
                value, position = decoder.raw_decode(text, position)
            except json.JSONDecodeError as exc:
                self._problem(tally, f"{file}:{exc.lineno}", _json_problem(exc))
                return
            self._take(value, f"{file}:{line}", str(file), tally)

    def _read_lines(self, file: Path, stream: IO[bytes], raw: IO[bytes], tally: PathTally) -> None:
        lineno = 0
        while True:
            line = stream.readline(MAX_LINE_BYTES + 1)
            if not line:
                return
            lineno += 1
            if len(line) > MAX_LINE_BYTES and not line.endswith(b"\n"):
                while line and not line.endswith(b"\n"):  # skip the rest of the over-long line
                    line = stream.readline(MAX_LINE_BYTES)
                limit = MAX_LINE_BYTES // 1024**2
                self._problem(tally, f"{file}:{lineno}", f"line longer than {limit} MiB: not read")
                continue
            self._count(len(line))
            if lineno % _PROGRESS_EVERY_LINES == 0 and self.progress is not None:
                self.progress(PROGRESS_LABEL, min(self.done + raw.tell(), self.total), self.total)
            if lineno == 1 and (encoding := wide_encoding(line[:SNIFF_BYTES])):
                self._problem(tally, f"{file}:1", wide_encoding_message(encoding))
                return
            if not line.strip():
                continue
            try:
                text = line.decode("utf-8-sig")
            except UnicodeDecodeError as exc:
                self._problem(tally, f"{file}:{lineno}", f"not UTF-8 (byte {exc.start} of the line): not JSON")
                continue
            self._take_text(text, f"{file}:{lineno}", str(file), tally)

    def _take_text(self, text: str, location: str, source_file: str, tally: PathTally) -> None:
        try:
            value = json.loads(text)
        except json.JSONDecodeError as exc:
            self._problem(tally, location, _json_problem(exc))
            return
        self._take(value, location, source_file, tally)

    def _take(self, value: Any, location: str, source_file: str, tally: PathTally) -> None:
        """Collect the objects of a page (`results`), of an array, or the value itself."""
        if isinstance(value, dict) and isinstance(value.get("results"), list):
            items = [(f"{location}:results[{i}]", item) for i, item in enumerate(value["results"])]
        elif isinstance(value, list):
            items = [(f"{location}:[{i}]", item) for i, item in enumerate(value)]
        else:
            items = [(location, value)]
        unknown: dict[str, list[str]] = {}
        for item_location, item in items:
            self.result.rows_read += 1
            kind = _collect(item, item_location, source_file, self.collected, self.result)
            tally.kinds[kind] += 1
            if kind not in KINDS:
                unknown.setdefault(kind, []).append(item_location)
        for kind, locations in unknown.items():  # one issue per kind of object this loader does not read
            more = f" (and {len(locations) - 1} more in this file)" if len(locations) > 1 else ""
            message = f"not a cluster, opinion, docket, court or search result: {_describe_kind(kind)}{more}"
            self.result.issues.append(RowIssue(SOURCE, locations[0], message))

    def _problem(self, tally: PathTally, location: str, message: str) -> None:
        self.result.rows_read += 1
        self.result.issues.append(RowIssue(SOURCE, location, message))
        if len(tally.problems) < 3:
            tally.problems.append(f"{message} ({location})")


def _json_problem(exc: json.JSONDecodeError) -> str:
    return f"not JSON: {exc.msg.removesuffix(' at')} at column {exc.colno}"


def _describe_kind(kind: str) -> str:
    if kind == "not an object":
        return "not a JSON object"
    if kind == "unrecognized":
        return "an object without resource_uri or known fields"
    return f"an object of kind {kind!r}"


def _collect(obj: Any, location: str, source_file: str, collected: Collected, result: LoadResult) -> str:
    """Collect one object; return its kind (one of `KINDS`, or what it is instead)."""
    if not isinstance(obj, dict):
        return "not an object"
    kind = object_kind(obj)
    if kind is None:
        return other_kind(obj)
    if kind == "courts":
        court = text_of(obj.get("id"))
        if court:
            collected.courts.setdefault(court, text_of(obj.get("full_name")) or text_of(obj.get("short_name")) or court)
        else:
            result.issues.append(RowIssue(SOURCE, location, "court object without an id"))
        return kind
    object_id = id_of(obj.get("cluster_id") if kind == "search" else obj.get("id"))
    if object_id is None:
        result.issues.append(RowIssue(SOURCE, location, f"{kind} object without an id"))
        return kind
    if kind == "dockets":
        docket = Docket(court_of(obj), text_of(obj.get("docket_number")), ids_of(obj.get("clusters")))
        collected.dockets.setdefault(object_id, docket)
    elif kind == "opinions":
        opinion = read_opinion(obj, object_id, source_file)
        if not opinion.text:
            result.issues.append(RowIssue(SOURCE, location, f"opinion {object_id} has no text"))
        elif object_id not in collected.opinions:
            collected.opinions[object_id] = opinion
    else:
        maker = read_cluster if kind == "clusters" else read_search_result
        cluster = maker(obj, object_id, location, source_file)
        known = collected.clusters.setdefault(object_id, cluster)
        if known is not cluster:
            known.absorb(cluster)
    return kind
