"""Find a quotation in the opinion texts of a case (`OpinionTexts.opinions_of`, from the case database's
`opinions` and `opinion_parts` tables) with the one quotation matcher, `lexprobe.caselaw.quotations`: exactly in
some opinion first (`find_exact`), else the closest passage of each opinion (docs/check.md, "Every opinion of the
case": which texts and parts of a case are searched, and in which order). `CitationFree` holds the opinion texts with
their citation clauses blanked, in which a quotation whose citation says "(citations omitted)" or "(cleaned up)" is
looked for (docs/check.md, "What legal quoting allows")."""

from __future__ import annotations

import re
import weakref
from bisect import bisect_left
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

from rapidfuzz import fuzz
from rapidfuzz.distance import Levenshtein

from lexprobe.caselaw.opinion_index import part_spans, part_text
from lexprobe.caselaw.query import CaseDatabase
from lexprobe.caselaw.quotations import FUZZY_LETTERS, MATCH_THRESHOLD, close_enough, exact_span, fuzzy_span
from lexprobe.caselaw.quote_text import Normalized, PageMarks, normalize, page_marks
from lexprobe.check.extract import name_before
from lexprobe.check.parentheticals import clause_end

MAJORITY_TYPES = ("lead", "combined", "majority")
#: Cases whose normalized opinions are kept in memory at once (a brief quoting more re-reads the oldest).
CASES_KEPT = 256


@dataclass(frozen=True)
class Opinion:
    """One opinion text of a case, normalized, with its page marks."""

    opinion_id: str
    case_id: str
    opinion_type: str
    is_majority: bool
    author: str | None
    text: str
    normalized: Normalized
    marks: PageMarks
    rest: bool = False  # an unsplit combined text of a case whose opinion of the Court is also held alone
    part_of: str | None = None  # the opinion text (its opinion id) a part split from it comes from
    part_of_combined: bool = False  # ... and whether that text is the case's combined text

    @property
    def is_separate(self) -> bool:
        """A concurrence or dissent (not the Court's opinion); a passage of `rest` is one too."""
        return self.rest or (not self.is_majority and self.opinion_type not in MAJORITY_TYPES)


@dataclass(frozen=True)
class Match:
    """Where a quotation was found: the opinion, the original span, the similarity, and whether exactly."""

    opinion: Opinion
    span: tuple[int, int]
    score: float
    exact: bool

    @property
    def passage(self) -> str:
        """The matching passage as the opinion writes it (whitespace collapsed, at most 1,000 characters)."""
        text = self.opinion.text
        start, end = self.span
        while start > 0 and start > self.span[0] - 40 and text[start - 1].isalpha():
            start -= 1
        while end < len(text) and end < self.span[1] + 40 and text[end].isalpha():
            end += 1
        passage = " ".join(text[start:end].split())
        return passage if len(passage) <= 1000 else passage[:999] + "…"

    @property
    def pages(self) -> tuple[int, int] | None:
        """The first and last page the passage lies on, from the opinion's star paging, or None."""
        first = self.opinion.marks.page_at(self.span[0])
        last = self.opinion.marks.page_at(max(self.span[1] - 1, self.span[0]))
        return None if first is None or last is None else (first, last)


