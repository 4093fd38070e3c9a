"""Find the case citations in a document and resolve short forms, "Id." and "supra" to their full citations
(docs/check.md, "What counts as a citation").

eyecite finds the citations (`lexprobe.caselaw.citations.eyecite_citations`) in chunks of about `CHUNK_CHARS`
characters cut where no citation can be (`lexprobe.check.layout`, which also blanks pleading-paper line numbers and
flattens whitespace with an offset map), and resolves the references once over the whole document with the hooks of
`lexprobe.check.resolve`. The case name, year, court and history of a full citation are read here from the words
around it (`lexprobe.check.context`), not taken from eyecite; parallel citations form one group; nominative
reporters are read as the U.S. Reports. An "Id." or "supra" that resolves to no case is left out; an unresolved
short form is kept with `refers_to` None."""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable
from dataclasses import dataclass

from eyecite.models import FullCaseCitation, IdCitation, ShortCaseCitation, SupraCitation

from lexprobe.caselaw.citations import eyecite_citations
from lexprobe.check.context import history_before, name_before, overruling_said, year_after
from lexprobe.check.layout import chunk_bounds, flatten, mask_line_numbers
from lexprobe.check.parentheticals import nesting
from lexprobe.check.pins import read_pin
from lexprobe.check.resolve import Extraction, Parsed, canonical_parts, first_number, resolve_groups

FULL, SHORT, ID, SUPRA = "full", "short", "id", "supra"

ProgressCallback = Callable[[int, int], None]  # (characters done, characters in all)


@dataclass(frozen=True)
class FoundCitation:
    """One case citation in a document, with what the document says about it.

    `span` is what a report quotes and highlights: for a full citation, from the case name (first member of a
    parallel group) through the pin cite, and the year parenthetical on the group's last member; for a short form,
    "Id." or "supra", eyecite's span (antecedent through pin cite). `refers_to` is, for a short form, "Id." or
    "supra", the index (in the extraction's list) of the full citation it resolves to, or None when unresolved.
    """

    index: int
    kind: str  # full | short | id | supra
    span: tuple[int, int]
    text: str  # the citation as written, whitespace collapsed, pleading line numbers removed
    volume: str | None  # normalized (nominative volumes mapped onto U.S.); None for Id. and supra
    reporter: str | None
    page: str | None  # first page of a full citation; None for short forms and slip cites ("576 U.S. ___")
    name: str | None  # case name before a full citation; the antecedent word of a short form or supra
    year: int | None
    court: str | None  # courts-db id read from the year parenthetical ("9th Cir. 2000" -> ca9)
    pin: int | None  # first pin page
    pin_text: str | None
    group: int | None  # parallel group of a full citation; the group a reference resolves to
    history: str | None  # subsequent-history phrase before a nameless full citation ("cert. denied")
    refers_to: int | None = None
    overruling_said: bool = False  # the document says, in the citation's sentence, that the case was overruled
    inside: int | None = None  # the citation whose parenthetical holds this one ("X (quoting Y)": Y's is X's index)

    @property
    def key(self) -> str | None:
        """The normalized "VOLUME REPORTER PAGE" of a full citation, or None."""
        if self.kind != FULL or not (self.volume and self.reporter and self.page):
            return None
        return f"{self.volume} {self.reporter} {self.page}"


# --- extraction --------------------------------------------------------------------------------------------------

_PIN_AFTER = re.compile(r",\s*(?:at\s+)?(\d{1,5}(?:\s*[-–—]\s*\d{1,5})?)(?=\s*(?:[.;)\]]|$))")
_COMMA_PAGE = re.compile(r"[A-Za-z.)\]],\s*\d+$")
_ANTECEDENT = re.compile(r"(?<![\w.'’])([A-Z][\w'’&-]*\.?),\s*$")
_CASE_LIKE = (FullCaseCitation, ShortCaseCitation, IdCitation, SupraCitation)


def _eyecite_pass(text: str, progress: ProgressCallback | None) -> list[Parsed]:
    parsed: list[Parsed] = []
    total = len(text)
    for start, end in chunk_bounds(text):
        parsed.extend(Parsed(citation, start) for citation in eyecite_citations(text[start:end]))
        if progress is not None:
            progress(end, total)
    return _drop_nested(parsed)


def _drop_nested(parsed: list[Parsed]) -> list[Parsed]:
    """Drop a full case citation inside another's span: the nominative half of "5 U.S. (1 Cranch) 137"."""
    full = sorted(p.core for p in parsed if isinstance(p.citation, FullCaseCitation))
    starts = [start for start, _ in full]
    kept = []
    for p in parsed:
        if isinstance(p.citation, FullCaseCitation):
            start, end = p.core
            # only spans starting at most ~60 characters earlier can hold this one
            low = bisect.bisect_left(starts, start - 60)
            high = bisect.bisect_right(starts, start)
            if any(full[i][1] >= end and full[i] != (start, end) for i in range(low, high)):
                continue
        kept.append(p)
    return kept


