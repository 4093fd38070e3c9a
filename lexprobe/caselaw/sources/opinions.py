"""CourtListener Supreme Court opinion texts (Free Law Project citator study): one `OpinionRecord` per opinion file.

Layout of `data_root()/opinions/scotus/` (what `load` takes):

- `text/*.txt.gz`: plain text of the 133 citing cases (357 files), star paging ("*118") kept as published.
- `raw_cited/*.txt.gz`: the lead and combined opinions of the cited cases (1,448 files), either CourtListener
  HTML (`html_with_citations`, also the older Lawbox/Public.Resource.org and Columbia markup) or Harvard CAP XML.
  Only lead and combined opinions were downloaded, so concurrences and dissents the metadata lists are not
  expected here; one lead opinion (106761_020lead, New York Times Co. v. Sullivan) was too large to copy.
- `citing_opinions_metadata.json` / `cited_opinions_metadata.json`: pandas column-oriented JSON
  (`{column: {row: value}}`) with one row per CourtListener cluster: `*_cluster_id`, `*_decision_name`
  ("Texas v. White (1869)", "Morgan v. United States,113 U.S. 476  (1885)"), `*_name`, `*_citations`
  (parallel citations), `*_opinions` (dicts with `opinion_id`, `opinion_type`, `opinion_source`,
  `opinion_filename`) and `*_filenames`. Citing metadata describes `text/`, cited metadata `raw_cited/`.

Decisions:

- Files are named `{cluster_id}_{type}.txt` (not by opinion id). Two opinions of one type in one cluster (two
  dissents, say) share a file name, and the file holds only the first of them (checked against the combined
  texts: the surviving concurrence or dissent is always the first of its kind in the reporter). The record
  takes the first listed opinion id, and a `RowIssue` names the opinion ids whose text is not in the folder.
- A file the folder's metadata does not list is not used (a `RowIssue`): the 23 such files in `raw_cited/` are
  downloads left over from citation matches the study later corrected, and several are not Supreme Court
  opinions at all (F.2d, F.3d and state-court decisions), so no case name or citation can be given for them.
- A lead or combined opinion the cited metadata lists but `raw_cited/` lacks is a `RowIssue`, as is a cluster
  with no lead or combined opinion listed (its text is absent by design of the download).
- `opinion_type` is the CourtListener type code without its number: "combined", "unanimous", "lead",
  "plurality", "concurrence", "concurrence_in_part", "dissent", "addendum", "remittitur", "rehearing",
  "on_the_merits", "trial_court" (unknown codes keep their letters).
- `is_majority`: a lead (or unanimous) opinion is the majority opinion; a combined opinion is the majority
  opinion only when no lead or unanimous text of the same cluster is loaded from the same folder (so New York
  Times Co. v. Sullivan, whose lead file is missing, falls back to its combined text). Each cluster thus has
  exactly one majority text per folder. A lead opinion that only announces the judgment (a plurality) still
  counts: CourtListener types it as lead.
- `author` is the name as the opinion states it: "HARLAN" from "MR. JUSTICE HARLAN delivered the opinion of the
  Court", "Warren" from "Chief Justice Warren delivered the opinion", "Van Devanter", "The CHIEF JUSTICE"
  when no name is given. Lead and combined opinions are searched for a "delivered the opinion"/"announced the
  judgment" statement (or "Opinion of the Court by ..."); one that comes after "PER CURIAM" is ignored, so a
  per curiam opinion has no author. Other opinions take the first justice named in their opening lines
  ("Mr. Justice Reed, dissenting"). OCR slips in the title ("Me. Justice", "Mb. Chief Justice") are tolerated.
- Text: plain-text files are kept as published (star paging and footnote numbers included), with runs of
  whitespace collapsed; markup (CourtListener HTML, CAP XML) is converted by `lexprobe.caselaw.sources.markup`,
  whose docstring gives the rules (page markers removed only where the markup marks them, so bare "*483"-like
  strings, which can also be footnote marks or quoted text, are kept as in the plain-text files). With
  `load(..., page_marks=True)`, what the case database build asks for, those markers become " *483 " text
  instead (`lexprobe.caselaw.sources.star_paging`), so every text of the database keeps its star paging.
- `case_name` is the metadata's `*_name`, or `*_name_full` where the short name is blank (some lower-court
  decisions the study lists as "cited", e.g. the F.2d decision a "Reversed" pair points to).
- `year` is the year in parentheses at the end of the metadata's decision name.
- `rows_read` counts opinion files read (both folders); each becomes a record or a `RowIssue` (a few issues,
  such as a shared file name or XML read as HTML, accompany a record instead of replacing it).
"""

