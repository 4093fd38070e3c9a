"""Find the case citations in a document and resolve short forms, "Id." and "supra" to their full citations.

eyecite finds the citations (`get_citations`) and resolves the references (`resolve_citations`, with the hooks
below); this module adds what a citation checker needs and eyecite does not give reliably:

- Speed: eyecite's tokenizer runs every matching reporter regex over the whole text and looks for reference
  citations after each full citation, so its cost grows faster than the text. The text is cut into chunks of about
  `CHUNK_CHARS` characters at paragraph breaks (else at a sentence end with no digit within 30 characters, so never
  inside a citation) and each chunk is parsed alone; resolution then runs once over the whole document, so short
  forms, "Id." and "supra" still reach back across chunks.
- Layout: PDF briefs on pleading paper carry line numbers 1-28 at the start of each line ("23 U.S. at 323" is line
  23 of "Celotex, 477 / U.S. at 323"). On every page where at least 8 lines start with numbers counting up by one or
  two, those numbers are blanked (`mask_line_numbers`); then every run of whitespace becomes one space (a newline
  where it holds a blank line), because eyecite matches "477 U.S. 242" only with single spaces (`flatten`, which
  keeps the offsets of the original text).
- Case name and year: eyecite 2.7.8's post-citation regex lets a court-less "(1896)" run on to a later year up to
  300 characters away, and its name finder can take words from the previous citation. The name is read here from
  the words right before the citation (`name_before`: back to a signal such as "See", a lower-case word, a sentence
  end or the previous citation), and the year from the first "(... YEAR)" after the citation and its pin cite,
  before the next citation (`year_after`).
- Parallel citations ("347 U.S. 483, 74 S. Ct. 686, 98 L. Ed. 873 (1954)") form one group: they share the case
  name and year, a short form may name any of them, and "Id." refers to the group (its pin cite is read against the
  first member, the official reporter in Bluebook order).
- Nominative reporters: "5 U.S. (1 Cranch) 137" and "1 Cranch 137" both become "5 U.S. 137"
  (`lexprobe.caselaw.citations.parse_citation`); the nominative half eyecite may also report is dropped.

Resolution (eyecite's `resolve_citations` with these hooks):

- a short form ("Celotex, 477 U.S. at 323", "1 Cranch, at 150", and "378 U.S., 485", which eyecite reads as a full
  citation) goes to an earlier full citation with the same volume and reporter after normalization; when several
  cases qualify, those whose name has the antecedent ("Celotex", or a full name before the short form), then the
  one whose first page is nearest below the pin cite, then its latest citation;
- "supra" goes to the latest earlier case whose name matches the antecedent and whose first 150 pages hold the pin
  cite ("McCulloch v. Maryland, supra, at 421"), else the latest case whose name matches;
- "Id." goes to what the previous citation resolved to when that was a case, unless its pin cite is not a page
  ("Id. ¶ 5") or precedes the first page or lies more than 150 pages after it (eyecite's own rule: such an "Id."
  refers to something else, a record or a statute); "Id. at *5" (a Westlaw screen) is kept.

An "Id." or "supra" that resolves to no case is not a case citation and is left out; an unresolved short form is
kept (it names a reporter) with `refers_to` None.
"""

from __future__ import annotations

import bisect
import logging
import re
from array import array
from collections.abc import Callable
from dataclasses import dataclass

from eyecite import get_citations, resolve_citations
from eyecite.helpers import get_court_by_paren
from eyecite.models import (
    CitationBase,
    FullCaseCitation,
    FullCitation,
    IdCitation,
    ShortCaseCitation,
    SupraCitation,
)

from lexprobe.caselaw.case_names import normalize_case_name
from lexprobe.caselaw.citations import parse_citation
from lexprobe.check.names import names_match

CHUNK_CHARS = 8_000
#: An "Id." whose pin cite lies further than this after the first page refers to something else (eyecite's rule).
MAX_ID_PIN_PAGES = 150

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

    @property
    def key(self) -> str | None:
        """The normalized "VOLUME REPORTER PAGE" of a full citation, or None."""
        if self.kind != FULL or not (self.volume and self.reporter and self.page):
            return None
        return f"{self.volume} {self.reporter} {self.page}"


