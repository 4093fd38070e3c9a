"""Verdicts on quotations: is each quoted passage in the opinion of the case it is attributed to?
verified, altered, separate_opinion, other_case, not_found or unverifiable, each with a reason and the evidence
found (the rules: docs/check.md, "Quotations", "Verdicts"). `page` is the page the passage begins on (star paging),
`pin_ok` whether it lies on the pin page(s) given (None without a pin cite or page marks). A quotation not in its
case is looked for in the other cases the document cites, then in every opinion of the offline corpus through the
database's word index (`CorpusSearch`, docs/check.md, "Other cases"): the rarest runs of its words are asked of the
index, and the candidates' opinions are searched with the exact matcher, so an index hit is never the evidence."""

from __future__ import annotations

import itertools
import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

from lexprobe.caselaw.case_names import display_name
from lexprobe.caselaw.opinion_index import opinions_with_phrases, word_counts
from lexprobe.caselaw.query import CaseDatabase
from lexprobe.caselaw.quote_text import has_gap, quote_segments
from lexprobe.caselaw.stored import Case
from lexprobe.check.extract import FoundCitation, pin_ranges
from lexprobe.check.online import OnlineOpinionTexts, case_note, source_fields, source_note
from lexprobe.check.parentheticals import CITATIONS, LITERAL_BRACKETS
from lexprobe.check.quotations import CHECKED_CHARS, Quotation, find_quotations
from lexprobe.check.quote_match import (
    Match,
    Opinion,
    OpinionTexts,
    find_exact,
    find_in,
    opinion_texts_for,
    word_difference,
)
from lexprobe.check.verify import CaseSummary, CitationVerdict, summarize

Q_VERIFIED, Q_ALTERED, Q_NOT_FOUND = "verified", "altered", "not_found"
Q_SEPARATE, Q_OTHER_CASE, Q_UNVERIFIABLE = "separate_opinion", "other_case", "unverifiable"
QUOTE_VERDICTS = (Q_VERIFIED, Q_ALTERED, Q_NOT_FOUND, Q_SEPARATE, Q_OTHER_CASE, Q_UNVERIFIABLE)
#: Quotation verdicts that make `lexprobe check` exit 1, like a mismatch.
QUOTE_PROBLEMS = (Q_ALTERED, Q_NOT_FOUND, Q_SEPARATE, Q_OTHER_CASE)
#: Other cases of the document searched for a quotation not in its cited case.
MAX_OTHER_CASES = 25
#: A quotation of fewer words that is not in the case is unverifiable, not not_found: scare quotes and terms
#: ("the “grandfather provision”") look like quotations and come from anywhere.
MIN_NOT_FOUND_WORDS = 4
#: Characters of the quotation kept in `text` (the JSON and the page); the span still covers all of it.
MAX_SHOWN_CHARS = 5_000

_TYPE_WORDS = {"dissent": "dissent", "concurrence": "concurrence", "concurrence_in_part": "opinion concurring in part"}


# --- other cases: a quotation in no cited case, looked for in the whole corpus through the word index ----------

#: A quotation of fewer letters is not looked for outside the cases the document cites.
MIN_CORPUS_LETTERS = 40
#: Words in a row asked of the index as one phrase, and how many such runs are asked for at once.
RUN_WORDS = 6
RUNS = 3
#: Opinions the index may name for one quotation, and distinct cases among them searched.
MAX_CANDIDATES = 40
MAX_CANDIDATE_CASES = 10
#: Words of a quotation read for its runs (a long block quotation needs no more to be found).
MAX_WORDS = 300

_WORD = re.compile(r"[^\W_]+")
_EDITORIAL = re.compile(r"\([^()]{0,80}\)")
_ONE_LETTER = re.compile(r"\[([A-Za-z])\]")
_GAP = re.compile(r"(?:\.\s*){3,}|…|\[[^\]\[]{0,200}\]")


