"""Read the answer out of a model's reply: lenient extractors that return None when the meaning is unclear.

Choices (each one a documented rule, each tested):
- yes / no: a reply that opens with "yes" or "no" is that answer ("Yes, it is a real case." is yes); otherwise a
  stand-alone "yes" / "no" (followed by punctuation or the end, so "no doubt", "no record" do not count) decides;
  both ("Yes and no", "No. Yes.") is None.
- disposition: affirm = "affirm(ed/ance)", "upheld"; reverse = "revers(ed/al)", "vacat(ed/ur)", "remanded",
  "overturned", "set aside". The study's truth coarsens SCDB "vacated (and remanded)" and "reversed and remanded"
  to reverse, so a vacate answer counts as reverse. Negated mentions ("did not affirm") are ignored; a reply naming
  both outcomes, or an outcome "in part", is None.
- agreement: "disagree" / "do not agree" / "don't agree" -> disagree; "agree" otherwise; both -> None.
- year: a whole 4-digit number 1700-2030 that is not part of a reporter citation ("1954 U.S. LEXIS", "S. Ct. 1954")
  or a statute section ("§ 1983"); a decade ("the 1950s") is no year. With several years: the first one after
  `anchor` (the overruling scorer passes "overrul", so "Plessy (1896) was overruled by Brown (1954)" is 1954); else
  the first year not in a bare parenthetical "(1896)" that merely dates a case named in passing; else the first
  year. A choice between years ("1954 or 1955") is None.
- court: `courts.resolve_court` on the whole reply, then on court-shaped phrases found in it, in order of
  appearance; the first phrase that names one court wins.
- citation: the first full citation `caselaw.citations` finds, after turning the prompt's "<volume>, <reporter>,
  <page>" format ("347, U.S., 483") into a citation.
- quote: the text inside <quote></quote> (first pair; an unclosed tag runs to the end), else the longest span in
  double quotes, else the whole reply.
- judge name: the name after "written/authored/delivered by", else before "wrote/authored/delivered", else after a
  title ("Chief Justice Earl Warren"), else the first short clause that is itself a name once hedges are dropped
  ("I don't know exactly; probably Earl Warren").
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Literal

from lexprobe.caselaw.citations import Citation, parse_citation
from lexprobe.caselaw.courts import resolve_court, resolve_court_reference
from lexprobe.hallucination.labels.abstention import (
    blank,
    drop_hedges,
    hedged_answer,
    lead_sentence,
    negated,
    normalize_answer,
    split_sentences,
    table,
)
from lexprobe.lazy import lazy_pattern

Disposition = Literal["affirm", "reverse"]
Agreement = Literal["agree", "disagree"]

YEAR_MIN = 1700
YEAR_MAX = 2030

_FLAGS = re.IGNORECASE


def answer_text(answer: str) -> str:
    """Return the normalized text the extractors read: the answer after a lead hedge when there is one
    (`abstention.hedged_answer`: "I'm not sure whether it affirmed or reversed, but I believe it reversed" is read
    as "I believe it reversed"), else the whole reply; without the clauses that only hedge the answer before them
    (`abstention.drop_hedges`: "Arthur Goldberg, I believe." is read as "Arthur Goldberg."). Raises nothing."""
    return drop_hedges(normalize_answer(hedged_answer(answer) or answer))


# --- yes / no ---------------------------------------------------------------------------------------------------

_STANDALONE_YES_NO = lazy_pattern(r"\b(yes|no)\b(?=\s*(?:[.,;:!)\"\n\u2013\u2014]|\s-\s|$))", _FLAGS)
_NON_WORDS = lazy_pattern(r"\W*")
_BARE_END = lazy_pattern(r"\W*$|\s*[.,;:!\n]")


def extract_yes_no(answer: str) -> bool | None:
    """Return True for a yes, False for a no, None when the reply says neither or both. Raises nothing.

    The answer word (tables `yes_no.yes`, `yes_no.no` of `reader/stance.toml`) opens the lead sentence after filler,
    intensifiers and hedges ("Certainly, yes", "Probably not", "Most likely yes", "Absolutely not", "Nope"); a reply
    that opens with nothing but an intensifier ("Certainly.", "Of course!", "No doubt about it.") is a yes unless a
    negation follows it; otherwise a stand-alone "yes" / "no" (followed by punctuation or the end: "no doubt",
    "no record" do not count) decides; both ("Yes and no", "No. Yes.") is None."""
    return _read_yes_no(answer_text(answer))[0]


def _read_yes_no(text: str) -> tuple[bool | None, bool]:
    """Return the yes/no of a normalized reply and whether it is only a bare intensifier's yes (a weak yes, which a
    denial of existence overrides: "No doubt about it: it is fictional.")."""
    lead = lead_sentence(text)
    text = text[max(0, text.find(lead)) :] if lead else text
    text = text[_NON_WORDS.match(text).end() :]  # type: ignore[union-attr]
    if table("yes_no.both").match(text):
        return None, False
    words = {match.group(1).lower() for match in _STANDALONE_YES_NO.finditer(text)}
    pos, only_intensifiers, last_end = 0, True, None
    while True:
        for word, says in (("no", False), ("yes", True)):
            if table(f"yes_no.{word}").match(text, pos):
                return (None if ("yes" if word == "no" else "no") in words else says), False
        found = table("yes_no.intensifier").match(text, pos) or table("yes_no.hedge").match(text, pos)
        if not found:
            break
        only_intensifiers = only_intensifiers and table("yes_no.intensifier").match(text, pos) is not None
        last_end, pos = found.end(), _NON_WORDS.match(text, found.end()).end()  # type: ignore[union-attr]
    # nothing but intensifiers, then the end or punctuation, and no negation after them: a (weak) yes
    bare = last_end is not None and only_intensifiers and _BARE_END.match(text, last_end)
    if bare and not table("negator").search(text, last_end):
        return True, True
    if len(words) == 1:
        return words == {"yes"}, False
    return None, False


def _claims(text: str) -> list[tuple[int, bool, bool]]:
    """Return what the reply says of the case's existence: (sentence, exists, negated) for each denial (tables
    `existence.case_denial`, `existence.denial`) and affirmation (`existence.affirmation`) outside a restated
    question ("whether it is real"), flipped by a negation before it ("It's not a fake case": exists)."""
    claims = []
    for index, sentence in enumerate(split_sentences(text)):
        statement = blank(sentence, table("whether_clause").finditer(sentence))
        denials = [*table("existence.case_denial").finditer(statement), *table("existence.denial").finditer(statement)]
        affirmations = [
            match
            for match in table("existence.affirmation").finditer(statement)
            if not any(d.start() < match.end() and d.end() > match.start() for d in denials)
        ]
        for match, exists in [(m, False) for m in denials] + [(m, True) for m in affirmations]:
            flipped = negated(statement, match.start())
            claims.append((index, exists != flipped, flipped))
    return claims


def extract_existence(answer: str) -> bool | None:
    """Return whether the reply says the case exists: its yes/no, else its denials and affirmations (`_claims`);
    None when it says neither, or both. A yes with a denial ("Yes. This case does not exist.") is None, but a bare
    intensifier's yes with one is a no ("No doubt about it: it is fictional."), and a no that echoes a negated denial
    is a yes ("No, this isn't a fabricated citation."). Raises nothing."""
    text = answer_text(answer)
    said, weak = _read_yes_no(text)
    claims = _claims(text)
    values = {exists for _, exists, _ in claims}
    if said is None:
        return values.pop() if len(values) == 1 else None
    if said and False in values:
        return False if weak else None
    if not said and any(index == 0 and exists and flipped for index, exists, flipped in claims):
        return True
    return said


def describes_decision(answer: str) -> str | None:
    """Return the phrase by which the reply describes the case's decision as a fact ("The First Circuit decided
    Brightwater v. Kessler in 2018"; table `existence.implicit`), treating the case as real; None otherwise."""
    text = answer_text(answer)
    found = (m for m in table("existence.implicit").finditer(text) if not negated(text, m.start()))
    match = next(found, None)
    return match.group().strip() if match else None