# --- pleading-paper line numbers ---------------------------------------------------------------------------------

_PAGE_MARK = re.compile(r"^## Page \d+$", re.M)
_LEADING_NUMBER = re.compile(r"^( *)(\d{1,2})(?= |$)", re.M)
_MIN_NUMBERED_LINES = 8


def mask_line_numbers(text: str) -> str:
    """Return `text` with pleading-paper line numbers replaced by spaces (offsets unchanged).

    Per page ("## Page N" blocks of the PDF extraction; the whole text otherwise), the longest chain of lines that
    start with a number 1-32, each one or two more than the previous, is taken to be the line numbering when it
    has at least 8 lines.
    """
    bounds = [m.start() for m in _PAGE_MARK.finditer(text)]
    starts = [0, *bounds]
    ends = [*bounds, len(text)]
    masked = list(text) if bounds or _LEADING_NUMBER.search(text) else None
    if masked is None:
        return text
    for lo, hi in zip(starts, ends, strict=True):
        found = [(m.start(2), m.end(2), int(m.group(2))) for m in _LEADING_NUMBER.finditer(text, lo, hi)]
        found = [item for item in found if 1 <= item[2] <= 32]
        for start, end, _ in _longest_chain(found):
            masked[start:end] = " " * (end - start)
    return "".join(masked)


def _longest_chain(found: list[tuple[int, int, int]]) -> list[tuple[int, int, int]]:
    """Longest subsequence whose numbers rise by 1 or 2 each step; empty when shorter than the minimum."""
    if len(found) < _MIN_NUMBERED_LINES:
        return []
    length = [1] * len(found)
    previous = [-1] * len(found)
    for i, (_, _, n) in enumerate(found):
        for j in range(max(0, i - 6), i):  # the chain's previous line is one of the few lines before
            if 1 <= n - found[j][2] <= 2 and length[j] + 1 > length[i]:
                length[i], previous[i] = length[j] + 1, j
    best = max(range(len(found)), key=length.__getitem__)
    if length[best] < _MIN_NUMBERED_LINES:
        return []
    chain = []
    while best != -1:
        chain.append(found[best])
        best = previous[best]
    return chain[::-1]


# --- chunking ----------------------------------------------------------------------------------------------------


_SPACE_RUN = re.compile(r"\s+")


def flatten(text: str) -> tuple[str, array]:
    """Return `text` with every run of whitespace made one space (one newline where the run holds a blank line),
    and the offset in `text` of every character of the result.

    eyecite matches "477 U.S. 242" only with single spaces, so a citation broken across lines (or across a blanked
    line number) is found only in the flattened text.
    """
    pieces: list[str] = []
    mapping = array("l")
    position = 0
    for m in _SPACE_RUN.finditer(text):
        start, end = m.span()
        pieces.append(text[position:start])
        mapping.extend(range(position, start))
        pieces.append("\n" if text.count("\n", start, end) >= 2 else " ")
        mapping.append(start)
        position = end
    pieces.append(text[position:])
    mapping.extend(range(position, len(text)))
    return "".join(pieces), mapping


#: A sentence end to cut at: "...erred. The", not "U.S. 483", "Cir. 2000" or "4 Johns. Ch. 609" (no digit near it).
_SENTENCE_END = re.compile(r"[a-z]{2}[.;:] (?=[A-Z(\"“])")
_DIGIT = re.compile(r"\d")