from __future__ import annotations

import gzip
import json
import re
import zlib
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lxml import etree

from lexprobe.caselaw.records import LoadResult, OpinionRecord, RowIssue
from lexprobe.caselaw.sources.markup import convert_markup, plain_text
from lexprobe.caselaw.sources.star_paging import keep_star_pages
from lexprobe.caselaw.sources.tables import RowError

SOURCE = "courtlistener"
TEXT_DIR = "text"
RAW_DIR = "raw_cited"
CITING_METADATA = "citing_opinions_metadata.json"
CITED_METADATA = "cited_opinions_metadata.json"

OPINION_TYPES = {
    "combined": "combined",
    "unanimous": "unanimous",
    "unamimous": "unanimous",  # CourtListener's own spelling of 015
    "lead": "lead",
    "plurality": "plurality",
    "concurrence": "concurrence",
    "concurrenceinpart": "concurrence_in_part",
    "dissent": "dissent",
    "addendum": "addendum",
    "remittitur": "remittitur",
    "rehearing": "rehearing",
    "onthemerits": "on_the_merits",
    "trialcourt": "trial_court",
}
MAJORITY_TYPES = frozenset({"lead", "unanimous"})
RAW_EXPECTED_TYPES = frozenset({"combined", "lead"})

_FILE_NAME = re.compile(r"^(\d+)_(\d{3})([a-z]+)\.txt\.gz$")
_YEAR = re.compile(r"\((\d{4})\)")
_WHITESPACE = re.compile(r"\s+")


@dataclass(frozen=True)
class FileMeta:
    """What the metadata says about one opinion file."""

    cluster_id: str
    opinion_ids: tuple[str, ...]  # every opinion listed under this file name, in metadata order
    case_name: str | None
    citations: tuple[str, ...]
    year: int | None
    location: str


@dataclass(frozen=True)
class ClusterMeta:
    """One metadata row: the cluster and the file names of its opinions."""

    cluster_id: str
    file_names: tuple[str, ...]
    location: str


@dataclass
class Metadata:
    """One metadata file, indexed by opinion file name (without `.gz`)."""

    files: dict[str, FileMeta]
    clusters: list[ClusterMeta]


# --------------------------------------------------------------------------------------------------- loading


def load(folder: Path, *, page_marks: bool = False) -> LoadResult:
    """Load every opinion file under `folder` (the `opinions/scotus` folder) with its cluster metadata; with
    `page_marks`, the star paging of markup files is kept as " *NNN " (`star_paging.keep_star_pages`)."""
    folder = Path(folder)
    result = LoadResult()
    citing = read_metadata(folder / CITING_METADATA, "citing", result.issues)
    cited = read_metadata(folder / CITED_METADATA, "cited", result.issues)
    pending: list[dict[str, Any]] = []
    pending += _load_folder(folder / TEXT_DIR, citing, raw=False, result=result)
    pending += _load_folder(folder / RAW_DIR, cited, raw=True, result=result, page_marks=page_marks)
    _report_missing(folder / TEXT_DIR, citing, expected_types=None, issues=result.issues)
    _report_missing(folder / RAW_DIR, cited, expected_types=RAW_EXPECTED_TYPES, issues=result.issues)
    result.opinions = _with_majority_flags(pending)
    return result


def _load_folder(
    directory: Path, meta: Metadata, *, raw: bool, result: LoadResult, page_marks: bool = False
) -> list[dict[str, Any]]:
    """Read each `*.txt.gz` file of one folder into record fields; unusable files become issues."""
    if not directory.is_dir():
        result.issues.append(RowIssue(SOURCE, str(directory), "folder not found"))
        return []
    out: list[dict[str, Any]] = []
    for path in sorted(directory.glob("*.txt.gz")):
        result.rows_read += 1
        notes: list[str] = []
        try:
            out.append(_load_file(path, meta, notes, raw=raw, page_marks=page_marks))
        except RowError as exc:
            notes.append(str(exc))
        result.issues.extend(RowIssue(SOURCE, str(path), note) for note in notes)
    return out


