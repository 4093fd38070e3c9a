"""Verbatim-quote checking: is a highlight the model copied really in the source text?

Models copy quotes imperfectly in ways that do not change the words: line breaks and runs of spaces, curly versus
straight quotes, en and em dashes, and words hyphenated across a line break in the PDF text. `find_quote` forgives
exactly these and nothing else (no case folding, no paraphrase):

1. both texts are normalized: typographic quotes become straight quotes, every dash character becomes '-',
   whitespace runs become one space;
2. the quote is looked up in the normalized source;
3. failing that, both are compared in a compact form without whitespace and hyphens, so that 'well-\\nknown',
   'well- known' and 'wellknown' meet. This is still exact character-by-character matching of everything else.

A quote shorter than `MIN_QUOTE_WORDS` words never matches: an empty or two-word "quote" proves nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MIN_QUOTE_WORDS = 4

_QUOTES = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201a": "'",
        "\u201b": "'",
        "\u2032": "'",
        "\u0060": "'",
        "\u00b4": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u201e": '"',
        "\u201f": '"',
        "\u2033": '"',
        "\u00ab": '"',
        "\u00bb": '"',
        "\u2010": "-",
        "\u2011": "-",
        "\u2012": "-",
        "\u2013": "-",
        "\u2014": "-",
        "\u2015": "-",
        "\u2212": "-",
        "\u00ad": "",  # soft hyphen
        "\u00a0": " ",
    }
)
_WHITESPACE = re.compile(r"\s+")
_PAGE_MARK = re.compile(r"\[PAGE (\d+)\]")


def normalize_quote_text(text: str) -> str:
    """Return `text` with quotes and dashes unified and whitespace collapsed (step 1 above)."""
    return _WHITESPACE.sub(" ", text.translate(_QUOTES)).strip()


def _compact(text: str) -> tuple[str, list[int]]:
    """Return `text` without whitespace and hyphens, and for each kept character its index in `text`."""
    kept, where = [], []
    for index, char in enumerate(text):
        if char.isspace() or char == "-":
            continue
        kept.append(char)
        where.append(index)
    return "".join(kept), where


@dataclass(frozen=True)
class QuoteMatch:
    """Where a quote was found: character offsets in the *normalized* source, and how it matched."""

    start: int
    end: int
    how: str  # "exact" or "compact"


def find_quote(quote: str, source: str) -> QuoteMatch | None:
    """Return where `quote` occurs in `source` after normalization, or None when it does not occur.

    Page markers `[PAGE n]` inside the source are ignored for matching (a quote may span a page break).
    """
    if len(quote.split()) < MIN_QUOTE_WORDS:
        return None
    wanted = normalize_quote_text(quote)
    text = normalize_quote_text(_PAGE_MARK.sub(" ", source))
    found = text.find(wanted)
    if found >= 0:
        return QuoteMatch(found, found + len(wanted), "exact")
    compact_text, where = _compact(text)
    compact_quote, _ = _compact(wanted)
    if not compact_quote:
        return None
    found = compact_text.find(compact_quote)
    if found < 0:
        return None
    return QuoteMatch(where[found], where[found + len(compact_quote) - 1] + 1, "compact")


def page_of(quote: str, source: str) -> int | None:
    """Return the number of the `[PAGE n]` section of `source` that holds `quote`, or None.

    None also when the source has no page markers or the quote is not found.
    """
    if not _PAGE_MARK.search(source):
        return None
    pages = re.split(r"(\[PAGE \d+\])", source)
    number = None
    for part in pages:
        marker = _PAGE_MARK.fullmatch(part)
        if marker:
            number = int(marker.group(1))
        elif number is not None and find_quote(quote, part):
            return number
    return None