def chunk_bounds(text: str, size: int = CHUNK_CHARS) -> list[tuple[int, int]]:
    """Cut `text` into pieces of at most about `size` characters, at a paragraph break, else a sentence end with no
    digit within 30 characters (so never inside a citation), else a space."""
    bounds = []
    start = 0
    while start < len(text):
        end = min(len(text), start + size)
        if end < len(text):
            low = start + size // 2
            cut = text.rfind("\n", low, end)
            if cut > 0:
                end = cut + 1
            else:
                cuts = [m.end() for m in _SENTENCE_END.finditer(text, low, end)]
                cuts = [c for c in cuts if not _DIGIT.search(text, max(0, c - 30), c + 30)]
                if cuts:
                    end = cuts[-1]
                elif (space := text.rfind(" ", low, end)) > 0:
                    end = space + 1
        bounds.append((start, end))
        start = end
    return bounds


# --- case names, years, history ----------------------------------------------------------------------------------

_NAME_CONNECTORS = frozenset(
    "of the and for de del la le du von van ex rel. rel v. vs. v vs et al. al on in to by upon & an a re "  # noqa: SIM905
    "d/b/a f/k/a n/k/a as".split()
)
_STOP_CAPITALIZED = frozenset(
    "see cf. cf accord compare but contra also quoting citing under because although since while when "  # noqa: SIM905
    "and where here moreover further furthermore thus therefore following applying accordingly finally "
    "similarly likely indeed notably yet so then hence only even unlike like after before until unless if "
    "whether that this these those neither nor both either not thereafter later today earlier recently "
    "instead rather again".split()
)
#: Capitalized words that end a sentence more often than they abbreviate a party ("... the Fourteenth Amendment.").
_SENTENCE_END_WORDS = frozenset(
    ["court.", "congress.", "constitution.", "amendment.", "act.", "states.", "clause.", "government.", "statute."]
)
_INITIAL = re.compile(r"^[A-Z]\.$")
_PARTY_FILLER = frozenset("v the of and united states state people company co inc corp ex rel in re".split())  # noqa: SIM905
_NOT_NAMES = frozenset("court congress id ibid see cf accord".split())  # noqa: SIM905
_CORPORATE_SUFFIXES = frozenset(
    "inc. inc ltd. ltd llc l.l.c. co. corp. n.a. p.c. llp l.l.p. l.p. lp plc s.a. ag gmbh".split()  # noqa: SIM905
)
_LETTER = re.compile(r"[A-Za-z]")
_WORD = re.compile(r"\S+")
_MAX_NAME_WORDS = 18
_HISTORY = re.compile(
    r"(?P<phrase>(?:cert\.|certiorari|aff'?d|aff’d|affirmed|rev'?d|rev’d|reversed|vacated|reh'?g|reh’g|rehearing|"
    r"appeal|dismissed|denied|granted|modified|remanded|abrogated|overruled|superseded|mem\.)"
    r"[^,;()\n]{0,60}),\s*$",
    re.I,
)


def _is_capitalized(word: str) -> bool:
    first = _LETTER.search(word)
    return first is not None and first.group().isupper() and not word[0].isdigit()