def _load_file(path: Path, meta: Metadata, notes: list[str], *, raw: bool, page_marks: bool) -> dict[str, Any]:
    """Return the record fields of one opinion file; what is amiss goes to `notes`, and `RowError` says why a file
    cannot be used."""
    location = f"{path.parent.name}/{path.name}"
    match = _FILE_NAME.match(path.name)
    if match is None:
        raise RowError("file name is not {cluster_id}_{NNNtype}.txt.gz")
    cluster_from_name, type_code, type_letters = match.groups()
    file_name = path.name.removesuffix(".gz")
    info = meta.files.get(file_name)
    if info is None:
        raise RowError(
            f"not listed in the metadata (cluster {cluster_from_name}): a download the study no longer uses; "
            "no case name or citation known, skipped"
        )
    text = _file_text(_read_gzip(path), notes, raw=raw, page_marks=page_marks)
    if len(info.opinion_ids) > 1:
        lost = ", ".join(info.opinion_ids[1:])
        notes.append(
            f"{len(info.opinion_ids)} opinions share this file name; it holds the first "
            f"({info.opinion_ids[0]}); no text for {lost}"
        )
    opinion_type = normalize_opinion_type(f"{type_code}{type_letters}")
    return {
        "source": SOURCE,
        "opinion_id": info.opinion_ids[0],
        "cluster_id": info.cluster_id,
        "case_name": info.case_name,
        "citations": info.citations,
        "opinion_type": opinion_type,
        "author": find_author(text, opinion_type),
        "text": text,
        "source_file": location,
        "year": info.year,
    }


def _file_text(data: bytes, notes: list[str], *, raw: bool, page_marks: bool) -> str:
    """The opinion text of a file's bytes (invalid UTF-8 replaced, markup converted); `RowError` when there is
    none."""
    decoded = data.decode("utf-8", errors="replace")
    bad_sequences = decoded.count("\ufffd") - data.count("\ufffd".encode())
    if bad_sequences:
        notes.append(f"{bad_sequences} invalid UTF-8 sequences replaced with U+FFFD")
        data = decoded.encode("utf-8")
    try:
        markup = keep_star_pages(data) if page_marks else data
        text, note = convert_markup(markup) if raw else (plain_text(decoded), None)
    except (etree.XMLSyntaxError, etree.ParserError, ValueError) as exc:
        raise RowError(f"markup could not be parsed: {exc}") from None
    if note:
        notes.append(note)
    if not text:
        raise RowError("no text")
    return text


def _read_gzip(path: Path) -> bytes:
    """Return the decompressed bytes of `path`; `RowError` for a broken or empty file."""
    try:
        with gzip.open(path, "rb") as handle:
            data = handle.read()
    except (OSError, EOFError, zlib.error) as exc:
        raise RowError(f"unreadable gzip file: {exc}") from None
    if not data.strip():
        raise RowError("empty file")
    return data


def is_majority(opinion_type: str, cluster_types: Iterable[str]) -> bool:
    """Lead and unanimous opinions are majority opinions; a combined one only where its cluster (the types of all
    its opinions: `cluster_types`) has neither."""
    return opinion_type in MAJORITY_TYPES or (opinion_type == "combined" and MAJORITY_TYPES.isdisjoint(cluster_types))


def _with_majority_flags(pending: list[dict[str, Any]]) -> list[OpinionRecord]:
    """Freeze the records, marking the lead opinion (or the combined one where a cluster has no lead) majority."""

    def key(fields: dict[str, Any]) -> tuple[str, str | None]:
        return fields["source_file"].split("/", 1)[0], fields["cluster_id"]  # a cluster within one folder

    types: dict[tuple[str, str | None], list[str]] = defaultdict(list)
    for fields in pending:
        types[key(fields)].append(fields["opinion_type"])
    return [OpinionRecord(is_majority=is_majority(f["opinion_type"], types[key(f)]), **f) for f in pending]


def _report_missing(
    directory: Path, meta: Metadata, *, expected_types: frozenset[str] | None, issues: list[RowIssue]
) -> None:
    """Record metadata-listed files of the expected types that the folder lacks, and clusters with none."""
    if not directory.is_dir():
        return
    present = {path.name.removesuffix(".gz") for path in directory.glob("*.txt.gz")}
    for cluster in meta.clusters:
        wanted = [name for name in cluster.file_names if _is_expected(name, expected_types)]
        if not wanted:
            issues.append(
                RowIssue(
                    SOURCE,
                    cluster.location,
                    f"cluster {cluster.cluster_id} lists no {'/'.join(sorted(expected_types or ()))} opinion: "
                    "no text for this case",
                )
            )
            continue
        for name in dict.fromkeys(wanted):
            if name not in present:
                issues.append(
                    RowIssue(SOURCE, cluster.location, f"{directory.name}/{name}.gz is listed but absent (no text)")
                )


