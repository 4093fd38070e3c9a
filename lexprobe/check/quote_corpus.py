"""A quotation not in the case it is attributed to, looked for in every opinion of the offline corpus
(docs/check.md, "Other cases"): the rarest runs of `RUN_WORDS` words of the quotation are asked of the database's
word index (`lexprobe.caselaw.opinion_index`), and the candidate cases' opinions are searched with the exact
matcher (`quote_match.find_exact`), so an index hit is never taken for the quotation. The earliest case that holds
it is named; a later case that holds the words only inside its own quotation marks quotes them (`quotes_it`)."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from lexprobe.caselaw.opinion_index import opinions_with_phrases, word_counts
from lexprobe.caselaw.query import CaseDatabase
from lexprobe.caselaw.stored import Case
from lexprobe.check.quote_match import Match, OpinionTexts, find_exact

#: A quotation of fewer letters is not looked for outside the cases the document cites.
MIN_CORPUS_LETTERS = 40
#: Words in a row asked of the index as one phrase, and how many such runs are asked for at once.
RUN_WORDS = 6
RUNS = 3
#: Opinions the index may name for one quotation, and distinct cases among them searched.
MAX_CANDIDATES = 40
MAX_CANDIDATE_CASES = 10
#: Words of a quotation read for its runs (a long block quotation needs no more to be found).
MAX_WORDS = 300

_WORD = re.compile(r"[^\W_]+")
_EDITORIAL = re.compile(r"\([^()]{0,80}\)")
_ONE_LETTER = re.compile(r"\[([A-Za-z])\]")
_GAP = re.compile(r"(?:\.\s*){3,}|…|\[[^\]\[]{0,200}\]")


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

    def find(
        self, quotation: str, segments: Sequence[str], cited_case_id: str | None, cited_year: int | None = None
    ) -> tuple[CorpusMatch | None, int]:
        """The earliest case (not `cited_case_id`) whose opinions hold every segment of the quotation exactly, or
        None (also for a quotation under `MIN_CORPUS_LETTERS` letters); and how many cases decided after
        `cited_year` hold it only inside their own quotation marks (they quote it, maybe from the cited case: they
        are not named)."""
        if not segments or not self.searches(segments):
            return None, 0
        runs = self._runs(word_pieces(quotation))
        if not runs:
            return None, 0
        hits = opinions_with_phrases(self.db.conn, runs, exclude_case=cited_case_id, limit=MAX_CANDIDATES)
        matches = []
        for case_id in list(dict.fromkeys(case_id for case_id, _ in hits))[:MAX_CANDIDATE_CASES]:
            match = find_exact(segments, self.texts.opinions_of(case_id))
            if match is not None:
                matches.append(match)
        if not matches:
            return None, 0
        cases = self.db.get_cases(match.opinion.case_id for match in matches)
        years = {case_id: case.year for case_id, case in cases.items()}
        kept = [match for match in matches if not quotes_it(match, years.get(match.opinion.case_id), cited_year)]
        return (self._earliest(kept, cases) if kept else None), len(matches) - len(kept)

    def _runs(self, pieces: list[list[str]]) -> list[list[str]]:
        """The `RUNS` runs of words to ask for: those whose most common word is rarest in the index, not
        overlapping; a run with a word no opinion holds is left out."""
        counts = word_counts(self.db.conn, {word for piece in pieces for word in piece})
        scored = []
        for number, piece in enumerate(pieces):
            size = min(RUN_WORDS, len(piece))
            for start in range(len(piece) - size + 1):
                run = piece[start : start + size]
                if size >= 3 and all(word in counts for word in run):
                    scored.append((max(counts[word] for word in run), number, start, run))
        chosen: list[tuple[int, int, int, list[str]]] = []
        for score, number, start, run in sorted(scored, key=lambda item: item[:3]):
            if all(other != number or abs(at - start) >= len(run) for _, other, at, _ in chosen):
                chosen.append((score, number, start, run))
            if len(chosen) == RUNS:
                break
        return [run for _, _, _, run in chosen]

    @staticmethod
    def _earliest(matches: Sequence[Match], cases: dict[str, Case]) -> CorpusMatch:
        """The match in the earliest decided case (by year, then case id), and how many others there are."""

        def order(match: Match) -> tuple[int, str]:
            case = cases.get(match.opinion.case_id)
            year = case.year if case is not None and case.year else 9999
            return year, match.opinion.case_id

        first = min(matches, key=order)
        return CorpusMatch(first, cases.get(first.opinion.case_id), len(matches) - 1)


def quotes_it(match: Match, year: int | None, cited_year: int | None) -> bool:
    """Whether the case of `match` (decided in `year`), decided after the cited case, holds the passage inside its
    own quotation marks (an open “ before it in its paragraph, or an odd number of straight marks): it quotes the
    words, perhaps from the cited case, so they are not its own."""
    if cited_year is None or not year or year <= cited_year:
        return False
    text, start = match.opinion.text, match.span[0]
    before = text[max(text.rfind("\n", 0, start) + 1, start - 2_000) : start]
    return before.rfind("“") > before.rfind("”") or before.count('"') % 2 == 1


def word_pieces(quotation: str) -> list[list[str]]:
    """The quotation's words as the index writes them, cut into pieces at its gaps (see the module docstring)."""
    text = _ONE_LETTER.sub(r"\1", _EDITORIAL.sub(" ", quotation))
    pieces, total = [], 0
    for piece in _GAP.split(text):
        words = [_index_term(word) for word in _WORD.findall(piece)][: MAX_WORDS - total]
        total += len(words)
        if words:
            pieces.append(words)
    return pieces


def _index_term(word: str) -> str:
    """A word as the index's tokenizer (FTS5 unicode61) keeps it: lower case, accents removed."""
    decomposed = unicodedata.normalize("NFKD", word.lower())
    return "".join(character for character in decomposed if not unicodedata.combining(character))