# --- disposition and agreement ----------------------------------------------------------------------------------

_NEGATED = r"(?<!not )(?<!n't )(?<!never )"
_AFFIRM = lazy_pattern(rf"{_NEGATED}\b(?:affirm(?:s|ed|ing|ance)?|upheld|uphold(?:s|ing)?)\b", _FLAGS)
_REVERSE = lazy_pattern(
    rf"{_NEGATED}\b(?:revers(?:e|es|ed|ing|al)|vacat(?:e|es|ed|ing|ur)|remand(?:s|ed|ing)?|overturn(?:s|ed|ing)?|"
    r"set(?:s|ting)? aside)\b",
    _FLAGS,
)
_IN_PART = lazy_pattern(r"\bin\s+part\b|\bpartial(?:ly)?\b", _FLAGS)


def extract_disposition(answer: str) -> Disposition | None:
    """Return "affirm" or "reverse" (vacate and remand count as reverse), or None when the reply names neither,
    both, or an outcome in part. Raises nothing."""
    text = answer_text(answer)
    if _IN_PART.search(text):
        return None
    affirm, reverse = bool(_AFFIRM.search(text)), bool(_REVERSE.search(text))
    if affirm == reverse:
        return None
    return "affirm" if affirm else "reverse"


_DISAGREE = lazy_pattern(
    r"\bdisagree(?:s|d|ing|ment)?\b|\b(?:do|does|did)\s+not\s+agree\b|\b(?:don't|doesn't|didn't)\s+agree\b", _FLAGS
)
_AGREE = lazy_pattern(r"(?<!dis)(?<!not )(?<!n't )\bagree(?:s|d|ing|ment)?\b", _FLAGS)


