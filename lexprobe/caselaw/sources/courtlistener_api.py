"""CourtListener REST API v4 responses saved as JSON → cases and opinions.

Accepts what a user saves from the API: a list page `{"count", "next", "previous", "results": [...]}`, a single
object, a JSON array, or JSON Lines of any of these (`.json`, `.jsonl`, `.ndjson`, each optionally `.gz`), or a
folder of such files read together. Objects may be clusters (`/clusters/`), opinions (`/opinions/`), dockets
(`/dockets/`) or opinion search results (`/search/?type=o`); their kind is read from `resource_uri`, else from
their fields.

Everything is joined after reading, so order does not matter: a cluster takes its court and docket number from
its docket where the docket was saved too (else from the `court_id` hint), and its author from its majority
opinion; an opinion takes its case name, citations and year from its cluster. Opinion text is `plain_text`, else
the first HTML/XML field present (`html_with_citations`, `html`, ...) stripped of tags with lxml.

Locations are `path:line` for JSON Lines and `path:results[i]` (or `path:[i]`) inside a saved page.
"""

from __future__ import annotations

import gzip
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from lexprobe.caselaw.records import CaseRecord, LoadResult, OpinionRecord, RowIssue
from lexprobe.caselaw.sources.cap import court_place, parse_partial_date
from lexprobe.caselaw.sources.markup import markup_text
from lexprobe.caselaw.sources.opinions import MAJORITY_TYPES, normalize_opinion_type

SOURCE = "courtlistener"


#: Text fields of an opinion, most useful first; all but the first are markup.
_TEXT_FIELDS = ("plain_text", "html_with_citations", "html", "html_lawbox", "html_columbia", "xml_harvard")
_MARKUP_FIELDS = (*_TEXT_FIELDS[1:], "html_anon_2020")

#: CourtListener citation types, official reporters first: 1 federal, 5 early SCOTUS, 2 state, 8 neutral, ...
_CITATION_TYPE_ORDER = {1: 0, 5: 0, 2: 1, 8: 2, 3: 3, 4: 4, 7: 5, 6: 6, 9: 7}
_DATA_SUFFIXES = (".json", ".jsonl", ".ndjson")


@dataclass
class _Cluster:
    """What the saved objects say about one cluster; filled from a cluster and/or a search result."""

    cluster_id: str
    location: str
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
    date_is_approximate: bool | None = None
    majority_votes: int | None = None
    minority_votes: int | None = None

    def absorb(self, other: _Cluster) -> None:
        """Fill this cluster's empty fields from another description of the same cluster."""
        for item in fields(self):
            if getattr(self, item.name) in (None, "", ()):
                setattr(self, item.name, getattr(other, item.name))


@dataclass(frozen=True)
class _Opinion:
    opinion_id: str
    cluster_id: str | None
    opinion_type: str
    author: str | None
    text: str
    source_file: str


@dataclass
class _Collected:
    clusters: dict[str, _Cluster] = field(default_factory=dict)
    opinions: list[_Opinion] = field(default_factory=list)
    dockets: dict[str, tuple[str | None, str | None]] = field(default_factory=dict)  # id → (court, number)


def load(path: Path | str, court_id: str | None = None) -> LoadResult:
    """Read saved CourtListener v4 API responses (a file or a folder of them) into cases and opinions.

    `court_id` is the courts-db id to use for clusters whose docket (and so court) is not among the files.
    """
    path = Path(path)
    result = LoadResult()
    collected = _Collected()
    files = sorted(p for p in path.iterdir() if _is_data_file(p)) if path.is_dir() else [path]
    for file in files:
        for location, obj in _objects(file, result):
            result.rows_read += 1
            _collect(obj, location, str(file), collected, result)
    _finish(collected, court_id, path, result)
    return result


def _is_data_file(path: Path) -> bool:
    name = path.name.lower().removesuffix(".gz")
    return path.is_file() and name.endswith(_DATA_SUFFIXES)


def _objects(file: Path, result: LoadResult) -> Iterator[tuple[str, Any]]:
    """Yield (location, object) for every API object in a saved file; unreadable parts become issues."""
    opener = gzip.open if file.name.lower().endswith(".gz") else open
    name = file.name.lower().removesuffix(".gz")
    with opener(file, "rb") as stream:
        if name.endswith((".jsonl", ".ndjson")):
            for lineno, raw in enumerate(stream, start=1):
                if raw.strip():
                    yield from _expand(raw, f"{file}:{lineno}", result)
            return
        yield from _expand(stream.read(), str(file), result)


