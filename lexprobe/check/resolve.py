"""Resolve short forms, "Id." and "supra" to the parallel group of an earlier full case citation: the hooks given to
eyecite's `resolve_citations`, as top-level functions of the document's `Extraction` (the way eyecite's own
`resolve.py` is written). The rules are in the docstring of `lexprobe.check.extract`."""

from __future__ import annotations

import re
from collections.abc import Hashable
from dataclasses import dataclass, field
from functools import partial

from eyecite import resolve_citations
from eyecite.models import (
    CitationBase,
    FullCaseCitation,
    FullCitation,
    IdCitation,
    ReferenceCitation,
    ShortCaseCitation,
    SupraCitation,
)

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
    name_words: dict[int, frozenset[str]] = field(default_factory=dict)  # group -> its normalized name's words
    prior: PriorIndex | None = None  # the full citations eyecite has resolved so far, indexed
    pins: dict[int, str] = field(default_factory=dict)  # id(citation) -> its pin cite as written
    hosts: dict[int, CitationBase] = field(default_factory=dict)  # id(citation) -> the one whose parenthetical holds it
    comma_groups: dict[int, int] = field(default_factory=dict)  # id(citation) -> group of a "378 U.S., 485" short form

    def words_of(self, number: int) -> frozenset[str]:
        """The words of group `number`'s normalized name (empty when it has none), computed once."""
        words = self.name_words.get(number)
        if words is None:
            group_name = self.group_facts[number]["name"]
            words = frozenset(normalize_case_name(group_name[0]).split()) if group_name else frozenset()
            self.name_words[number] = words
        return words


class PriorIndex:
    """The earlier full case citations a short form or supra may refer to, indexed so that each reference looks
    only at the cases that can qualify, not at every earlier citation (a document's check stays near-linear in its
    citations): by (volume, reporter), group -> first page (`pick_group`'s candidates); by the words of the case
    name, the groups (`supra_resource`'s candidates); and each group's latest position (`supra` prefers the latest)."""

    def __init__(self, doc: Extraction) -> None:
        self.doc = doc
        self.by_reporter: dict[tuple[str | None, str | None], dict[int, int]] = {}
        self.by_word: dict[str, set[int]] = {}
        self.latest: dict[int, int] = {}  # group -> position of its latest full citation
        self.consumed = 0  # entries of eyecite's list of resolved full citations already added
        self.added = 0  # full case citations added
        self.by_value: dict[object, set[Hashable]] = {}  # metadata value of a full citation -> resources
        self.values_consumed = 0

    def add(self, record: dict, number: int) -> None:
        """Add one full case citation (its record) of group `number`, the latest one so far."""
        self.added += 1
        if number not in self.latest:
            for word in self.doc.words_of(number):
                self.by_word.setdefault(word, set()).add(number)
        self.latest[number] = self.added
        if record["page"]:
            self.by_reporter.setdefault((record["volume"], record["reporter"]), {})[number] = int(record["page"])

    def catch_up(self, resolved: list) -> None:
        """Add the full citations eyecite resolved since the last call (`resolved` only grows)."""
        for full, resource in resolved[self.consumed :]:
            if isinstance(resource, _Group) and id(full) in self.doc.records:  # not a "378 U.S., 485" short form
                self.add(self.doc.records[id(full)], resource.number)
        self.consumed = len(resolved)

    def values_of(self, resolved: list) -> dict[object, set[Hashable]]:
        """Every non-empty metadata value of the full citations in `resolved` -> their resources (built on the
        first reference citation, then kept up to date)."""
        for full, resource in resolved[self.values_consumed :]:
            for value in full.metadata.__dict__.values():
                if value and isinstance(value, Hashable):
                    self.by_value.setdefault(value, set()).add(resource)
        self.values_consumed = len(resolved)
        return self.by_value

    def candidates(self, volume: str | None, reporter: str | None) -> dict[int, int]:
        """group -> first page of the earlier cases with this volume and reporter (not to be changed)."""
        return self.by_reporter.get((volume, reporter), {})

    def named(self, antecedent: str) -> list[int]:
        """The earlier groups whose name can match `antecedent` (a superset of `antecedent_matches`), latest
        first."""
        words = set(normalize_case_name(antecedent).split())
        if not words:
            return []
        if "v" in words:
            groups: set[int] = set()
            for word in words - _PARTY_FILLER:
                groups |= self.by_word.get(word, set())
        else:  # every word of the antecedent must be in the name: the rarest one's groups hold all matches
            groups = min((self.by_word.get(word, set()) for word in words), key=len)
        return sorted(groups, key=lambda number: -self.latest[number])


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
    number = doc.group_of.get(id(citation), doc.comma_groups.get(id(citation)))
    return _Group(number) if number is not None else _Other(id(citation))