@dataclass(frozen=True)
class CorpusMatch:
    """Where in the corpus a quotation was found: the match, its case, and how many other cases hold it too."""

    match: Match
    case: Case | None
    others: int


class CorpusSearch:
    """Looks quotations up in the word index of the database's opinions (see the module docstring)."""

    def __init__(self, db: CaseDatabase, texts: OpinionTexts) -> None:
        self.db = db
        self.texts = texts
        self._opinions: int | None = None

    @property
    def opinions(self) -> int:
        """How many opinion texts the index covers (for the reason: what was searched)."""
        if self._opinions is None:
            (self._opinions,) = self.db.conn.execute("SELECT COUNT(*) FROM opinions WHERE text != ''").fetchone()
        return self._opinions

    @staticmethod
    def searches(segments: Sequence[str]) -> bool:
        """Whether a quotation of these segments is long enough to be looked for (`MIN_CORPUS_LETTERS`)."""
        return sum(len(segment) for segment in segments) >= MIN_CORPUS_LETTERS

    def find(
        self, quotation: str, segments: Sequence[str], cited_case_id: str | None, cited_year: int | None = None
    ) -> tuple[CorpusMatch | None, int]:
        """The earliest case (not `cited_case_id`) whose opinions hold every segment of the quotation exactly, or
        None (also for a quotation under `MIN_CORPUS_LETTERS` letters); and how many cases decided after
        `cited_year` hold it only inside their own quotation marks (they quote it, maybe from the cited case: they
        are not named)."""
        if not segments or not self.searches(segments):
            return None, 0
        runs = self._runs(word_pieces(quotation))
        if not runs:
            return None, 0
        hits = opinions_with_phrases(self.db.conn, runs, exclude_case=cited_case_id, limit=MAX_CANDIDATES)
        matches = []
        for case_id in list(dict.fromkeys(case_id for case_id, _ in hits))[:MAX_CANDIDATE_CASES]:
            match = find_exact(segments, self.texts.opinions_of(case_id))
            if match is not None:
                matches.append(match)
        if not matches:
            return None, 0
        cases = self.db.get_cases(match.opinion.case_id for match in matches)
        years = {case_id: case.year for case_id, case in cases.items()}
        kept = [match for match in matches if not quotes_it(match, years.get(match.opinion.case_id), cited_year)]
        return (self._earliest(kept, cases) if kept else None), len(matches) - len(kept)

    def _runs(self, pieces: list[list[str]]) -> list[list[str]]:
        """The `RUNS` runs of words to ask for: those whose most common word is rarest in the index, not
        overlapping; a run with a word no opinion holds is left out."""
        counts = word_counts(self.db.conn, {word for piece in pieces for word in piece})
        scored = []
        for number, piece in enumerate(pieces):
            size = min(RUN_WORDS, len(piece))
            for start in range(len(piece) - size + 1):
                run = piece[start : start + size]
                if size >= 3 and all(word in counts for word in run):
                    scored.append((max(counts[word] for word in run), number, start, run))
        chosen: list[tuple[int, int, int, list[str]]] = []
        for score, number, start, run in sorted(scored, key=lambda item: item[:3]):
            if all(other != number or abs(at - start) >= len(run) for _, other, at, _ in chosen):
                chosen.append((score, number, start, run))
            if len(chosen) == RUNS:
                break
        return [run for _, _, _, run in chosen]

    @staticmethod
    def _earliest(matches: Sequence[Match], cases: dict[str, Case]) -> CorpusMatch:
        """The match in the earliest decided case (by year, then case id), and how many others there are."""

        def order(match: Match) -> tuple[int, str]:
            case = cases.get(match.opinion.case_id)
            year = case.year if case is not None and case.year else 9999
            return year, match.opinion.case_id

        first = min(matches, key=order)
        return CorpusMatch(first, cases.get(first.opinion.case_id), len(matches) - 1)


