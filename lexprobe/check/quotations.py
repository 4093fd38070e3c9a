"""Find the quotations in a checked document and the citation each is attributed to (docs/check.md, "Quotations").

A quotation is a passage between double quotation marks (straight, or curly “ ” with nesting counted), or a block
quote: a paragraph without quotation marks followed by a paragraph that is only a citation. Which citation it
belongs to is read by the grammar of the citation sentence in `lexprobe.check.attribution` (a citation after it, a
citation or a case's name before it in its sentence, "See also" after a sentence that names its source, "Id."
after a "(quoting ...)" parenthetical ...); what the parentheticals after that citation allow ("(citations
omitted)", "(alteration in original)") by `lexprobe.check.parentheticals`.

Short forms, "Id." and "supra" count like any citation: their case is the one `lexprobe.check.extract` resolved.
An opening mark without its closing one within `MAX_QUOTE_CHARS` (an unbalanced quote) starts no quotation; a
quotation over `MAX_QUOTE_CHARS` is kept but checked on its first `CHECKED_CHARS` characters only, and a document's
quotations past `MAX_QUOTATIONS` are not listed: each limit is said in the reason or by `Quotations.skipped`.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass

from lexprobe.check.attribution import AFTER, BLOCK, SIGNAL, CitationSentences, first_at, sentence_ends
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
    form: str = AFTER  # the production of `lexprobe.check.attribution` that tied it to its citation
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
