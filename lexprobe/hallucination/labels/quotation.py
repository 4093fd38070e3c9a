"""Is a quotation in the majority opinion? Fuzzy matching of a quote against one opinion text, fast.

Normalization (the same for the opinion and the quote, done by one tokenizer so every word keeps its offset in the
original text): case folded; star paging ("*483", "**12", "[*483]") and footnote marks ("[1]", "[*]") dropped;
words joined across apostrophes ("Court's" = "Court’s" = "courts") and hyphens, including a hyphen at a line break
("con-\\nstitution" = "constitution", "well-known" = "wellknown"); all other punctuation, curly or straight quotes
and runs of whitespace become single spaces; square brackets of an alteration vanish ("[t]he" = "the"). Only the
quote is treated as a literal - nothing of the opinion is escaped or compiled (the original code regex-escaped the
opinion too, so verbatim quotes with more than about five spaces never matched).

Matching: the quote is split at ellipses ("...", "…", ". . .") into fragments that must match in this order.
A fragment found verbatim (after normalization) scores 100. Otherwise it is located through an index of the
opinion's word `NGRAM`-grams (`str.find` in the normalized text, a dict once an opinion gets many quotes):
each shared n-gram votes for a start position (when none is shared - a short
fragment, or a typo in every n-gram - each rare word of the fragment votes instead), the best-voted windows (a few
words of slack either side) are compared with `rapidfuzz.fuzz.partial_ratio`, and the earliest window scoring at
least `MATCH_THRESHOLD` wins. The quote's similarity is its weakest fragment's, so `found` is exactly
`similarity >= MATCH_THRESHOLD`. `start` is exact for verbatim matches and within a word or two for fuzzy ones.

Thresholds:
- `MATCH_THRESHOLD = 90` (rapidfuzz 0-100, an Indel-distance ratio): tolerates a misspelt or dropped word in a
  sentence-long quote (one changed word in twenty scores about 95) but not a paraphrase (typically below 75).
- `MIN_QUOTE_WORDS = 5`: a quote of fewer words (all fragments together) is `too_short`. Four common words
  ("the court held that") appear in almost any opinion, so such a match is no evidence that the model knows the
  case, and a miss is no evidence that it does not; the scorer labels it `unscored` with that reason rather than
  guessing either way.

Separate opinions: a combined opinion file (CourtListener's `010combined`, the majority text of a case without a lead
file) holds the majority opinion followed by its concurrences and dissents. `split_opinion` cuts it with the one
splitter of lexprobe, `lexprobe.caselaw.opinion_parts.split_combined` (its docstring lists the headings it reads and
how the notes printed after the last separate opinion go with the majority part), and the quotation task matches
against the majority part only; a quote found only in a separate opinion is a real quotation, but not the majority's.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter, defaultdict
from dataclasses import dataclass
from itertools import accumulate

from lexprobe.caselaw.opinion_parts import split_combined

NGRAM = 4
MATCH_THRESHOLD = 90.0
MIN_QUOTE_WORDS = 5
_CANDIDATES = 8  # best-voted windows compared per fragment
_INDEX_AFTER = 16  # fuzzy lookups on one opinion before its n-gram dict is built
_RARE_WORD = 100  # a word this frequent or rarer in the opinion may vote alone, when no n-gram does

_TOKEN = re.compile(
    r"(?P<skip>(?<![^\s(\[])\[?\*{1,3}\d+\]?(?=[\s.,;:)\]]|$)|\[\d{1,3}\]|\[\*+\])"
    r"|(?P<word>[^\W_]+(?:(?:['’]|[-\u00ad\u2010\u2011](?:[ \t]*\n\s*)?)[^\W_]+)*)"
)
_JOINERS = re.compile(r"['’\-\u00ad\u2010\u2011\s]+")
_BRACKETS = re.compile(r"[\[\]]")
_ELLIPSIS = re.compile(r"\.\s?\.\s?\.|…")


@dataclass(frozen=True)
class SeparateOpinion:
    """A concurrence or dissent inside a combined opinion file: its `heading` ("Mr. Justice Stewart, dissenting"),
    where it starts in the file (`start`), and its text (up to the next separate opinion or the end)."""

    heading: str
    start: int
    text: str


def split_opinion(text: str) -> tuple[str, list[SeparateOpinion]]:
    """Return the majority part of an opinion file (with the notes printed after its separate opinions) and its
    separate opinions, in order: `opinion_parts.split_combined` in this module's shape. A file without a
    separate-opinion heading after some text is all majority."""
    text = text or ""
    majority, *separate = split_combined(text)
    return majority.text_of(text), [SeparateOpinion(part.heading, part.start, part.text_of(text)) for part in separate]


@dataclass(frozen=True)
class QuoteMatch:
    """Where (and how well) a quote matched: `similarity` is 0-100, `start` the quote's character offset in the
    opinion text when found, `too_short` when the quote has fewer than `MIN_QUOTE_WORDS` words."""

    found: bool
    similarity: float
    start: int | None
    too_short: bool = False
    words: int = 0


def _fold(word: str) -> str:
    return _JOINERS.sub("", unicodedata.normalize("NFKC", word)).casefold()


def tokenize(text: str) -> tuple[list[str], list[int]]:
    """Return the normalized words of `text` and the character offset of each in `text` (see module docstring)."""
    words: list[str] = []
    offsets: list[int] = []
    for match in _TOKEN.finditer(text):
        if match.lastgroup == "word":
            words.append(_fold(match.group()))
            offsets.append(match.start())
    return words, offsets


def normalize_text(text: str) -> str:
    """Return `text` normalized for quotation matching: folded words joined by single spaces."""
    return " ".join(tokenize(text)[0])


def _quote_fragments(quote: str) -> list[list[str]]:
    """Return the quote's ellipsis-separated fragments as lists of normalized words, empty ones dropped."""
    pieces = _ELLIPSIS.split(_BRACKETS.sub("", quote))
    return [words for words in (tokenize(piece)[0] for piece in pieces) if words]