def _is_expected(file_name: str, expected_types: frozenset[str] | None) -> bool:
    if expected_types is None:
        return True
    match = _FILE_NAME.match(file_name + ".gz")
    return match is not None and normalize_opinion_type(match.group(2) + match.group(3)) in expected_types


# -------------------------------------------------------------------------------------------------- metadata


def read_metadata(path: Path, side: str, issues: list[RowIssue]) -> Metadata:
    """Read a `{side}_opinions_metadata.json` file (pandas column-oriented JSON) into a file-name index."""
    meta = Metadata(files={}, clusters=[])
    try:
        columns = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        issues.append(RowIssue(SOURCE, str(path), f"unreadable metadata: {exc}"))
        return meta
    needed = [f"{side}_cluster_id", f"{side}_opinions"]
    if not isinstance(columns, dict) or not all(isinstance(columns.get(name), dict) for name in needed):
        issues.append(RowIssue(SOURCE, str(path), f"not column-oriented JSON with {', '.join(needed)}"))
        return meta
    for row in columns[f"{side}_cluster_id"]:
        location = f"{path}:row {row}"
        values = {name: column.get(row) for name, column in columns.items() if isinstance(column, dict)}
        problem = _add_metadata_row(values, side, location, meta)
        if problem:
            issues.append(RowIssue(SOURCE, location, problem))
    return meta


def _add_metadata_row(values: dict[str, Any], side: str, location: str, meta: Metadata) -> str | None:
    """Index one metadata row; return a message when the row cannot be used."""
    cluster = values.get(f"{side}_cluster_id")
    opinions = values.get(f"{side}_opinions")
    if not isinstance(cluster, int | str) or not str(cluster).isdigit():
        return f"cluster id {cluster!r} is not a number"
    if not isinstance(opinions, list) or not opinions:
        return f"cluster {cluster}: no opinion list"
    cluster_id = str(cluster)
    citations = values.get(f"{side}_citations")
    if not isinstance(citations, list) or not all(isinstance(item, str) for item in citations):
        return f"cluster {cluster_id}: citations {citations!r} are not a list of strings"
    ids_by_file: dict[str, list[str]] = defaultdict(list)
    for opinion in opinions:
        if not isinstance(opinion, dict):
            return f"cluster {cluster_id}: opinion entry {opinion!r} is not an object"
        name, opinion_id = opinion.get("opinion_filename"), opinion.get("opinion_id")
        if not isinstance(name, str) or not name.startswith(f"{cluster_id}_") or opinion_id is None:
            return f"cluster {cluster_id}: opinion entry without a file name of this cluster or an id: {opinion!r}"
        ids_by_file[name].append(str(opinion_id))
    repeated = [name for name in ids_by_file if name in meta.files]
    if repeated:
        return f"cluster {cluster_id}: {', '.join(repeated)} already listed by an earlier row"
    decision_name = values.get(f"{side}_decision_name")
    case_name = next(
        (
            name.strip()
            for name in (values.get(f"{side}_name"), values.get(f"{side}_name_full"))
            if isinstance(name, str) and name.strip()
        ),
        None,
    )
    year = _year_of(decision_name)
    for name, ids in ids_by_file.items():
        meta.files[name] = FileMeta(
            cluster_id=cluster_id,
            opinion_ids=tuple(ids),
            case_name=case_name,
            citations=tuple(citations),
            year=year,
            location=location,
        )
    meta.clusters.append(ClusterMeta(cluster_id, tuple(ids_by_file), location))
    return None


def _year_of(decision_name: object) -> int | None:
    """Return the last parenthesized four-digit year of a decision name, if any."""
    if not isinstance(decision_name, str):
        return None
    years = _YEAR.findall(decision_name)
    return int(years[-1]) if years else None


def normalize_opinion_type(code: str) -> str:
    """Turn a CourtListener type code ("020lead", "035concurrenceinpart") into a plain type ("lead", ...)."""
    letters = code.lstrip("0123456789")
    return OPINION_TYPES.get(letters, letters)


# ---------------------------------------------------------------------------------------------------- author