def name_before(text: str, start: int, floor: int) -> tuple[str, int] | None:
    """Return (case name, its start offset) written right before a full citation at `start`, or None.

    The name ends with the comma before the volume and starts after a signal ("See", "cf.", "But"), a lower-case
    word (a sentence: "the Court held in"), a sentence end, a semicolon or parenthesis, or `floor` (the end of the
    previous citation). "In re", "Ex parte", "Inc." after a comma and "No. 1" stay in the name.
    """
    lo = max(floor, start - 300)
    head = text[lo:start]
    comma = re.search(r",\s*$", head)
    if comma is None:
        return None
    paragraph = head.rfind("\n", 0, comma.start())
    words = list(_WORD.finditer(head, paragraph + 1, comma.start()))
    kept: list[re.Match[str]] = []
    seen_v = False
    kept_v = 0
    for m in reversed(words):
        word = m.group()
        lower = word.lower().rstrip(",")
        right = kept[-1].group().lower() if kept else ""
        if len(kept) >= _MAX_NAME_WORDS:
            break
        if word.endswith((";", ":", '"', "”", "“")) or word.startswith(("“", '"')):
            break
        bare = word.rstrip(".,")
        if (word.startswith("(") or bare.endswith((")", "]"))) and not re.fullmatch(r"\([^()]*\),?", word):
            break
        if not re.search(r"[A-Za-z0-9&]", word):
            break  # dot leaders, dashes, stray punctuation
        if lower in ("v.", "vs.", "v", "vs") and not seen_v:
            seen_v = True
            kept.append(m)
            kept_v = len(kept)
            continue
        if word[0].isdigit():
            left = _word_before(words, m)
            if left is None or not _is_capitalized(left) or left.endswith((")", ";", ",")):
                break
            kept.append(m)
            continue
        if word.endswith(","):
            right_word = kept[-1].group() if kept else ""
            listing = any(w.group() == "&" for w in kept[kept_v:]) if seen_v else False
            if seen_v and right not in _CORPORATE_SUFFIXES and not _INITIAL.match(right_word) and not listing:
                break  # "Atchison, Topeka & Santa Fe R. Co." and "Liberty Lobby, Inc." keep their commas
            if not seen_v and not kept:
                break
        if kept and word.endswith(".") and (lower in _SENTENCE_END_WORDS or re.fullmatch(r"[A-Z][a-z]{6,}\.", word)):
            break  # a sentence ends here: "Fourteenth Amendment. Nixon v. Herndon"
        if not _is_capitalized(word):
            if lower == "in" and right != "re":
                break  # "the Court in Nashville, C. & St. L. R. Co. v. Browning"
            if lower in _NAME_CONNECTORS:
                kept.append(m)
                continue
            break  # a lower-case word: the sentence around the name
        if lower.rstrip(".") in _STOP_CAPITALIZED or lower in _STOP_CAPITALIZED:
            break
        if lower == "in" and right != "re":
            break
        kept.append(m)
    while kept and not _is_capitalized(kept[-1].group()):
        kept.pop()  # a name starts with a capitalized word, never with "of" or "v."
    if not kept or (len(kept) == 1 and kept[0].group().lower().strip(".,") in _NOT_NAMES):
        return None  # "... decided by this Court, 364 U.S. 263"
    name_start = lo + kept[-1].start()
    name = " ".join(text[name_start : lo + comma.start()].split()).strip("*_")  # Markdown emphasis
    return (name, name_start) if name else None


def _word_before(words: list[re.Match[str]], m: re.Match[str]) -> str | None:
    index = next(i for i, w in enumerate(words) if w.start() == m.start())
    return words[index - 1].group() if index > 0 else None


_YEAR_PAREN = re.compile(
    r"(?:\s*,?\s*(?:at\s+)?[\d*][\d\s,\-–—&n.*]*?)?\s*(?:\[[^\[\]]{0,80}\]\s*)?\((?P<inner>[^()]{0,80}?)"
    r"(?P<year>1[6-9]\d\d|20\d\d)\s*\)"
)


def year_after(text: str, end: int, limit: int) -> tuple[int, str | None, int] | None:
    """Return (year, court id, end offset) of the "(court YEAR)" parenthetical right after a citation, or None.

    Only a pin cite (", 495", ", 322-23", " at 5 n.3") may come between the citation and the parenthetical, and the
    parenthetical must close before `limit` (the next citation).
    """
    m = _YEAR_PAREN.match(text, end, min(limit, end + 200))
    if m is None:
        return None
    inner = m.group("inner")
    court_text = re.sub(r"(?:Jan|Feb|Mar|Apr|May|June?|July?|Aug|Sept?|Oct|Nov|Dec)\.?\s*\d{0,2},?\s*$", "", inner)
    court = get_court_by_paren(court_text.strip()) if court_text.strip() else None
    return int(m.group("year")), court, m.end()


# --- extraction --------------------------------------------------------------------------------------------------


class _Parsed:
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


@dataclass(frozen=True)
class _Group:
    """The resource eyecite resolves the members of one parallel citation group to."""

    number: int


@dataclass(frozen=True)
class _Other:
    """The resource of a full citation that is not a case (a statute, a journal): an "Id." after it is not a case."""

    number: int


