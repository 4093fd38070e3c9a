"""Read the answer out of a model's reply: lenient extractors that return None when the meaning is unclear.

The values of the one-value tasks (court, citation, author, disposition, overruling year, agreement, quotation) are
read by `lexprobe.hallucination.reader`, which finds every value with its role; this module keeps what is not a
choice among values. Choices (each one a documented rule, each tested):
- yes / no: a reply that opens with "yes" or "no" is that answer ("Yes, it is a real case." is yes); otherwise a
  stand-alone "yes" / "no" (followed by punctuation or the end, so "no doubt", "no record" do not count) decides;
  both ("Yes and no", "No. Yes.") is None.
- year (the false-overruling scorer's): a whole 4-digit number 1700-2030 that is not part of a reporter citation
  ("1954 U.S. LEXIS", "S. Ct. 1954") or a statute section ("§ 1983"); a decade ("the 1950s") is no year. With
  several years: the first one after `anchor`; else the first year not in a bare parenthetical "(1896)" that merely
  dates a case named in passing; else the first year. A choice between years ("1954 or 1955") is None.
"""

from __future__ import annotations

import re

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

_STANDALONE_YES_NO = re.compile(r"\b(yes|no)\b(?=\s*(?:[.,;:!)\"\n\u2013\u2014]|\s-\s|$))", _FLAGS)
_NON_WORDS = re.compile(r"\W*")
_BARE_END = re.compile(r"\W*$|\s*[.,;:!\n]")


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


# --- year -------------------------------------------------------------------------------------------------------

_REPORTER_CITATION = re.compile(
    r"\b\d{1,5}\s+(?:U\.\s?S\.(?:\s?C\.)?|S\.\s?Ct\.|L\.\s?Ed\.(?:\s?2d)?|F\.(?:\s?(?:2d|3d|4th))?|"
    r"F\.\s?Supp\.(?:\s?(?:2d|3d))?|[A-Z][\w.]*\s+LEXIS|WL)\s+\d{1,6}\b"
)
_SECTION = re.compile(r"(?:§+|\bsections?|\bsec\.|\bU\.\s?S\.\s?C\.(?:\s?A\.)?)\s*\d+", _FLAGS)
_YEAR = re.compile(r"(?<![\d.,$])\b(\d{4})\b(?![\d,]\d)")
_EITHER_YEAR = re.compile(r"\d{4}\s*(?:,?\s*or|/)\s*(?:in\s+)?\d{4}", _FLAGS)
_BARE_PARENTHETICAL = re.compile(r"^\(\s*(?:[A-Za-z.\s]+\s)?\d{4}\s*\)$")


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
