"""CourtListener REST API v4 responses saved as JSON → cases and opinions, joined across every file given.

What the files may be, how the objects are joined (a cluster's court from its docket, opinions to their clusters,
the author, the disposition, the citations' order), the filter, the size bounds and the one-line failures: see
docs/caselaw.md, "CourtListener API pages". `load_files` reads every file and folder it is given (folders
recursively, files in path order, hidden files skipped) before joining, so the order of files does not matter; an
object's kind is read from `resource_uri`, else from its fields. Opinion text is `plain_text`, else the first
HTML/XML field present stripped of tags with lxml. Locations are `path:line` for JSON Lines and malformed JSON,
`path:results[i]` (or `path:[i]`) inside a saved page. Everything read is held until the join, so all files
together may hold at most `MAX_TOTAL_BYTES` (decompressed); larger sets belong to `courtlistener_bulk`.
"""

from __future__ import annotations

import errno
import json
import lzma
import os
import re
import zlib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import IO, Any

from lexprobe.caselaw.records import (
    CaseRecord,
    Disposition,
    EmptySourceError,
    LoadOptions,
    LoadResult,
    OpinionRecord,
    RowIssue,
)
from lexprobe.caselaw.sources.cap import author_name as cap_author_name
from lexprobe.caselaw.sources.cap import court_place, list_of, parse_partial_date
from lexprobe.caselaw.sources.encoding import (
    SNIFF_BYTES,
    decompressed,
    file_size,
    wide_encoding,
    wide_encoding_message,
)
from lexprobe.caselaw.sources.markup import markup_text
from lexprobe.caselaw.sources.opinions import find_author, is_majority, normalize_opinion_type

__all__ = [
    "EXPECTED",
    "MAX_DOCUMENT_BYTES",
    "MAX_LINE_BYTES",
    "MAX_TOTAL_BYTES",
    "PROGRESS_LABEL",
    "SOURCE",
    "author_name",
    "disposition_of",
    "load",
    "load_files",
    "object_kind",
    "opinion_text",
]

SOURCE = "courtlistener"
EXPECTED = (
    "CourtListener API v4 JSON: list pages with results, objects with resource_uri under /clusters/, /opinions/, "
    "/dockets/, /search/"
)

PROGRESS_LABEL = "courtlistener API files"

MAX_DOCUMENT_BYTES = 256 * 1024 * 1024  # one saved page or array, decompressed
MAX_LINE_BYTES = 64 * 1024 * 1024  # one JSON Lines line
MAX_TOTAL_BYTES = 4 * 1024 * 1024 * 1024  # everything read in one call, decompressed


_DATA_SUFFIXES = (".json", ".jsonl", ".ndjson")
_LINES_SUFFIXES = (".jsonl", ".ndjson")
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
    reader = _Reader(result, collected, options, total=sum(file_size(file) for _, file in listing))
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
            if _plain_name(name).endswith(_DATA_SUFFIXES):
                found.append(Path(root) / name)
            else:
                tally.other_files += 1
    tally.files += len(found)
    return found


def _plain_name(name: str) -> str:
    """The file name without its compression suffix, lowercase."""
    return re.sub(r"\.(?:gz|bz2|xz)$", "", name.lower())


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
            with open(file, "rb") as raw, decompressed(file, raw) as stream:
                if _plain_name(file.name).endswith(_LINES_SUFFIXES):
                    self._read_lines(file, stream, raw, tally)
                else:
                    self._read_document(file, stream, tally)
        except (EOFError, OSError, zlib.error, lzma.LZMAError) as exc:
            if isinstance(exc, FileNotFoundError | PermissionError | IsADirectoryError):
                raise
            self._problem(tally, str(file), f"unreadable compressed data: {exc}")
        self.done += file_size(file)
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
                value = json.loads(line.decode("utf-8-sig"))
            except UnicodeDecodeError as exc:
                self._problem(tally, f"{file}:{lineno}", f"not UTF-8 (byte {exc.start} of the line): not JSON")
            except json.JSONDecodeError as exc:
                self._problem(tally, f"{file}:{lineno}", _json_problem(exc))
            else:
                self._take(value, f"{file}:{lineno}", str(file), tally)

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