class OpinionTexts:
    """The opinions of cases, read once from the case database and kept normalized (a few cases at a time)."""

    def __init__(self, db: CaseDatabase) -> None:
        self.db = db
        self.opinions_of = lru_cache(maxsize=CASES_KEPT)(self._read)
        self.citation_free = CitationFree()  # kept with the texts: a warm process blanks each opinion once

    def _read(self, case_id: str) -> tuple[Opinion, ...]:
        rows = self.db.conn.execute(
            "SELECT opinion_id, opinion_type, is_majority, author, text FROM opinions WHERE case_id = ? AND text != ''"
            " ORDER BY is_majority DESC, opinion_id",
            (case_id,),
        ).fetchall()
        parts: dict[str, list[tuple]] = {}
        for part in self.db.conn.execute(
            "SELECT part_of, opinion_id, part, opinion_type, is_majority, author, spans FROM opinion_parts"
            " WHERE case_id = ? ORDER BY part_of, part",
            (case_id,),
        ):
            parts.setdefault(part[0], []).append(part)
        first_page = _first_page(case_id)
        files = [row for row in rows if row[1] != "combined"]
        court_only = bool(files) and all(row[1] in MAJORITY_TYPES for row in files)
        authors_of_files = [row[3] for row in files if row[1] not in MAJORITY_TYPES]  # separate opinion files
        authors = list(authors_of_files)  # of the separate opinions held, files and parts
        opinions: list[Opinion] = []
        for row in files + [row for row in rows if row[1] == "combined"]:  # files first: theirs is the text kept
            if row[0] in parts:
                kept = [part for part in parts[row[0]] if _wanted(part, row, bool(authors_of_files), authors)]
                authors += [part[5] for part in kept if part[2]]
                opinions.extend(_parts(row, kept, case_id, first_page))
            elif row[1] != "combined" or not files:
                opinions.append(_opinion(row, case_id, first_page))
            elif court_only:  # an unsplit combined text beside the Court's opinion alone
                opinions.append(_opinion(row, case_id, first_page, rest=True))
        # the Court's opinion first, files before parts, an unsplit combined text beside the Court's opinion last
        order = sorted(opinions, key=lambda opinion: (opinion.rest, not opinion.is_majority, bool(opinion.part_of)))
        return tuple(order)

    def only_combined(self, case_id: str) -> bool:
        """Whether the case's opinions are one combined text (majority and separate opinions not told apart)."""
        opinions = self.opinions_of(case_id)
        return bool(opinions) and all(opinion.opinion_type == "combined" for opinion in opinions)


_opinion_texts: weakref.WeakKeyDictionary[CaseDatabase, OpinionTexts] = weakref.WeakKeyDictionary()


def opinion_texts_for(db: CaseDatabase) -> OpinionTexts:
    """The (cached) `OpinionTexts` of an open case database: a process that checks many documents (the service,
    `lexprobe check` of several files) normalizes each case's opinions once, `CASES_KEPT` cases at a time."""
    texts = _opinion_texts.get(db)
    if texts is None:
        texts = _opinion_texts[db] = OpinionTexts(db)
    return texts


def _opinion(row: tuple, case_id: str, first_page: int | None, rest: bool = False) -> Opinion:
    """An opinion of the `opinions` table (a file, or a combined text searched whole)."""
    opinion_id, opinion_type, is_majority, author, text = row
    is_majority = bool(is_majority) and not rest
    return Opinion(str(opinion_id), case_id, opinion_type, is_majority, author, text, normalize(text),
                   page_marks(text, first_page), rest=rest)  # fmt: skip


def _wanted(part: tuple, row: tuple, separate_files: bool, authors: Sequence[str | None]) -> bool:
    """Whether a part is searched: a file's own opinion (its part 0) always; a combined text's majority part unless
    the case has separate opinion files beside the Court's (there the files are the case, as before the split;
    beside the Court's opinion alone it is a second transcription that may hold a passage as quoted where the file
    has a slip); another part unless an opinion by the same author is held already (so the same dissent is not
    searched twice)."""
    number, author = part[2], part[5]
    if number == 0:
        return row[1] != "combined" or not separate_files
    name = (author or "").casefold()
    return not name or not any(held and (name in held.casefold() or held.casefold() in name) for held in authors)


def _parts(row: tuple, parts: Sequence[tuple], case_id: str, first_page: int | None) -> list[Opinion]:
    """The parts of a combined text (`opinion_parts` rows), each with the page marks of its ranges of the text."""
    source_id, text = str(row[0]), row[4]
    marks = page_marks(text, first_page)
    opinions = []
    for _, opinion_id, _, opinion_type, is_majority, author, spans in parts:
        ranges = part_spans(spans)
        own = part_text(text, ranges)
        opinions.append(
            Opinion(str(opinion_id), case_id, opinion_type, bool(is_majority), author, own, normalize(own),
                    part_marks(marks, ranges), part_of=source_id, part_of_combined=row[1] == "combined")
        )  # fmt: skip
    return opinions


