"""Which citation a quotation belongs to: a small grammar of the citation sentence (docs/check.md, "Quotations").

A brief ties a quotation to its source in a few ways, read here in this order (the productions; `FORMS` in
`lexprobe.check.attribution_forms` lists the forms each one reads, with an example of each):

1. `after`: a citation clause right after the quotation ("“...” X, 1 U. S. 1, 5 (1990).", "See X", "Id. at 5",
   "See id.", "Ibid.", "X, 1 U. S., at 5", "X, supra, at 5"): only punctuation, a footnote mark, a short signal and
   at most one sentence end (the citation sentence after the quoted one) lie between them. The clause's main
   citation takes it, never one inside its parentheticals: in "X (quoting Y (quoting Z))" the brief quotes X.
2. `see_also_named`: when that clause is introduced as further or contrary authority ("See also", "Cf.", "But see")
   and the quotation's own sentence names another case ("The Court in Miranda held that “...”. See also Roe"),
   the sentence's source takes it: its citation before the quotation, else the document's last full citation of
   the case named (`CaseNames`: a sentence names a case by the short name a short form would use), else no citation.
3. `before`: the last citation clause before the quotation in the same sentence and paragraph ("As the Court held
   in X, 1 U. S. 1, 5 (1990), “...”"): its main citation, unless the quotation sits inside that citation's own
   parenthetical ("X (“...”)"), where the citation before it takes it.
4. `named`: the quotation's sentence names a case the document cites in full before it, by the short name a short
   form would use ("In Terry, the Court said that “...”"), with a verb of saying or holding: the last full
   citation of that case takes it, without its pin cite (the sentence gives none).

Nothing crosses a paragraph break except `after` (a quotation set off as its own paragraph, then its citation), and
nothing takes a quotation followed by a reference lexprobe does not read as a case citation ("Post, at 246", "App.
125a"): the quotation is that reference's. Every step reads a bounded stretch of text around the quotation and
finds citations by bisection over their sorted offsets, so a document costs time linear in its quotations.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass

from lexprobe.check.extract import FULL, FoundCitation
from lexprobe.check.parentheticals import clause_end

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