def antecedent_matches(doc: Extraction, antecedent: str, number: int) -> bool:
    """A short form's or supra's antecedent ("Celotex", "McCulloch v. Maryland") names this group's case."""
    words = set(normalize_case_name(antecedent).split())
    name = doc.words_of(number)
    if not words or not name:
        return False
    if "v" not in words:
        return words <= name
    if not (words - _PARTY_FILLER) & name:
        return False  # no word in common: no need to compare names
    key = (antecedent, number)
    if key not in doc.matched:
        doc.matched[key] = names_match(antecedent, [doc.group_facts[number]["name"][0]])[0]
    return doc.matched[key]


def pick_group(doc: Extraction, short: CitationBase, candidates: dict[int, int], antecedent: str | None) -> int | None:
    """The group a short form refers to among `candidates` (group -> first page: the earlier full citations with
    its volume and reporter, `PriorIndex.candidates`): among them the ones whose name has the antecedent; then those
    whose first page is nearest below the pin cite; then, when one first page is left, its latest citation."""
    pin = first_number(short.metadata.pin_cite) or first_number(short.groups.get("page"))
    if antecedent:
        named = {g: p for g, p in candidates.items() if antecedent_matches(doc, antecedent, g)}
        candidates = named or candidates
    if len(set(candidates.values())) > 1 and pin is not None:
        before = {g: p for g, p in candidates.items() if p <= pin}
        if before:
            best = max(before.values())
            candidates = {g: p for g, p in before.items() if p == best}
    return max(candidates) if len(set(candidates.values())) == 1 else None


def _prior(doc: Extraction, resolved: list) -> PriorIndex:
    """The index of the full citations eyecite has resolved so far (`resolved`, the list it passes the hooks)."""
    if doc.prior is None:
        doc.prior = PriorIndex(doc)
    doc.prior.catch_up(resolved)
    return doc.prior


def short_resource(doc: Extraction, short: ShortCaseCitation, resolved) -> _Group | None:
    """A short form ("Celotex, 477 U.S. at 323") resolves to the group `pick_group` chooses among those before it."""
    volume, reporter, _ = canonical_parts(short)
    candidates = _prior(doc, resolved).candidates(volume, reporter)
    antecedent = doc.antecedents.get(id(short), (short.metadata.antecedent_guess, 0))[0]
    number = pick_group(doc, short, candidates, antecedent)
    return _Group(number) if number is not None else None


def supra_resource(doc: Extraction, supra: SupraCitation, resolved) -> _Group | None:
    """ "supra" resolves to the latest earlier case whose name matches the antecedent and whose first 150 pages hold
    the pin cite, else the latest case whose name matches."""
    antecedent = doc.antecedents.get(id(supra), (None, 0))[0] or supra.metadata.antecedent_guess
    if not antecedent:
        return None
    pin = first_number(supra.metadata.pin_cite)
    latest_match: int | None = None
    for number in _prior(doc, resolved).named(antecedent):  # latest first
        if not antecedent_matches(doc, antecedent, number):
            continue
        if pin is None:
            return _Group(number)
        latest_match = number if latest_match is None else latest_match
        first = _first_page(doc, number)
        if first and int(first) <= pin <= int(first) + MAX_ID_PIN_PAGES:
            return _Group(number)  # the latest case the pin cite fits ("McCulloch v. Maryland, supra, at 421")
    return _Group(latest_match) if latest_match is not None else None


def reference_resource(doc: Extraction, reference: ReferenceCitation, resolved) -> Hashable | None:
    """A reference citation ("Celotex, at 323", found by eyecite after a full citation) resolves by eyecite's own
    rule (2.7.8): to the resource of the earlier full citations that have one of its names among their metadata
    values, when there is exactly one; read from the index of those values instead of every earlier citation."""
    by_value = _prior(doc, resolved).values_of(resolved)
    matches: set[Hashable] = set()
    for key in ReferenceCitation.name_fields:
        value = getattr(reference.metadata, key)
        if value:
            matches |= by_value.get(value, set())
    return next(iter(matches)) if len(matches) == 1 else None