def part_marks(marks: PageMarks, ranges: Sequence[tuple[int, int]]) -> PageMarks:
    """The page marks of a part cut from a text with `marks` (its `ranges` joined by a blank line): each range
    starts on the page in effect there in the whole text, so a part whose first mark is "*496" is on 495 before
    it (or on whatever page the text was on when the part began)."""
    if not marks.offsets:
        return marks
    offsets: list[int] = []
    pages: list[int] = []
    base = 0
    for start, end in ranges:
        first, last = bisect_left(marks.offsets, start), bisect_left(marks.offsets, end)
        if first == last or marks.offsets[first] != start:  # no mark where the range starts: the page in effect
            offsets.append(base)
            page = marks.page_at(start)
            pages.append(page if page is not None else marks.pages[0])
        for at in range(first, last):
            offsets.append(base + marks.offsets[at] - start)
            pages.append(marks.pages[at])
        base += end - start + 2
    return PageMarks(offsets, pages, marks.first_page)


def court_or_separate(match: Match, opinions: Sequence[Opinion]) -> Match:
    """A match in a case's combined text (`rest`) is the Court's when the Court's opinion held alone has the same
    passage, give or take its transcription (at least `MATCH_THRESHOLD` similar), and a separate opinion's otherwise;
    the combined text's parts are not in a fixed order (an appendix may follow the dissents)."""
    if not match.opinion.rest:
        return match
    court = next((opinion for opinion in opinions if opinion.is_majority and not opinion.rest), None)
    if court is None:
        return match
    letters = normalize(match.opinion.text[match.span[0] : match.span[1]]).letters[:FUZZY_LETTERS]
    if letters and fuzz.partial_ratio(letters, court.normalized.letters, score_cutoff=MATCH_THRESHOLD):
        as_court = replace(match.opinion, rest=False, is_majority=True, author=court.author)
        return Match(as_court, match.span, match.score, match.exact)
    return match


def _first_page(case_id: str) -> int | None:
    """The first page of a "scotus:347_U.S._483" case id, or None."""
    tail = case_id.rsplit("_", 1)[-1]
    return int(tail) if tail.isdigit() else None


def find_exact(segments: Sequence[str], opinions: Sequence[Opinion]) -> Match | None:
    """The first opinion of `opinions` holding every segment exactly, in order, as a match; else None."""
    for opinion in opinions:
        span = exact_span(segments, opinion.normalized.letters)
        if span is not None:
            return Match(opinion, opinion.normalized.original_span(*span), 100.0, True)
    return None


def find_in(segments: Sequence[str], opinions: Sequence[Opinion]) -> tuple[Match | None, Match | None]:
    """The best exact-or-altered match in `opinions` (majority first) and, when there is none, the closest
    passage; segments must be non-empty."""
    exact = find_exact(segments, opinions)
    if exact is not None:
        return court_or_separate(exact, opinions), None
    best: Match | None = None
    for opinion in opinions:
        found = fuzzy_span(segments, opinion.normalized.letters)
        if found is None:
            continue
        score, span = found
        match = Match(opinion, opinion.normalized.original_span(*span), score, False)
        # a higher score wins; on a tie the Court's opinion over a separate one, else the first (files first)
        if (
            best is None
            or score > best.score
            or (score > best.score - 0.01 and best.opinion.is_separate and not opinion.is_separate)
        ):
            best = match
    if best is not None and close_enough(best.score, segments):
        return court_or_separate(best, opinions), None
    return None, best


def word_difference(quotation: str, passage: str, limit: int = 5, gaps: bool = False) -> str:
    """The changed words between the quotation and the passage, as '“held” for “said”' items (rapidfuzz's
    Levenshtein opcodes over the words); with `gaps` (the quotation marks omissions), passage words the quotation
    leaves out are not listed."""
    quoted = [w for w in ("".join(c for c in word if c.isalpha()).lower() for word in quotation.split()) if w]
    found = [w for w in ("".join(c for c in word if c.isalpha()).lower() for word in passage.split()) if w]
    changes = []
    opcodes = list(Levenshtein.opcodes(found, quoted))
    while opcodes and opcodes[0].tag == "delete":
        opcodes.pop(0)  # passage words before the quotation begins (the fuzzy span is approximate)
    while opcodes and opcodes[-1].tag == "delete":
        opcodes.pop()
    for op in opcodes:
        if op.tag == "equal":
            continue
        was = " ".join(found[op.src_start : op.src_end])
        now = " ".join(quoted[op.dest_start : op.dest_end])
        if op.tag == "replace":
            changes.append(f"“{now}” for “{was}”")
        elif op.tag == "insert":
            changes.append(f"“{now}” added")
        elif not gaps:
            changes.append(f"“{was}” left out")
    if not changes:
        return "the same words, joined differently"
    more = f" and {len(changes) - limit} more" if len(changes) > limit else ""
    return "; ".join(changes[:limit]) + more