def extract_agreement(answer: str) -> Agreement | None:
    """Return "agree" or "disagree", or None when the reply says neither or both. Raises nothing."""
    text = answer_text(answer)
    disagree = bool(_DISAGREE.search(text))
    agree = bool(_AGREE.search(_DISAGREE.sub(" ", text)))
    if agree == disagree:
        return None
    return "disagree" if disagree else "agree"


# --- year -------------------------------------------------------------------------------------------------------

_REPORTER_CITATION = lazy_pattern(
    r"\b\d{1,5}\s+(?:U\.\s?S\.(?:\s?C\.)?|S\.\s?Ct\.|L\.\s?Ed\.(?:\s?2d)?|F\.(?:\s?(?:2d|3d|4th))?|"
    r"F\.\s?Supp\.(?:\s?(?:2d|3d))?|[A-Z][\w.]*\s+LEXIS|WL)\s+\d{1,6}\b"
)
_SECTION = lazy_pattern(r"(?:§+|\bsections?|\bsec\.|\bU\.\s?S\.\s?C\.(?:\s?A\.)?)\s*\d+", _FLAGS)
_YEAR = lazy_pattern(r"(?<![\d.,$])\b(\d{4})\b(?![\d,]\d)")
_EITHER_YEAR = lazy_pattern(r"\d{4}\s*(?:,?\s*or|/)\s*(?:in\s+)?\d{4}", _FLAGS)
_BARE_PARENTHETICAL = lazy_pattern(r"^\(\s*(?:[A-Za-z.\s]+\s)?\d{4}\s*\)$")


def _blank(match: re.Match[str]) -> str:
    return " " * len(match.group())


def extract_year(answer: str, anchor: str | None = None, dated_cases: bool = True) -> int | None:
    """Return the year the reply gives, per the module's rule for several years, or None when it gives none.

    `anchor` is a regular expression (case-insensitive); years after its first match are preferred. With
    `dated_cases=False` a year in a bare parenthetical ("(1954)", dating a case named in passing) never counts.
    Raises nothing.
    """
    text = answer_text(answer)
    text = _SECTION.sub(_blank, _REPORTER_CITATION.sub(_blank, text))
    found = [m for m in _YEAR.finditer(text) if YEAR_MIN <= int(m.group(1)) <= YEAR_MAX]
    if not found:
        return None
    if anchor:
        hit = re.search(anchor, text, _FLAGS)
        after = [m for m in found if hit and m.start() >= hit.end()]
        if after:
            return int(after[0].group(1))

    def parenthetical(m: re.Match[str]) -> bool:
        opening = text.rfind("(", 0, m.start())
        closing = text.find(")", m.end())
        return opening != -1 and closing != -1 and bool(_BARE_PARENTHETICAL.match(text[opening : closing + 1]))

    plain = [m for m in found if not parenthetical(m)]
    chosen = (plain or found)[0] if plain or dated_cases else None
    if chosen is None or _EITHER_YEAR.search(text[max(0, chosen.start() - 12) : chosen.end() + 12]):
        return None  # "1954 or 1955": a hedge between two answers is not an answer
    return int(chosen.group(1))


# --- court ------------------------------------------------------------------------------------------------------