# --- citations: official reporters first, vendor cites last --------------------------------------------------

#: CourtListener citation types: 1 federal, 2 state, 3 state regional, 4 specialty, 5 early SCOTUS, 6 LEXIS, 7 WEST,
#: 8 neutral, 9 journal. Rank (lower first) of the non-vendor types; an untyped citation of an unknown reporter
#: ranks after them, and WEST, then LEXIS, come last.
_TYPE_RANK = {1: 0, 5: 0, 2: 1, 8: 2, 3: 3, 4: 4, 9: 5}
_UNTYPED_RANK, _WEST_RANK, _LEXIS_RANK = 6, 7, 8
_LEXIS = re.compile(r"\bLEXIS\b", re.IGNORECASE)
_WESTLAW = re.compile(r"^\d{4} WL \d+$")
_FEDERAL = re.compile(r"^\d+ (?:U\.\s?S\.|F\.(?: ?[234]d| ?4th)?|F\. ?Supp\.(?: ?[23]d)?|F\. ?App'x) \d+$")
_SPECIALTY = re.compile(r"^\d+ (?:S\. ?Ct\.|L\. ?Ed\.(?: ?2d)?) \d+$")
_DC_APPELLATE = re.compile(r"\bApp\. ?D\.\s?C\.")  # "80 U.S. App. D.C. 67": federal, but after F./F.2d

# --- authors: the name without titles or roles (CAP's rules, so both publishers name a judge alike) ------------

_ROLE_ONLY = re.compile(
    r"^(?:(?:the|chief|associate|circuit|district|senior|presiding|magistrate|bankruptcy|acting|special|visiting|"
    r"judges?|justices?|court)\b[\s.,]*)+$",
    re.IGNORECASE,
)

# --- dispositions ----------------------------------------------------------------------------------------------

_AFFIRM = re.compile(r"\baffirm", re.IGNORECASE)
_REVERSE = re.compile(r"\b(?:revers|vacat|set aside)", re.IGNORECASE)
MAX_DISPOSITION_CHARS = 500


# --- values --------------------------------------------------------------------------------------------------


def author_name(text: str | None) -> str | None:
    """Return an opinion author's name without titles or roles, capitalized normally, or None where no judge is
    named: "HOOD, Associate Judge." → "Hood"; "L. HAND, Circuit Judge" → "L. Hand"; "PER CURIAM" and "The CHIEF
    JUSTICE" → None. The rules are CAP's (`cap.author_name`); a byline that is only titles names no one."""
    name = cap_author_name(text)
    return None if name is None or _ROLE_ONLY.match(name) else name


def disposition_of(text: str | None) -> Disposition | None:
    """The study's coarsening of a CourtListener disposition text: "affirm" ("Affirmed"), "reverse" ("Reversed
    and remanded", "Vacated"), None for mixed ("Affirmed in part, reversed in part") or other texts."""
    if not text:
        return None
    affirmed, reversed_ = bool(_AFFIRM.search(text)), bool(_REVERSE.search(text))
    if affirmed == reversed_:
        return None
    return "affirm" if affirmed else "reverse"


def citations_of(entries: Any) -> tuple[str, ...]:
    """Citation strings from v4 citation objects ({volume, reporter, page, type}) or plain strings, official
    reporters first and vendor cites last (stable within a rank)."""
    ranked: list[tuple[tuple[int, int], str]] = []
    for entry in entries if isinstance(entries, list) else ():
        if isinstance(entry, str) and entry.strip():
            text = " ".join(entry.split())
            ranked.append((_citation_rank(text, None), text))
        elif isinstance(entry, dict) and entry.get("volume") and entry.get("reporter") and entry.get("page"):
            text = " ".join(f"{entry['volume']} {entry['reporter']} {entry['page']}".split())
            ranked.append((_citation_rank(text, int_of(entry.get("type"))), text))
    ranked.sort(key=lambda item: item[0])
    return tuple(dict.fromkeys(text for _, text in ranked))


