"""A quotation not in the case it is attributed to, looked for in every opinion of the offline corpus.

The case database holds a word index of every opinion text (`lexprobe.caselaw.opinion_index`, SQLite FTS5, built
with the database). For a quotation of at least `MIN_CORPUS_LETTERS` letters (a few words prove nothing: "due
process of law" is everywhere), the words of its longest piece between gaps (`quote_text.quote_segments`) are
looked up in the index's word counts; the `QUERY_WORDS` rarest (at least three letters, in at least one opinion)
are asked for together, and the opinions holding them all (at most `MAX_CANDIDATES`, in at most
`MAX_CANDIDATE_CASES` cases other than the cited one) are the candidates. Each candidate case's opinions (its split
parts included: `quote_match.OpinionTexts`) are then searched with the exact matcher, `quote_match.find_exact`, so a
word index hit is never taken for a quotation: the pieces must all be there, in order. When no candidate holds it
and the piece has more words, the next `QUERY_WORDS` rarest are asked for once more (a word of the quotation may be
cut in the opinion text by a star page mark or a line-end hyphen, and then the index does not have it whole).

Of the cases that hold the quotation, the earliest decided is named (a passage quoted by later opinions is the
earlier case's words); `others` says how many more hold it. Cost: two or three indexed SQLite queries and the
normalization of a few candidate cases (kept with the cited cases' in `OpinionTexts`' cache).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from lexprobe.caselaw.opinion_index import opinions_with_words, word_counts
from lexprobe.caselaw.query import CaseDatabase
from lexprobe.caselaw.stored import Case
from lexprobe.check.quote_match import Match, OpinionTexts, find_exact

#: A quotation of fewer letters is not looked for outside the cases the document cites.
MIN_CORPUS_LETTERS = 40
#: Words asked of the index together (the rarest first), and how many times (each time the next rarest).
QUERY_WORDS = 4
QUERIES = 2
#: Opinions the index may name for one query, and distinct cases among them searched.
MAX_CANDIDATES = 40
MAX_CANDIDATE_CASES = 10

_WORD = re.compile(r"[^\W\d_]+")


@dataclass(frozen=True)
class CorpusMatch:
    """Where in the corpus a quotation was found: the match, its case, and how many other cases hold it too."""

    match: Match
    case: Case | None
    others: int


class CorpusSearch:
    """Looks quotations up in the word index of the database's opinions (see the module docstring)."""

    def __init__(self, db: CaseDatabase, texts: OpinionTexts) -> None:
        self.db = db
        self.texts = texts
        self._opinions: int | None = None

    @property
    def opinions(self) -> int:
        """How many opinion texts the index covers (for the reason: what was searched)."""
        if self._opinions is None:
            (self._opinions,) = self.db.conn.execute("SELECT COUNT(*) FROM opinions WHERE text != ''").fetchone()
        return self._opinions

    @staticmethod
    def searches(segments: Sequence[str]) -> bool:
        """Whether a quotation of these segments is long enough to be looked for (`MIN_CORPUS_LETTERS`)."""
        return sum(len(segment) for segment in segments) >= MIN_CORPUS_LETTERS

    def find(self, quotation: str, segments: Sequence[str], cited_case_id: str | None) -> CorpusMatch | None:
        """The earliest case (not `cited_case_id`) whose opinions hold every segment of the quotation exactly, or
        None (also for a quotation under `MIN_CORPUS_LETTERS` letters)."""
        if not segments or not self.searches(segments):
            return None
        words = self._rarest(quotation, max(segments, key=len))
        for round_ in range(QUERIES):
            chosen = words[round_ * QUERY_WORDS : (round_ + 1) * QUERY_WORDS]
            if not chosen:
                break
            found = self._confirmed(chosen, segments, cited_case_id)
            if found:
                return self._earliest(found)
        return None

    def _rarest(self, quotation: str, piece: str) -> list[str]:
        """The words of `quotation` that lie in `piece` (the longest segment), in the index at least once, rarest
        first (longer first among equally rare ones)."""
        words = {}
        for word in _WORD.findall(quotation):
            lowered = word.lower()
            if len(lowered) >= 3 and lowered in piece:
                words.setdefault(_index_term(word), len(lowered))
        counts = word_counts(self.db.conn, words)
        return sorted(counts, key=lambda term: (counts[term], -words[term], term))

    def _confirmed(self, words: Sequence[str], segments: Sequence[str], cited_case_id: str | None) -> list[Match]:
        """The exact matches of the quotation in the candidate cases of one index query."""
        hits = opinions_with_words(self.db.conn, words, exclude_case=cited_case_id, limit=MAX_CANDIDATES)
        cases = list(dict.fromkeys(case_id for case_id, _ in hits))[:MAX_CANDIDATE_CASES]
        matches = []
        for case_id in cases:
            match = find_exact(segments, self.texts.opinions_of(case_id))
            if match is not None:
                matches.append(match)
        return matches

    def _earliest(self, matches: Sequence[Match]) -> CorpusMatch:
        """The match in the earliest decided case (by year, then case id), and how many others there are."""
        cases = self.db.get_cases(match.opinion.case_id for match in matches)

        def order(match: Match) -> tuple[int, str]:
            case = cases.get(match.opinion.case_id)
            year = case.year if case is not None and case.year else 9999
            return year, match.opinion.case_id

        first = min(matches, key=order)
        return CorpusMatch(first, cases.get(first.opinion.case_id), len(matches) - 1)


def _index_term(word: str) -> str:
    """A word as the index's tokenizer (FTS5 unicode61) keeps it: lower case, accents removed."""
    decomposed = unicodedata.normalize("NFKD", word.lower())
    return "".join(character for character in decomposed if not unicodedata.combining(character))