_TITLE = r"(?i:(?:m[a-z]{0,2}\.?[\s\-]*)?(?:chief\s+)?j\.?u\.?s\.?t\.?i\.?c\.?e)"  # OCR: "Me.", "Mr.-", "Ju.sti.ce"
_GAP = r"(?:\s+|\s*[~'’\-]+\s*)"
_UPPER = r"[A-ZÀ-ÖØ-Þ]"
_NAME_WORD = rf"{_UPPER}(?:[^\W\d_]|['’`\-])*[^\W\d_]"
_NAME = rf"((?:(?:Van|VAN|De|DE|Du|DU)\s+)?{_NAME_WORD})"
_THE_CHIEF = r"((?i:the\s+chief\s+justice))"
_BETWEEN = r"(?:[,:'’\s][^.;:]{0,160}?)?\s*"
# Each majority pattern ends at the anchor word found first by `_ANCHOR` (a cheap scan of the whole text).
_MAJORITY_PATTERNS = (
    re.compile(rf"\b{_TITLE}{_GAP}{_NAME}{_BETWEEN}(?:delivered|announced)$"),
    re.compile(rf"\b{_THE_CHIEF}{_BETWEEN}(?:delivered|announced)$"),
    re.compile(rf"\b({_NAME_WORD}),\s+(?:Ch\.\s*|Chief\s+)?(?:J\.|Justice),?\s+delivered$"),
)
_OPINION_OF = re.compile(rf"(?i:opinion\s+of\s+(?:the\s+court\s+by\s+)?){_TITLE}{_GAP}{_NAME}")
_FILED_BY = re.compile(rf"filed\s+by\s+(?:(?:Chief|Circuit|District|Senior)\s+)?(?:Judge|Justice)\s+{_NAME}")
_ANCHOR = re.compile(r"\b(?:delivered|announced|[Oo]pinion of|OPINION OF|filed by)\b")
_ANCHOR_LOOKBACK = 240
# Lower-court and CAP opinions open with the author on a line of its own: "L. HAND, Chief Judge.", "Crow, J."
_JUDGE_LINE = re.compile(
    rf"(?m)^((?:{_UPPER}[\w'’\-]*\.?\s+){{0,3}}{_NAME_WORD}),\s+"
    r"(?:(?:Chief|Circuit|District|Presiding|Senior|Associate)\s+)?(?:Judge|Justice|J\.|C\.\s?J\.)\s*[.:]?\s*$"
)
_SEPARATE_PATTERNS = (re.compile(rf"\b{_TITLE}{_GAP}{_NAME}"), re.compile(rf"\b{_THE_CHIEF}"))
_PER_CURIAM = re.compile(r"(?i:p[a-z]{1,2}\s+curiam)")  # OCR: "Pee Curiam", "Pm Curiam"
_NOT_NAMES = frozenset({"delivered", "announced", "and", "with", "whom", "dissenting", "concurring"})
SEPARATE_OPENING_CHARS = 1500
JUDGE_LINE_OPENING_CHARS = 5000


def find_author(text: str, opinion_type: str) -> str | None:
    """Return the opinion's author as the text states it ("HARLAN", "Warren", "The CHIEF JUSTICE"), or None."""
    if opinion_type in MAJORITY_TYPES or opinion_type in {"combined", "plurality"}:
        found = _majority_statement(text)
        line = _JUDGE_LINE.search(text, 0, JUDGE_LINE_OPENING_CHARS)
        if line and (found is None or line.start() < found[0]):
            found = line.start(), line.group(1)
        if found is None:
            return None
        start, name = found
        return None if _PER_CURIAM.search(text, 0, start) else name
    found = _earliest(_SEPARATE_PATTERNS, text[:SEPARATE_OPENING_CHARS])
    return found[1] if found else None


def _majority_statement(text: str) -> tuple[int, str] | None:
    """Find the first "X delivered the opinion" / "Opinion of the Court by X" statement: (position, name)."""
    for anchor in _ANCHOR.finditer(text):
        first = anchor.group(0)[0]
        if first in "OofF":
            pattern = _FILED_BY if first == "f" else _OPINION_OF
            match = pattern.match(text, anchor.start())
            if match and match.group(1).lower() not in _NOT_NAMES:
                return anchor.start(), _WHITESPACE.sub(" ", match.group(1))
            continue
        window_start = max(0, anchor.start() - _ANCHOR_LOOKBACK)
        found = _earliest(_MAJORITY_PATTERNS, text[window_start : anchor.end()])
        if found is not None:
            return window_start + found[0], found[1]
    return None


def _earliest(patterns: tuple[re.Pattern[str], ...], text: str) -> tuple[int, str] | None:
    """Return (position, name) of the earliest match of any pattern whose name is plausible."""
    best: tuple[int, str] | None = None
    for pattern in patterns:
        for match in pattern.finditer(text):
            name = _WHITESPACE.sub(" ", match.group(1)).strip()
            if name.lower() in _NOT_NAMES:
                continue
            if best is None or match.start() < best[0]:
                best = (match.start(), name)
            break
    return best