def _read_pins(text: str, parsed: list[Parsed], comma_form: set[int]) -> dict[int, str]:
    """The pin cite after each case citation as written (`lexprobe.check.pins.read_pin`: ranges with any dash,
    lists, footnotes, which eyecite misses), by id(citation); each citation's `tail` is moved past its pin."""
    pins: dict[int, str] = {}
    for p in parsed:
        citation = p.citation
        if isinstance(citation, IdCitation):
            kind = ID
        elif isinstance(citation, SupraCitation):
            kind = SUPRA
        elif isinstance(citation, ShortCaseCitation) or id(citation) in comma_form:
            kind = SHORT
        elif isinstance(citation, FullCaseCitation):
            kind = FULL
        else:
            continue
        read = read_pin(text, kind, p.core[0], p.core[1], citation.groups.get("reporter"))
        if read is not None:
            pins[id(citation)], end = read
            p.tail = max(p.tail, end)
    return pins


def _parallel_groups(text: str, fulls: list[Parsed]) -> tuple[list[list[Parsed]], dict[int, int]]:
    """Full citations separated by a comma only form one parallel group; returns the groups and id(citation) ->
    group number."""
    group_of: dict[int, int] = {}
    groups: list[list[Parsed]] = []
    for p in fulls:
        previous = groups[-1][-1] if groups else None
        if previous is not None and re.fullmatch(r"\s*,\s*", text[previous.tail : p.core[0]]):
            groups[-1].append(p)
        else:
            groups.append([p])
        group_of[id(p.citation)] = len(groups) - 1
    return groups, group_of


def _floor_before(ends: list[int], position: int) -> int:
    """The end of the last thing cited before `position` (0 when none)."""
    index = bisect.bisect_right(ends, position) - 1
    return ends[index] if index >= 0 else 0


def _group_facts(text: str, parsed: list[Parsed], groups: list[list[Parsed]]) -> tuple[list[dict], list[int]]:
    """Per group, the case name before its first member, the year after its last, the history phrase of a nameless
    group, and whether the document says next to it that the case was overruled (`context.overruling_said`); and the
    sorted ends of everything cited (tails and year parentheticals)."""
    starts = [p.core[0] for p in parsed]
    years = []
    followings = []
    for members in groups:
        last = members[-1]
        following_index = bisect.bisect_left(starts, last.tail)
        following = starts[following_index] if following_index < len(starts) else len(text)
        followings.append(following)
        years.append(year_after(text, last.tail, following))
    ends = sorted([p.tail for p in parsed] + [year[2] for year in years if year is not None])
    facts: list[dict] = []
    for number, members in enumerate(groups):
        first = members[0]
        floor = _floor_before(ends, first.core[0])
        found_name = name_before(text, first.core[0], floor)
        history = history_before(text, first.core[0], floor) if found_name is None else None
        start = found_name[1] if found_name else first.core[0]
        end = years[number][2] if years[number] else members[-1].tail
        said = overruling_said(text, start, end, floor, followings[number])
        facts.append({"name": found_name, "year": years[number], "history": history, "overruling_said": said})
    return facts, ends


def _full_records(
    text: str, groups: list[list[Parsed]], group_facts: list[dict], pins: dict[int, str]
) -> dict[int, dict]:
    """The record of every full case citation, by id(citation) (`pins`: the pin cites `_read_pins` read)."""
    records: dict[int, dict] = {}
    for number, members in enumerate(groups):
        facts = group_facts[number]
        for position, p in enumerate(members):
            volume, reporter, page = canonical_parts(p.citation)
            pin_text = pins.get(id(p.citation)) or p.citation.metadata.pin_cite
            if pin_text is None:  # eyecite misses a pin cite at a sentence's end ("347 U.S. 483, 495.")
                late = _PIN_AFTER.match(text, p.core[1])
                pin_text = late.group(1) if late else None
            start = facts["name"][1] if position == 0 and facts["name"] else p.core[0]
            end = p.tail
            if position == len(members) - 1 and facts["year"]:
                end = facts["year"][2]
            records[id(p.citation)] = {
                "kind": FULL,
                "span": (start, end),
                "volume": volume,
                "reporter": reporter,
                "page": page,
                "name": facts["name"][0] if facts["name"] else None,
                "year": facts["year"][0] if facts["year"] else None,
                "court": facts["year"][1] if facts["year"] else None,
                "pin": first_number(pin_text),
                "pin_text": pin_text,
                "group": number,
                "history": facts["history"],
                "overruling_said": facts["overruling_said"],
            }
    return records


def _antecedents(text: str, parsed: list[Parsed], comma_form: set[int], ends: list[int]) -> dict[int, tuple[str, int]]:
    """The antecedent written before each short form and supra: a case name, else the word before the comma."""
    antecedents: dict[int, tuple[str, int]] = {}
    for p in parsed:
        if isinstance(p.citation, (ShortCaseCitation, SupraCitation)) or id(p.citation) in comma_form:
            floor = max(_floor_before(ends, p.core[0]), p.core[0] - 150)
            named = name_before(text, p.core[0], floor)
            if named is None:
                word = _ANTECEDENT.search(text, max(floor, p.core[0] - 60), p.core[0])
                named = (word.group(1), word.start(1)) if word else None
            if named is not None:
                antecedents[id(p.citation)] = named
    return antecedents


