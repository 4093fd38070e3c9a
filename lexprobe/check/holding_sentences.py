"""Find the propositions a document cites cases for (docs/check.md, "Holdings and propositions").

The document is cut into sentences (a sentence end inside a citation's span, or after an abbreviation such as
"v." or "U.S.", ends nothing). Each sentence holding citations is one of:

- a *citation sentence*: once its citations, signals ("See", "Cf."), year and pin parentheticals and punctuation
  are taken away, fewer than `MIN_WORDS` words remain ("See Brown, 347 U.S. at 495."). Its cases are cited for
  the sentence before it, which is the proposition (its own citations taken out too);
- else the sentence itself, without its citations, is the proposition; a citation the sentence runs on after
  leaves its case name ("The Court held in Brown, 347 U.S. 483, that ..." gives "The Court held in Brown, that
  ..."), and a lone "(holding that ...)" parenthetical is the proposition. Quoted sentences count: the quotation
  marks stay in the proposition.

One proposition is listed per sentence and cited case (a short form, "Id." or "supra" counts as the case it
resolves to); a second citation of the same case in the same sentence adds nothing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from lexprobe.check.extract import FoundCitation

#: A sentence with fewer words than this once its citations are taken away is only a citation sentence.
MIN_WORDS = 4
#: The longest proposition sent to the judge (characters); a longer sentence is cut, and the reason says so.
MAX_PROPOSITION_CHARS = 1_500

_SENTENCE_END = re.compile(r"[.!?][\"'”’)\]]*\s+(?=[\"“(\[]?[A-Z0-9§])")
_ABBREVIATION = re.compile(
    r"(?:\b(?:v|vs|U\.S|S|Ct|Co|Inc|Corp|No|Nos|Cir|Dist|id|Id|al|e\.g|i\.e|cf|Cf|J|JJ|C\.J|supra|ed|Ed|L|Stat|"
    r"U\.S\.C|Rev|Sup|App|F|Supp|Cong|Sess|Mr|Mrs|Ms|Dr|St|Art|art|Sec|sec|cl|Cl|amend|Amend|pp|p)|\b[A-Z])\.$"
)
_SIGNALS = re.compile(r"\b(?:see|also|cf|accord|compare|with|and|but|contra|e\.g|generally|id|ibid|at|supra|"
                      r"quoting|citing|internal|quotation|marks|omitted|emphasis|added)\b\.?", re.I)  # fmt: skip
_YEAR_PARENTHETICAL = re.compile(r"\([^()]{0,40}\b\d{4}\)")
#: After a citation, the sentence runs on (a word follows, past punctuation and parentheticals).
_RUNS_ON = re.compile(r"(?:[\s,;:]|\([^()]{0,60}\))*[^\W\d_]{2,}")


@dataclass(frozen=True)
class Proposition:
    """What a sentence cites a case for: `text` (whitespace collapsed, citations taken out), `span` of the
    sentence (or of the sentence and its citation sentence) in the document, `citation` the index (in the
    extraction's list) of the first citation of the case, `case_index` that of the full citation it resolves to."""

    text: str
    span: tuple[int, int]
    citation: int
    case_index: int
    cut: bool = False


def sentence_spans(text: str, citations: Sequence[FoundCitation]) -> list[tuple[int, int]]:
    """The spans of the sentences of `text`: a sentence end inside a citation or after an abbreviation ends none."""
    inside = sorted(c.span for c in citations)
    spans = []
    start = 0
    cursor = 0
    for match in _SENTENCE_END.finditer(text):
        end = match.start() + 1
        while cursor < len(inside) and inside[cursor][1] <= end - 1:
            cursor += 1
        if cursor < len(inside) and inside[cursor][0] < end <= inside[cursor][1] - 1:
            continue  # within a citation ("347 U.S. 483, 495 (1954)")
        if _ABBREVIATION.search(text[max(start, end - 12) : end]):
            continue
        spans.append((start, _trimmed_end(text, start, match.end())))
        start = match.end()
    if start < len(text) and text[start:].strip():
        spans.append((start, _trimmed_end(text, start, len(text))))
    return [span for span in spans if span[1] > span[0]]


def _trimmed_end(text: str, start: int, end: int) -> int:
    while end > start and text[end - 1].isspace():
        end -= 1
    return end


def _without_citations(text: str, span: tuple[int, int], citations: Sequence[FoundCitation]) -> str:
    """The sentence's text with its citations (and the year parentheticals they leave) taken out; of an over-long
    sentence, only the first `MAX_PROPOSITION_CHARS` (and one more) characters of each piece between citations."""
    start, end = span
    pieces = []
    position = start
    bound = MAX_PROPOSITION_CHARS + 1
    for citation in citations:
        first, last = max(citation.span[0], start), min(citation.span[1], end)
        if first < position or last <= first:
            continue
        pieces.append(text[position : min(first, position + bound)])
        if citation.name and _RUNS_ON.match(text, last, end):  # "held in Monell, 436 U.S. at 690, that ..."
            pieces.append(citation.name)
        position = last
    pieces.append(text[position : min(end, position + bound)])
    joined = _YEAR_PARENTHETICAL.sub(" ", " ".join("".join(pieces).split()))
    joined = re.sub(r"\s+([,;.:)])", r"\1", joined)
    joined = re.sub(r"(?:^|\s)[,;:]+(?=\s|$)", " ", joined)
    joined = " ".join(joined.split()).strip(" ,;:")
    parenthetical = re.fullmatch(r"\(([^()]*)\)[.;]?", joined)  # "Id. at 691 (holding that ...)." alone
    return parenthetical.group(1).strip() if parenthetical else joined


def _words_left(proposition: str) -> int:
    """The words of a sentence that are neither signals nor numbers (how a citation sentence is told apart)."""
    stripped = _SIGNALS.sub(" ", proposition)
    return sum(1 for word in re.findall(r"[^\W\d_]{2,}", stripped))


def find_propositions(text: str, citations: Sequence[FoundCitation]) -> list[Proposition]:
    """The propositions of `text` (see the module docstring), in document order, one per sentence and case."""
    ordered = sorted(citations, key=lambda c: c.span)
    if not ordered:
        return []
    sentences = sentence_spans(text, ordered)
    found: list[Proposition] = []
    cursor = 0
    previous: tuple[tuple[int, int], str] | None = None
    seen: set[tuple[int, int]] = set()  # (proposition start, cited case): one judgement each
    for sentence in sentences:
        members = []
        while cursor < len(ordered) and ordered[cursor].span[0] < sentence[1]:
            if ordered[cursor].span[0] >= sentence[0]:
                members.append(ordered[cursor])
            cursor += 1
        own = _without_citations(text, sentence, members)
        if not members:
            previous = (sentence, own) if _words_left(own) >= MIN_WORDS else None
            continue
        if _words_left(own) >= MIN_WORDS:
            proposition, span = own, sentence
            previous = (sentence, own)  # a citation sentence after it cites more cases for it
        elif previous is not None:
            proposition, span = previous[1], (previous[0][0], sentence[1])
        else:
            continue
        cut = len(proposition) > MAX_PROPOSITION_CHARS
        shown = proposition[:MAX_PROPOSITION_CHARS] + "…" if cut else proposition
        for citation in members:
            target = citation.refers_to if citation.refers_to is not None else citation.index
            if citation.kind != "full" and citation.refers_to is None:
                continue  # an unresolved short form names no case
            if (span[0], target) in seen:
                continue
            seen.add((span[0], target))
            found.append(Proposition(shown, span, citation.index, target, cut))
    return found
