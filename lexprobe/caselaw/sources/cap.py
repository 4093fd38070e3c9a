"""Caselaw Access Project (CAP) bulk data: JSON Lines of case objects → cases, opinions and citation edges.

Reads `.jsonl`, `.jsonl.gz` or `.jsonl.xz`, one case object a line, as exported by CAP (the old bulk/API form,
`casebody: {status, data: {...}}`, and the later static form with the opinions directly under `casebody`).
`casebody.data` given as an XML or HTML string (the `xml`/`html` body formats) is converted with lxml.

Mapping:
- court: `court.name`, else `court.name_abbreviation`, through `caselaw.courts.resolve_court` (courts-db ids);
  circuit and state follow from the id (`court_place`), a state otherwise from `jurisdiction.name_long`. A court
  courts-db does not know leaves `court_id` None and is reported once (a `RowIssue` at its first row).
- citations: the official citation first, then the others as listed.
- prominence: CAP's `analysis.pagerank.percentile` is a fraction 0-1 over the whole CAP corpus; it is scaled to
  0-100 (a value already above 1 is taken as a 0-100 percentile). The raw PageRank goes to `extra`.
- edges: one per distinct `cites_to[].cite`: citing `cap:<id>` (the builder resolves source ids), cited the cite.
- opinions: ids `cap:<case id>:<index>`; CAP types map to the shared vocabulary ("majority" → "lead",
  "concurring-in-part-and-dissenting-in-part" → "concurrence_in_part"); the "majority" opinion is the majority.
- a partial decision date ("1954-05", "1954") gives the year only; the raw text is kept in `extra`.
"""

from __future__ import annotations

import datetime as dt
import gzip
import json
import lzma
import re
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from lexprobe.caselaw import courts
from lexprobe.caselaw.records import CaseRecord, CitationEdge, LoadResult, OpinionRecord, RowIssue
from lexprobe.caselaw.sources.markup import element_text, local_name, parse_markup

SOURCE = "cap"

#: CAP opinion types → the shared vocabulary (CourtListener's types, as `sources.opinions` names them).
_OPINION_TYPES: dict[str, str] = {
    "majority": "lead",
    "concurring-in-part-and-dissenting-in-part": "concurrence_in_part",
    "on-motion-for-rehearing": "rehearing",
    "on-the-merits": "on_the_merits",
}

#: Federal courts of appeals → their circuits ("ca9" → "9", "cadc" → "dc").
_CIRCUIT_OF_COURT: dict[str, str] = {court_id: circuit for circuit, court_id in courts.CIRCUIT_IDS.items()}

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


@dataclass(frozen=True)
class _Opinion:
    kind: str
    author: str | None
    text: str


class _CaseError(ValueError):
    """A case object that cannot become a record."""


def load(path: Path | str) -> LoadResult:
    """Read a CAP JSON Lines file (optionally .gz or .xz) into cases, opinions and citation edges."""
    path = Path(path)
    result = LoadResult()
    unresolved: set[str] = set()
    for lineno, raw in _numbered_lines(path, result):
        location = f"{path}:{lineno}"
        result.rows_read += 1
        try:
            case = json.loads(raw.decode("utf-8"))
        except UnicodeDecodeError as exc:
            result.issues.append(RowIssue(SOURCE, location, f"not UTF-8: {exc}"))
            continue
        except json.JSONDecodeError as exc:
            result.issues.append(RowIssue(SOURCE, location, f"invalid JSON: {exc.msg} at character {exc.pos}"))
            continue
        if not isinstance(case, dict):
            result.issues.append(RowIssue(SOURCE, location, f"expected a case object, got {type(case).__name__}"))
            continue
        try:
            _add_case(case, location, result, unresolved, str(path))
        except _CaseError as exc:
            result.issues.append(RowIssue(SOURCE, location, f"malformed case object: {exc}"))
    return result