def _citation_rank(text: str, citation_type: int | None) -> tuple[int, int]:
    if citation_type == 6 or _LEXIS.search(text):
        return _LEXIS_RANK, 0
    if citation_type == 7 or _WESTLAW.match(text):
        return _WEST_RANK, 0
    rank = _TYPE_RANK.get(citation_type) if citation_type is not None else None
    if rank is None:
        rank = 0 if _FEDERAL.match(text) else 4 if _SPECIALTY.match(text) else _UNTYPED_RANK
    return rank, 1 if _DC_APPELLATE.search(text) else 0


def court_of(docket: dict[str, Any]) -> str | None:
    """The courts-db id of a docket: `court_id`, else the last part of its `court` URL."""
    court = text_of(docket.get("court_id"))
    if court:
        return court
    value = docket.get("court")
    if isinstance(value, dict):
        return text_of(value.get("id"))
    text = text_of(value)
    if text is None:
        return None
    return text.rstrip("/").rsplit("/", 1)[-1] or None


def ids_of(value: Any) -> tuple[str, ...]:
    """The ids of a list of API URLs or ids (a docket's `clusters`, a cluster's `sub_opinions`)."""
    return tuple(i for i in (id_of(item) for item in list_of(value)) if i)


def id_of(value: Any) -> str | None:
    """An object id from an int, a digit string, an API URL (".../clusters/123/") or a nested object."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return str(value)
    if isinstance(value, dict):
        return id_of(value.get("id"))
    if isinstance(value, str):
        match = re.search(r"(\d+)/?$", value.strip())
        return match.group(1) if match else None
    return None


def int_of(value: Any) -> int | None:
    """An int from an int or a digit string (never a bool), else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value)
    return None


def text_of(value: Any) -> str | None:
    """A scalar as stripped text, None when empty or an object or list."""
    if value is None or isinstance(value, dict | list):
        return None
    text = str(value).strip()
    return text or None


#: Text fields of an opinion, most useful first; all but the first are markup.
_TEXT_FIELDS = ("plain_text", "html_with_citations", "html", "html_lawbox", "html_columbia", "xml_harvard")
_MARKUP_FIELDS = (*_TEXT_FIELDS[1:], "html_anon_2020")


KINDS = ("clusters", "opinions", "dockets", "courts", "search")
_API_KIND = re.compile(r"/api/rest/v\d+/([a-z0-9-]+)/")


@dataclass
class Cluster:
    """What the saved objects say about one cluster; filled from a cluster and/or a search result."""

    cluster_id: str
    location: str
    source_file: str
    name: str | None = None
    name_full: str | None = None
    citations: tuple[str, ...] = ()
    date_filed: str | None = None
    docket_id: str | None = None
    docket_number: str | None = None
    court_id: str | None = None
    judges: str | None = None
    scdb_id: str | None = None
    precedential_status: str | None = None
    citation_count: str | None = None
    disposition: str | None = None
    date_is_approximate: bool | None = None
    majority_votes: int | None = None
    minority_votes: int | None = None
    sub_opinions: tuple[str, ...] = ()

    def absorb(self, other: Cluster) -> None:
        """Fill this cluster's empty fields from another description of the same cluster."""
        for item in fields(self):
            if getattr(self, item.name) in (None, "", ()):
                setattr(self, item.name, getattr(other, item.name))


@dataclass(frozen=True)
class Opinion:
    opinion_id: str
    cluster_id: str | None
    opinion_type: str
    author: str | None  # without titles; None for a per curiam opinion
    text: str
    source_file: str