def _expand(raw: bytes, location: str, result: LoadResult) -> Iterator[tuple[str, Any]]:
    """Yield the objects of a page (`results`), of an array, or the value itself; bad JSON is one issue."""
    try:
        value = json.loads(raw.decode("utf-8-sig"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        result.rows_read += 1
        detail = f"{exc.msg} at line {exc.lineno}" if isinstance(exc, json.JSONDecodeError) else str(exc)
        result.issues.append(RowIssue(SOURCE, location, f"unreadable JSON: {detail}"))
        return
    if isinstance(value, dict) and isinstance(value.get("results"), list):
        for index, item in enumerate(value["results"]):
            yield f"{location}:results[{index}]", item
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield f"{location}:[{index}]", item
    else:
        yield location, value


def object_kind(obj: dict[str, Any]) -> str | None:
    """Return "clusters", "opinions", "dockets" or "search" for a v4 API object, or None if unrecognized."""
    uri = str(obj.get("resource_uri") or "")
    for kind in ("clusters", "opinions", "dockets", "search"):
        if f"/{kind}/" in uri:
            return kind
    if "caseName" in obj and "cluster_id" in obj:
        return "search"
    if "sub_opinions" in obj or ("case_name" in obj and "citations" in obj):
        return "clusters"
    if any(key in obj for key in _TEXT_FIELDS) or ("type" in obj and ("cluster" in obj or "cluster_id" in obj)):
        return "opinions"
    if "docket_number" in obj and ("court" in obj or "court_id" in obj):
        return "dockets"
    return None


def _collect(obj: Any, location: str, source_file: str, collected: _Collected, result: LoadResult) -> None:
    if not isinstance(obj, dict):
        result.issues.append(RowIssue(SOURCE, location, f"expected an object, got {type(obj).__name__}"))
        return
    kind = object_kind(obj)
    if kind is None:
        result.issues.append(RowIssue(SOURCE, location, "not a cluster, opinion, docket or search result"))
        return
    object_id = _id_of(obj.get("cluster_id") if kind == "search" else obj.get("id"))
    if object_id is None:
        result.issues.append(RowIssue(SOURCE, location, f"{kind} object without an id"))
        return
    if kind == "dockets":
        collected.dockets[object_id] = (_court_of(obj), _text(obj.get("docket_number")))
    elif kind == "opinions":
        opinion = _opinion(obj, object_id, source_file)
        if opinion.text:
            collected.opinions.append(opinion)
        else:
            result.issues.append(RowIssue(SOURCE, location, f"opinion {object_id} has no text"))
    else:
        cluster = _cluster(obj, object_id, location) if kind == "clusters" else _search_result(obj, object_id, location)
        known = collected.clusters.setdefault(object_id, cluster)
        if known is not cluster:
            known.absorb(cluster)


def _cluster(obj: dict[str, Any], cluster_id: str, location: str) -> _Cluster:
    docket = obj.get("docket")
    nested = docket if isinstance(docket, dict) else {}
    return _Cluster(
        cluster_id=cluster_id,
        location=location,
        name=_text(obj.get("case_name")) or _text(obj.get("case_name_short")) or _text(obj.get("case_name_full")),
        name_full=_text(obj.get("case_name_full")),
        citations=_citations(obj.get("citations")),
        date_filed=_text(obj.get("date_filed")),
        docket_id=_id_of(obj.get("docket_id")) or _id_of(docket),
        docket_number=_text(nested.get("docket_number")),
        court_id=_court_of(nested) if nested else None,
        judges=_text(obj.get("judges")),
        scdb_id=_text(obj.get("scdb_id")),
        precedential_status=_text(obj.get("precedential_status")),
        citation_count=_text(obj.get("citation_count")),
        date_is_approximate=obj.get("date_filed_is_approximate") is True,
        majority_votes=_int(obj.get("scdb_votes_majority")),
        minority_votes=_int(obj.get("scdb_votes_minority")),
    )


def _search_result(obj: dict[str, Any], cluster_id: str, location: str) -> _Cluster:
    return _Cluster(
        cluster_id=cluster_id,
        location=location,
        name=_text(obj.get("caseName")) or _text(obj.get("caseNameFull")),
        name_full=_text(obj.get("caseNameFull")),
        citations=_citations(obj.get("citation")),
        date_filed=_text(obj.get("dateFiled")),
        docket_id=_id_of(obj.get("docket_id")),
        docket_number=_text(obj.get("docketNumber")),
        court_id=_text(obj.get("court_id")),
        judges=_text(obj.get("judge")),
        scdb_id=_text(obj.get("scdb_id")),
        precedential_status=_text(obj.get("status")),
        citation_count=_text(obj.get("citeCount")),
    )


def _opinion(obj: dict[str, Any], opinion_id: str, source_file: str) -> _Opinion:
    cluster = obj.get("cluster_id") or obj.get("cluster")
    return _Opinion(
        opinion_id=opinion_id,
        cluster_id=_id_of(cluster),
        opinion_type=normalize_opinion_type(str(obj.get("type") or "").strip().lower()) or "unknown",
        author=_text(obj.get("author_str")),
        text=opinion_text(obj),
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


def _finish(collected: _Collected, court_hint: str | None, path: Path, result: LoadResult) -> None:
    by_cluster: dict[str, list[_Opinion]] = {}
    for opinion in collected.opinions:
        by_cluster.setdefault(opinion.cluster_id or "", []).append(opinion)
    courtless = 0
    for cluster in collected.clusters.values():
        court, docket_number = collected.dockets.get(cluster.docket_id or "", (None, None))
        court_id = cluster.court_id or court or court_hint
        courtless += court_id is None
        decision_date, year = parse_partial_date((cluster.date_filed or "")[:10])
        circuit, state = court_place(court_id, decision_date)
        majority = [op for op in by_cluster.get(cluster.cluster_id, []) if _is_majority(op, by_cluster)]
        result.cases.append(
            CaseRecord(
                source=SOURCE,
                source_id=cluster.cluster_id,
                court_id=court_id,
                name=cluster.name,
                citations=cluster.citations,
                decision_date=decision_date,
                year=year,
                docket=cluster.docket_number or docket_number,
                author=next((op.author for op in majority if op.author), None),
                majority_votes=cluster.majority_votes,
                minority_votes=cluster.minority_votes,
                state=state,
                circuit=circuit,
                extra=_extra(cluster),
            )
        )
    if courtless:
        message = f"{courtless} cluster(s) without a court: save their dockets alongside or pass court_id"
        result.issues.append(RowIssue(SOURCE, str(path), message))
    for opinion in collected.opinions:
        cluster = collected.clusters.get(opinion.cluster_id or "")
        year = parse_partial_date((cluster.date_filed or "")[:10])[1] if cluster else None
        result.opinions.append(
            OpinionRecord(
                source=SOURCE,
                opinion_id=opinion.opinion_id,
                cluster_id=opinion.cluster_id,
                case_name=cluster.name if cluster else None,
                citations=cluster.citations if cluster else (),
                opinion_type=opinion.opinion_type,
                is_majority=_is_majority(opinion, by_cluster),
                author=opinion.author,
                text=opinion.text,
                source_file=opinion.source_file,
                year=year,
            )
        )


def _is_majority(opinion: _Opinion, by_cluster: dict[str, list[_Opinion]]) -> bool:
    """Lead and unanimous opinions are majority opinions; a combined one only where its cluster has neither."""
    if opinion.opinion_type in MAJORITY_TYPES:
        return True
    siblings = by_cluster.get(opinion.cluster_id or "", [])
    return opinion.opinion_type == "combined" and not any(op.opinion_type in MAJORITY_TYPES for op in siblings)


def _extra(cluster: _Cluster) -> tuple[tuple[str, str], ...]:
    facts = []
    if cluster.name_full and cluster.name_full != cluster.name:
        facts.append(("case_name_full", cluster.name_full))
    for key in ("precedential_status", "scdb_id", "citation_count", "judges", "docket_id"):
        value = getattr(cluster, key)
        if value:
            facts.append((key, str(value)))
    if cluster.date_is_approximate:
        facts.append(("date_filed_is_approximate", "true"))
    return tuple(facts)


def _citations(entries: Any) -> tuple[str, ...]:
    """Citation strings from v4 citation objects ({volume, reporter, page, type}) or plain strings."""
    ranked: list[tuple[int, str]] = []
    for entry in entries if isinstance(entries, list) else ():
        if isinstance(entry, str) and entry.strip():
            ranked.append((len(_CITATION_TYPE_ORDER), entry.strip()))
        elif isinstance(entry, dict) and entry.get("volume") and entry.get("reporter") and entry.get("page"):
            text = f"{entry['volume']} {str(entry['reporter']).strip()} {str(entry['page']).strip()}"
            ranked.append((_CITATION_TYPE_ORDER.get(_int(entry.get("type")) or 0, len(_CITATION_TYPE_ORDER)), text))
    ranked.sort(key=lambda item: item[0])
    return tuple(dict.fromkeys(text for _, text in ranked))


def _court_of(docket: dict[str, Any]) -> str | None:
    """The courts-db id of a docket: `court_id`, else the last part of its `court` URL."""
    court = _text(docket.get("court_id"))
    if court:
        return court
    value = docket.get("court")
    if isinstance(value, dict):
        return _text(value.get("id"))
    text = _text(value)
    if text is None:
        return None
    return text.rstrip("/").rsplit("/", 1)[-1] or None


def _id_of(value: Any) -> str | None:
    """An object id from an int, a digit string, an API URL (".../clusters/123/") or a nested object."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return str(value)
    if isinstance(value, dict):
        return _id_of(value.get("id"))
    if isinstance(value, str):
        match = re.search(r"(\d+)/?$", value.strip())
        return match.group(1) if match else None
    return None


def _int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value)
    return None


def _text(value: Any) -> str | None:
    if value is None or isinstance(value, dict | list):
        return None
    text = str(value).strip()
    return text or None
