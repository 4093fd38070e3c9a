"""One CAP case object → a `CaseBundle`: its case record (court, citations, dates, prominence, the facts kept as
extras), its opinions (from the casebody's JSON or XML markup) and its citation edges; `parse_partial_date`. Part of
`cap`, which reads the files; imports `cap_courts`, never `cap`."""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from typing import Any

from lexprobe.caselaw.records import (
    CaseBundle,
    CaseRecord,
    CitationEdge,
    OpinionRecord,
)
from lexprobe.caselaw.sources.cap_authors import author_name
from lexprobe.caselaw.sources.cap_courts import CIRCUIT_OF_COURT, court_place, resolve_cap_court, state_code
from lexprobe.caselaw.sources.markup import element_text, local_name, parse_markup

SOURCE = "cap"

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
    for entry in _list(raw.get("cites_to")):
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
    for entry in _list(entries):
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
    for entry in _list(data.get("opinions")):
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
            author = _clean_space(element_text(author_element)) if author_element is not None else None
            opinions.append(_Opinion(kind, author or None, element_text(element)))
    return opinions


# --- small helpers ------------------------------------------------------------------------------------------


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _text(value: Any) -> str | None:
    if value is None:
        return None
    text = str(value).strip()
    return text or None


def _clean_space(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()