@dataclass(frozen=True)
class Docket:
    court_id: str | None
    docket_number: str | None
    cluster_ids: tuple[str, ...]


@dataclass
class Collected:
    clusters: dict[str, Cluster] = field(default_factory=dict)
    opinions: dict[str, Opinion] = field(default_factory=dict)
    dockets: dict[str, Docket] = field(default_factory=dict)
    courts: dict[str, str] = field(default_factory=dict)  # court id → full name


def object_kind(obj: dict[str, Any]) -> str | None:
    """Return "clusters", "opinions", "dockets", "courts" or "search" for a v4 API object, or None."""
    uri = str(obj.get("resource_uri") or "")
    for kind in KINDS:
        if f"/{kind}/" in uri:
            return kind
    if uri:
        return None
    if "caseName" in obj and "cluster_id" in obj:
        return "search"
    if "sub_opinions" in obj or ("case_name" in obj and "citations" in obj):
        return "clusters"
    if any(key in obj for key in _TEXT_FIELDS) or ("type" in obj and ("cluster" in obj or "cluster_id" in obj)):
        return "opinions"
    if "docket_number" in obj and ("court" in obj or "court_id" in obj):
        return "dockets"
    return None


def other_kind(obj: dict[str, Any]) -> str:
    """A name for an object of a kind this loader does not read: its API endpoint ("people"), "API error" for a
    saved error answer ({"detail": "Invalid token."}), else "unrecognized"."""
    if set(obj) == {"detail"}:
        return "API error"
    match = _API_KIND.search(str(obj.get("resource_uri") or ""))
    return match.group(1) if match else "unrecognized"


def read_cluster(obj: dict[str, Any], cluster_id: str, location: str, source_file: str) -> Cluster:
    docket = obj.get("docket")
    nested = docket if isinstance(docket, dict) else {}
    return Cluster(
        cluster_id=cluster_id,
        location=location,
        source_file=source_file,
        name=text_of(obj.get("case_name")) or text_of(obj.get("case_name_short")) or text_of(obj.get("case_name_full")),
        name_full=text_of(obj.get("case_name_full")),
        citations=citations_of(obj.get("citations")),
        date_filed=text_of(obj.get("date_filed")),
        docket_id=id_of(obj.get("docket_id")) or id_of(docket),
        docket_number=text_of(nested.get("docket_number")),
        court_id=court_of(nested) if nested else None,
        judges=text_of(obj.get("judges")),
        scdb_id=text_of(obj.get("scdb_id")),
        precedential_status=text_of(obj.get("precedential_status")),
        citation_count=text_of(obj.get("citation_count")),
        disposition=text_of(obj.get("disposition")),
        date_is_approximate=obj.get("date_filed_is_approximate") is True,
        majority_votes=int_of(obj.get("scdb_votes_majority")),
        minority_votes=int_of(obj.get("scdb_votes_minority")),
        sub_opinions=ids_of(obj.get("sub_opinions")),
    )


def read_search_result(obj: dict[str, Any], cluster_id: str, location: str, source_file: str) -> Cluster:
    strings = obj.get("citation") if isinstance(obj.get("citation"), list) else []
    vendor = [obj.get(key) for key in ("neutralCite", "lexisCite") if isinstance(obj.get(key), str)]
    return Cluster(
        cluster_id=cluster_id,
        location=location,
        source_file=source_file,
        name=text_of(obj.get("caseName")) or text_of(obj.get("caseNameFull")),
        name_full=text_of(obj.get("caseNameFull")),
        citations=citations_of([*strings, *vendor]),
        date_filed=text_of(obj.get("dateFiled")),
        docket_id=id_of(obj.get("docket_id")),
        docket_number=text_of(obj.get("docketNumber")),
        court_id=text_of(obj.get("court_id")),
        judges=text_of(obj.get("judge")),
        scdb_id=text_of(obj.get("scdb_id")),
        precedential_status=text_of(obj.get("status")),
        citation_count=text_of(obj.get("citeCount")),
        sub_opinions=ids_of(obj.get("opinions")),
    )