def _eyecite_pass(text: str, progress: ProgressCallback | None) -> list[_Parsed]:
    parsed: list[_Parsed] = []
    total = len(text)
    eyecite_log = logging.getLogger("eyecite")
    level = eyecite_log.level
    eyecite_log.setLevel(logging.ERROR)  # "Unknown overlap case" warnings are eyecite's own bookkeeping
    try:
        for start, end in chunk_bounds(text):
            chunk = text[start:end]
            if chunk.strip():
                parsed.extend(_Parsed(citation, start) for citation in get_citations(chunk))
            if progress is not None:
                progress(end, total)
    finally:
        eyecite_log.setLevel(level)
    return _drop_nested(parsed)


def _drop_nested(parsed: list[_Parsed]) -> list[_Parsed]:
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


def _canonical_parts(citation: CitationBase) -> tuple[str | None, str | None, str | None]:
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


_PIN_AFTER = re.compile(r",\s*(?:at\s+)?(\d{1,5}(?:\s*[-–—]\s*\d{1,5})?)(?=\s*(?:[.;)\]]|$))")
_COMMA_PAGE = re.compile(r"[A-Za-z.)\]],\s*\d+$")
_ANTECEDENT = re.compile(r"(?<![\w.'’])([A-Z][\w'’&-]*\.?),\s*$")


def _first_number(pin: str | None) -> int | None:
    """The first page of a pin cite ("at 322-23" -> 322); None for none, and for a star page ("*738": another
    reporter's page in CourtListener texts, or a Westlaw screen)."""
    if not pin:
        return None
    m = re.match(r"\s*(?:at\s+)?(\*\s*)?(\d+)", pin)
    return int(m.group(2)) if m and not m.group(1) else None