def _reference_records(doc: Extraction, case_like: list[Parsed], resolved_group: dict[int, int]) -> None:
    """Add to `doc.records` the short forms, and the "Id." and "supra" references that resolved to a case."""
    for p in case_like:
        citation = p.citation
        short_like = isinstance(citation, ShortCaseCitation) or id(citation) in doc.comma_form
        if isinstance(citation, FullCaseCitation) and not short_like:
            continue
        number = resolved_group.get(id(citation))
        if number is None and not short_like:
            continue
        start, end = p.core[0], max(p.full[1], p.core[1], p.tail)
        name = None
        if id(citation) in doc.antecedents:
            name, start = doc.antecedents[id(citation)]
        volume, reporter, _ = canonical_parts(citation) if short_like else (None,) * 3
        pin_text = doc.pins.get(id(citation)) or citation.metadata.pin_cite
        if short_like:
            pin_text = pin_text or citation.groups.get("page")
        doc.records[id(citation)] = {
            "kind": SHORT if short_like else ID if isinstance(citation, IdCitation) else SUPRA,
            "span": (start, end),
            "volume": volume,
            "reporter": reporter,
            "page": None,
            "name": name,
            "year": None,
            "court": None,
            "pin": first_number(pin_text),
            "pin_text": pin_text,
            "group": number,
            "history": None,
        }


def _found(doc: Extraction, case_like: list[Parsed], text: str, mapping) -> list[FoundCitation]:
    """The records in document order as `FoundCitation`s, offsets mapped back to the original text; a reference
    refers to the member of its group with its volume and reporter, else the group's first member."""
    ordered = [p for p in case_like if id(p.citation) in doc.records]
    member_index: dict[tuple[int, str | None, str | None], int] = {}
    group_first: dict[int, int] = {}
    for i, p in enumerate(ordered):
        record = doc.records[id(p.citation)]
        if record["kind"] == FULL:
            group_first.setdefault(record["group"], i)
            member_index.setdefault((record["group"], record["volume"], record["reporter"]), i)
    position = {id(p.citation): i for i, p in enumerate(ordered)}
    found: list[FoundCitation] = []
    for i, p in enumerate(ordered):
        record = doc.records[id(p.citation)]
        host = doc.hosts.get(id(p.citation))
        while host is not None and id(host) not in position:  # a case citation inside a statute's parenthetical
            host = doc.hosts.get(id(host))
        refers_to = None
        if record["kind"] != FULL and record["group"] is not None:
            refers_to = member_index.get((record["group"], record["volume"], record["reporter"]))
            if refers_to is None:
                refers_to = group_first.get(record["group"])
        start, end = record.pop("span")
        found.append(
            FoundCitation(
                index=i,
                span=(mapping[start], mapping[end - 1] + 1),
                text=" ".join(text[start:end].split()),
                refers_to=refers_to,
                inside=position[id(host)] if host is not None else None,
                **record,
            )
        )
    return found


def extract_citations(text: str, progress: ProgressCallback | None = None) -> list[FoundCitation]:
    """Return the case citations of `text` in order: full citations, short forms, and the "Id." and "supra"
    references that resolve to a case. `progress(done, total)` is called after each chunk. Raises nothing."""
    if not text.strip():
        return []
    masked, mapping = flatten(mask_line_numbers(text))
    parsed = sorted(_eyecite_pass(masked, progress), key=lambda p: p.core[0])
    case_like = [p for p in parsed if isinstance(p.citation, _CASE_LIKE)]
    # "378 U. S., 485" is a short form without "at" (the Court's own style), though eyecite reads it as full.
    comma_form = {
        id(p.citation)
        for p in parsed
        if isinstance(p.citation, FullCaseCitation) and _COMMA_PAGE.search(p.citation.matched_text())
    }
    pins = _read_pins(masked, parsed, comma_form)
    fulls = [p for p in parsed if isinstance(p.citation, FullCaseCitation) and id(p.citation) not in comma_form]
    groups, group_of = _parallel_groups(masked, fulls)
    group_facts, ends = _group_facts(masked, parsed, groups)
    hosts = nesting(masked, [(p.core[0], p.tail) for p in parsed], paragraph="newline")
    doc = Extraction(
        parsed=parsed,
        fulls=fulls,
        comma_form=comma_form,
        groups=groups,
        group_of=group_of,
        group_facts=group_facts,
        records=_full_records(masked, groups, group_facts, pins),
        antecedents=_antecedents(masked, parsed, comma_form, ends),
        pins=pins,
        hosts={id(p.citation): parsed[h].citation for p, h in zip(parsed, hosts, strict=True) if h is not None},
    )
    _reference_records(doc, case_like, resolve_groups(doc))
    return _found(doc, case_like, masked, mapping)