class QuoteIndex:
    """One opinion text, tokenized and normalized once; `match` then checks quotes against it."""

    def __init__(self, text: str) -> None:
        self.words, self.offsets = tokenize(text)
        self.normalized = " ".join(self.words)
        # character offset of each word in `self.normalized`
        self._char_starts = [0, *accumulate(len(word) + 1 for word in self.words)][: len(self.words)]
        self._word_at_char = {start: index for index, start in enumerate(self._char_starts)}
        self._haystack = f" {self.normalized} "
        self._fuzzy_calls = 0
        self._grams: dict[tuple[str, ...], list[int]] | None = None

    def _build_index(self) -> dict[tuple[str, ...], list[int]]:
        grams: dict[tuple[str, ...], list[int]] = defaultdict(list)
        for position in range(len(self.words) - NGRAM + 1):
            grams[tuple(self.words[position : position + NGRAM])].append(position)
        for position, word in enumerate(self.words):
            grams[(word,)].append(position)
        return dict(grams)

    def _positions(self, words: tuple[str, ...] | list[str], limit: int | None = None) -> list[int]:
        """Return the word positions where `words` occur in a row. The first few fuzzy lookups of an opinion use
        `str.find` over the normalized text (nothing to build: scoring one or two answers per opinion stays cheap);
        after `_INDEX_AFTER` of them a dict of n-grams is built once, so many quotes against one opinion stay fast.
        With `limit`, stop after limit + 1 hits."""
        if self._grams is not None:
            return self._grams.get(tuple(words), [])
        needle = f" {' '.join(words)} "
        positions = []
        at = self._haystack.find(needle)
        while at != -1:
            position = self._word_at_char.get(at)
            if position is not None:
                positions.append(position)
                if limit is not None and len(positions) > limit:
                    break
            at = self._haystack.find(needle, at + 1)
        return positions

    def _exact(self, fragment: list[str], from_word: int) -> int | None:
        """Return the first word position >= from_word where `fragment` occurs verbatim, else None."""
        if from_word >= len(self.words):
            return None
        needle = " ".join(fragment)
        at = self._char_starts[from_word]
        while True:
            found = self._haystack.find(f" {needle} ", at)
            if found == -1:
                return None
            if found in self._word_at_char:  # " needle " at haystack offset f = normalized offset f of the word
                return self._word_at_char[found]
            at = found + 1

    def _fuzzy(self, fragment: list[str], from_word: int) -> tuple[float, int | None, int | None]:
        """Return (similarity, start word, end word) of the earliest window at or above the threshold, else of the
        best window (similarity 0 and no position when no window shares a word n-gram or a rare word)."""
        from rapidfuzz.fuzz import partial_ratio_alignment  # imported on the first fuzzy search, not by every scorer

        votes: Counter[int] = Counter()
        self._fuzzy_calls += 1
        if self._grams is None and self._fuzzy_calls > _INDEX_AFTER:
            self._grams = self._build_index()
        for k in range(len(fragment) - NGRAM + 1):
            for position in self._positions(fragment[k : k + NGRAM]):
                if position >= from_word:
                    votes[max(position - k, from_word)] += 1
        if not votes:  # a short fragment, or one whose every n-gram has a typo: rare single words vote instead
            for k, word in enumerate(fragment):
                positions = self._positions([word], limit=_RARE_WORD)
                if len(positions) <= _RARE_WORD:
                    for position in positions:
                        if position >= from_word:
                            votes[max(position - k, from_word)] += 1
        needle = " ".join(fragment)
        slack = max(3, len(fragment) // 10)
        best: tuple[float, int | None, int | None] = (0.0, None, None)
        for start, _ in sorted(votes.most_common(_CANDIDATES), key=lambda item: item[0]):
            low = max(from_word, start - slack)
            window_words = self.words[low : start + len(fragment) + slack]
            window = " ".join(window_words)
            alignment = partial_ratio_alignment(needle, window)
            if alignment is None:
                continue
            first = low + window[: alignment.dest_start].count(" ")
            last = low + window[: alignment.dest_end].count(" ") + 1
            if alignment.score >= MATCH_THRESHOLD:
                return alignment.score, first, last  # the earliest good window keeps room for later fragments
            if alignment.score > best[0]:
                best = (alignment.score, first, last)
        return best

    def match(self, quote: str) -> QuoteMatch:
        """Return how well `quote` matches this opinion (see the module docstring for the rules). Raises nothing."""
        fragments = _quote_fragments(quote or "")
        total = sum(len(fragment) for fragment in fragments)
        if total < MIN_QUOTE_WORDS:
            return QuoteMatch(False, 0.0, None, too_short=True, words=total)
        position = 0
        weakest = 100.0
        first_start: int | None = None
        for fragment in fragments:
            exact = self._exact(fragment, position)
            if exact is not None:
                similarity, start, end = 100.0, exact, exact + len(fragment)
            else:
                similarity, start, end = self._fuzzy(fragment, position)
            weakest = min(weakest, similarity)
            if start is None or end is None or similarity < MATCH_THRESHOLD:
                return QuoteMatch(False, round(weakest, 2), None, words=total)
            if first_start is None:
                first_start = self.offsets[start]
            position = end
        return QuoteMatch(True, round(weakest, 2), first_start, words=total)
