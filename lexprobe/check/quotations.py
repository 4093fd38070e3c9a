"""Find the quotations in a checked document and the citation each is attributed to (docs/check.md, "Quotations").

A quotation is a passage between double quotation marks (straight, or curly “ ” with nesting counted), or a block
quote: a paragraph without quotation marks followed by a paragraph that is only a citation. Which citation it
belongs to is read by the grammar of the citation sentence (`CitationSentences`: docs/check.md, "Which citation"),
its productions in order: `after` (a citation clause right after it), `see_also_named` (a "See also" after a
sentence that names its source), `before` (the last citation before it in its sentence), `named` (a case the
sentence names by its short name, `CaseNames`); the forms each reads are listed with examples in
`lexprobe.check.attribution_forms`. Nothing crosses a paragraph break but `after`, and every step reads a bounded
stretch of text and finds citations by bisection, so a document costs time linear in its quotations. What the
parentheticals after that citation allow ("(citations omitted)", "(alteration in original)") is read by
`lexprobe.check.parentheticals`.

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
from lexprobe.check.parentheticals import allowances, clause_end

#: The longest quotation searched for in full; longer ones are cut (and the reason says so).
MAX_QUOTE_CHARS = 20_000
#: How much of an over-long quotation is checked.
CHECKED_CHARS = 2_000
#: Quotations per document.
MAX_QUOTATIONS = 5_000
#: What may follow the citation in the paragraph after a block quote ("(emphasis added).").
BLOCK_CITATION_TAIL = 80
#: Characters between two citations of the paragraph after a block quote ("; see also").
BLOCK_CITATION_GAP = 40
#: Shortest quotation (letters) worth checking: "the Court" in quotation marks is a term, not a quotation.
MIN_LETTERS = 12

_SEPARATE_NEAR = re.compile(
    r"\b(?:dissent(?:ing|ed|s|ers?)?|concurr(?:ing|ence|ed|ences)?|separate(?:ly)? opinion)\b", re.I
)


# --- which citation: the grammar of the citation sentence ---------------------------------------------------

#: Characters between a quotation and the citation it is attributed to.
MAX_GAP = 200
#: Characters between a citation and a quotation after it in the same sentence ("In Brown, 347 U.S. 483, the Court
#: said that “...”"): further away, the sentence has usually moved on to another source (a statute, a record).
MAX_GAP_BEFORE = 150
#: How far back a quotation's sentence is read for a case's name.
SENTENCE_CHARS = 600

AFTER, SEE_ALSO_NAMED, BEFORE, NAMED, BLOCK = "after", "see_also_named", "before", "named", "block"

#: A sentence end: the next sentence may open with a footnote number ("(1963). 5 The Court", "[1] This") or a star
#: page mark ("(1964). *657 I. At").
_SENTENCE_END = re.compile(r"[.!?][\"'”’)\]]*\s+(?=(?:\[\d{1,3}\]\s+|\d{1,3}\s+|\*\d{1,4}\s+)*[\"“(\[]?[A-Z])")
_ABBREVIATION_END = re.compile(r"(?:\b(?:v|vs|Mr|MR|Mrs|MRS|Messrs|MESSRS|U\.S|S|Ct|Co|Inc|Corp|No|Nos|Cir|Dist|id|Id|"
                               r"al|e\.g|i\.e|cf|Cf|J|JJ|C\.J|supra|ed|Ed|L|Stat|U\.S\.C|Rev|Sup|App|F|Supp|Cong|Sess)|"
                               r"\b[A-Z])\.$")  # fmt: skip
#: What may lie between a quotation and its citation, or before a block quote's citation: a short signal.
SIGNAL = re.compile(
    r"^\s*[,;:.]?\s*(?:\(|\[)?\s*"
    r"(?:(?:see|cf|accord|compare|but|also|e\.g|quoting|citing|in|as|in re|from)\b[.,]?\s*)*$",
    re.I,
)
#: A footnote mark right after a quotation's closing mark ("”³ Terry", "”.3 See", "”* Id.").
_FOOTNOTE_MARK = re.compile(r"[.,;:]?(?:\d{1,3}|[¹²³⁴⁵⁶⁷⁸⁹⁰]{1,3}|\*{1,3}|[†‡])(?=\s)")
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
#: What a sentence says a case did with the words it quotes ("In Terry, the Court held that “...”").
_SAYS = (
    r"\b(?:held|holds|holding|said|says|stated|states|explained|explains|observed|observes|noted|notes|wrote|writes|"
    r"recognized|recognizes|emphasized|emphasizes|declared|declares|concluded|concludes|reasoned|reasons|described|"
    r"describes|cautioned|cautions|warned|warns|acknowledged|acknowledges|announced|announces|added|reiterated|"
    r"reiterates|stressed|stresses|characterized|characterizes|instructed|instructs|taught|teaches|ruled|rules|"
    r"found|finds|defined|defines|put it|made clear|makes clear|pointed out|points out|spoke of|speaks of|"
    r"language|words|observation|admonition|statement|teaching)\b"
)
#: The verb of saying right before the quotation: "held that ", "said: ", "explained, in words worth repeating, ".
_LEAD_IN = re.compile(rf"(?P<verb>{_SAYS})[^“”\"().;]{{0,80}}$")
_NOUNS = r"(?:holding|statement|observation|admonition|explanation|teaching|instruction|words|language|conclusion)"
_NOUN_LEAD = re.compile(rf"['’]s\s+{_NOUNS}\s*,?\s*(?:that\s+)?$")
_COURT = r"(?:(?:the|this)\s+Court|we|Justice\s+[A-Z][\w'’-]+)"
_NAME_WORDS = r"(?:[A-Z][\w.'’&-]*\s+){0,3}"  # the words of a name before its short name ("New York Times")
_FULL_NAME_TAIL = r"(?:\s+v\.\s+[^,“”\"]{1,80})?"
#: The frames in which a sentence gives a quotation to a case it names: (what comes before the name, what comes
#: after it up to the quotation).
_NAMED_FRAMES = (
    # "In Terry, the Court said that “...”", "In Harris, however, we held that “...”"
    (
        re.compile(rf"(?:^|\W)[Ii]n\s+(?:the\s+)?{_NAME_WORDS}$"),
        re.compile(
            rf"{_FULL_NAME_TAIL}\s*,\s*(?:(?:however|moreover|indeed|also|too|thus|then|there),?\s*)?{_COURT}\b"
            rf"[^“”\"]{{0,120}}?{_SAYS}[^“”\"().;]{{0,80}}"
        ),
    ),
    # "The Court in Terry explained: “...”"
    (
        re.compile(rf"\b(?:the|this)\s+Court\s+in\s+{_NAME_WORDS}$", re.I),
        re.compile(rf"{_FULL_NAME_TAIL}\s*,?\s*(?:\w+\s+){{0,2}}?{_SAYS}[^“”\"().;]{{0,80}}"),
    ),
    # "Terry held that “...”", "The Terry Court explained that “...”" (the name opens the sentence)
    (
        re.compile(r"^\s*(?:(?:In|And|But|As|Thus|So|Indeed|Moreover)\s+)?(?:[Tt]he\s+)?$"),
        re.compile(
            rf"{_FULL_NAME_TAIL}(?:['’]s)?(?:\s+Court)?\s+(?:(?:also|expressly|specifically|further|repeatedly)\s+)?"
            rf"{_SAYS}[^“”\"().;]{{0,80}}"
        ),
    ),
    # "As the Court put it in Terry, “...”", "as explained in Terry: “...”"
    (re.compile(rf"{_SAYS}\s+in\s+$"), re.compile(rf"{_FULL_NAME_TAIL}\s*[,:]?\s*(?:that\s+)?")),
    # "Terry's holding that “...”"
    (re.compile(r""), re.compile(rf"['’]s\s+{_NOUNS}\s*,?\s*(?:that\s+)?")),
)
_PARAGRAPH = re.compile(r"\n[ \t]*\n")


#: Signals after a quotation that introduce further or contrary authority, not the quotation's source.
ALSO_SIGNAL = re.compile(r"\b(?:see\s+also|see\s+generally|but\s+see|but\s+cf\.?|cf\.?|compare|contra)(?=[\s,])", re.I)
#: Parties that are not a case's short name.
_GENERIC = frozenset(
    "united states state states people commonwealth city county town village board department commissioner "  # noqa: SIM905
    "secretary director government court in re ex parte matter of the a an and of for estate v congress justice "
    "national federal american general international first new north south east west commission company "
    "corporation association union bank insurance railroad county school district educ ed bd dept dep't comm'n "
    "commr commrs comm'rs sch dist auth univ ass'n assn bros inc corp co ltd regents trustees "
    # the states, parties of most criminal cases ("Terry v. Ohio": Terry; "West Virginia Bd. of Ed. v. Barnette":
    # Barnette)
    "alabama alaska arizona arkansas california colorado connecticut delaware florida georgia hawaii idaho "
    "illinois indiana iowa kansas kentucky louisiana maine maryland massachusetts michigan minnesota "
    "mississippi missouri montana nebraska nevada hampshire jersey mexico york carolina dakota ohio oklahoma "
    "oregon pennsylvania rhode island tennessee texas utah vermont virginia washington wisconsin wyoming".split()
)
_WORD = re.compile(r"[A-Z][A-Za-z'’-]{2,}")
_VERSUS = re.compile(r"\b([A-Z][A-Za-z'’-]{2,})[\w\s.,'’&-]{0,60}?\s+v\.\s+[A-Z]")


def short_name(name: str | None) -> str | None:
    """The word a brief calls a case by ("Miranda" for "Miranda v. Arizona", "Wade" for "United States v. Wade"), or
    None when no party gives one."""
    if not name:
        return None
    for party in re.split(r"\s+v\.?\s+", name, maxsplit=1):
        for word in _WORD.findall(party):
            if word.lower() not in _GENERIC:
                return word
    return None


class CaseNames:
    """The short names of the cases a document cites in full, indexed once per document: short name -> its full
    citations in document order, and each group's case name."""

    def __init__(self, ordered: Sequence[FoundCitation]) -> None:
        self.by_word: dict[str, list[FoundCitation]] = {}
        self.starts: dict[str, list[int]] = {}
        self.group_name: dict[int, str] = {}
        for citation in ordered:
            if citation.kind != FULL:
                continue
            if citation.group is not None and citation.name and citation.group not in self.group_name:
                self.group_name[citation.group] = citation.name
            word = short_name(citation.name)
            if word is not None:
                self.by_word.setdefault(word, []).append(citation)
                self.starts.setdefault(word, []).append(citation.span[0])

    def names_another_case(
        self, sentence: str, attributed: FoundCitation, position: int
    ) -> tuple[bool, FoundCitation | None]:
        """Whether `sentence` (a quotation's sentence up to the quotation at `position`) names a case other than
        `attributed`'s (the citation after the quotation), and the last full citation of that case before
        `position`, if the document has one."""
        own = short_name(self.group_name.get(attributed.group, attributed.name) if attributed.group is not None
                         else attributed.name)  # fmt: skip
        named: FoundCitation | None = None
        for word in set(_WORD.findall(sentence)) - {own}:
            index = bisect.bisect_left(self.starts.get(word, []), position) - 1
            if index >= 0:
                citation = self.by_word[word][index]
                if citation.group != attributed.group and (named is None or citation.span > named.span):
                    named = citation
        if named is not None:
            return True, named
        versus = any(m.group(1) != own and m.group(1).lower() not in _GENERIC for m in _VERSUS.finditer(sentence))
        return versus, None

    def names_in(self, sentence: str, position: int) -> list[tuple[int, int, FoundCitation]]:
        """The cases `sentence` names by their short names ("Terry", possessives included: "Terry's"), each as
        (start, end) in the sentence and the last full citation of that case before `position`, in order."""
        found = []
        for match in _WORD.finditer(sentence):
            word = re.sub(r"['’]s?$", "", match.group())
            index = bisect.bisect_left(self.starts.get(word, []), position) - 1
            if index >= 0:
                found.append((match.start(), match.start() + len(word), self.by_word[word][index]))
        return found