def read_opinion(obj: dict[str, Any], opinion_id: str, source_file: str) -> Opinion:
    cluster = obj.get("cluster_id") or obj.get("cluster")
    opinion_type = normalize_opinion_type(str(obj.get("type") or "").strip().lower()) or "unknown"
    text = opinion_text(obj)
    author = None
    if obj.get("per_curiam") is not True:
        author = author_name(text_of(obj.get("author_str")) or find_author(text, opinion_type))
    return Opinion(
        opinion_id=opinion_id,
        cluster_id=id_of(cluster),
        opinion_type=opinion_type,
        author=author,
        text=text,
        source_file=source_file,
    )


def opinion_text(obj: dict[str, Any]) -> str:
    """Return an opinion object's text: `plain_text`, else its first markup field as plain text."""
    plain = obj.get("plain_text")
    if isinstance(plain, str) and plain.strip():
        return plain.strip()
    for key in _MARKUP_FIELDS:
        markup = obj.get(key)
        if isinstance(markup, str) and markup.strip():
            text = markup_text(markup)
            if text:
                return text
    return ""


@dataclass
class PathTally:
    """What one given path (a file or a folder) held: the substance of an `EmptySourceError` message."""

    path: Path
    files: int = 0
    other_files: int = 0
    kinds: Counter[str] = field(default_factory=Counter)  # API kinds read, and the other kinds met
    problems: list[str] = field(default_factory=list)  # "not JSON (file:line: ...)", first few only


# --- the join ------------------------------------------------------------------------------------------------


def refuse_junk(tallies: list[PathTally]) -> None:
    """Raise `EmptySourceError` for the given paths that hold no API object of the kinds this loader reads."""
    junk = [tally for tally in tallies if not any(tally.kinds[kind] for kind in KINDS)]
    if junk:
        found = "; ".join(_found(tally) for tally in junk)
        raise EmptySourceError(f"{_names(junk)}: no CourtListener case read: expected {EXPECTED}; found {found}")


def _found(tally: PathTally) -> str:
    """What a path held, in a few words: "3 files, 0 JSON objects of those kinds: 12 objects of kind 'people'"."""
    if tally.files == 0:
        return f"a folder with no .json, .jsonl or .ndjson file ({tally.other_files} other file(s))"
    parts = [f"{tally.files} file(s), 0 JSON objects of those kinds"]
    others = [f"{count} {_plural_kind(kind, count)}" for kind, count in tally.kinds.most_common() if count]
    if others:
        parts[0] += ": " + ", ".join(others)
    if tally.problems:
        parts.append("; ".join(tally.problems))
    return "; ".join(parts)


def _plural_kind(kind: str, count: int) -> str:
    noun = "object" if count == 1 else "objects"
    if kind == "not an object":
        return f"JSON value(s) that are not {noun}"
    if kind == "unrecognized":
        return f"{noun} without resource_uri or known fields"
    return f"{noun} of kind {kind!r}"


def _names(tallies: list[PathTally]) -> str:
    return _few([str(tally.path) for tally in tallies])