def id_resource(doc: Extraction, citation: IdCitation, last, resolutions) -> _Group | None:
    """ "Id." resolves to what the previous citation resolved to when that was a case, unless its pin cite is not a
    page, precedes the first page or lies more than `MAX_ID_PIN_PAGES` after it."""
    if not isinstance(last, _Group):
        return None
    pin_text = doc.pins.get(id(citation)) or citation.metadata.pin_cite
    pin = first_number(pin_text)
    if pin_text and pin is None and not re.match(r"\s*(?:at\s+)?\*", pin_text):
        return None  # "Id. ¶ 5", "Id. § 3": not a page of a case ("Id. at *5" is a Westlaw screen)
    first_page = _first_page(doc, last.number)
    if pin is not None and first_page and not int(first_page) <= pin <= int(first_page) + MAX_ID_PIN_PAGES:
        return None
    return last


def _id_anchors(doc: Extraction) -> dict[int, CitationBase | None]:
    """For each "Id." right after a citation that sits in a parenthetical ("X (quoting Y). Id. at 5"), the last
    citation before it that does not (X; None when there is none): "Id." refers to the main citation, never to one
    it quotes or cites."""
    anchors: dict[int, CitationBase | None] = {}
    top: CitationBase | None = None
    previous_nested = False
    for p in doc.parsed:
        citation = p.citation
        if isinstance(citation, IdCitation) and previous_nested:
            anchors[id(citation)] = top
        previous_nested = id(citation) in doc.hosts
        if not previous_nested:
            top = citation
    return anchors


def resolve_groups(doc: Extraction) -> dict[int, int]:
    """Return id(citation) -> group number for every reference that resolves to a case: the "378 U.S., 485" short
    forms eyecite reads as full first, then eyecite's `resolve_citations` with the hooks above, an "Id." after a
    parenthetical's citation taking the main citation's resolution (`_id_anchors`)."""
    doc.prior = PriorIndex(doc)
    _resolve_comma_forms(doc, doc.comma_groups)
    anchors = _id_anchors(doc)
    resource_of: dict[int, Hashable | None] = {}

    def recorded(hook):
        def run(citation, *args):
            resource_of[id(citation)] = resource = hook(citation, *args)
            return resource

        return run

    def resolve_id(citation: IdCitation, last, resolutions) -> _Group | None:
        if id(citation) in anchors:
            anchor = anchors[id(citation)]
            last = resource_of.get(id(anchor)) if anchor is not None else None
        return id_resource(doc, citation, last, resolutions)

    resolutions = resolve_citations(
        [p.citation for p in doc.parsed],
        resolve_full_citation=recorded(partial(full_resource, doc)),
        resolve_shortcase_citation=recorded(partial(short_resource, doc)),
        resolve_supra_citation=recorded(partial(supra_resource, doc)),
        resolve_reference_citation=recorded(partial(reference_resource, doc)),
        resolve_id_citation=recorded(resolve_id),
    )
    resolved_group: dict[int, int] = dict(doc.comma_groups)
    for resource, cited in resolutions.items():
        if isinstance(resource, _Group):
            for citation in cited:
                resolved_group[id(citation)] = resource.number
    return resolved_group


def _resolve_comma_forms(doc: Extraction, resolved_group: dict[int, int]) -> None:
    """Resolve the "378 U.S., 485" short forms eyecite reads as full citations, each among the full citations
    before it (added to a `PriorIndex` as the document is walked)."""
    prior = PriorIndex(doc)
    position = 0
    for p in doc.parsed:
        if id(p.citation) not in doc.comma_form:
            continue
        while position < len(doc.fulls) and doc.fulls[position].core[0] < p.core[0]:
            full = doc.fulls[position].citation
            prior.add(doc.records[id(full)], doc.group_of[id(full)])
            position += 1
        volume, reporter, _ = canonical_parts(p.citation)
        antecedent = doc.antecedents.get(id(p.citation), (None, 0))[0]
        number = pick_group(doc, p.citation, prior.candidates(volume, reporter), antecedent)
        if number is not None:
            resolved_group[id(p.citation)] = number