@dataclass(frozen=True)
class Attribution:
    """The citation a quotation belongs to, the production that read it (`AFTER` ...), and whether the citation's
    pin cite is the quotation's (not for `NAMED`: a name carries no pin)."""

    citation: FoundCitation
    form: str
    pin_applies: bool = True


class CitationSentences:
    """The citations of one document (sorted by offset, with the index of short names) and the openings of its
    quotations, against which each quotation's citation sentence is read (`attribute`)."""

    def __init__(self, text: str, citations: Sequence[FoundCitation], openings: Sequence[int]) -> None:
        self.text = text
        self.ordered = sorted(citations, key=lambda c: c.span)
        self.by_index = {c.index: c for c in citations}
        self.openings = list(openings)
        self.names = CaseNames(self.ordered)

    def attribute(self, start: int, end: int) -> Attribution | None:
        """The citation of the quotation spanning [`start`, `end`) (its marks included), by the productions in
        the module's order; None when it has none (or belongs to a reference lexprobe does not read)."""
        after = self._after(end)
        if after is not None:
            if ALSO_SIGNAL.search(self.text, end, after.span[0]):
                return self._source_named_before(start, after)
            return Attribution(after, AFTER)
        if _UNREAD_AFTER.match(self.text, end, min(len(self.text), end + 120)):
            return None
        before = self._before(start)
        if before is not None:
            return Attribution(before, BEFORE)
        named = self._named(start)
        return Attribution(named, NAMED, pin_applies=False) if named is not None else None

    def main(self, citation: FoundCitation) -> FoundCitation:
        """The citation whose clause holds `citation` (X for Y and Z in "X (quoting Y (quoting Z))")."""
        seen = 0
        while citation.inside is not None and seen < 50:
            citation = self.by_index[citation.inside]
            seen += 1
        return citation

    def _after(self, end: int) -> FoundCitation | None:
        """The first citation after a quotation closing at `end`, if the gap is only a footnote mark, a signal and
        at most one sentence end at its start, and no other quotation opens in it."""
        index = first_at(self.ordered, end)
        if index >= len(self.ordered):
            return None
        citation = self.ordered[index]
        gap = self.text[end : citation.span[0]]
        if len(gap) > MAX_GAP:
            return None
        if bisect.bisect_left(self.openings, end) < bisect.bisect_left(self.openings, citation.span[0]):
            return None
        mark = _FOOTNOTE_MARK.match(gap)
        if mark is not None:
            gap = gap[mark.end() :]
        ends = sentence_ends(" " + gap)
        if len(ends) > 1 or (ends and ends[0].start() > 3):
            return None
        lead = gap[ends[0].end() - 1 :] if ends else gap
        if SIGNAL.match(lead) or (not ends and re.fullmatch(r"[\s,;:.]*\(?", gap)):
            return self.main(citation)
        return None

    def _before(self, start: int) -> FoundCitation | None:
        """The citation clause before a quotation at `start` in the same sentence and paragraph, if close enough:
        its main citation once its parentheticals have closed ("X (quoting Y), “...”": X), else the citation
        whose parenthetical holds the quotation ("X (“...”)": X)."""
        text = self.text
        index = first_at(self.ordered, start) - 1
        while index >= 0 and self.ordered[index].span[1] > start:
            index -= 1
        if index < 0:
            return None
        previous = self.ordered[index]
        edge = previous.span[1]
        main = self.main(previous)
        if main is not previous:
            closed = clause_end(text, main.span[1], limit=start)
            if previous.span[1] < closed <= start and re.fullmatch(r"[\s,:][^();“”\"]*", text[closed:start]):
                previous, edge = main, closed  # "X (quoting Y), “...”"; not "X (quoting Y); see also Z (“...”)"
        if start - edge > MAX_GAP_BEFORE:
            return None
        gap = text[edge:start]
        if sentence_ends(gap + " X") or _PARAGRAPH.search(gap):
            return None
        if _closes_parenthesis(text, previous.span[0], gap):
            return None  # "(… reported in 144 U. S. 653) of the will …: “…”": the citation was a parenthetical's
        if text[edge - 1 : edge] in ".!?" and re.match(r"\s+[\"“(\[]?[A-Z]", gap):
            return None  # "... classifications. Ibid. He also allows that “...”": the citation ended its sentence
        return previous

    def _named(self, start: int) -> FoundCitation | None:
        """The last full citation of a case the quotation's sentence names (outside its citations) as the source
        of the words, in one of the frames of `_NAMED_FRAMES` ("In Terry, the Court said that “...”", "The Court
        in Terry explained: “...”", "Terry held that “...”", "As the Court put it in Terry, “...”", "Terry's
        holding that “...”"); the name nearest the quotation is tried first. None otherwise."""
        sentence = self._sentence(start)
        if not _LEAD_IN.search(sentence) and not _NOUN_LEAD.search(sentence):
            return None
        offset = start - len(sentence)
        words = list(sentence)
        for position in range(first_at(self.ordered, offset - MAX_GAP_BEFORE), len(self.ordered)):
            citation = self.ordered[position]
            if citation.span[0] >= start:
                break
            low, high = max(citation.span[0], offset) - offset, min(citation.span[1], start) - offset
            if high > low:
                words[low:high] = " " * (high - low)  # a name inside a citation is the citation's (`before`)
        masked = "".join(words)
        for low, high, citation in reversed(self.names.names_in(masked, start)):
            head, tail = masked[:low], masked[high:]
            if any(before.search(head) and after.fullmatch(tail) for before, after in _NAMED_FRAMES):
                return citation
        return None

    def _sentence(self, start: int) -> str:
        """The quotation's sentence up to it (within its paragraph, at most `SENTENCE_CHARS`)."""
        before = self.text[max(0, start - SENTENCE_CHARS) : start]
        cut = max((m.end() for m in _PARAGRAPH.finditer(before)), default=0)
        cut = max([cut, *(m.end() for m in sentence_ends(before))])
        return before[cut:]

    def _source_named_before(self, start: int, also: FoundCitation) -> Attribution | None:
        """A quotation followed by a "See also" (or "Cf.", "But see") citation `also`: the citation before it in
        its sentence, if any; else `also`, unless the quotation's sentence names another case ("The Court in
        Miranda held that “...”. See also Roe v. Wade, ..."): then the document's last full citation of the case
        named (no pin), else none."""
        before = self._before(start)
        if before is not None:  # "See, e. g., The City of New York, 147 U. S. 72, 85: “...” See also The Victory"
            return Attribution(before, SEE_ALSO_NAMED)
        sentence = self._sentence(start)
        other, named = self.names.names_another_case(sentence, also, start)
        if not other:
            return Attribution(also, AFTER)
        return Attribution(named, SEE_ALSO_NAMED, pin_applies=False) if named is not None else None

    def id_points_elsewhere(self, citation: FoundCitation) -> bool:
        """Whether an "Id." refers to a reference lexprobe does not read as a citation (the record, the citing
        opinion's own pages: "App. 145a. ... Id., at 146a", "Ante, at 312. ... Ibid.") rather than to the citation
        before it that it was resolved to."""
        if citation.kind != "id":
            return False
        if re.search(r"\bat\s+(?:\d+[a-z]|[A-Z]\d+)\b", citation.text):  # "Id., at 146a", "id., at A10": an appendix
            return True
        position = first_at(self.ordered, citation.span[0]) - 1
        previous_end = self.ordered[position].span[1] if position >= 0 else 0
        return bool(_UNREAD_BETWEEN.search(self.text, previous_end, citation.span[0]))