def _numbered_lines(path: Path, result: LoadResult) -> Iterator[tuple[int, bytes]]:
    """Yield (line number, raw line) for non-blank lines; an unreadable archive becomes one issue."""
    name = path.name.lower()
    opener = lzma.open if name.endswith(".xz") else gzip.open if name.endswith(".gz") else open
    lineno = 0
    stream = opener(path, "rb")  # a missing file raises here, as it should
    try:
        with stream:
            for lineno, raw in enumerate(stream, start=1):
                if raw.strip():
                    yield lineno, raw
    except (OSError, EOFError, lzma.LZMAError, zlib.error) as exc:
        result.issues.append(RowIssue(SOURCE, f"{path}:{lineno + 1}", f"cannot read further: {exc}"))


def _add_case(case: dict[str, Any], location: str, result: LoadResult, unresolved: set[str], source_file: str) -> None:
    case_id = case.get("id")
    if case_id is None or str(case_id).strip() == "":
        raise _CaseError("no id")
    source_id = str(case_id)
    court = _mapping(case.get("court"))
    jurisdiction = _mapping(case.get("jurisdiction"))
    date_raw = _text(case.get("decision_date"))
    decision_date, year = parse_partial_date(date_raw)
    court_id = resolve_cap_court(_text(court.get("name")), _text(court.get("name_abbreviation")))
    court_label = _text(court.get("name")) or _text(court.get("name_abbreviation"))
    if court_id is None and court_label and court_label not in unresolved:
        unresolved.add(court_label)
        result.issues.append(RowIssue(SOURCE, location, f"court not found in courts-db: {court_label!r}"))
    circuit, state = court_place(court_id, decision_date or date_raw)
    if state is None and court_id != "scotus" and court_id not in _CIRCUIT_OF_COURT:
        state = state_code(_text(jurisdiction.get("name_long")) or _text(jurisdiction.get("name")))
    citations = _citations(case.get("citations"))
    opinions, problem = _opinions(case.get("casebody"))
    if problem:
        result.issues.append(RowIssue(SOURCE, location, problem))
    majority = next((op for op in opinions if op.kind == "majority"), None)
    name = _text(case.get("name")) or _text(case.get("name_abbreviation"))
    result.cases.append(
        CaseRecord(
            source=SOURCE,
            source_id=source_id,
            court_id=court_id,
            name=name,
            citations=citations,
            decision_date=decision_date,
            year=year,
            docket=_text(case.get("docket_number")),
            author=majority.author if majority else None,
            state=state,
            circuit=circuit,
            prominence=_prominence(case.get("analysis")),
            extra=_extra(case, court, jurisdiction, date_raw, decision_date),
        )
    )
    for index, opinion in enumerate(opinions):
        result.opinions.append(
            OpinionRecord(
                source=SOURCE,
                opinion_id=f"{SOURCE}:{source_id}:{index}",
                cluster_id=source_id,
                case_name=name,
                citations=citations,
                opinion_type=_OPINION_TYPES.get(
                    opinion.kind, re.sub(r"[^a-z]+", "_", opinion.kind).strip("_") or "unknown"
                ),
                is_majority=opinion.kind == "majority",
                author=opinion.author,
                text=opinion.text,
                source_file=source_file,
                year=year,
            )
        )
    citing = f"{SOURCE}:{source_id}"
    seen: set[str] = set()
    for entry in _list(case.get("cites_to")):
        cited = _text(entry.get("cite")) if isinstance(entry, dict) else None
        if cited and cited not in seen:
            seen.add(cited)
            result.edges.append(CitationEdge(SOURCE, citing, cited))


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
        ("name_abbreviation", case.get("name_abbreviation")),
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


# --- courts -----------------------------------------------------------------------------------------------


@cache
def _courts_by_id() -> dict[str, dict[str, Any]]:
    import courts_db

    return {court["id"]: court for court in courts_db.courts}


@cache
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


@cache
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
        return _CIRCUIT_OF_COURT[court_id], None
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
