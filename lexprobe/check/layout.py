"""Prepare a document's text for eyecite: blank pleading-paper line numbers, collapse whitespace with an offset map
back to the original, and cut the text into chunks that never split a citation. The reasons are in the docstring of
`lexprobe.check.extract`."""

from __future__ import annotations

import re
from array import array

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