def first_at(citations: Sequence[FoundCitation], position: int) -> int:
    """The index of the first citation (sorted by span) starting at or after `position`."""
    return bisect.bisect_left(citations, position, key=lambda citation: citation.span[0])


def sentence_ends(gap: str) -> list[re.Match]:
    """The sentence ends in `gap` (not after an abbreviation such as "v." or "U.S.")."""
    ends = []
    for match in _SENTENCE_END.finditer(gap):
        if not _ABBREVIATION_END.search(gap[: match.start() + 1]):
            ends.append(match)
    return ends


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


# --- the quotations ----------------------------------------------------------------------------------------------


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
    form: str = AFTER  # the production of the grammar (`CitationSentences`) that tied it to its citation
    pin_applies: bool = True  # the citation's pin cite is the quotation's (not when only the case's name is given)
    allowances: frozenset[str] = frozenset()  # what the citation's parentheticals allow (`parentheticals.allowances`)
    quoted: tuple[int, ...] = ()  # the citations the citation's "(quoting ...)" parentheticals name, in order


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
        last = _last_end(text, citations, next_start, next_end, by_index[index].span[1])
        if last is None or len(text[last:next_end].strip()) > BLOCK_CITATION_TAIL:
            continue
        body = text[start:end]
        first = first_at(citations, start)
        if re.search(r"[\"“”]", body) or (first < len(citations) and citations[first].span[0] < end):
            continue
        cited = by_index[index]
        separate = _presented_as_separate(text, (start, end), cited, by_index.get(cited.refers_to))
        allowed, quoted = _clause_facts(text, cited, citations)
        blocks.append(
            Quotation((start, end), body, index, block=True, presented_as_separate=separate, form=BLOCK,
                      allowances=allowed, quoted=quoted)
        )  # fmt: skip
    return blocks