def quotes_it(match: Match, year: int | None, cited_year: int | None) -> bool:
    """Whether the case of `match` (decided in `year`), decided after the cited case, holds the passage inside its
    own quotation marks (an open “ before it in its paragraph, or an odd number of straight marks): it quotes the
    words, perhaps from the cited case, so they are not its own."""
    if cited_year is None or not year or year <= cited_year:
        return False
    text, start = match.opinion.text, match.span[0]
    before = text[max(text.rfind("\n", 0, start) + 1, start - 2_000) : start]
    return before.rfind("“") > before.rfind("”") or before.count('"') % 2 == 1


def word_pieces(quotation: str) -> list[list[str]]:
    """The quotation's words as the index writes them, cut into pieces at its gaps (see the module docstring)."""
    text = _ONE_LETTER.sub(r"\1", _EDITORIAL.sub(" ", quotation))
    pieces, total = [], 0
    for piece in _GAP.split(text):
        words = [_index_term(word) for word in _WORD.findall(piece)][: MAX_WORDS - total]
        total += len(words)
        if words:
            pieces.append(words)
    return pieces


def _index_term(word: str) -> str:
    """A word as the index's tokenizer (FTS5 unicode61) keeps it: lower case, accents removed."""
    decomposed = unicodedata.normalize("NFKD", word.lower())
    return "".join(character for character in decomposed if not unicodedata.combining(character))


# --- the verdicts -------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class QuotationVerdict:
    """The verdict on one quotation; `citation` indexes the document's citation verdicts."""

    text: str
    span: tuple[int, int]
    citation: int
    verdict: str
    page: int | None
    pin_ok: bool | None
    reason: str
    evidence: dict[str, Any] | None

    def to_json(self, citation_offset: int = 0) -> dict[str, Any]:
        """The `quotations` object of `check --json` (`citation_offset`: the file's first index in `citations`)."""
        return {**asdict(self), "span": list(self.span), "citation": self.citation + citation_offset}


def summarize_quotations(verdicts: Sequence[QuotationVerdict]) -> dict[str, int]:
    """Count the quotation verdicts, every verdict present."""
    return summarize(verdicts, QUOTE_VERDICTS)


def _opinion_label(match: Match) -> str:
    if match.opinion.rest:
        return "a separate opinion (in the case's combined text, outside the opinion of the Court)"
    author = match.opinion.author or "an unnamed Justice"
    kind = _TYPE_WORDS.get(match.opinion.opinion_type, match.opinion.opinion_type)
    if match.opinion.is_separate:
        split = " (in the case's combined text)" if match.opinion.part_of_combined else ""
        split = split or (" (in the file of another opinion)" if match.opinion.part_of else "")
        return f"the {kind} of {author.title() if author.isupper() else author}{split}"
    return "the opinion of the Court" if match.opinion.opinion_type != "combined" else "the opinion text"


def _case_label(case: Case | None, case_id: str) -> str:
    """A case as a reason names it: "Brown v. Board of Education, 347 U.S. 483 (1954)" (what the database has)."""
    if case is None:
        return case_id
    year = f" ({case.year})" if case.year else ""
    citation = f", {case.citation}" if case.citation else ""
    return f"{display_name(case.name) if case.name else case_id}{citation}{year}"


def _evidence(match: Match, case_name: str | None) -> dict[str, Any]:
    return {
        "passage": match.passage,
        "opinion_id": match.opinion.opinion_id,
        "opinion_type": match.opinion.opinion_type,
        "author": match.opinion.author,
        "case_id": match.opinion.case_id,
        "case": case_name,
        "similarity": round(match.score, 1),
        **source_fields(match.opinion),
    }


def _speaker_missing(speaker: str | None, opinions: Sequence[Opinion]) -> str | None:
    """When the document gives a quotation to a Justice (`speaker`) none of whose opinions in the case the database
    holds, while it holds the opinion of the Court by someone else and not the whole case as one text: what it does
    hold ("the opinion of the Court by Brennan"); else None."""
    if speaker is None or any(opinion.opinion_type == "combined" for opinion in opinions):
        return None
    if any(_written_by(speaker, opinion) for opinion in opinions):
        return None
    court = next((opinion for opinion in opinions if opinion.is_majority and opinion.author), None)
    if court is None:
        return None
    others = sorted({str(o.author) for o in opinions if o.is_separate and o.author and o.author != court.author})
    held = f" and the separate opinions of {', '.join(others)}" if others else ""
    return f"the opinion of the Court by {court.author}{held}"


