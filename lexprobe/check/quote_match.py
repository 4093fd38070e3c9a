"""Find a quotation in the opinion texts of a case (`OpinionTexts.opinions_of`, from the case database's
`opinions` table) after `lexprobe.check.quote_text` normalization.

Each segment of the quotation (the pieces between ellipses and bracketed insertions) is first looked for exactly,
in order, each within `SEGMENT_WINDOW` letters of the previous one; failing that, rapidfuzz's
`fuzz.partial_ratio_alignment` finds the closest passage of each segment (the first `FUZZY_LETTERS` letters of
it, to bound the work), and the quotation counts as found with a change when every segment scores at least
`ALTERED_SCORE`. Where a case has its opinions both as one combined text and as separate opinions (lead,
concurrence, dissent), the separate ones are searched, so a passage of a dissent is known as one; where it has the
combined text and the opinion of the Court alone but no separate opinion, the combined text is searched after the
Court's opinion (`Opinion.rest`): a passage found there is the Court's when the Court's opinion has it too, give or
take its transcription (`court_or_separate`), and else in a separate opinion whose author is not known.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

from rapidfuzz import fuzz
from rapidfuzz.distance import Levenshtein

from lexprobe.caselaw.query import CaseDatabase
from lexprobe.check.quote_text import Normalized, PageMarks, normalize, page_marks

#: Letters allowed between two segments of one quotation found exactly (an ellipsis may omit a page or two).
SEGMENT_WINDOW = 6_000
#: Letters of a segment given to the fuzzy matcher.
FUZZY_LETTERS = 400
#: A segment at least this similar (0-100) is found with a change ("altered").
ALTERED_SCORE = 88.0
#: Segments shorter than this (letters) must be found exactly: a fuzzy match of a few words proves nothing.
MIN_FUZZY_LETTERS = 40
#: At most this many exact occurrences of the first segment are tried.
MAX_OCCURRENCES = 50
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
    rest: bool = False  # the combined text of a case whose opinion of the Court is also held alone

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

    def _read(self, case_id: str) -> tuple[Opinion, ...]:
        rows = self.db.conn.execute(
            "SELECT opinion_id, opinion_type, is_majority, author, text FROM opinions WHERE case_id = ? AND text != ''"
            " ORDER BY is_majority DESC, opinion_id",
            (case_id,),
        ).fetchall()
        first_page = _first_page(case_id)
        split = [row for row in rows if row[1] != "combined"]
        combined = [row for row in rows if row[1] == "combined"]
        court_only = bool(split) and all(row[1] in MAJORITY_TYPES for row in split)
        opinions = [
            Opinion(str(row[0]), case_id, row[1], bool(row[2]), row[3], row[4], normalize(row[4]),
                    page_marks(row[4], first_page))
            for row in (split if split else rows)
        ]  # fmt: skip
        if court_only and combined and opinions:
            opinions.append(_whole_combined(combined[0], case_id, first_page))
        return tuple(opinions)

    def only_combined(self, case_id: str) -> bool:
        """Whether the case's opinions are one combined text (majority and separate opinions not told apart)."""
        opinions = self.opinions_of(case_id)
        return bool(opinions) and all(opinion.opinion_type == "combined" for opinion in opinions)


def _whole_combined(row: tuple, case_id: str, first_page: int | None) -> Opinion:
    """The combined text of a case whose Court's opinion is also held alone, as `rest` (see `court_or_separate`)."""
    return Opinion(str(row[0]), case_id, "combined", False, None, row[4], normalize(row[4]),
                   page_marks(row[4], first_page), rest=True)  # fmt: skip


def court_or_separate(match: Match, opinions: Sequence[Opinion]) -> Match:
    """A match in a case's combined text (`rest`) is the Court's when the Court's opinion held alone has the same
    passage, give or take its transcription (at least `ALTERED_SCORE` similar), and a separate opinion's otherwise;
    the combined text's parts are not in a fixed order (an appendix may follow the dissents)."""
    if not match.opinion.rest:
        return match
    court = next((opinion for opinion in opinions if opinion.is_majority and not opinion.rest), None)
    if court is None:
        return match
    letters = normalize(match.opinion.text[match.span[0] : match.span[1]]).letters[:FUZZY_LETTERS]
    if letters and fuzz.partial_ratio(letters, court.normalized.letters, score_cutoff=ALTERED_SCORE):
        as_court = replace(match.opinion, rest=False, is_majority=True, author=court.author)
        return Match(as_court, match.span, match.score, match.exact)
    return match


def _first_page(case_id: str) -> int | None:
    """The first page of a "scotus:347_U.S._483" case id, or None."""
    tail = case_id.rsplit("_", 1)[-1]
    return int(tail) if tail.isdigit() else None


def _exact(segments: Sequence[str], letters: str) -> tuple[int, int] | None:
    """The letter span of all segments found exactly, in order, each close to the previous one; each segment is
    then moved to its last occurrence before the next one, so that a short first piece ("[b]ecause . . . trial by
    jury") starts the span where the quoted passage starts, not at an earlier "because" (its page is the pin's)."""
    start = letters.find(segments[0])
    tries = 0
    while start >= 0 and tries < MAX_OCCURRENCES:
        tries += 1
        end = start + len(segments[0])
        positions = [start]
        for segment in segments[1:]:
            found = letters.find(segment, end, end + SEGMENT_WINDOW + len(segment))
            if found < 0:
                break
            positions.append(found)
            end = found + len(segment)
        else:
            for index in range(len(segments) - 2, -1, -1):
                positions[index] = letters.rfind(segments[index], positions[index], positions[index + 1])
            return positions[0], end
        start = letters.find(segments[0], start + 1)
    return None


def _fuzzy(segments: Sequence[str], letters: str) -> tuple[float, tuple[int, int]] | None:
    """The length-weighted similarity of the segments' closest passages and the span from the first to the last."""
    total = 0.0
    weight = 0
    first = last = None
    for segment in segments:
        needle = segment[:FUZZY_LETTERS]
        found = fuzz.partial_ratio_alignment(needle, letters, score_cutoff=50)
        if found is None:
            return None
        score = found.score if len(segment) <= FUZZY_LETTERS else found.score * 0.98
        total += score * len(needle)
        weight += len(needle)
        start = found.dest_start
        end = found.dest_end + (len(segment) - len(needle))
        first = start if first is None else min(first, start)
        last = end if last is None else max(last, end)
    if first is None or last is None or weight == 0:
        return None
    return total / weight, (first, min(last, len(letters)))


def find_exact(segments: Sequence[str], opinions: Sequence[Opinion]) -> Match | None:
    """The first opinion of `opinions` holding every segment exactly, in order, as a match; else None."""
    for opinion in opinions:
        span = _exact(segments, opinion.normalized.letters)
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
    fuzzy_allowed = sum(len(segment) for segment in segments) >= MIN_FUZZY_LETTERS
    for opinion in opinions:
        found = _fuzzy(segments, opinion.normalized.letters)
        if found is None:
            continue
        score, span = found
        match = Match(opinion, opinion.normalized.original_span(*span), score, False)
        if best is None or score > best.score + (0 if opinion.is_separate else -0.01):
            best = match
    if best is not None and fuzzy_allowed and best.score >= ALTERED_SCORE:
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