def _last_end(text: str, citations: Sequence[FoundCitation], start: int, end: int, default: int) -> int | None:
    """The end of the citation clauses (citations with their parentheticals) that start in [`start`, `end`) when
    only signals and separators lie between them (at most `BLOCK_CITATION_GAP` characters: "Id., at 5; see also
    X, ..."), else None (a paragraph of prose that merely begins and ends with a citation); `default` when there
    are none. Only those citations are read, so every paragraph costs its own citations, not the rest of the
    document's."""
    last = default
    for position in range(first_at(citations, start), len(citations)):
        citation = citations[position]
        if citation.span[0] >= end:
            break
        if citation.span[0] - last > BLOCK_CITATION_GAP:
            return None
        last = max(last, clause_end(text, citation.span[1], limit=end))
    return last


def _citation_at(text: str, position: int, starts: dict[int, int]) -> int | None:
    """The citation starting at `position` after a short signal, if any."""
    for offset in range(0, 30):
        if position + offset in starts:
            lead = text[position : position + offset]
            return starts[position + offset] if SIGNAL.match(lead) else None
    return None


def _inside_citation(span: tuple[int, int], citations: Sequence[FoundCitation]) -> bool:
    index = first_at(citations, span[0] + 1) - 1
    return any(c.span[0] <= span[0] and span[1] <= c.span[1] for c in citations[max(0, index - 3) : index + 1])