def _written_by(speaker: str | None, opinion: Opinion) -> bool:
    """Whether the Justice the text gives the words to (a surname) wrote `opinion` (names compared as letters,
    accents dropped: "Brandéis’" is Brandeis)."""
    return bool(speaker and opinion.author) and _name_letters(str(speaker)) in _name_letters(str(opinion.author))


def _name_letters(name: str) -> str:
    decomposed = unicodedata.normalize("NFKD", name.casefold())
    return "".join(
        character for character in decomposed if character.isalpha() and not unicodedata.combining(character)
    )


def _pin_range(citation: FoundCitation) -> list[tuple[int, int]] | None:
    """The pin pages a citation gives, as ranges ("495" -> [(495, 495)], "495-96", "495–496", "495 - 96",
    "495, 497" (a list: any of them), "495 n. 3": `lexprobe.check.extract.pin_ranges`), or None without a pin cite."""
    if citation.pin is None:
        return None
    return pin_ranges(citation.pin_text or str(citation.pin)) or [(citation.pin, citation.pin)]


def _page_facts(match: Match, pin: list[tuple[int, int]] | None) -> tuple[int | None, bool | None, str]:
    """The page the passage begins on, whether it is on the pin (it begins on a page the pin cite gives: a passage
    crossing a page break counts as on its first page), and the words saying so."""
    pages = match.pages
    if pages is None:
        return None, None, "" if pin is None else "; the opinion text has no page marks to check the pin cite against"
    where = f"page {pages[0]}" if pages[0] == pages[1] else f"pages {pages[0]}-{pages[1]}"
    if pin is None:
        return pages[0], None, f", on {where}"
    ok = any(first <= pages[0] <= last for first, last in pin)
    pin_words = ", ".join(f"{first}" if first == last else f"{first}-{last}" for first, last in pin)
    if ok:
        return pages[0], True, f", on {where}, as the pin cite {pin_words} says"
    return pages[0], False, f", on {where}, not on the pin page {pin_words}"


@dataclass
class _Reply:
    """Builds the verdicts on one quotation checked against one cited case: the quotation as shown, `via` and the
    note of the texts searched (`opinions`, once read) around each reason, the evidence of a match."""

    quotation: Quotation
    via: str
    name_of: Callable[[str], str | None]  # a case's name as the evidence gives it
    opinions: Sequence[Opinion] = ()

    def make(
        self, kind: str, reason: str, match: Match | None = None, page: int | None = None, pin_ok: bool | None = None
    ) -> QuotationVerdict:
        quotation = self.quotation
        shown = quotation.text if len(quotation.text) <= MAX_SHOWN_CHARS else quotation.text[:MAX_SHOWN_CHARS] + "…"
        cut = f" (only its first {CHECKED_CHARS:,} characters were checked: it is longer)" if quotation.cut else ""
        evidence = _evidence(match, self.name_of(match.opinion.case_id)) if match else None
        source = source_note(match.opinion) if match else case_note(self.opinions)
        reason = self.via + reason + source + cut
        return QuotationVerdict(shown, quotation.span, quotation.citation, kind, page, pin_ok, reason, evidence)


