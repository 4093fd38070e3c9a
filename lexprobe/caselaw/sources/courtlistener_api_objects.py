"""The CourtListener API objects as the loader holds them: what kind a saved object is (cluster, opinion, docket,
court, search result), and the cluster, opinion and docket records read from them (with the opinion's text). Part of
`courtlistener_api`; imports only `courtlistener_api_values`."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, fields
from typing import Any

from lexprobe.caselaw.sources.courtlistener_api_values import (
    author_name,
    citations_of,
    court_of,
    id_of,
    ids_of,
    int_of,
    list_of,
    text_of,
)
from lexprobe.caselaw.sources.markup import markup_text
from lexprobe.caselaw.sources.opinions import find_author, normalize_opinion_type

SOURCE = "courtlistener"
EXPECTED = (
    "CourtListener API v4 JSON: list pages with results, objects with resource_uri under /clusters/, /opinions/, "
    "/dockets/, /search/"
)


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
        sub_opinions=tuple(i for i in (id_of(op) for op in list_of(obj.get("opinions"))) if i),
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
