"""Normalize quoted passages and opinion texts so that what legal quoting allows does not count as a difference.

Both sides are reduced to lower-case letters only (`normalize`): quotation marks of any kind (so a quotation nested
in the opinion's own quotation), punctuation, whitespace and line breaks, digits (footnote markers such as "52 See",
star page marks such as "*691", even inside a word: "constitu *691 tional") all disappear, and so do an opinion's
references to pages ("post, at 252", "supra, at 12", "id., at 5"), which a quotation may leave out silently. The
quotation is then cut into segments (`quote_segments`) at what may stand for omitted or changed text: an ellipsis
("...", ". . .", "…") is a gap of any length, a bracketed alteration of more than one letter ("[the Court]") is a
gap, a one-letter one ("[t]he") keeps its letter, and the parentheticals "(emphasis added)", "(internal quotation
marks omitted)", "(citations omitted)" and the like are dropped. `page_marks` reads the star paging ("*495") of
the opinion texts.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np


_EDITORIAL = re.compile(
    r"\(\s*(?:emphasis|internal|citations?|footnotes?|alterations?|brackets?|quotation|some|ellipsis|punctuation)"
    r"[^()]{0,80}\)",
    re.I,
)
_GAP = re.compile(r"(?:\.\s*){3,}|…|\[\s*(?:[^\]\[]{2,200}|\.\.\.|…)?\s*\]")
_ONE_LETTER = re.compile(r"\[([A-Za-z])\]")
_STAR_PAGE = re.compile(r"(?<![\w*])\*(\d{1,4})(?!\d)")
#: An opinion's reference to a page of itself or of a case it cites ("post, at 252", "supra, at 12", "id., at 5"),
#: which a quotation of it may leave out without an ellipsis: dropped on both sides.
_INTERNAL_REFERENCE = re.compile(r"\b(?:ante|post|supra|infra|id|ibid)\.?,?\s+at\s+\d{1,4}", re.I)


@dataclass(frozen=True)
class Normalized:
    """A text as lower-case letters (`letters`) and, for each letter, its offset in the original text."""

    letters: str
    offsets: np.ndarray  # int64 offsets, one per letter: a fraction of a list's memory for a long opinion

    def original_span(self, start: int, end: int) -> tuple[int, int]:
        """The span in the original text of letters `start:end` (end exclusive; empty input gives (0, 0))."""
        if not len(self.offsets) or end <= start:
            return (0, 0)
        return int(self.offsets[start]), int(self.offsets[min(end, len(self.offsets)) - 1]) + 1


def normalize(text: str) -> Normalized:
    """Keep only the letters of `text`, lower-cased, with their offsets (digits, marks and spaces dropped, and
    references such as "post, at 252")."""
    import numpy as np  # ~100 ms to import: only a command that checks quotations pays it

    blanked = _INTERNAL_REFERENCE.sub(lambda match: " " * len(match.group()), text)  # offsets unchanged
    codes = np.frombuffer(blanked.encode("utf-32-le"), dtype=np.uint32)
    upper = (codes >= 65) & (codes <= 90)
    is_letter = upper | ((codes >= 97) & (codes <= 122))
    others = np.unique(codes[codes > 127])
    if len(others):  # non-ASCII: ask Python which are letters and what their lower case is (its first character)
        alpha = [code for code in others.tolist() if chr(code).isalpha()]
        is_letter |= np.isin(codes, np.array(alpha, dtype=np.uint32))
    offsets = np.flatnonzero(is_letter)
    lowered = codes[offsets] + np.where(upper[offsets], 32, 0).astype(np.uint32)
    letters = lowered.astype(np.uint32).tobytes().decode("utf-32-le")
    if len(others):
        letters = "".join(character.lower()[0] if ord(character) > 127 else character for character in letters)
    return Normalized(letters, offsets)


def normalize_letters(text: str) -> str:
    """`normalize(text).letters` without the offsets (faster, for quotations)."""
    text = _INTERNAL_REFERENCE.sub(" ", text)
    return "".join(character.lower()[0] for character in text if character.isalpha())


def quote_segments(quotation: str, literal_brackets: bool = False) -> list[str]:
    """The normalized pieces of a quotation between its gaps (ellipses, bracketed insertions); a bracketed single
    letter is kept, editorial parentheticals are dropped; pieces of fewer than 3 letters are left out. With
    `literal_brackets` ("(alteration in original)" after the citation), brackets are the original's own text: their
    words are kept and must match, and only ellipses are gaps."""
    text = _EDITORIAL.sub(" ", quotation)
    text = _ONE_LETTER.sub(r"\1", text)
    if literal_brackets:
        text = text.replace("[", " ").replace("]", " ")
    pieces = (normalize_letters(piece) for piece in _GAP.split(text))
    return [piece for piece in pieces if len(piece) >= 3]


def has_gap(quotation: str) -> bool:
    """Whether the quotation marks an omission or a longer alteration."""
    return bool(_GAP.search(_ONE_LETTER.sub(r"\1", quotation)))


@dataclass(frozen=True)
class PageMarks:
    """The star paging of an opinion text: the offsets of "*NNN" marks and their pages, and the first page."""

    offsets: list[int]
    pages: list[int]
    first_page: int | None

    def page_at(self, offset: int) -> int | None:
        """The page an offset of the opinion text lies on, or None without page marks."""
        if not self.offsets:
            return None
        index = bisect.bisect_right(self.offsets, offset) - 1
        if index < 0:  # before the first mark: the page before it
            return self.pages[0] - 1
        return self.pages[index]


def page_marks(text: str, first_page: int | None) -> PageMarks:
    """Read "*NNN" star page marks, kept only when they count up from the case's first page (within 400 pages)
    and at least two agree; a text without them has no page marks."""
    offsets: list[int] = []
    pages: list[int] = []
    for match in _STAR_PAGE.finditer(text):
        page = int(match.group(1))
        if first_page is not None and not first_page < page <= first_page + 400:
            continue
        if pages and page < pages[-1]:
            continue  # a star page of another reporter, or a pin cite written with a star
        offsets.append(match.start())
        pages.append(page)
    if len(pages) < 2:
        return PageMarks([], [], first_page)
    return PageMarks(offsets, pages, first_page)
