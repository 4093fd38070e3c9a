"""Find the case citations in a document and resolve short forms, "Id." and "supra" to their full citations
(docs/check.md, "What counts as a citation").

eyecite finds the citations (`lexprobe.caselaw.citations.eyecite_citations`) in chunks of about `CHUNK_CHARS`
characters cut where no citation can be (`chunk_bounds`, after `mask_line_numbers` blanks pleading-paper line
numbers and `flatten` collapses whitespace with an offset map), and resolves the references once over the whole
document with the hooks of `lexprobe.check.resolve`. The case name, year, court and history of a full citation are
read here from the words around it (`name_before`, `year_after`, `history_before`, `overruling_said`), not taken
from eyecite; parallel citations form one group; nominative reporters are read as the U.S. Reports. An "Id." or
"supra" that resolves to no case is left out; an unresolved short form is kept with `refers_to` None."""

from __future__ import annotations

import bisect
import re
from array import array
from collections.abc import Callable
from dataclasses import dataclass

from eyecite.helpers import get_court_by_paren
from eyecite.models import FullCaseCitation, IdCitation, ShortCaseCitation, SupraCitation

from lexprobe.caselaw.citations import eyecite_citations
from lexprobe.check.parentheticals import nesting
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


#: About how many characters eyecite parses at once (its cost grows faster than the text).
CHUNK_CHARS = 8_000

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
        if _stops_name(word):
            break
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
            if lower not in _NAME_CONNECTORS or (lower == "in" and right != "re"):
                break  # the sentence around the name: "the Court in Nashville, C. & St. L. R. Co. v. Browning"
            kept.append(m)
            continue
        if lower.rstrip(".") in _STOP_CAPITALIZED or lower in _STOP_CAPITALIZED or (lower == "in" and right != "re"):
            break
        kept.append(m)
    while kept and not _is_capitalized(kept[-1].group()):
        kept.pop()  # a name starts with a capitalized word, never with "of" or "v."
    if not kept or (len(kept) == 1 and kept[0].group().lower().strip(".,") in _NOT_NAMES):
        return None  # "... decided by this Court, 364 U.S. 263"
    name_start = lo + kept[-1].start()
    name = " ".join(text[name_start : lo + comma.start()].split()).strip("*_")  # Markdown emphasis
    return (name, name_start) if name else None


def _stops_name(word: str) -> bool:
    """A word no case name runs across: a quotation mark, a clause end, a parenthesis, punctuation alone."""
    if word.endswith((";", ":", '"', "”", "“")) or word.startswith(("“", '"')):
        return True
    bare = word.rstrip(".,")
    if (word.startswith("(") or bare.endswith((")", "]"))) and not re.fullmatch(r"\([^()]*\),?", word):
        return True
    return not re.search(r"[A-Za-z0-9&]", word)  # dot leaders, dashes, stray punctuation


def _word_before(words: list[re.Match[str]], m: re.Match[str]) -> str | None:
    index = next(i for i, w in enumerate(words) if w.start() == m.start())
    return words[index - 1].group() if index > 0 else None


_YEAR_PAREN = re.compile(
    r"(?:\s*,?\s*(?:at\s+)?[\d*][\d\s,\-–—&n.*]*?)?\s*(?:\[[^\[\]]{0,80}\]\s*)?\((?P<inner>[^()]{0,80}?)"
    r"(?P<year>1[6-9]\d\d|20\d\d)\s*\)"
)


#: The Bluebook's abbreviations of the federal courts of appeals (and "2nd", "3rd"), read before eyecite's table.
_CIRCUIT = re.compile(
    r"^(?:(?P<number>1st|2d|2nd|3d|3rd|[4-9]th|1[01]th)|(?P<dc>D\.\s?C\.)|(?P<fed>Fed\.))\s*Cir\.?$", re.I
)


def circuit_court(text: str) -> str | None:
    """The courts-db id of a federal circuit as a parenthetical names it ("3d Cir." -> "ca3"), or None."""
    m = _CIRCUIT.match(text.strip())
    if m is None:
        return None
    if m.group("dc"):
        return "cadc"
    if m.group("fed"):
        return "cafc"
    return "ca" + re.match(r"\d+", m.group("number")).group()


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
    court = circuit_court(court_text) or (get_court_by_paren(court_text.strip()) if court_text.strip() else None)
    return int(m.group("year")), court, m.end()


def history_before(text: str, start: int, floor: int) -> str | None:
    """Return the subsequent-history phrase ("cert. denied", "aff'd") ending with a comma right before a nameless full
    citation at `start` (looking back 80 characters, not before `floor`), whitespace collapsed, or None."""
    m = _HISTORY.search(text[max(floor, start - 80) : start])
    return " ".join(m.group("phrase").split()) if m else None