_SPEAKER = re.compile(r"\b(?:Justice|Judge)\s+([A-Z][A-Za-zÀ-ÿ'’-]+)")


def _speaker(text: str, start: int) -> str | None:
    """The last name after "Justice" or "Judge" in the sentence before a quotation ("As stated by Mr. Justice Field
    when protesting in ..."), if any."""
    before = text[max(0, start - 200) : start]
    sentence_start = max((m.end() for m in sentence_ends(before)), default=0)
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
    ends = sentence_ends(before)
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


def _clause_facts(text: str, citation: FoundCitation, ordered: Sequence[FoundCitation]) -> tuple[frozenset, tuple]:
    """What the parentheticals after `citation` allow, and the citations its "(quoting ...)" parentheticals name
    (Y in "X, 1 U. S. 1 (1990) (quoting Y, 2 U. S. 2, 7)"), read up to the end of its clause."""
    end = clause_end(text, citation.span[1])
    quoted = []
    for position in range(first_at(ordered, citation.span[1]), len(ordered)):
        inner = ordered[position]
        if inner.span[0] >= end:
            break
        lead = text[max(0, inner.span[0] - 40) : inner.span[0]]
        if inner.inside == citation.index and re.search(r"\bquoting\s*$", lead):
            quoted.append(inner.index)
    return allowances(text[citation.span[1] : end]), tuple(quoted)