#: Opinions kept with their citations blanked (each costs one pass of regular expressions over its text).
OPINIONS_KEPT = 64
_SIGNAL_BEFORE = re.compile(
    r"(?:\b(?:see(?:,?\s+e\.\s?g\.,?)?(?:\s+also)?|cf\.|accord|compare|but\s+see|but\s+cf\.|e\.\s?g\.,?|quoting|"
    r"citing)[\s,]*)+$",
    re.I,
)


#: A citation in an opinion's text: volume, reporter and page (pin cites and years are read by `clause_end`), or a
#: reference ("Id., at 5", "ibid.", "Wolf, supra, at 28").
_CITATION_LIKE = re.compile(
    r"\b(?P<volume>\d{1,4})\s+(?:U\.\s?S\.|S\.\s?Ct\.|L\.\s?Ed\.(?:\s?2d)?|F\.\s?Supp\.(?:\s?[23]d)?|F\.(?:\s?(?:2d|3d|4th))?|"
    r"Wall\.|Wheat\.|How\.|Pet\.|Cranch|Dall\.|Black|[A-Z][A-Za-z]{0,10}\.(?:\s?[A-Z][A-Za-z]{0,10}\.){0,3}(?:\s?[23]d)?)"
    r"(?:\s*\([^()]{1,30}\))?(?:\s+|,\s*at\s+|\s+at\s+)\d{1,5}\b"
    r"|\b(?:[Ii]d|[Ii]bid)\.(?:,?\s*at\s+\d{1,5})?"
    r"|\b[A-Z][\w.'’&-]*(?:\s+v\.\s+[A-Z][\w.'’&-]*)?,\s+supra(?:,\s*(?:at\s+|pp?\.\s*)\d{1,5})?"
)

#: Pin cites after a citation ("210", "at 210-211", "210, n. 5", "pp. 3, 5").
_PIN = re.compile(
    r"(?:\s*,\s*(?:at\s+)?(?:pp?\.\s*)?\d{1,5}(?:\s*[-–—]\s*\d{1,5})?(?:,?\s*(?:and\s+|&\s*)?nn?\.\s*\d{1,4})?)*"
)


class CitationFree:
    """Opinion texts with their citation clauses blanked, computed once per opinion (the latest `OPINIONS_KEPT`)."""

    def __init__(self) -> None:
        self._kept: OrderedDict[tuple[str, str], Opinion] = OrderedDict()

    def of(self, opinion: Opinion) -> Opinion:
        """`opinion` with its citations blanked (same text, offsets and page marks; other normalized letters)."""
        key = (opinion.case_id, opinion.opinion_id)
        if key in self._kept:
            self._kept.move_to_end(key)
            return self._kept[key]
        blanked = replace(opinion, normalized=normalize(blank_citations(opinion.text)))
        self._kept[key] = blanked
        if len(self._kept) > OPINIONS_KEPT:
            self._kept.popitem(last=False)
        return blanked

    def find(self, segments: Sequence[str], opinions: Sequence[Opinion]) -> Match | None:
        """The quotation's segments found exactly in `opinions` once their citations are left out, or None."""
        free = [self.of(opinion) for opinion in opinions]
        match = find_exact(segments, free)
        return court_or_separate(match, free) if match is not None else None


def blank_citations(text: str) -> str:
    """`text` with each citation clause replaced by spaces: a reporter citation ("385 U. S. 206, 210", "74 S. Ct.
    686") with the case name before it (`lexprobe.check.extract.name_before`) and the signal before that, its pin
    cite, year and parentheticals (`parentheticals.clause_end`); "Id., at 5", "ibid.", "X, supra, at 5". Read with
    regular expressions in one pass (an opinion of 200 pages in milliseconds), not with eyecite."""
    characters = list(text)
    floor = 0
    for match in _CITATION_LIKE.finditer(text):
        start = match.start()
        if match.group("volume"):
            named = name_before(text, start, max(floor, start - 300))
            start = named[1] if named else start
        lead = _SIGNAL_BEFORE.search(text, max(floor, start - 30), start)
        start = lead.start() if lead else start
        end = clause_end(text, _PIN.match(text, match.end()).end())
        characters[start:end] = " " * (end - start)
        floor = end
    return "".join(characters)
