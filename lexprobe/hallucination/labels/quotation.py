"""Is a quotation in the majority opinion? The quotation task's view of the one matcher of lexprobe,
`lexprobe.caselaw.quotations` (the citation checker's too, so both mean the same by "in the opinion").

`QuoteIndex` normalizes one opinion text once (`caselaw.quote_text.normalize`: letters only, so quotation marks,
punctuation, star paging, footnote marks and hyphens at a line break make no difference) and checks quotes against
it: the quote is cut at its ellipses and bracketed alterations (`quote_segments`), found exactly (similarity 100),
or else with a change when `caselaw.quotations.close_enough` (similarity at least `MATCH_THRESHOLD`). `start` is
the character offset in the opinion text of the passage's first letter.

`MIN_QUOTE_WORDS = 5`: a quote of fewer words is `too_short`. Four common words ("the court held that") appear in
almost any opinion, so such a match is no evidence that the model knows the case, and a miss is no evidence that
it does not; the scorer labels it `unscored` with that reason rather than guessing either way. Words are counted
as written: star page marks ("*483") and footnote marks ("[1]") are not words, hyphenated and apostrophe words
("con-\\nstitution", "Court's") are one.

A combined opinion file (CourtListener's `010combined`) holds the majority opinion followed by its concurrences and
dissents; the scorer (`labels/scoring.py`) cuts it with `lexprobe.caselaw.opinion_parts.split_combined` and matches
against the majority part only: a quote found only in a separate opinion is a real quotation, but not the
majority's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lexprobe.caselaw.quotations import close_enough, exact_span, fuzzy_span
from lexprobe.caselaw.quote_text import normalize, quote_segments

MIN_QUOTE_WORDS = 5

_WORD = re.compile(
    r"(?P<skip>(?<![^\s(\[])\[?\*{1,3}\d+\]?(?=[\s.,;:)\]]|$)|\[\d{1,3}\]|\[\*+\])"
    r"|(?P<word>[^\W_]+(?:(?:['’]|[-\u00ad\u2010\u2011](?:[ \t]*\n\s*)?)[^\W_]+)*)"
)


@dataclass(frozen=True)
class QuoteMatch:
    """Where (and how well) a quote matched: `similarity` is 0-100, `start` the quote's character offset in the
    opinion text when found, `too_short` when the quote has fewer than `MIN_QUOTE_WORDS` words."""

    found: bool
    similarity: float
    start: int | None
    too_short: bool = False
    words: int = 0


def count_words(text: str) -> int:
    """The words of `text` as written (page and footnote marks left out)."""
    return sum(1 for match in _WORD.finditer(text) if match.lastgroup == "word")


class QuoteIndex:
    """One opinion text, normalized once; `match` then checks quotes against it."""

    def __init__(self, text: str) -> None:
        self.normalized = normalize(text)

    def match(self, quote: str) -> QuoteMatch:
        """Return how well `quote` matches this opinion (see the module docstring for the rules). Raises nothing."""
        words = count_words(quote or "")
        segments = quote_segments(quote or "")
        if words < MIN_QUOTE_WORDS:
            return QuoteMatch(False, 0.0, None, too_short=True, words=words)
        if not segments:  # words without letters ("1 2 3 4 5"): nothing to find
            return QuoteMatch(False, 0.0, None, words=words)
        letters = self.normalized.letters
        span = exact_span(segments, letters)
        if span is not None:
            return QuoteMatch(True, 100.0, self.normalized.original_span(*span)[0], words=words)
        fuzzy = fuzzy_span(segments, letters)
        if fuzzy is None:
            return QuoteMatch(False, 0.0, None, words=words)
        similarity, span = fuzzy
        if not close_enough(similarity, segments):
            return QuoteMatch(False, round(similarity, 2), None, words=words)
        return QuoteMatch(True, round(similarity, 2), self.normalized.original_span(*span)[0], words=words)