def find_quotations(text: str, citations: Sequence[FoundCitation]) -> Quotations:
    """The quotations of `text` attributed to one of `citations` (the extraction's list, in document order)."""
    ordered = sorted(citations, key=lambda c: c.span)
    by_index = {c.index: c for c in citations}
    inline = quoted_passages(text)
    inline = [span for span in inline if not _inside_citation(span, ordered)]
    sentences = CitationSentences(text, ordered, [start for start, _ in inline])
    found: list[Quotation] = []
    for start, end in inline:
        body = text[start + 1 : end - 1]
        if sum(1 for character in body[:200] if character.isalpha()) < MIN_LETTERS:
            continue
        attribution = sentences.attribute(start, end)
        if attribution is None or sentences.id_points_elsewhere(attribution.citation):
            continue
        citation = attribution.citation
        antecedent = by_index.get(citation.refers_to) if citation.kind == "id" else None
        if antecedent is not None and start <= antecedent.span[0] < end:
            continue  # "“... Marsh v. Alabama, supra, involved ...” Id., at 568": eyecite's antecedent is quoted
        allowed, quoted = _clause_facts(text, citation, ordered) if attribution.pin_applies else (frozenset(), ())
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
                form=attribution.form,
                pin_applies=attribution.pin_applies,
                allowances=allowed,
                quoted=quoted,
            )
        )
    found.extend(_block_quotes(text, ordered))
    found.sort(key=lambda q: q.span)
    skipped = max(0, len(found) - MAX_QUOTATIONS)
    return Quotations(found[:MAX_QUOTATIONS], skipped)