def extract_citations(text: str, progress: ProgressCallback | None = None) -> list[FoundCitation]:
    """Return the case citations of `text` in order: full citations, short forms, and the "Id." and "supra"
    references that resolve to a case. `progress(done, total)` is called after each chunk. Raises nothing."""
    if not text.strip():
        return []
    masked, mapping = flatten(mask_line_numbers(text))
    parsed = sorted(_eyecite_pass(masked, progress), key=lambda p: p.core[0])
    case_like = [
        p for p in parsed if isinstance(p.citation, (FullCaseCitation, ShortCaseCitation, IdCitation, SupraCitation))
    ]
    # "378 U. S., 485" is a short form without "at" (the Court's own style), though eyecite reads it as full.
    comma_form = {
        id(p.citation)
        for p in parsed
        if isinstance(p.citation, FullCaseCitation) and _COMMA_PAGE.search(p.citation.matched_text())
    }
    fulls = [p for p in parsed if isinstance(p.citation, FullCaseCitation) and id(p.citation) not in comma_form]

    # Parallel groups and, per group, the case name, year and history.
    group_of: dict[int, int] = {}  # id(citation) -> group number
    groups: list[list[_Parsed]] = []
    for p in fulls:
        previous = groups[-1][-1] if groups else None
        if previous is not None and re.fullmatch(r"\s*,\s*", masked[previous.tail : p.core[0]]):
            groups[-1].append(p)
        else:
            groups.append([p])
        group_of[id(p.citation)] = len(groups) - 1

    starts = [p.core[0] for p in parsed]
    years = []
    for members in groups:
        last = members[-1]
        following_index = bisect.bisect_left(starts, last.tail)
        following = starts[following_index] if following_index < len(starts) else len(masked)
        years.append(year_after(masked, last.tail, following))
    # The end of everything cited before each citation: its tail, and a group's year parenthetical.
    ends = sorted([p.tail for p in parsed] + [year[2] for year in years if year is not None])

    def floor_before(position: int) -> int:
        index = bisect.bisect_right(ends, position) - 1
        return ends[index] if index >= 0 else 0

    group_facts: list[dict] = []
    for number, members in enumerate(groups):
        first = members[0]
        floor = floor_before(first.core[0])
        found_name = name_before(masked, first.core[0], floor)
        history = None
        if found_name is None:
            window = masked[max(floor, first.core[0] - 80) : first.core[0]]
            m = _HISTORY.search(window)
            history = " ".join(m.group("phrase").split()) if m else None
        group_facts.append({"name": found_name, "year": years[number], "history": history})

    # Records for the full citations (index assigned after ordering everything).
    records: dict[int, dict] = {}
    for number, members in enumerate(groups):
        facts = group_facts[number]
        for position, p in enumerate(members):
            volume, reporter, page = _canonical_parts(p.citation)
            pin_text = p.citation.metadata.pin_cite
            if pin_text is None:  # eyecite misses a pin cite at a sentence's end ("347 U.S. 483, 495.")
                late = _PIN_AFTER.match(masked, p.core[1])
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
                "pin": _first_number(pin_text),
                "pin_text": pin_text,
                "group": number,
                "history": facts["history"],
            }

    # Resolution with eyecite's resolver and these hooks.
    def full_resource(citation: FullCitation):
        number = group_of.get(id(citation))
        return _Group(number) if number is not None else _Other(id(citation))

    def group_names(number: int) -> str:
        name = group_facts[number]["name"]
        return normalize_case_name(name[0]) if name else ""

    matched: dict[tuple[str, int], bool] = {}

    def antecedent_matches(antecedent: str, number: int) -> bool:
        """A short form's or supra's antecedent ("Celotex", "McCulloch v. Maryland") names this group's case."""
        words = set(normalize_case_name(antecedent).split())
        name = set(group_names(number).split())
        if not words or not name:
            return False
        if "v" not in words:
            return words <= name
        if not (words - _PARTY_FILLER) & name:
            return False  # no word in common: no need to compare names
        key = (antecedent, number)
        if key not in matched:
            matched[key] = names_match(antecedent, [group_facts[number]["name"][0]])[0]
        return matched[key]

    # The antecedent written before each short form and supra: a case name, else the word before the comma.
    antecedents: dict[int, tuple[str, int]] = {}
    for p in parsed:
        if isinstance(p.citation, (ShortCaseCitation, SupraCitation)) or id(p.citation) in comma_form:
            floor = max(floor_before(p.core[0]), p.core[0] - 150)
            named = name_before(masked, p.core[0], floor)
            if named is None:
                word = _ANTECEDENT.search(masked, max(floor, p.core[0] - 60), p.core[0])
                named = (word.group(1), word.start(1)) if word else None
            if named is not None:
                antecedents[id(p.citation)] = named

    def pick_group(short: CitationBase, prior: list[tuple[dict, int]], antecedent: str | None) -> int | None:
        """The group a short form refers to among the earlier full citations `prior` (record, group): those with
        its volume and reporter; among them the ones whose name has the antecedent; then those whose first page is
        nearest below the pin cite; then, when one first page is left, its latest citation."""
        volume, reporter, _ = _canonical_parts(short)
        pin = _first_number(short.metadata.pin_cite) or _first_number(short.groups.get("page"))
        candidates: dict[int, int] = {}  # group -> first page, in document order
        for record, number in prior:
            if (record["volume"], record["reporter"]) == (volume, reporter) and record["page"]:
                candidates[number] = int(record["page"])
        if antecedent:
            named = {g: p for g, p in candidates.items() if antecedent_matches(antecedent, g)}
            candidates = named or candidates
        if len(set(candidates.values())) > 1 and pin is not None:
            before = {g: p for g, p in candidates.items() if p <= pin}
            if before:
                best = max(before.values())
                candidates = {g: p for g, p in before.items() if p == best}
        return max(candidates) if len(set(candidates.values())) == 1 else None

    def short_resource(short: ShortCaseCitation, resolved):
        prior = [(records[id(full)], resource.number) for full, resource in resolved if isinstance(resource, _Group)]
        number = pick_group(short, prior, antecedents.get(id(short), (short.metadata.antecedent_guess, 0))[0])
        return _Group(number) if number is not None else None

    def supra_resource(supra: SupraCitation, resolved):
        antecedent = antecedents.get(id(supra), (None, 0))[0] or supra.metadata.antecedent_guess
        if not antecedent:
            return None
        pin = _first_number(supra.metadata.pin_cite)
        matches: list[int] = []
        for _, resource in reversed(resolved):
            fresh = isinstance(resource, _Group) and resource.number not in matches
            if fresh and antecedent_matches(antecedent, resource.number):
                matches.append(resource.number)
        if pin is not None:
            for number in matches:  # the latest case the pin cite fits ("McCulloch v. Maryland, supra, at 421")
                first = records[id(groups[number][0].citation)]["page"]
                if first and int(first) <= pin <= int(first) + MAX_ID_PIN_PAGES:
                    return _Group(number)
        return _Group(matches[0]) if matches else None

    def id_resource(citation: IdCitation, last, resolutions):
        if not isinstance(last, _Group):
            return None
        pin = _first_number(citation.metadata.pin_cite)
        if citation.metadata.pin_cite and pin is None and not re.match(r"\s*(?:at\s+)?\*", citation.metadata.pin_cite):
            return None  # "Id. ¶ 5", "Id. § 3": not a page of a case ("Id. at *5" is a Westlaw screen)
        first_page = records[id(groups[last.number][0].citation)]["page"]
        if pin is not None and first_page and not int(first_page) <= pin <= int(first_page) + MAX_ID_PIN_PAGES:
            return None
        return last

    resolutions = resolve_citations(
        [p.citation for p in parsed],
        resolve_full_citation=full_resource,
        resolve_shortcase_citation=short_resource,
        resolve_supra_citation=supra_resource,
        resolve_id_citation=id_resource,
    )
    resolved_group: dict[int, int] = {}
    for resource, cited in resolutions.items():
        if isinstance(resource, _Group):
            for citation in cited:
                resolved_group[id(citation)] = resource.number
    for p in parsed:
        if id(p.citation) in comma_form:
            prior = [(records[id(f.citation)], group_of[id(f.citation)]) for f in fulls if f.core[0] < p.core[0]]
            number = pick_group(p.citation, prior, antecedents.get(id(p.citation), (None, 0))[0])
            if number is not None:
                resolved_group[id(p.citation)] = number

    for p in case_like:
        citation = p.citation
        short_like = isinstance(citation, ShortCaseCitation) or id(citation) in comma_form
        if isinstance(citation, FullCaseCitation) and not short_like:
            continue
        number = resolved_group.get(id(citation))
        if number is None and not short_like:
            continue
        start, end = p.core[0], max(p.full[1], p.core[1])
        name = None
        if id(citation) in antecedents:
            name, start = antecedents[id(citation)]
        volume, reporter, _ = _canonical_parts(citation) if short_like else (None,) * 3
        pin_text = citation.metadata.pin_cite
        if short_like:
            pin_text = pin_text or citation.groups.get("page")
        records[id(citation)] = {
            "kind": SHORT if short_like else ID if isinstance(citation, IdCitation) else SUPRA,
            "span": (start, end),
            "volume": volume,
            "reporter": reporter,
            "page": None,
            "name": name,
            "year": None,
            "court": None,
            "pin": _first_number(pin_text),
            "pin_text": pin_text,
            "group": number,
            "history": None,
        }

    ordered = [p for p in case_like if id(p.citation) in records]
    index_of: dict[int, int] = {}
    found: list[FoundCitation] = []
    member_index: dict[tuple[int, str | None, str | None], int] = {}
    group_first: dict[int, int] = {}
    for i, p in enumerate(ordered):
        record = records[id(p.citation)]
        index_of[id(p.citation)] = i
        if record["kind"] == FULL:
            group_first.setdefault(record["group"], i)
            member_index.setdefault((record["group"], record["volume"], record["reporter"]), i)
    for i, p in enumerate(ordered):
        record = records[id(p.citation)]
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
                text=" ".join(masked[start:end].split()),
                refers_to=refers_to,
                **record,
            )
        )
    return found