def join_collected(
    collected: Collected,
    court_hint: str | None,
    options: LoadOptions,
    result: LoadResult,
    tallies: list[PathTally],
) -> None:
    """Join clusters with their dockets and opinions, apply the filter, and fill `result`."""
    if not collected.clusters:
        _refuse_no_cluster(tallies)
    docket_of = {cid: docket_id for docket_id, d in collected.dockets.items() for cid in d.cluster_ids}
    cluster_of = {oid: c.cluster_id for c in collected.clusters.values() for oid in c.sub_opinions}
    by_cluster: dict[str, list[Opinion]] = {}
    for opinion in collected.opinions.values():
        cluster_id = opinion.cluster_id or cluster_of.get(opinion.opinion_id)
        by_cluster.setdefault(cluster_id or "", []).append(opinion)

    courtless: dict[str, list[str]] = {}  # source file → missing docket ids (or "?" for no docket reference)
    dropped = 0
    kept: list[Cluster] = []
    for cluster in collected.clusters.values():
        docket_id = cluster.docket_id or docket_of.get(cluster.cluster_id)
        docket = collected.dockets.get(docket_id or "")
        court_id = cluster.court_id or (docket.court_id if docket else None) or court_hint
        if court_id is None:
            courtless.setdefault(cluster.source_file, []).append(docket_id or "?")
        _, year = parse_partial_date((cluster.date_filed or "")[:10])
        if not (options.filter.keeps_court(court_id) and options.filter.keeps_year(year)):
            dropped += 1
            continue
        kept.append(cluster)
        opinions = by_cluster.get(cluster.cluster_id, [])
        result.cases.append(_case_record(cluster, docket, court_id, opinions, collected))
    for source_file, dockets in courtless.items():
        result.issues.append(RowIssue(SOURCE, source_file, _courtless_message(dockets, collected)))

    _add_opinions(kept, by_cluster, collected, result)
    if not result.cases:
        raise EmptySourceError(
            f"{_names(tallies)}: no CourtListener case kept: {len(collected.clusters)} cluster(s) read, none of "
            f"them {_filter_text(options)}"
        )
    if dropped:
        result.issues.append(
            RowIssue(SOURCE, _names(tallies), f"{dropped} cluster(s) left out: not {_filter_text(options)}")
        )


def _refuse_no_cluster(tallies: list[PathTally]) -> None:
    """Raise for a set of files with no cluster: what was found instead, and that the cases are the clusters."""
    kinds = Counter[str]()
    for tally in tallies:
        kinds.update({kind: tally.kinds[kind] for kind in KINDS if tally.kinds[kind]})
    read = ", ".join(f"{count} {kind}" for kind, count in kinds.items())
    raise EmptySourceError(
        f"{_names(tallies)}: no CourtListener case read: expected {EXPECTED}; found "
        f"{sum(t.files for t in tallies)} file(s) with {read} but no cluster or search result "
        "(the cases are the clusters: save the /clusters/ pages too)"
    )


def _case_record(
    cluster: Cluster, docket: Docket | None, court_id: str | None, opinions: list[Opinion], collected: Collected
) -> CaseRecord:
    """One kept cluster as a case: its docket's number, its majority opinion's author, its place and disposition."""
    decision_date, year = parse_partial_date((cluster.date_filed or "")[:10])
    circuit, state = court_place(court_id, decision_date)
    majority = [op for op in opinions if is_majority(op.opinion_type, [o.opinion_type for o in opinions])]
    disposition_raw = (cluster.disposition or "")[:MAX_DISPOSITION_CHARS] or None
    return CaseRecord(
        source=SOURCE,
        source_id=cluster.cluster_id,
        court_id=court_id,
        name=cluster.name,
        citations=cluster.citations,
        decision_date=decision_date,
        year=year,
        docket=cluster.docket_number or (docket.docket_number if docket else None),
        author=next((op.author for op in majority if op.author), None),
        disposition=disposition_of(disposition_raw),
        disposition_raw=disposition_raw,
        majority_votes=cluster.majority_votes,
        minority_votes=cluster.minority_votes,
        state=state,
        circuit=circuit,
        extra=cluster_extra(
            cluster.name,
            cluster.name_full,
            [getattr(cluster, key) for key in CLUSTER_FACTS],
            cluster.date_is_approximate,
            collected.courts.get(court_id or ""),
        ),
    )