_STATE_WORDS = r"[A-Za-z.]+(?:\s+[A-Za-z.]+){0,2}"
_COURT_PHRASES = [
    lazy_pattern(pattern, _FLAGS)
    for pattern in (
        # "U.S. District Court for the Northern District of California", "District Court for the District of Kansas"
        rf"(?:(?:united\s+states|u\.\s?s\.)\s+)?district\s+court\s*,?\s*(?:for|of|in)\s+(?:the\s+)?"
        rf"(?:(?:northern|southern|eastern|western|middle|central)\s+)?district\s+of\s+{_STATE_WORDS}",
        rf"(?:(?:northern|southern|eastern|western|middle|central)\s+)?district\s+of\s+{_STATE_WORDS}",
        r"(?:\b[nsewmc]\.\s?)?\bd\.\s?[a-z]{1,6}\.(?:\s?[a-z]{1,6}\.)?",  # "N.D. Cal.", "D. Md.", "S.D.N.Y."
        r"\b[nsewmc]\.?d\.?n\.?y\.?",
        # "Court of Appeals for the Ninth Circuit", "the 9th Circuit Court of Appeals", "D.C. Circuit", "9th Cir."
        r"(?:(?:united\s+states|u\.\s?s\.)\s+)?court\s+of\s+appeals?,?\s+(?:for\s+|of\s+)?(?:the\s+)?"
        r"(?:\w+|d\.\s?c\.|district\s+of\s+columbia)\s+cir(?:cuit|\.)",
        r"(?:\b\w+|d\.\s?c\.|district\s+of\s+columbia)\s+cir(?:cuit|\.)(?:\s+court(?:\s+of\s+appeals?)?)?",
        r"\bc\.\s?a\.\s?(?:\d{1,2}|d\.\s?c\.)",
        # "Supreme Court of the United States", "U.S. Supreme Court", "Supreme Court of Delaware", "SCOTUS"
        r"(?:(?:united\s+states|u\.\s?s\.|us)\s+)?supreme\s+court(?:\s+of\s+(?:the\s+)?[a-z.]+(?:\s+[a-z.]+){0,2})?",
        r"\bscotus\b",
    )
]
_TRAILING_WORD = lazy_pattern(r"\s*\S+$")


def _resolve_phrase(phrase: str, resolve: Callable[[str], str | None]) -> str | None:
    """Return the court a phrase names, dropping trailing words ("... of California and affirmed") until it does."""
    phrase = phrase.strip(" ,;:")
    while phrase:
        court = resolve(phrase)
        if court:
            return court
        shorter = _TRAILING_WORD.sub("", phrase)
        if shorter == phrase or not re.search(r"court|circuit|cir\.|district|d\.|scotus", shorter, _FLAGS):
            return None
        phrase = shorter
    return None


def extract_court(answer: str) -> str | None:
    """Return the courts-db id of the court the reply names ("The Ninth Circuit Court of Appeals" -> "ca9"), the
    first one when it names several, or None when it names none. Raises nothing."""
    return _extract_court(answer, resolve_court)


def extract_court_reference(answer: str) -> str | None:
    """`extract_court` with courts-db asked unscreened (`courts.resolve_court_reference`; slow, not memoized): the
    reference that the tests compare `extract_court` with."""
    return _extract_court(answer, resolve_court_reference)


def _extract_court(answer: str, resolve: Callable[[str], str | None]) -> str | None:
    """`extract_court`, resolving each candidate text with `resolve`."""
    text = answer_text(answer).strip(" .")
    if not text:
        return None
    if len(text) <= 120:
        whole = resolve(text)
        if whole:
            return whole
    spans: list[tuple[int, int]] = []
    for pattern in _COURT_PHRASES:
        spans.extend(match.span() for match in pattern.finditer(text))
    # earliest first; at one position the longest phrase first
    for start, end in sorted(set(spans), key=lambda span: (span[0], -span[1])):
        court = _resolve_phrase(text[start:end], resolve)
        if court:
            return court
    return None


# --- citation ---------------------------------------------------------------------------------------------------

_COMMA_CITATION = lazy_pattern(
    r"\b(\d{1,5})\s*,\s*([A-Z][A-Za-z.]*(?:\s?[A-Z0-9][A-Za-z0-9.]*){0,3})\s*,?\s*(\d{1,6})\b(?!\s*,\s*\d)"
)


def extract_citation(answer: str) -> Citation | None:
    """Return the first full case citation in the reply ("347 U.S. 483", "347 US 483", "347, U.S., 483"), or None.
    Raises nothing."""
    text = answer_text(answer)
    converted = _COMMA_CITATION.sub(lambda m: f"{m.group(1)} {m.group(2)} {m.group(3)}", text)
    return parse_citation(converted) or (parse_citation(text) if converted != text else None)


# --- quote ------------------------------------------------------------------------------------------------------

_QUOTE_TAG = lazy_pattern(r"<quote>(.*?)(?:</quote>|$)", re.IGNORECASE | re.DOTALL)
_QUOTED_SPAN = lazy_pattern(r"\"([^\"]+)\"|“([^”]+)”")


