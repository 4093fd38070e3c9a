"""Resolve short forms, "Id." and "supra" to the parallel group of an earlier full case citation: the hooks given to
eyecite's `resolve_citations`, as top-level functions of the document's `Extraction` (the way eyecite's own
`resolve.py` is written). The rules are in the docstring of `lexprobe.check.extract`."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import partial

from eyecite import resolve_citations
from eyecite.models import CitationBase, FullCaseCitation, FullCitation, IdCitation, ShortCaseCitation, SupraCitation

from lexprobe.caselaw.case_names import names_match, normalize_case_name
from lexprobe.caselaw.citations import parse_citation

#: An "Id." whose pin cite lies further than this after the first page refers to something else (eyecite's rule).
MAX_ID_PIN_PAGES = 150

_PARTY_FILLER = frozenset("v the of and united states state people company co inc corp ex rel in re".split())  # noqa: SIM905


class Parsed:
    """One eyecite citation with absolute offsets: `core` (the citation proper), `tail` (its end with the pin
    cite) and `full` (eyecite's full span)."""

    __slots__ = ("citation", "core", "full", "tail")

    def __init__(self, citation: CitationBase, offset: int) -> None:
        self.citation = citation
        start, end = citation.span()
        self.core = (start + offset, end + offset)
        full_start, full_end = citation.full_span()
        self.full = (full_start + offset, full_end + offset)
        pin_end = citation.metadata.pin_cite_span_end if isinstance(citation, FullCaseCitation) else None
        self.tail = max(self.core[1], (pin_end + offset) if pin_end is not None else 0)


@dataclass
class Extraction:
    """What the extraction knows of one document when it resolves references: the citations eyecite found (`parsed`,
    in order), the full case citations in parallel `groups` (`group_of`: id(citation) -> group number), each group's
    name, year and history (`group_facts`), the record of each full citation (`records`, by id(citation)), and the
    antecedent written before each short form and supra (`antecedents`). `comma_form` holds the ids of "378 U.S.,
    485" short forms that eyecite reads as full citations."""

    parsed: list[Parsed]
    fulls: list[Parsed]
    comma_form: set[int]
    groups: list[list[Parsed]]
    group_of: dict[int, int]
    group_facts: list[dict]
    records: dict[int, dict]
    antecedents: dict[int, tuple[str, int]]
    matched: dict[tuple[str, int], bool] = field(default_factory=dict)  # antecedent_matches' cache


@dataclass(frozen=True)
class _Group:
    """The resource eyecite resolves the members of one parallel citation group to."""

    number: int


@dataclass(frozen=True)
class _Other:
    """The resource of a full citation that is not a case (a statute, a journal): an "Id." after it is not a case."""

    number: int


def canonical_parts(citation: CitationBase) -> tuple[str | None, str | None, str | None]:
    """(volume, reporter, page) after normalization, e.g. ("5", "U.S.", "137") for "1 Cranch 137"."""
    groups = citation.groups
    volume, reporter, page = groups.get("volume"), groups.get("reporter"), groups.get("page")
    if not volume or not reporter:
        return None, None, None
    probe = f"{volume} {reporter} {page if page and page.isdigit() else '1'}"
    parsed = parse_citation(probe)
    if parsed is None:
        return volume, " ".join(reporter.split()), page if page and page.isdigit() else None
    return parsed.volume, parsed.reporter, (parsed.page if page and page.isdigit() else None)


def first_number(pin: str | None) -> int | None:
    """The first page of a pin cite ("at 322-23" -> 322); None for none, and for a star page ("*738": another
    reporter's page in CourtListener texts, or a Westlaw screen)."""
    if not pin:
        return None
    m = re.match(r"\s*(?:at\s+)?(\*\s*)?(\d+)", pin)
    return int(m.group(2)) if m and not m.group(1) else None


def _first_page(doc: Extraction, number: int) -> str | None:
    return doc.records[id(doc.groups[number][0].citation)]["page"]


def full_resource(doc: Extraction, citation: FullCitation) -> _Group | _Other:
    """A full case citation resolves to its parallel group; any other full citation to a resource of its own."""
    number = doc.group_of.get(id(citation))
    return _Group(number) if number is not None else _Other(id(citation))


def antecedent_matches(doc: Extraction, antecedent: str, number: int) -> bool:
    """A short form's or supra's antecedent ("Celotex", "McCulloch v. Maryland") names this group's case."""
    words = set(normalize_case_name(antecedent).split())
    group_name = doc.group_facts[number]["name"]
    name = set(normalize_case_name(group_name[0]).split()) if group_name else set()
    if not words or not name:
        return False
    if "v" not in words:
        return words <= name
    if not (words - _PARTY_FILLER) & name:
        return False  # no word in common: no need to compare names
    key = (antecedent, number)
    if key not in doc.matched:
        doc.matched[key] = names_match(antecedent, [group_name[0]])[0]
    return doc.matched[key]


def pick_group(
    doc: Extraction, short: CitationBase, prior: list[tuple[dict, int]], antecedent: str | None
) -> int | None:
    """The group a short form refers to among the earlier full citations `prior` (record, group): those with its
    volume and reporter; among them the ones whose name has the antecedent; then those whose first page is nearest
    below the pin cite; then, when one first page is left, its latest citation."""
    volume, reporter, _ = canonical_parts(short)
    pin = first_number(short.metadata.pin_cite) or first_number(short.groups.get("page"))
    candidates: dict[int, int] = {}  # group -> first page, in document order
    for record, number in prior:
        if (record["volume"], record["reporter"]) == (volume, reporter) and record["page"]:
            candidates[number] = int(record["page"])
    if antecedent:
        named = {g: p for g, p in candidates.items() if antecedent_matches(doc, antecedent, g)}
        candidates = named or candidates
    if len(set(candidates.values())) > 1 and pin is not None:
        before = {g: p for g, p in candidates.items() if p <= pin}
        if before:
            best = max(before.values())
            candidates = {g: p for g, p in before.items() if p == best}
    return max(candidates) if len(set(candidates.values())) == 1 else None


def short_resource(doc: Extraction, short: ShortCaseCitation, resolved) -> _Group | None:
    """A short form ("Celotex, 477 U.S. at 323") resolves to the group `pick_group` chooses among those before it."""
    prior = [(doc.records[id(full)], resource.number) for full, resource in resolved if isinstance(resource, _Group)]
    number = pick_group(doc, short, prior, doc.antecedents.get(id(short), (short.metadata.antecedent_guess, 0))[0])
    return _Group(number) if number is not None else None


def supra_resource(doc: Extraction, supra: SupraCitation, resolved) -> _Group | None:
    """ "supra" resolves to the latest earlier case whose name matches the antecedent and whose first 150 pages hold
    the pin cite, else the latest case whose name matches."""
    antecedent = doc.antecedents.get(id(supra), (None, 0))[0] or supra.metadata.antecedent_guess
    if not antecedent:
        return None
    pin = first_number(supra.metadata.pin_cite)
    matches: list[int] = []
    for _, resource in reversed(resolved):
        fresh = isinstance(resource, _Group) and resource.number not in matches
        if fresh and antecedent_matches(doc, antecedent, resource.number):
            matches.append(resource.number)
    if pin is not None:
        for number in matches:  # the latest case the pin cite fits ("McCulloch v. Maryland, supra, at 421")
            first = _first_page(doc, number)
            if first and int(first) <= pin <= int(first) + MAX_ID_PIN_PAGES:
                return _Group(number)
    return _Group(matches[0]) if matches else None


def id_resource(doc: Extraction, citation: IdCitation, last, resolutions) -> _Group | None:
    """ "Id." resolves to what the previous citation resolved to when that was a case, unless its pin cite is not a
    page, precedes the first page or lies more than `MAX_ID_PIN_PAGES` after it."""
    if not isinstance(last, _Group):
        return None
    pin = first_number(citation.metadata.pin_cite)
    if citation.metadata.pin_cite and pin is None and not re.match(r"\s*(?:at\s+)?\*", citation.metadata.pin_cite):
        return None  # "Id. ¶ 5", "Id. § 3": not a page of a case ("Id. at *5" is a Westlaw screen)
    first_page = _first_page(doc, last.number)
    if pin is not None and first_page and not int(first_page) <= pin <= int(first_page) + MAX_ID_PIN_PAGES:
        return None
    return last


def resolve_groups(doc: Extraction) -> dict[int, int]:
    """Return id(citation) -> group number for every reference that resolves to a case: eyecite's
    `resolve_citations` with the hooks above, then the "378 U.S., 485" short forms eyecite reads as full."""
    resolutions = resolve_citations(
        [p.citation for p in doc.parsed],
        resolve_full_citation=partial(full_resource, doc),
        resolve_shortcase_citation=partial(short_resource, doc),
        resolve_supra_citation=partial(supra_resource, doc),
        resolve_id_citation=partial(id_resource, doc),
    )
    resolved_group: dict[int, int] = {}
    for resource, cited in resolutions.items():
        if isinstance(resource, _Group):
            for citation in cited:
                resolved_group[id(citation)] = resource.number
    for p in doc.parsed:
        if id(p.citation) in doc.comma_form:
            prior = [
                (doc.records[id(f.citation)], doc.group_of[id(f.citation)]) for f in doc.fulls if f.core[0] < p.core[0]
            ]
            number = pick_group(doc, p.citation, prior, doc.antecedents.get(id(p.citation), (None, 0))[0])
            if number is not None:
                resolved_group[id(p.citation)] = number
    return resolved_group