def _courtless_message(docket_ids: list[str], collected: Collected) -> str:
    """Why a file's clusters have no court: their dockets were not saved, were saved without a court, or are not
    named at all ("?")."""
    unsaved = sorted({d for d in docket_ids if d != "?" and d not in collected.dockets}, key=lambda d: (len(d), d))
    courtless = sorted({d for d in docket_ids if d in collected.dockets}, key=lambda d: (len(d), d))
    reasons = []
    if unsaved:
        reasons.append(f"their docket(s) {_few(unsaved)} are not among the files (save the /dockets/ pages alongside)")
    if courtless:
        reasons.append(f"their docket(s) {_few(courtless)} name no court")
    if "?" in docket_ids:
        reasons.append(f"{docket_ids.count('?')} name no docket")
    return f"{len(docket_ids)} cluster(s) without a court: {'; '.join(reasons)}"


def _add_opinions(
    kept: list[Cluster], by_cluster: dict[str, list[Opinion]], collected: Collected, result: LoadResult
) -> None:
    """Opinion records of the kept clusters, with their case's name, citations and year; orphans are reported."""
    for cluster in kept:
        opinions = by_cluster.get(cluster.cluster_id, [])
        year = parse_partial_date((cluster.date_filed or "")[:10])[1]
        for opinion in opinions:
            result.opinions.append(
                OpinionRecord(
                    source=SOURCE,
                    opinion_id=opinion.opinion_id,
                    cluster_id=cluster.cluster_id,
                    case_name=cluster.name,
                    citations=cluster.citations,
                    opinion_type=opinion.opinion_type,
                    is_majority=is_majority(opinion.opinion_type, [op.opinion_type for op in opinions]),
                    author=opinion.author,
                    text=opinion.text,
                    source_file=opinion.source_file,
                    year=year,
                )
            )
    orphans: dict[str, tuple[int, set[str]]] = {}  # source file → (opinions, cluster ids not saved)
    for cluster_id, opinions in by_cluster.items():
        if cluster_id not in collected.clusters:
            for opinion in opinions:
                count, cluster_ids = orphans.get(opinion.source_file, (0, set()))
                orphans[opinion.source_file] = (count + 1, cluster_ids | {cluster_id or "?"})
    for source_file, (count, cluster_ids) in orphans.items():
        named = sorted((c for c in cluster_ids if c != "?"), key=lambda c: (len(c), c))
        which = f"their cluster(s) {_few(named)} are not among the files" if named else "no cluster reference"
        message = f"{count} opinion(s) not kept: {which} (save the /clusters/ pages alongside)"
        result.issues.append(RowIssue(SOURCE, source_file, message))


def _filter_text(options: LoadOptions) -> str:
    parts = []
    if options.filter.courts is not None:
        parts.append(f"in the courts {','.join(sorted(options.filter.courts))}")
    if options.filter.years is not None:
        parts.append(f"decided {options.filter.years[0]}-{options.filter.years[1]}")
    return "kept by the filter (" + " and ".join(parts) + ")" if parts else "kept"


def _few(items: list[str], limit: int = 3) -> str:
    return ", ".join(items) if len(items) <= limit else f"{', '.join(items[:limit])} and {len(items) - limit} more"


#: Cluster fields kept as facts beside the case record, in this order.
CLUSTER_FACTS = ("precedential_status", "scdb_id", "citation_count", "judges", "docket_id")


def cluster_extra(
    name: str | None, name_full: str | None, facts: Sequence[Any], approximate: Any, court_name: str | None = None
) -> tuple[tuple[str, str], ...]:
    """A cluster's facts beside its case record: its full name where it differs, the values of `CLUSTER_FACTS`
    (`facts`, in that order), an approximate date, its court's name; empty values left out."""
    pairs = (
        ("case_name_full", name_full if name_full != name else None),
        *zip(CLUSTER_FACTS, facts, strict=True),
        ("date_filed_is_approximate", "true" if approximate else None),
        ("court_name", court_name),
    )
    return tuple((key, str(value)) for key, value in pairs if value not in (None, ""))