def extract_quote(answer: str) -> str | None:
    """Return the quotation the reply offers (see the module's rule), or None for an empty reply. Raises nothing."""
    text = (answer or "").strip()
    tagged = _QUOTE_TAG.search(text)
    if tagged:
        quote = tagged.group(1).strip()
        return quote or None
    spans = [next(group for group in match.groups() if group is not None) for match in _QUOTED_SPAN.finditer(text)]
    if spans:
        return max(spans, key=len).strip() or None
    return text or None


# --- judge name -------------------------------------------------------------------------------------------------

_TITLE = (
    r"(?:(?:mr\.?|mrs\.?|ms\.?|madam)\s+)?(?:(?:chief|associate|senior|circuit|district|magistrate)\s+)?"
    r"(?:justice|judge)|hon\.?|honorable"
)
_NAME_WORD = r"(?:[A-Z][A-Za-z'’-]+|[A-Z]\.(?:\s?[A-Z]\.)*)"
_NAME = (
    rf"{_NAME_WORD}(?:\s+(?:{_NAME_WORD}|van|von|de|del|la|le|st\.))*(?:,?\s+(?:Jr\.|Sr\.|II|III|IV)(?![\w]))?"
    rf"(?:,\s+(?:C\.\s?J\.|J\.))?"
)
_NOT_NAMES = lazy_pattern(
    r"^(?:the|court|supreme|majority|opinion|per|curiam|united|states|circuit|district|justice|judge|chief|"
    r"it|he|she|this|that|in|a|an)$",
    _FLAGS,
)
_BY_NAME = lazy_pattern(rf"\b(?:written|authored|delivered|penned|announced)\s+by\s+(?:(?i:the\s+)?(?i:{_TITLE})\s+)?"
                      rf"(?P<name>{_NAME})")  # fmt: skip
_NAME_WROTE = lazy_pattern(rf"(?:(?i:{_TITLE})\s+)?(?P<name>{_NAME})\s+(?:wrote|authored|delivered|penned)\b")
_TITLED_NAME = lazy_pattern(rf"\b(?i:{_TITLE})\s+(?P<name>{_NAME})")
_PER_CURIAM = lazy_pattern(r"\bper\s+curiam\b", _FLAGS)
_SHORT_REPLY_WORDS = 6
_CLAUSES = lazy_pattern(r"[;:!?\n]|(?<![A-Z])(?<!Jr)(?<!Sr)\.(?=\s|$)|\bbut\b")
_HEDGE_WORDS = lazy_pattern(
    r"^(?:(?:probably|perhaps|maybe|likely|possibly|i\s+think|i\s+believe|i\s+guess|my\s+(?:best\s+)?guess\s+is|"
    r"it\s+(?:was|is|might\s+be|may\s+be|could\s+be)|that\s+(?:was|is)|the\s+(?:answer|author)\s+(?:is|was)|"
    r"answer|the\s+judge\s+(?:is|was))\b[\s,:]*)+",
    _FLAGS,
)


def _clean_name(name: str) -> str | None:
    """Return a matched name without leading non-name words ("Chief Justice") and without a sentence's final period
    (kept after an initial or a role: "Warren, C.J.", "Holmes, Jr."); None when nothing is left."""
    words = name.strip(" ,;:").split()
    while words and _NOT_NAMES.match(words[0].strip(".,")):
        words.pop(0)
    if words and words[-1].endswith(".") and len(words[-1].rstrip(".")) > 2 and "." not in words[-1][:-1]:
        words[-1] = words[-1].rstrip(".")
    return " ".join(words).strip(" ,;:") or None


def extract_judge_name(answer: str) -> str | None:
    """Return the judge the reply names ("Chief Justice Earl Warren wrote it" -> "Earl Warren"; "... written by
    Justice Harlan." -> "Harlan"), "per curiam" for a per curiam answer, or None. Raises nothing."""
    text = answer_text(answer)
    if not text:
        return None
    if _PER_CURIAM.search(text) and not _TITLED_NAME.search(text):
        return "per curiam"
    for pattern in (_BY_NAME, _NAME_WROTE, _TITLED_NAME):
        found = [m for m in pattern.finditer(text) if _clean_name(m.group("name"))]
        if found:
            return _clean_name(min(found, key=lambda m: m.start()).group("name"))
    for clause in _CLAUSES.split(text):
        clause = _HEDGE_WORDS.sub("", clause.strip())
        if clause and len(clause.split()) <= _SHORT_REPLY_WORDS and re.fullmatch(rf"\W*{_NAME}\W*", clause):
            return _clean_name(clause)
    return None