_OVERRULING_WORD = re.compile(r"\b(?:overrul\w*|abrogat\w*)", re.I)
_NEGATION = re.compile(r"\b(?:not|never|n['’]t)\s+(?:(?:yet|since|been|expressly|explicitly)\s+){0,2}$", re.I)
#: A sentence end, not after "v." or an initial ("Brown v. Board", "J. Smith").
_SENTENCE_BREAK = re.compile(r"(?<!\bv)(?<!\bvs)(?<!\b[A-Z])[.!?][\"”’)]*\s+(?=[\"“(]?[A-Z])")
#: How far before and after a citation the document's own word of its overruling is looked for.
OVERRULING_WINDOW = 200


def overruling_said(text: str, start: int, end: int, floor: int, limit: int) -> bool:
    """Whether the document says, in the citation's own sentence, that the case cited at `text[start:end]` (its name
    through its year parenthetical) was overruled or abrogated: as subsequent history ("..., overruled by X", "...,
    overruled on other grounds by X", "(abrogated by X)") or in the sentence around it ("X ... was overruled in
    1954", "the since-overruled decision in X"). Looked for after the previous citation (`floor`) and before the next
    one (`limit`), at most `OVERRULING_WINDOW` characters each side; "not overruled", "never been overruled" do not
    count."""
    before = text[max(floor, start - OVERRULING_WINDOW) : start]
    breaks = list(_SENTENCE_BREAK.finditer(before))
    if breaks:
        before = before[breaks[-1].end() :]
    after = text[end : max(end, min(limit, end + OVERRULING_WINDOW))]
    first_break = _SENTENCE_BREAK.search(after)
    if first_break is not None:
        after = after[: first_break.start() + 1]
    return any(
        not _NEGATION.search(piece[: m.start()]) for piece in (before, after) for m in _OVERRULING_WORD.finditer(piece)
    )


# --- pin cites, in the forms briefs write them (docs/check.md, "Pages") --------------------------------------------

_PAGE = r"\*?\d{1,5}(?!\s*[A-Z][A-Za-z]{0,5}\.)"  # a page, not the volume of a parallel cite ("74 S. Ct. 686")
_RANGE = rf"{_PAGE}(?:\s*[-–—]\s*\*?\d{{1,5}})?"
_NOTE = r"(?:,?\s*(?:and\s+|&\s*)?nn?\.\s*\d{1,4}(?:\s*(?:[-–—,&]|and)\s*\d{1,4})*)"
_BODY = rf"(?P<pin>{_RANGE}(?:\s*,\s*(?:and\s+|&\s*)?{_RANGE}(?!\s*[A-Z]))*{_NOTE}?)(?![\w-])"
#: The pin after each kind of citation, read from where the citation's reporter (or "Id.", "supra") ends.
_AFTER_FULL = re.compile(rf"\s?,\s*(?:at\s+)?(?:pp?\.\s*)?{_BODY}")  # "72, 85", the texts' "72 , 85"
_AFTER_SHORT = re.compile(rf"(?:\s?,\s*(?:at\s+)?|\s+at\s+)(?:pp?\.\s*)?{_BODY}")
_AFTER_REFERENCE = re.compile(rf"\s?,?\s*(?:at\s+|pp?\.\s*)(?:pp?\.\s*)?{_BODY}")
_REFERENCE_WORD = re.compile(r"(?:ibid|id|supra)\.?", re.I)
_NUMBERS = re.compile(r"(\*?)(\d{1,5})(?:\s*[-–—]\s*(\d{1,5}))?")


def read_pin(text: str, kind: str, start: int, end: int, reporter: str | None = None) -> tuple[str, int] | None:
    """The pin cite written after a citation whose core (eyecite's span) is `text[start:end]`, as written ("641-42,
    644 n. 3"), and where it ends; or None. `kind`: "full" (the pin follows the core after a comma), "short" (after
    the `reporter` within the core), "id" or "supra" (after the word, with "at" or "p.")."""
    if kind == "full":
        found = _AFTER_FULL.match(text, end)
    elif kind == "short":
        at = text.find(reporter, start, end + 1) if reporter else -1
        found = _AFTER_SHORT.match(text, at + len(reporter)) if reporter and at >= 0 else None
    else:
        word = _REFERENCE_WORD.search(text, start, min(len(text), end + 8))
        found = _AFTER_REFERENCE.match(text, word.end()) if word else None
    return (found.group("pin"), found.end("pin")) if found else None


def pin_ranges(pin_text: str | None) -> list[tuple[int, int]]:
    """The page ranges of a pin cite: "641-42, 644 n. 3" -> [(641, 642), (644, 644)]; a shortened end takes the
    first page's leading digits ("641-42" -> 642); footnotes count as their page; star pages are left out."""
    if not pin_text:
        return []
    body = re.split(r",?\s*(?:and\s+|&\s*)?nn?\.", pin_text, maxsplit=1)[0]
    ranges = []
    for star, first, last in _NUMBERS.findall(body):
        if star:
            continue
        head = int(first)
        tail = head
        if last:
            tail = int(first[: len(first) - len(last)] + last) if len(last) < len(first) else int(last)
            tail = max(tail, head)
        ranges.append((head, tail))
    return ranges


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
    """The pin cite after each case citation as written (`read_pin`: ranges with any dash,
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