class _QuotationJudge:
    def __init__(
        self,
        db: CaseDatabase,
        found: Sequence[FoundCitation],
        verdicts: Sequence[CitationVerdict],
        online: OnlineOpinionTexts | None = None,
    ) -> None:
        self.texts = opinion_texts_for(db)
        self.citation_free = self.texts.citation_free
        self.corpus = CorpusSearch(db, self.texts)
        self.corpus_names: dict[str, str | None] = {}  # cases found through the word index, not cited
        self.online = online
        self.found = found
        self.verdicts = verdicts
        self.case_names: dict[str, str | None] = {}
        self.case_years: dict[str, int | None] = {}
        for verdict in verdicts:
            if verdict.case is not None:
                self.case_names.setdefault(verdict.case.case_id, verdict.case.name)
                self.case_years.setdefault(verdict.case.case_id, verdict.case.year)

    def target_of(self, index: int) -> FoundCitation:
        citation = self.found[index]
        return self.found[citation.refers_to] if citation.refers_to is not None else citation

    def _has_text(self, index: int) -> bool:
        case = self.verdicts[index].case
        return case is not None and bool(self.texts.opinions_of(case.case_id))

    def source_of(self, quotation: Quotation) -> tuple[int, str]:
        """The citation whose case a quotation is checked against, and the words saying so: its own; or, when that
        resolves to no case of the database or (offline) to one without opinion text, the first case its "(quoting
        ...)" parentheticals name that has text ("X, ... (quoting Y, 2 U. S. 2, 7)": Y, with Y's pin cite)."""
        own = quotation.citation
        if not quotation.quoted or self._has_text(own) or (self.online is not None and self.verdicts[own].case):
            return own, ""
        for index in quotation.quoted:
            if self._has_text(index):
                return index, (
                    f"checked against {self.found[index].text}, which its citation ({self.found[own].text}) quotes "
                    "and the database holds (it has no opinion text of the case cited): "
                )
        return own, ""

    def judge(self, quotation: Quotation) -> QuotationVerdict:
        """The verdict on one quotation. Not found in the case cited but found in a case its "(quoting ...)"
        parentheticals name, it is judged there (the words are that case's: the cited one may have altered them).
        Checked against a quoted case because the cited one has no text (`source_of`), a passage not found there is
        `unverifiable`, not `not_found`: the cited case's own words around the ones it quotes cannot be read."""
        index, via = self.source_of(quotation)
        verdict = self._judge_at(quotation, index, via)
        if not via and verdict.verdict in (Q_NOT_FOUND, Q_OTHER_CASE):
            for quoted in quotation.quoted:
                if not self._has_text(quoted):
                    continue
                cited, there_text = self.found[index].text, self.found[quoted].text
                note = f"not in {cited} as written, but checked against {there_text}, which it quotes: "
                there = self._judge_at(quotation, quoted, note)
                if there.verdict in (Q_VERIFIED, Q_ALTERED, Q_SEPARATE):
                    return there
        if via and verdict.verdict in (Q_NOT_FOUND, Q_OTHER_CASE):
            reason = (
                f"the database has no opinion text of the case cited ({self.found[quotation.citation].text}), and "
                f"the passage is not in {self.found[index].text}, which it quotes: the cited case's own words "
                "around the ones it quotes cannot be checked"
            )
            return replace(verdict, verdict=Q_UNVERIFIABLE, reason=reason, page=None, pin_ok=None)
        return verdict

    def _name_of(self, case_id: str) -> str | None:
        return self.case_names.get(case_id) or self.corpus_names.get(case_id)

    def _judge_at(self, quotation: Quotation, index: int, via: str) -> QuotationVerdict:
        """The verdict on a quotation checked against the case of citation `index` (`via` starts its reason)."""
        citation = self.found[index]
        reply = _Reply(quotation, via, self._name_of)
        segments = quote_segments(quotation.text, literal_brackets=LITERAL_BRACKETS in quotation.allowances)
        if not segments:
            return reply.make(Q_UNVERIFIABLE, "the quotation has too few words to look for")
        case = self.verdicts[index].case
        if case is None:
            return reply.make(Q_UNVERIFIABLE, f"its citation ({citation.text}) resolves to no case of the database")
        reply.opinions = self.texts.opinions_of(case.case_id)
        label = display_name(case.name) if case.name else case.case_id
        if not reply.opinions:
            online = self.online.opinions_for(case, self.target_of(index)) if self.online else None
            if online is None or not online.opinions:
                why = online.why if online is not None else " (offline)"
                return reply.make(Q_UNVERIFIABLE, f"the database has no opinion text of {label}{why}")
            reply.opinions = online.opinions
        pin = _pin_range(citation) if quotation.pin_applies or index != quotation.citation else None
        match, closest = find_in(segments, reply.opinions)
        omitted = ""
        if (match is None or not match.exact) and CITATIONS in quotation.allowances:
            bare = self.citation_free.find(segments, reply.opinions)
            if bare is not None:
                match, closest = bare, None
                omitted = " (leaving out the opinion's citations, as its parenthetical allows)"
        if match is not None:
            return self._found(reply, match, pin, case, omitted)
        return self._missing(reply, segments, case, closest)

    def _found(
        self, reply: _Reply, match: Match, pin: list[tuple[int, int]] | None, case: CaseSummary, omitted: str
    ) -> QuotationVerdict:
        """The verdict on a quotation found in the cited case: separate_opinion, verified or altered."""
        quotation, opinions = reply.quotation, reply.opinions
        label = display_name(case.name) if case.name else case.case_id
        page, pin_ok, where = _page_facts(match, pin)
        named_other = _speaker_missing(quotation.speaker, [o for o in opinions if not o.rest]) is not None
        named_other = named_other or _written_by(quotation.speaker, match.opinion)
        if match.opinion.is_separate and not quotation.presented_as_separate and not named_other:
            return reply.make(
                Q_SEPARATE,
                f"found only in {_opinion_label(match)} ({match.opinion.opinion_type}) in {label}, not in the "
                f"opinion of the Court, while the text presents it as the Court's{where}",
                match,
                page,
                pin_ok,
            )
        combined = (
            "; the database has this case's opinions as one combined text, so the Court's opinion and separate "
            "opinions are not told apart"
            if self.texts.only_combined(case.case_id)
            else ""
        )
        literal = LITERAL_BRACKETS in quotation.allowances
        marked = has_gap(quotation.text.replace("[", "").replace("]", "") if literal else quotation.text)
        if match.exact:
            gaps = " (with the omissions and alterations it marks)" if marked else omitted
            gaps += " (its brackets the original's, as its parenthetical says)" if literal else ""
            reason = f"found in {_opinion_label(match)} of {label}{gaps}{where}{combined}"
            return reply.make(Q_VERIFIED, reason, match, page, pin_ok)
        difference = word_difference(" ".join(quotation.text.split()), match.passage, gaps=marked)
        return reply.make(
            Q_ALTERED,
            f"found in {_opinion_label(match)} of {label} with changes (similarity {match.score:.0f}/100): "
            f"{difference}{where}{combined}",
            match,
            page,
            pin_ok,
        )

    def _missing(
        self, reply: _Reply, segments: Sequence[str], case: CaseSummary, closest: Match | None
    ) -> QuotationVerdict:
        """The verdict on a quotation not in the cited case: other_case, unverifiable or not_found."""
        quotation, opinions = reply.quotation, reply.opinions
        label = display_name(case.name) if case.name else case.case_id
        other, other_name, searched = self.other_case(segments, case.case_id, quotation.text, case.year)
        if other is not None:
            reason = f"not in {label}, but in {_opinion_label(other)} of {other_name} ({searched})"
            return reply.make(Q_OTHER_CASE, reason, other, *_page_facts(other, None)[:1])
        court_only = all(opinion.opinion_type != "combined" and not opinion.is_separate for opinion in opinions)
        speaker_missing = _speaker_missing(quotation.speaker, opinions)
        if speaker_missing:
            return reply.make(
                Q_UNVERIFIABLE,
                f"the text gives it as the words of {quotation.speaker}, and the database has no opinion of "
                f"{quotation.speaker} in {label} (offline), only {speaker_missing}, and it is not there",
                closest,
            )
        if quotation.presented_as_separate and court_only:
            return reply.make(
                Q_UNVERIFIABLE,
                f"the text presents it as a dissent's or a concurrence's words, and the database has no separate "
                f"opinion of {label} (offline), only the opinion of the Court, which does not hold it",
                closest,
            )
        words = len(quotation.text.split())
        if words < MIN_NOT_FOUND_WORDS:
            return reply.make(
                Q_UNVERIFIABLE,
                f"a phrase of {words} word{'s' if words > 1 else ''}, not in {label}: too short to tell a quotation "
                "of the case from a term or a phrase of another source",
                closest,
            )
        if closest is not None:
            return reply.make(
                Q_NOT_FOUND,
                f"not in any opinion of {label} nor {searched}; the closest passage "
                f"(similarity {closest.score:.0f}/100, in {_opinion_label(closest)}) is “{closest.passage[:300]}”",
                closest,
                closest.pages[0] if closest.pages else None,
            )
        return reply.make(Q_NOT_FOUND, f"not in any opinion of {label}, and nothing there is close")

    def other_case(
        self, segments: Sequence[str], cited: str, quotation: str, cited_year: int | None = None
    ) -> tuple[Match | None, str, str]:
        """The quotation (of `MIN_NOT_FOUND_WORDS` words or more), exactly, in the opinions of another case: one the
        document cites, else any case of the offline corpus (`CorpusSearch`); not a case decided after the cited
        one that holds the words only inside its own quotation marks (`quotes_it`). Returns the match
        or None, the case's name as the reason gives it, and what was searched (as the reason says it)."""
        cited_here = "the other cases this document cites"
        if len(quotation.split()) < MIN_NOT_FOUND_WORDS:  # a phrase found elsewhere proves nothing
            return None, "", f"in {cited_here} (too short to look for outside the case)"
        others = itertools.islice((case_id for case_id in self.case_names if case_id != cited), MAX_OTHER_CASES)
        for case_id in others:
            match = find_exact(segments, self.texts.opinions_of(case_id))
            if match is not None and not quotes_it(match, self.case_years.get(case_id), cited_year):
                name = display_name(self.case_names.get(case_id) or case_id)
                return match, name, f"searched first: {cited_here}, at most {MAX_OTHER_CASES}"
        if not self.corpus.searches(segments):
            return None, "", f"in {cited_here} (too short to look for in the whole corpus)"
        found, quoting = self.corpus.find(quotation, segments, cited, cited_year)
        everywhere = f"all {self.corpus.opinions:,} opinion texts of the offline corpus, through its word index"
        if found is None:
            later = f" (later cases that quote these words: {quoting})" if quoting else ""
            return None, "", f"in {cited_here}, nor anywhere in {everywhere}{later}"
        case_id = found.match.opinion.case_id
        self.corpus_names[case_id] = found.case.name if found.case else None
        also = f"; {found.others} other case{'s' if found.others > 1 else ''} hold it too" if found.others else ""
        return found.match, _case_label(found.case, case_id), f"searched: {cited_here}, then {everywhere}{also}"


def check_quotations(
    text: str,
    found: Sequence[FoundCitation],
    verdicts: Sequence[CitationVerdict],
    db: CaseDatabase,
    *,
    online_texts: OnlineOpinionTexts | None = None,
    on_skipped: Callable[[int], None] | None = None,
) -> list[QuotationVerdict]:
    """Return a verdict for every quotation in `text` attributed to one of `found` (whose verdicts are
    `verdicts`), in document order. Offline (no `online_texts`): only the case database's opinion texts are read;
    with `online_texts`, a cited case without text there is read from CourtListener. `on_skipped` is told how many
    quotations past `quotations.MAX_QUOTATIONS` were left unchecked, when there are any."""
    if not found:
        return []
    judge = _QuotationJudge(db, found, verdicts, online_texts)
    quotations = find_quotations(text, found)
    if quotations.skipped and on_skipped is not None:
        on_skipped(quotations.skipped)
    return [judge.judge(quotation) for quotation in quotations.items]
