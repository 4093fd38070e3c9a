"""Find the quotations in a checked document and the citation each is attributed to (docs/check.md, "Quotations").

A quotation is a passage between double quotation marks (straight, or curly “ ” with nesting counted), or a block
quote: a paragraph without quotation marks followed by a paragraph that is only a citation. A quotation is
attributed to

- the first citation after it when only a short signal ("See", "Cf.") and at most one sentence end (the citation
  sentence after the quoted one) lie between them, as in “... unequal.” Brown, 347 U.S. at 495; unless the signal
  introduces further authority ("See also", "Cf.", "But see") and the quotation's sentence names another case
  (`lexprobe.check.quote_source`): then the citation of that case;
- else the last citation before it in the same sentence ("In Brown, 347 U.S. 483, 495, the Court said “...”").

Short forms, "Id." and "supra" count like any citation: their case is the one `lexprobe.check.extract` resolved.
An opening mark without its closing one within `MAX_QUOTE_CHARS` (an unbalanced quote) starts no quotation; a
quotation over `MAX_QUOTE_CHARS` is kept but checked on its first `CHECKED_CHARS` characters only, and a document's
quotations past `MAX_QUOTATIONS` are not listed: each limit is said in the reason or by `Quotations.skipped`.
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass

from lexprobe.check.extract import FULL, FoundCitation
from lexprobe.check.quote_source import ALSO_SIGNAL, CaseNames

#: The longest quotation searched for in full; longer ones are cut (and the reason says so).
MAX_QUOTE_CHARS = 20_000
#: How much of an over-long quotation is checked.
CHECKED_CHARS = 2_000
#: Quotations per document.
MAX_QUOTATIONS = 5_000
#: Characters between a quotation and the citation it is attributed to.
MAX_GAP = 200
#: Characters between a citation and a quotation after it in the same sentence ("In Brown, 347 U.S. 483, the Court
#: said that “...”"): further away, the sentence has usually moved on to another source (a statute, a record).
MAX_GAP_BEFORE = 150
#: What may follow the citation in the paragraph after a block quote ("(emphasis added).").
BLOCK_CITATION_TAIL = 80
#: Shortest quotation (letters) worth checking: "the Court" in quotation marks is a term, not a quotation.
MIN_LETTERS = 12

#: A sentence end: the next sentence may open with a footnote number ("(1963). 5 The Court", "[1] This") or a star
#: page mark ("(1964). *657 I. At").
_SENTENCE_END = re.compile(r"[.!?][\"'”’)\]]*\s+(?=(?:\[\d{1,3}\]\s+|\d{1,3}\s+|\*\d{1,4}\s+)*[\"“(\[]?[A-Z])")
_ABBREVIATION_END = re.compile(r"(?:\b(?:v|vs|Mr|MR|Mrs|MRS|Messrs|MESSRS|U\.S|S|Ct|Co|Inc|Corp|No|Nos|Cir|Dist|id|Id|"
                               r"al|e\.g|i\.e|cf|Cf|J|JJ|C\.J|supra|ed|Ed|L|Stat|U\.S\.C|Rev|Sup|App|F|Supp|Cong|Sess)|"
                               r"\b[A-Z])\.$")  # fmt: skip
_SIGNAL = re.compile(
    r"^\s*[,;:.]?\s*(?:\(|\[)?\s*"
    r"(?:(?:see|cf|accord|compare|but|also|e\.g|quoting|citing|in|as|in re|from)\b[.,]?\s*)*$",
    re.I,
)
_SEPARATE_NEAR = re.compile(
    r"\b(?:dissent(?:ing|ed|s|ers?)?|concurr(?:ing|ence|ed|ences)?|separate(?:ly)? opinion)\b", re.I
)
#: A reference lexprobe does not read as a case citation right after a quotation ("Post, at 246", "White Co.,
#: supra, p. 277", "App. 125a", "Tr. 12"): the quotation is attributed to it, so to no citation lexprobe has.
_UNREAD_AFTER = re.compile(
    r"[\s,;:.”\"’']*\(?(?:see\s+(?:also\s+)?|cf\.\s+)?(?:"
    r"(?:ante|post|infra)\s*,?\s+(?:at|p\.|pp\.)\s*\d"
    r"|[A-Z][^.;:()“”\"]{0,80}?,\s+supra\s*,\s*(?:at|p\.|pp\.)\s*\d"
    r"|(?:App\.|Tr\.|Pet\.|Record|R\.)(?:\s+to\s+[^,;]{0,40}?)?[\s,]+(?:p\.\s*)?[A-Z]?\d"
    r"|(?:Reply\s+)?Brief\s+for\s+[^.;()]{0,60}?\d"
    r")",
    re.I,
)
#: References between a citation and a later "Id." that make the "Id." point to them, not to the citation.
_UNREAD_BETWEEN = re.compile(
    r"\b(?:ante|post|infra)\s*,?\s+(?:at|p\.|pp\.)\s*\d"
    r"|\b(?:App\.|Tr\.|Brief for|Record)(?:\s+to\s+[^,;]{0,40}?)?[\s,]+(?:p\.\s*)?[A-Z]?\d",
    re.I,
)


@dataclass(frozen=True)
class Quotation:
    """A quoted passage: `span` from its opening to its closing mark, `text` between them, `citation` the index
    (in the extraction's list) of the citation it is attributed to, `presented_as_separate` when the document says
    it is a dissent's or a concurrence's words, `cut` when only `CHECKED_CHARS` of it are checked."""

    span: tuple[int, int]
    text: str
    citation: int
    block: bool = False
    presented_as_separate: bool = False
    cut: bool = False
    speaker: str | None = None  # the Justice or judge the sentence gives the words to ("Justice Black ... observed")


@dataclass(frozen=True)
class Quotations:
    """The attributed quotations of a document, and how many were left out for the `MAX_QUOTATIONS` limit."""

    items: list[Quotation]
    skipped: int = 0


def quoted_passages(text: str) -> list[tuple[int, int]]:
    """The spans (opening mark to closing mark, inclusive) of the double-quoted passages, outermost only."""
    spans: list[tuple[int, int]] = []
    position = 0
    marks = re.compile(r"[\"“”]")
    length = len(text)
    while position < length:
        opening = marks.search(text, position)
        if opening is None:
            break
        start = opening.start()
        character = text[start]
        if character == "”":  # a closing mark with no opening one
            position = start + 1
            continue
        limit = min(length, start + 1 + MAX_QUOTE_CHARS)
        if character == '"':
            if not _opens(text, start):  # a closing mark whose opening one is missing: "... rule," Agostini
                position = start + 1
                continue
            end = _straight_close(text, start + 1, limit)
            if end == -2:  # the next mark opens another quotation: this one is unbalanced
                position = start + 1
                continue
        else:
            end = _curly_close(text, start + 1, limit)
        if end < 0 and limit < length:
            end = _far_close(text, character, limit)
        if end < 0:
            position = start + 1  # unbalanced: no closing mark
            continue
        spans.append((start, end + 1))
        position = end + 1
    return spans


def _opens(text: str, position: int) -> bool:
    """Whether the straight mark at `position` reads as an opening one: text follows it, no word precedes it."""
    following = text[position + 1 : position + 2]
    preceding = text[position - 1 : position] if position else " "
    return bool(following) and not following.isspace() and not preceding.isalnum() and preceding not in ".,;:!?"


def _straight_close(text: str, start: int, limit: int) -> int:
    """The closing straight mark of a quotation opened before `start`: -1 when there is none before `limit`, -2
    when the next mark reads only as an opening one (space before it, a word after it) or curly double marks lie
    between them."""
    close = text.find('"', start, limit)
    if close < 0:
        return -1
    preceding = text[close - 1]
    if preceding.isspace() and _opens(text, close):
        return -2
    if "“" in text[start:close] or "”" in text[start:close]:
        return -2  # curly double marks do not nest in straight ones: the opening mark has lost its closing one
    return close


def _continues(text: str, position: int) -> bool:
    """Whether the opening curly mark at `position` is the one legal quoting puts at the start of each further
    paragraph of a quotation (after or before an ellipsis: ". . . “. . . Each"), which is never closed."""
    after = text[position + 1 : position + 8].lstrip()
    before = text[max(0, position - 8) : position].rstrip()
    return after.startswith(("...", ". .", "…")) or before.endswith(("...", ". .", "…"))


def _curly_close(text: str, start: int, limit: int) -> int:
    """The closing mark of a curly quotation: nested curly pairs counted; at the outer level a straight mark that
    reads as a closing one ("... Monroe v. Pape," a damages") closes it too, unless a straight quotation opened
    inside it or a curly one was nested in it."""
    depth = 1
    inner_straight = False
    nested = False
    for match in re.compile(r"[“”\"]").finditer(text, start, limit):
        if match.group() == '"':
            if _opens(text, match.start()) and text[match.start() - 1].isspace():
                inner_straight = True
            elif inner_straight:
                inner_straight = False
            elif depth == 1 and not nested and not text[match.start() - 1].isspace():
                return match.start()
            continue
        if match.group() == "“" and _continues(text, match.start()):
            continue
        nested = nested or match.group() == "“"
        depth += 1 if match.group() == "“" else -1
        if depth == 0:
            return match.start()
    return -1


def _far_close(text: str, character: str, limit: int) -> int:
    """The closing mark of an over-long quotation (past `MAX_QUOTE_CHARS`), or -1."""
    return text.find("”" if character == "“" else '"', limit)


def _paragraphs(text: str) -> list[tuple[int, int]]:
    spans = []
    start = 0
    for gap in re.finditer(r"\n[ \t]*\n\s*", text):
        if gap.start() > start:
            spans.append((start, gap.start()))
        start = gap.end()
    if start < len(text):
        spans.append((start, len(text)))
    return spans


def _block_quotes(text: str, citations: Sequence[FoundCitation]) -> list[Quotation]:
    """Paragraphs with no quotation marks and no citation, followed by a paragraph that is only a citation (a signal
    before it, a pin cite, a parenthetical or two after it: at most `BLOCK_CITATION_TAIL` characters): an ordinary
    paragraph followed by one that merely begins with a citation is not a block quote."""
    starts = {c.span[0]: c.index for c in citations}
    by_index = {c.index: c for c in citations}
    blocks = []
    paragraphs = _paragraphs(text)
    for (start, end), (next_start, next_end) in itertools.pairwise(paragraphs):
        index = _citation_at(text, next_start, starts)
        if index is None or end - start < 40 or end - start > MAX_QUOTE_CHARS:
            continue
        last = _last_end(citations, next_start, next_end, by_index[index].span[1])
        if len(text[last:next_end].strip()) > BLOCK_CITATION_TAIL:
            continue
        body = text[start:end]
        first = _first_at(citations, start)
        if re.search(r"[\"“”]", body) or (first < len(citations) and citations[first].span[0] < end):
            continue
        cited = by_index[index]
        separate = _presented_as_separate(text, (start, end), cited, by_index.get(cited.refers_to))
        blocks.append(Quotation((start, end), body, index, block=True, presented_as_separate=separate))
    return blocks


def _last_end(citations: Sequence[FoundCitation], start: int, end: int, default: int) -> int:
    """The furthest end of the citations (sorted by span) that start in [`start`, `end`), or `default`: only those
    citations are read, so every paragraph costs its own citations, not the rest of the document's."""
    last = default
    for position in range(_first_at(citations, start), len(citations)):
        if citations[position].span[0] >= end:
            break
        last = max(last, citations[position].span[1])
    return last


def _citation_at(text: str, position: int, starts: dict[int, int]) -> int | None:
    """The citation starting at `position` after a short signal, if any."""
    for offset in range(0, 30):
        if position + offset in starts:
            lead = text[position : position + offset]
            return starts[position + offset] if _SIGNAL.match(lead) else None
    return None


def _first_at(citations: Sequence[FoundCitation], position: int) -> int:
    """The index of the first citation (sorted by span) starting at or after `position`."""
    low, high = 0, len(citations)
    while low < high:
        middle = (low + high) // 2
        if citations[middle].span[0] < position:
            low = middle + 1
        else:
            high = middle
    return low


def _inside_citation(span: tuple[int, int], citations: Sequence[FoundCitation]) -> bool:
    index = _first_at(citations, span[0] + 1) - 1
    return any(c.span[0] <= span[0] and span[1] <= c.span[1] for c in citations[max(0, index - 3) : index + 1])


def _sentence_ends(gap: str) -> list[re.Match]:
    ends = []
    for match in _SENTENCE_END.finditer(gap):
        if not _ABBREVIATION_END.search(gap[: match.start() + 1]):
            ends.append(match)
    return ends


def _after(text: str, end: int, citations: Sequence[FoundCitation], others: Sequence[int]) -> FoundCitation | None:
    """The first citation after a quotation that closes before it, if the gap is only a signal and at most one
    sentence end at its start (`citations` sorted by span, `others` the sorted openings of quotations)."""
    index = _first_at(citations, end)
    for citation in citations[index : index + 1]:
        gap = text[end : citation.span[0]]
        if len(gap) > MAX_GAP or bisect.bisect_left(others, end) < bisect.bisect_left(others, citation.span[0]):
            return None
        ends = _sentence_ends(" " + gap)
        if len(ends) > 1 or (ends and ends[0].start() > 3):
            return None
        lead = gap[ends[0].end() - 1 :] if ends else gap
        if _SIGNAL.match(lead) or (not ends and re.fullmatch(r"[\s,;:.]*\(?", gap)):
            return citation
        return None
    return None


def _before(text: str, start: int, citations: Sequence[FoundCitation]) -> FoundCitation | None:
    """The last citation before a quotation in the same sentence, if close enough."""
    index = _first_at(citations, start) - 1
    while index >= 0 and citations[index].span[1] > start:
        index -= 1
    if index < 0 or start - citations[index].span[1] > MAX_GAP_BEFORE:
        return None
    previous = citations[index]
    gap = text[previous.span[1] : start]
    if len(gap) > MAX_GAP or _sentence_ends(gap + " X"):
        return None
    if _closes_parenthesis(text, previous.span[0], gap):
        return None  # "(… reported in 144 U. S. 653) of the will …: “…”": the citation was a parenthetical's
    if text[previous.span[1] - 1 : previous.span[1]] in ".!?" and re.match(r"\s+[\"“(\[]?[A-Z]", gap):
        return None  # "... classifications. Ibid. He also allows that “...”": the citation ended its sentence
    return previous


def _id_points_elsewhere(text: str, citation: FoundCitation, ordered: Sequence[FoundCitation]) -> bool:
    """Whether an "Id." refers to a reference lexprobe does not read as a citation (the record, the citing
    opinion's own pages: "App. 145a. ... Id., at 146a", "Ante, at 312. ... Ibid.") rather than to the citation
    before it that it was resolved to."""
    if citation.kind != "id":
        return False
    if re.search(r"\bat\s+(?:\d+[a-z]|[A-Z]\d+)\b", citation.text):  # "Id., at 146a", "id., at A10": an appendix
        return True
    position = _first_at(ordered, citation.span[0]) - 1
    previous_end = ordered[position].span[1] if position >= 0 else 0
    return bool(_UNREAD_BETWEEN.search(text, previous_end, citation.span[0]))


def _closes_parenthesis(text: str, citation_start: int, gap: str) -> bool:
    """Whether `gap` closes a parenthesis opened before the citation (within 200 characters)."""
    depth = 0
    for character in gap:
        if character == "(":
            depth += 1
        elif character == ")":
            depth -= 1
            if depth < 0:
                lead = text[max(0, citation_start - 200) : citation_start]
                return lead.count("(") > lead.count(")")
    return False


_SPEAKER = re.compile(r"\b(?:Justice|Judge)\s+([A-Z][A-Za-zÀ-ÿ'’-]+)")


def _speaker(text: str, start: int) -> str | None:
    """The last name after "Justice" or "Judge" in the sentence before a quotation ("As stated by Mr. Justice Field
    when protesting in ..."), if any."""
    before = text[max(0, start - 200) : start]
    sentence_start = max((m.end() for m in _sentence_ends(before)), default=0)
    names = _SPEAKER.findall(before[sentence_start:])
    return names[-1] if names else None


#: How far back the presentation of a quotation is read: its own sentence and the one before it, at most this many
#: characters ("In his dissenting opinion, JUSTICE KENNEDY maintained that ... “...”"; "I there said: “...”").
PRESENTATION_CHARS = 600
#: A sentence shorter than this is taken for a citation sentence when reading a quotation's presentation.
CITATION_SENTENCE_CHARS = 60
#: The citing opinion's author quoting his or her own separate opinion ("As I have previously insisted:", "I there
#: said:", "I concluded in Furman that", "my dissent").
_FIRST_PERSON = re.compile(
    r"\bI\s+(?:\w+\s+){0,3}?(?:said|wrote|noted|concluded|expressed|stated|observed|insisted|explained|argued|"
    r"suggested|emphasized|put it)\b|\bmy\s+(?:dissent|concurrence|separate|opinion)|\b(?:led|prompted|moved) me\b",
)
#: Justices writing apart from the Court ("The four Justices then concluded", "the Justices concurring in the
#: judgment").
_FEW_JUSTICES = r"\b(?:two|three|four) (?:Justices|Members)\b|\bopinion of (?:Mr\.\s+)?(?:Chief\s+)?Justice\b"
#: A Justice's separate writing named as such ("JUSTICE BLACKMUN's concurrence", "(White, J., concurring)").
_SEPARATE_CUE = re.compile(rf"{_SEPARATE_NEAR.pattern}|{_FIRST_PERSON.pattern}|{_FEW_JUSTICES}", re.I)


def _presentation(text: str, start: int) -> str:
    """The words that present the quotation starting at `start`: its own sentence up to it and the sentence before
    (at most `PRESENTATION_CHARS` characters)."""
    before = text[max(0, start - PRESENTATION_CHARS) : start]
    ends = _sentence_ends(before)
    back = 2
    # a citation sentence ("Id., at 183.") says nothing of who spoke: read the sentence before it too
    while back < len(ends) and ends[-back + 1].start() - ends[-back].end() < CITATION_SENTENCE_CHARS:
        back += 1
    return before[ends[-back].end() :] if len(ends) >= back else before


#: The parentheticals right after a citation, one or two, after a pin cite or a footnote reference the citation's span
#: may leave out ("at 120 n. (concurring opinion)", "at 96-97 (concurring opinion) (footnotes omitted)").
_PIN_LEAD = r"(?:,?\s*(?:at\s+)?(?:pp?\.\s*)?\d{1,4}(?:\s*[-–]\s*\d{1,4})?)?(?:,?\s*(?:and\s+)?nn?\.\s*\d*)?"
_PARENTHETICALS = re.compile(rf"{_PIN_LEAD}\s*\(([^()]{{0,80}})\)(?:\s*\(([^()]{{0,80}})\))?")


def _separate_parenthetical(text: str, citation: FoundCitation) -> bool:
    """Whether the parenthetical right after `citation` names a separate opinion ("(Harlan, J., dissenting)")."""
    after_citation = text[citation.span[1] : citation.span[1] + 160]
    # "Ribnik v. McBride, supra, at p. 375, dissenting opinion"
    if re.match(rf"{_PIN_LEAD}\s*,\s*(?:dissenting|concurring) opinion\b", after_citation, re.I):
        return True
    parentheticals = _PARENTHETICALS.match(after_citation)
    return bool(parentheticals and any(_SEPARATE_NEAR.search(part or "") for part in parentheticals.groups()))


def _presented_as_separate(
    text: str, quotation: tuple[int, int], citation: FoundCitation, antecedent: FoundCitation | None = None
) -> bool:
    """Whether the document says the quotation is a dissent's or a concurrence's: in the words that present it
    (`_presentation`: "dissenting", "concurrence", the author's own "I there said"), in its citation's
    parenthetical, or, for an "Id." / short form, in the parenthetical of the citation it refers to ("Commonwealth
    Edison, 453 U. S., at 637 (White, J., concurring). ... “...” Id., at 638")."""
    if _SEPARATE_CUE.search(_presentation(text, quotation[0])) or _separate_parenthetical(text, citation):
        return True
    return antecedent is not None and citation.kind != FULL and _separate_parenthetical(text, antecedent)


def _source_named_before(
    text: str, start: int, also: FoundCitation, names: CaseNames, ordered: Sequence[FoundCitation]
) -> FoundCitation | None:
    """The citation of a quotation followed by a "See also" (or "Cf.", "But see") citation `also`: that one, unless
    the quotation's sentence names another case ("The Court in Miranda held that “...”. See also Roe v. Wade, ..."):
    then the citation before it in its sentence, else the document's last full citation of the case named, else
    none."""
    before = text[max(0, start - PRESENTATION_CHARS) : start]
    sentence = before[max((m.end() for m in _sentence_ends(before)), default=0) :]
    other, named = names.names_another_case(sentence, also, start)
    if not other:
        return also
    return _before(text, start, ordered) or named


def find_quotations(text: str, citations: Sequence[FoundCitation]) -> Quotations:
    """The quotations of `text` attributed to one of `citations` (the extraction's list, in document order)."""
    ordered = sorted(citations, key=lambda c: c.span)
    by_index = {c.index: c for c in citations}
    inline = quoted_passages(text)
    inline = [span for span in inline if not _inside_citation(span, ordered)]
    opening = [start for start, _ in inline]
    names = CaseNames(ordered)
    found: list[Quotation] = []
    for start, end in inline:
        body = text[start + 1 : end - 1]
        if sum(1 for character in body[:200] if character.isalpha()) < MIN_LETTERS:
            continue
        citation = _after(text, end, ordered, opening)
        if citation is not None and ALSO_SIGNAL.search(text, end, citation.span[0]):
            citation = _source_named_before(text, start, citation, names, ordered)
        if citation is None and not _UNREAD_AFTER.match(text, end, min(len(text), end + 120)):
            citation = _before(text, start, ordered)
        if citation is None or _id_points_elsewhere(text, citation, ordered):
            continue
        antecedent = by_index.get(citation.refers_to) if citation.kind == "id" else None
        if antecedent is not None and start <= antecedent.span[0] < end:
            continue  # "“... Marsh v. Alabama, supra, involved ...” Id., at 568": eyecite's antecedent is quoted
        cut = len(body) > MAX_QUOTE_CHARS
        found.append(
            Quotation(
                span=(start, end),
                text=body[:CHECKED_CHARS] if cut else body,
                citation=citation.index,
                presented_as_separate=_presented_as_separate(
                    text, (start, end), citation, by_index.get(citation.refers_to)
                ),
                cut=cut,
                speaker=_speaker(text, start),
            )
        )
    found.extend(_block_quotes(text, ordered))
    found.sort(key=lambda q: q.span)
    skipped = max(0, len(found) - MAX_QUOTATIONS)
    return Quotations(found[:MAX_QUOTATIONS], skipped)
