"""Candidates: every value of one kind an answer states, with where it stands.

A chat answer states background facts beside its answer: the court below beside the court that decided, the case's
own decision year beside the year it was overruled, the citation of a case it builds on beside its own, a dissenter
beside the author. The finders here return *all* of them, in order, each with its span in the text; which one is
the answer is for `roles` and `choice` to say. One finder per kind of value:

- `judge`: names of judges: every justice of the roster named in the text (surnames in title case or capitals, with
  the given names and initials before them; a word of a case name, "Davis v. Washington", is not a judge), names
  after a title ("Justice", "Judge", "MR. JUSTICE"), bylines ("KENNEDY, J.", "ROBERTS, C.J."), names that a writing
  verb governs ("written by Tom Clark"), a short clause that is only a name ("Antonin Scalea"), and "per curiam";
- `court`: courts-db ids of the courts named ("the Ninth Circuit", "N.D. Cal.", "Supreme Court of the United States");
- `citation`: full case citations (eyecite; the prompt's "347, U.S., 483" form too);
- `year`: years (not a reporter volume, a LEXIS number or a statute section) and vague years ("the mid-1980s",
  "the 2000s", "October Term 1953"), the latter as a `VagueYear` range;
- `disposition`: affirm / reverse words ("upheld", "vacated and remanded", "sent the case back"), a negated one ("did
  not affirm") read as the other, one "in part" as `mixed`;
- `agreement`: agree / disagree ("do not agree", "is consistent with", "rejected"), and a lead yes / no.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

_FLAGS = re.IGNORECASE


@dataclass(frozen=True)
class Candidate:
    """One value an answer states: the value (its kind's form), the text it was read from and its span."""

    value: Any
    text: str
    start: int
    end: int


@dataclass(frozen=True)
class VagueYear:
    """A year given only as a range ("the mid-1980s" is 1983-1987): never equal to a year; a range that leaves out
    the true year contradicts it."""

    low: int
    high: int
    text: str

    def __str__(self) -> str:
        return self.text


# --- years ------------------------------------------------------------------------------------------------------

YEAR_MIN = 1700
YEAR_MAX = 2030
_CITATION_NUMBERS = re.compile(
    r"\b\d{1,5}\s+(?:U\.\s?S\.(?:\s?C\.)?|S\.\s?Ct\.|L\.\s?Ed\.(?:\s?2d)?|F\.(?:\s?(?:2d|3d|4th))?|"
    r"F\.\s?Supp\.(?:\s?(?:2d|3d))?|[A-Z][\w.]*\s+LEXIS|WL)\s+\d{1,6}\b"
    r"|(?:§+|\bsections?|\bsec\.|\bU\.\s?S\.\s?C\.(?:\s?A\.)?)\s*\d+",
    _FLAGS,
)
_YEAR = re.compile(
    r"(?P<vague>(?:\b(?:early|mid|late)[-\s]?|\bthe\s+)(?P<decade>\d{3}0)'?s\b|\b(?P<bare>\d{3}0)'?s\b"
    r"|\boctober\s+term,?\s+(?P<term>\d{4})\b)|(?<![\d.,$])\b(?P<year>\d{4})\b(?![\d,]\d)",
    _FLAGS,
)


def years(text: str) -> list[Candidate]:
    """Return the years and vague years of `text`, in order."""
    blanked = _CITATION_NUMBERS.sub(lambda m: " " * len(m.group()), text)
    found = []
    for match in _YEAR.finditer(blanked):
        if match.group("year"):
            year = int(match.group("year"))
            if YEAR_MIN <= year <= YEAR_MAX:
                found.append(Candidate(year, match.group(), match.start(), match.end()))
            continue
        words = match.group().lower()
        if match.group("term"):
            term = int(match.group("term"))
            value = VagueYear(term, term + 1, match.group())
        else:
            decade = int(match.group("decade") or match.group("bare"))
            low, high = decade, decade + 9
            if words.startswith("early"):
                high = decade + 4
            elif words.startswith("mid"):
                low, high = decade + 3, decade + 7
            elif words.startswith("late"):
                low = decade + 5
            value = VagueYear(low, high, match.group())
        found.append(Candidate(value, match.group(), match.start(), match.end()))
    return found


# --- courts -----------------------------------------------------------------------------------------------------

_STATE_WORDS = r"[A-Za-z.]+(?:\s+[A-Za-z.]+){0,2}"
_COURT = re.compile(
    "|".join(
        (
            rf"(?:(?:united\s+states|u\.\s?s\.)\s+)?district\s+court\s*,?\s*(?:for|of|in)\s+(?:the\s+)?"
            rf"(?:(?:northern|southern|eastern|western|middle|central)\s+)?district\s+of\s+{_STATE_WORDS}",
            rf"(?:(?:northern|southern|eastern|western|middle|central)\s+)?district\s+of\s+{_STATE_WORDS}",
            r"(?:\b[nsewmc]\.\s?)?\bd\.\s?[a-z]{1,6}\.(?:\s?[a-z]{1,6}\.)?",
            r"\b[nsewmc]\.\s?d\.\s?[a-z]{4,14}\b",
            r"\b[nsewmc]\.?d\.?n\.?y\.?",
            r"(?:(?:united\s+states|u\.\s?s\.)\s+)?court\s+of\s+appeals?,?\s+(?:for\s+|of\s+)?(?:the\s+)?"
            r"(?:\w+|d\.\s?c\.|district\s+of\s+columbia)\s+cir(?:cuit|\.)",
            r"(?:\b\w+|d\.\s?c\.|district\s+of\s+columbia)\s+cir(?:cuit|\.)(?:\s+court(?:\s+of\s+appeals?)?)?",
            r"\bc\.\s?a\.\s?(?:\d{1,2}|d\.\s?c\.)",
            r"(?:(?:united\s+states|u\.\s?s\.|us)\s+)?supreme\s+court(?:\s+of\s+(?:the\s+)?[a-z.]+(?:\s+[a-z.]+){0,2})?",
            r"\bscotus\b",
        )
    ),
    _FLAGS,
)
_TRAILING_WORD = re.compile(r"\s*\S+$")


def _resolve(phrase: str, resolve: Callable[[str], str | None]) -> tuple[str, int] | None:
    """Return the court a phrase names and the length of the text that names it, dropping trailing words the
    phrase pattern took too many of ("District of Kansas held" -> "District of Kansas")."""
    while phrase:
        court = resolve(phrase)
        if court:
            return court, len(phrase)
        shorter = _TRAILING_WORD.sub("", phrase)
        if shorter == phrase or len(shorter.split()) < 2:
            return None
        phrase = shorter
    return None


def courts(text: str, resolve: Callable[[str], str | None] | None = None) -> list[Candidate]:
    """Return the courts `text` names (courts-db ids), in order; at one position the longest phrase that names a
    court. A reply that is as a whole one court's name ("Ninth Circuit Court of Appeals") is that court."""
    if resolve is None:
        from lexprobe.caselaw.courts import resolve_court as resolve
    stripped = text.strip(" .\n")
    if stripped and len(stripped) <= 120:
        whole = resolve(stripped)
        if whole:
            start = text.index(stripped)
            return [Candidate(whole, stripped, start, start + len(stripped))]
    spans = sorted({m.span() for m in _COURT.finditer(text)}, key=lambda span: (span[0], -span[1]))
    found: list[Candidate] = []
    for start, end in spans:
        if found and start < found[-1].end:
            continue
        named = _resolve(text[start:end], resolve)
        if named:
            court, length = named
            found.append(Candidate(court, text[start : start + length], start, start + length))
    return found


# --- citations --------------------------------------------------------------------------------------------------

_COMMA_CITATION = re.compile(
    r"\b(\d{1,5})\s*,\s*([A-Z][A-Za-z.]*(?:\s?[A-Z0-9][A-Za-z0-9.]*){0,3})\s*,?\s*(\d{1,6})\b(?!\s*,\s*\d)"
)


def citations(text: str) -> list[Candidate]:
    """Return the full case citations of `text` (`caselaw.citations.Citation`), in order."""
    from lexprobe.caselaw.citations import parse_citation, spanned_citations

    found = [Candidate(citation, text[start:end], start, end) for citation, start, end in spanned_citations(text)]
    if found:
        return found
    for match in _COMMA_CITATION.finditer(text):  # the prompt's "347, U.S., 483"
        citation = parse_citation(f"{match.group(1)} {match.group(2)} {match.group(3)}")
        if citation is not None:
            found.append(Candidate(citation, match.group(), match.start(), match.end()))
    return found


# --- dispositions and agreement ---------------------------------------------------------------------------------

_NEGATION = r"(?P<neg>\b(?:not|never|neither|nor)\s+(?:\w+\s+)?|n't\s+(?:\w+\s+)?)?"
_DISPOSITION = re.compile(
    rf"{_NEGATION}(?:(?P<affirm>\baffirm(?:s|ed|ing|ance)?\b|\bupheld\b|\buphold(?:s|ing)?\b)"
    r"|(?P<reverse>\brevers(?:e|es|ed|ing|al)\b|\bvacat(?:e|es|ed|ing|ur)\b|\bremand(?:s|ed|ing)?\b|"
    r"\boverturn(?:s|ed|ing)?\b|\bset\s+aside\b|\bsent\s+(?:it|the\s+case|the\s+matter)\s+back\b))"
    r"(?P<part>\s+in\s+part\b)?",
    _FLAGS,
)


def dispositions(text: str) -> list[Candidate]:
    """Return the affirm / reverse words of `text` ("affirm", "reverse", or "mixed" for one "in part"), a negated
    one ("did not affirm") read as the other, in order."""
    found = []
    for match in _DISPOSITION.finditer(text):
        value = "affirm" if match.group("affirm") else "reverse"
        if match.group("neg"):
            value = "reverse" if value == "affirm" else "affirm"
        if match.group("part"):
            value = "mixed"
        start = match.start("affirm") if match.group("affirm") else match.start("reverse")
        found.append(Candidate(value, match.group(), start if not match.group("neg") else match.start(), match.end()))
    return found


_AGREEMENT = re.compile(
    r"(?P<disagree>\bdisagree(?:s|d|ing|ment)?\b|\b(?:do|does|did)\s*(?:not|n't)\s+agree\b|\bin\s+conflict\b|"
    r"\binconsistent\s+with\b|\bconflicts?\s+with\b|\bcontradicts?\b|\brejected\b|\bat\s+odds\b)"
    r"|(?P<agree>(?<!dis)\bagree(?:s|d|ing|ment)?\b|\bconsistent\s+with\b|\bin\s+(?:line|accord|harmony)\s+with\b|"
    r"\bextended\b|\breaffirmed\b|\bapplied\s+the\s+(?:framework|rule|test|reasoning)\b|\bfollowed\b)",
    _FLAGS,
)
_LEAD_YES_NO = re.compile(r"^\W*(?P<agree>yes|yeah|yep)\b|^\W*(?P<disagree>no|nope)\b(?!\s+(?:doubt|question))", _FLAGS)


def agreements(text: str) -> list[Candidate]:
    """Return the agree / disagree statements of `text`, a lead yes / no first, in order."""
    found = []
    lead = _LEAD_YES_NO.match(text)
    if lead:
        found.append(Candidate("agree" if lead.group("agree") else "disagree", lead.group(), *lead.span()))
    for match in _AGREEMENT.finditer(text):
        negated = re.search(r"\b(?:not|never)\s+(?:\w+\s+)?$", text[max(0, match.start() - 20) : match.start()], _FLAGS)
        value = "disagree" if match.group("disagree") else "agree"
        if negated and value == "agree":
            value = "disagree"
        found.append(Candidate(value, match.group(), match.start(), match.end()))
    return found


# --- judges -----------------------------------------------------------------------------------------------------

_TITLE = (
    r"(?:(?:mr\.?|mrs\.?|ms\.?|madam)\s+)?(?:(?:chief|associate|senior|circuit|district|magistrate)\s+)?"
    r"(?:justice|judge)|hon\.?|honorable"
)
_WORD = r"(?:[A-Z][A-Za-z'’-]+|[A-Z]\.(?:\s?[A-Z]\.)*)"
_NAME = rf"{_WORD}(?:\s+(?:{_WORD}|van|von|de|del|la|le|st\.)){{0,5}}(?:,?\s+(?:Jr\.|Sr\.|II|III|IV)(?![\w]))?"
#: Words that are not a judge's name: titles, courts, pronouns, and the labels of a decorated answer.
_NOT_NAME_WORDS = frozenset(
    {
        "the",
        "court",
        "supreme",
        "majority",
        "opinion",
        "per",
        "curiam",
        "united",
        "states",
        "circuit",
        "district",
        "justice",
        "justices",
        "judge",
        "chief",
        "it",
        "he",
        "she",
        "this",
        "that",
        "in",
        "a",
        "an",
        "i",
        "mr",
        "mrs",
        "ms",
        "madam",
        "hon",
        "honorable",
        "associate",
        "senior",
        "magistrate",
        "author",
        "vote",
        "answer",
        "dissents",
        "dissent",
        "concurrence",
        "unknown",
        "none",
        "yes",
        "no",
    }
)
_TITLED = re.compile(rf"\b(?i:{_TITLE})\s+(?P<name>{_NAME})")
_BYLINE = re.compile(r"\b(?P<name>[A-Z][A-Z'’-]{2,}(?:\s+[A-Z][A-Z'’-]{2,})?),\s+(?:C\.\s?J\.|J\.|JJ\.)")
_BY = re.compile(
    rf"\b(?:written|authored|delivered|penned|announced|by)\s+(?:by\s+)?(?:(?i:the\s+)?(?i:{_TITLE})\s+)?(?P<name>{_NAME})"
)
_WROTE = re.compile(rf"(?P<name>{_NAME})\s+(?:wrote|authored|delivered|penned)\b")
_PER_CURIAM = re.compile(r"\bper\s+curiam\b", _FLAGS)
_CASE_NAME_EDGE = re.compile(r"^\s+v\.?\s|^\s+vs\.?\s")
_SHORT_CLAUSE = re.compile(r"[^;:!?\n.—–]+(?:\.(?=\S)[^;:!?\n.—–]*)*")
_HEDGE_LEAD = re.compile(
    r"^(?:(?:probably|perhaps|maybe|likely|possibly|i\s+think|i\s+believe|i\s+guess|my\s+(?:best\s+)?guess\s+is|"
    r"it\s+(?:was|is|might\s+be|may\s+be|could\s+be)|that\s+(?:was|is)|the\s+(?:answer|author)\s+(?:is|was)|"
    r"answer|the\s+judge\s+(?:is|was))\b[\s,:]*)+",
    _FLAGS,
)
_SHORT_NAME_WORDS = 6


def _clean_name(name: str) -> str | None:
    """Return a name without title words ("MR. CHIEF JUSTICE") and a sentence's final period, a name in capitals in
    title case ("WARREN" -> "Warren"); None when nothing is left."""
    words = [word for word in name.strip(" ,;:").split() if any(ch.isalpha() for ch in word)]
    if all(word.isupper() or not word.isalpha() for word in words):
        words = [word.title() if len(word.strip(".")) > 2 else word for word in words]
    while words and (words[0].strip(".,").lower() in _NOT_NAME_WORDS or (re.fullmatch(r"[A-Z]\.", words[0])
                     and len(words) > 1 and words[1].strip(".,").lower() in _NOT_NAME_WORDS)):  # fmt: skip
        words.pop(0)
    while words and words[0].strip(".,").lower() in _NOT_NAME_WORDS:
        words.pop(0)
    while words and words[-1].strip(".,").lower() in _NOT_NAME_WORDS:
        words.pop()
    if words and words[-1].endswith(".") and len(words[-1].rstrip(".")) > 2 and "." not in words[-1][:-1]:
        words[-1] = words[-1].rstrip(".")
    return " ".join(words).strip(" ,;:") or None


@functools.cache
def _roster_surnames(names: tuple[str, ...]) -> re.Pattern[str] | None:
    """Return a pattern matching the roster's surnames as written in prose or in capitals, or None."""
    variants = set()
    for surname in names:
        if len(surname) >= 3:
            variants.update({re.escape(surname), re.escape(surname.upper())})
    if not variants:
        return None
    given = r"(?:(?:[A-Z][a-z'’-]+|[A-Z]\.(?:\s?[A-Z]\.)*)\s+){0,3}"
    return re.compile(rf"\b{given}(?:{'|'.join(sorted(variants, key=len, reverse=True))})\b(?:,?\s+(?:Jr\.|II))?")


def _surnames(roster: Sequence[Any]) -> tuple[str, ...]:
    """Return the distinct surnames of a roster of `caselaw.judges.Judge`s."""
    return tuple(sorted({judge.last_name for judge in roster if getattr(judge, "last_name", "")}))


def judges(text: str, roster: Sequence[Any] = ()) -> list[Candidate]:
    """Return the judges `text` names, in order (see the module's list of forms), and "per curiam"."""
    spans: list[tuple[int, int, str]] = []

    def add(start: int, end: int, name: str | None) -> None:
        if name and any(ch.isalpha() for ch in name):
            spans.append((start, end, name))

    for pattern in (_TITLED, _BY, _WROTE):
        for match in pattern.finditer(text):
            add(match.start("name"), match.end("name"), _clean_name(match.group("name")))
    for match in _BYLINE.finditer(text):
        add(match.start("name"), match.end("name"), match.group("name").title())
    surnames = _roster_surnames(_surnames(roster)) if roster else None
    if surnames is not None:
        for match in surnames.finditer(text):
            if _CASE_NAME_EDGE.match(text[match.end() :]) or re.search(r"\sv\.?\s+$", text[: match.start()]):
                continue  # "Davis v. Washington", "Brown v. Board": a party, not a judge
            add(match.start(), match.end(), _clean_name(match.group()))
    for match in _PER_CURIAM.finditer(text):
        spans.append((match.start(), match.end(), "per curiam"))
    for clause in _SHORT_CLAUSE.finditer(text):
        words = _HEDGE_LEAD.sub("", clause.group().strip())
        if words and len(words.split()) <= _SHORT_NAME_WORDS and re.fullmatch(rf"\W*{_NAME}\W*", words):
            start = clause.start() + clause.group().index(words)
            add(start, start + len(words), _clean_name(words))
    return [Candidate(name, text[start:end], start, end) for start, end, name in _merge(spans)]


def _merge(spans: list[tuple[int, int, str]]) -> Iterator[tuple[int, int, str]]:
    """Yield the spans left to right, an overlapped one dropped in favour of the longer (earlier on ties)."""
    kept: list[tuple[int, int, str]] = []
    for start, end, name in sorted(spans, key=lambda s: (-(s[1] - s[0]), s[0])):
        if all(end <= s or start >= e for s, e, _ in kept):
            kept.append((start, end, name))
    yield from sorted(kept)


# --- quotations ------------------------------------------------------------------------------------------------

_QUOTE_TAG = re.compile(r"<quote>(.*?)(?:</quote>|$)", re.IGNORECASE | re.DOTALL)
_QUOTED_SPAN = re.compile(r"\"([^\"]+)\"|“([^”]+)”|«\s*([^»]+?)\s*»|„([^“”]+)[“”]")


def quotes(text: str) -> list[Candidate]:
    """Return the quotations a reply offers: the text inside its first <quote></quote> pair (an unclosed tag runs
    to the end), else every span in double quotes (straight, curly, « », „ “), else the whole reply (`roles` sets it
    aside when it describes the case instead)."""
    tagged = _QUOTE_TAG.search(text)
    if tagged:
        inner = tagged.group(1)
        quote = inner.strip()
        start = tagged.start(1) + inner.index(quote) if quote else tagged.start(1)
        return [Candidate(quote, quote, start, start + len(quote))] if quote else []
    found = []
    for match in _QUOTED_SPAN.finditer(text):
        group = next(index for index in range(1, 5) if match.group(index) is not None)
        quote = match.group(group).strip()
        if quote:
            found.append(Candidate(quote, quote, match.start(group), match.end(group)))
    if found:
        return found
    whole = text.strip()
    return [Candidate(whole, whole, text.index(whole), text.index(whole) + len(whole))] if whole else []


FINDERS: dict[str, Callable[..., list[Candidate]]] = {
    "quote": quotes,
    "year": years,
    "court": courts,
    "citation": citations,
    "disposition": dispositions,
    "agreement": agreements,
    "judge": judges,
}
