"""The passages of a cited case most relevant to a proposition: its opinion texts (`quote_match.OpinionTexts`, so the
Court's opinion and each concurrence and dissent apart where the database has them apart) cut into paragraph-sized
passages, ranked with BM25 (the `bm25s` library: English stop words, no stemming).

A passage is a paragraph of the text where it has blank lines, else consecutive sentences up to about
`PASSAGE_CHARS` characters (the database's opinion texts are mostly one line); none is longer than
`MAX_PASSAGE_CHARS`. Each keeps its opinion's id, type and author, and the page it begins on (star paging).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from lexprobe.check.quote_match import Opinion, OpinionTexts

#: A passage grows sentence by sentence to about this many characters.
PASSAGE_CHARS = 900
#: No passage is longer (a longer sentence is cut).
MAX_PASSAGE_CHARS = 1_500
#: Passages retrieved per proposition.
TOP_PASSAGES = 4
#: Passages indexed per case (a very long case's later passages are not searched).
MAX_PASSAGES_PER_CASE = 5_000

_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n")
_SENTENCE_BREAK = re.compile(r"[.!?][\"'”’)\]]?(\s+)(?=[\"“(\[]?[A-Z])")
_ABBREVIATED = re.compile(r"(?:\b(?:v|U\.\s?S|S|Ct|Co|No|Cir|Id|id|al|e\.g|i\.e|J|JJ|C\.\s?J|Mr|Mrs|Ms|Stat|F|Supp|"
                          r"Cf|cf|L|Ed|App|Inc|Corp|Sess|Cong)|\b[A-Z])\.[\"'”’)\]]?$")  # fmt: skip


@dataclass(frozen=True)
class Passage:
    """One passage of an opinion and its BM25 score for the proposition it was retrieved for."""

    text: str
    opinion_id: str
    opinion_type: str
    author: str | None
    is_separate: bool
    page: int | None
    score: float = 0.0

    def to_json(self) -> dict[str, Any]:
        """The `passages` object of a holding in `check --json`."""
        return {
            "text": self.text,
            "opinion_id": self.opinion_id,
            "opinion_type": self.opinion_type,
            "author": self.author,
            "page": self.page,
            "score": round(self.score, 3),
        }


def _sentences(text: str, offset: int) -> list[tuple[int, int]]:
    spans = []
    start = 0
    for match in _SENTENCE_BREAK.finditer(text):
        end = match.start(1)
        if _ABBREVIATED.search(text[max(start, end - 8) : end]):
            continue
        spans.append((offset + start, offset + end))
        start = match.end()
    if start < len(text):
        spans.append((offset + start, offset + len(text)))
    return spans


def split_passages(text: str) -> list[tuple[int, int]]:
    """The spans of the passages of one opinion text (see the module docstring)."""
    spans: list[tuple[int, int]] = []
    breaks = [(m.start(), m.end()) for m in _PARAGRAPH_BREAK.finditer(text)] + [(len(text), len(text))]
    position = 0
    for paragraph_end, next_start in breaks:
        paragraph = text[position:paragraph_end]
        current: tuple[int, int] | None = None
        for start, end in _sentences(paragraph, position):
            while end - start > MAX_PASSAGE_CHARS:  # one very long sentence: cut it
                if current:
                    spans.append(current)
                    current = None
                spans.append((start, start + MAX_PASSAGE_CHARS))
                start += MAX_PASSAGE_CHARS
            if current is None:
                current = (start, end)
            elif end - current[0] <= PASSAGE_CHARS:
                current = (current[0], end)
            else:
                spans.append(current)
                current = (start, end)
        if current:
            spans.append(current)
        position = next_start
    return [(start, end) for start, end in spans if text[start:end].strip()]


class PassageFinder:
    """Retrieves the passages of a case most relevant to a proposition; each case's passages are indexed once (BM25)."""

    def __init__(self, texts: OpinionTexts) -> None:
        self.texts = texts
        self._indexes: dict[str, tuple[list[Passage], Any]] = {}  # case id -> its passages and their BM25 index

    def has_text(self, case_id: str) -> bool:
        """Whether the database has any opinion text of the case."""
        return bool(self.texts.opinions_of(case_id))

    def _index(self, opinions: Sequence[Opinion]) -> tuple[list[Passage], Any]:
        import bm25s

        logging.getLogger("bm25s").setLevel(logging.WARNING)  # its index-building notes are not ours to print
        passages = [
            Passage(
                " ".join(opinion.text[start:end].split()),
                opinion.opinion_id,
                opinion.opinion_type,
                opinion.author,
                opinion.is_separate,
                opinion.marks.page_at(start),
            )
            for opinion in opinions
            for start, end in split_passages(opinion.text)
        ][:MAX_PASSAGES_PER_CASE]
        retriever = bm25s.BM25()
        retriever.index(
            bm25s.tokenize([p.text for p in passages], stopwords="en", show_progress=False), show_progress=False
        )
        return passages, retriever

    def top(self, case_id: str, proposition: str, k: int = TOP_PASSAGES) -> list[Passage]:
        """The `k` passages of the case's opinions that BM25 ranks highest for `proposition` (score above 0)."""
        if case_id not in self._indexes:
            opinions = self.texts.opinions_of(case_id)
            if not opinions:
                return []
            self._indexes[case_id] = self._index(opinions)
        import bm25s

        passages, retriever = self._indexes[case_id]
        query = bm25s.tokenize([proposition], stopwords="en", return_ids=False, show_progress=False)
        if not passages or not query[0]:
            return []
        indexes, scores = retriever.retrieve(query, k=min(k, len(passages)), show_progress=False)
        return [
            replace(passages[int(index)], score=float(score))
            for index, score in zip(indexes[0], scores[0], strict=True)
            if score > 0
        ]
