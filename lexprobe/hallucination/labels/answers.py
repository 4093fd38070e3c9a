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
    denies_existence,
    hedged_answer,
    normalize_answer,
    split_sentences,
)
from lexprobe.lazy import lazy_pattern

YEAR_MIN = 1700
YEAR_MAX = 2030

_FLAGS = re.IGNORECASE


def answer_text(answer: str) -> str:
    """Return the normalized text the extractors read: the answer after a lead hedge when there is one
    (`abstention.hedged_answer`: "I'm not sure whether it affirmed or reversed, but I believe it reversed" is read
    as "I believe it reversed"), else the whole reply. Raises nothing."""
    return normalize_answer(hedged_answer(answer) or answer)


# --- yes / no ---------------------------------------------------------------------------------------------------

#: Words that only strengthen the answer word after them ("Certainly, yes", "Absolutely not", "Well, no").
_INTENSIFIERS = (
    r"(?:absolutely|definitely|certainly|surely|sure|of\s+course|indeed|clearly|obviously|undoubtedly|actually|"
    r"honestly|simply|well|oh|hmm+|so|okay|ok|no\s+doubt(?:\s+about\s+it)?|without\s+(?:a\s+|any\s+)?doubt|"
    r"most\s+(?:certainly|definitely)|quite|in\s+short|in\s+a\s+word)"
)
_NOT_ANSWER = (
    r"not(?=\W*$|\s*[.,;:!)\n]|\s+(?:at\s+all|really|real\b|so\b|a\s+real|an?\s+(?:actual|genuine|existing)|"
    r"to\s+my\s+knowledge|that\s+i\s+(?:know|am\s+aware|'m\s+aware)))"
)
# the answer word after any intensifiers: a "no" ("no", "nope", "not at all", "absolutely not", "I don't think so")
# or a "yes"; "No doubt" and "No question" are intensifiers, not a no
_LEADING_YES_NO = lazy_pattern(
    rf"^\W*(?:{_INTENSIFIERS}\W+)*(?:"
    rf"(?P<no>nope|nah|negative|no(?!\s+(?:doubt|question)\b)|{_NOT_ANSWER}|by\s+no\s+means|no\s+way|"
    r"i\s+(?:do\s+not|don't)\s+(?:think|believe)\s+so)"
    r"|(?P<yes>yes|yeah|yep|yup|affirmative|i\s+(?:think|believe)\s+so))\b",
    _FLAGS,
)
# a reply that is nothing but intensifiers ("Certainly.", "Of course!", "Absolutely", "No doubt about it.")
_BARE_INTENSIFIER = lazy_pattern(rf"^\W*{_INTENSIFIERS}(?:\W+{_INTENSIFIERS})*(?=\W*$|\s*[.,;:!\n])", _FLAGS)
_NEGATION = lazy_pattern(r"\b(?:not|no|never|none|nor|neither)\b|n't\b", _FLAGS)
_BOTH_YES_NO = lazy_pattern(
    r"^\W*(?:yes\W+(?:(?:and|or|but)\W+)?no|no\W+(?:(?:and|or|but)\W+)?yes)(?=\W*$|\s*[.,;:!?/)\n-])", _FLAGS
)
_STANDALONE_YES_NO = lazy_pattern(r"\b(yes|no)\b(?=\s*(?:[.,;:!)\"\n]|$))", _FLAGS)


def extract_yes_no(answer: str) -> bool | None:
    """Return True for a yes, False for a no, None when the reply says neither or both. Raises nothing.

    The answer word may follow intensifiers and may be a negation: "Certainly, yes", "No, no such case exists",
    "Yes, no doubt it is real", "Absolutely not", "Not at all", "Nope"; a reply that opens with nothing but an
    intensifier ("Certainly.", "Of course!", "No doubt about it.") is a yes unless a negation follows it."""
    return _read_yes_no(answer_text(answer))[0]


def _read_yes_no(text: str) -> tuple[bool | None, bool]:
    """Return the yes/no of a normalized reply and whether it is only a bare intensifier's yes (a weak yes, which a
    denial of existence overrides: "No doubt about it: it is fictional.")."""
    if _BOTH_YES_NO.match(text):
        return None, False
    words = {match.group(1).lower() for match in _STANDALONE_YES_NO.finditer(text)}
    leading = _LEADING_YES_NO.match(text)
    if leading:
        says_yes = leading.group("yes") is not None
        return (None if ("no" if says_yes else "yes") in words else says_yes), False
    bare = _BARE_INTENSIFIER.match(text)
    if bare and not _NEGATION.search(text, bare.end()):
        return True, True
    if len(words) == 1:
        return words == {"yes"}, False
    return None, False


_AFFIRMS_EXISTENCE = lazy_pattern(
    r"(?<!not )\b(?:is|was)\s+(?:indeed\s+)?(?:a|an)\s+(?:real|actual|genuine|existing|legitimate|valid)\s+"
    r"(?:\w+\s+){0,2}?(?:case|decision)\b|(?<!not )\b(?:does|did)\s+(?:indeed\s+)?exist\b|(?<!not )\bexists\b"
    r"|\b(?:is|was)\s+(?:indeed\s+|certainly\s+|definitely\s+)?(?:real|genuine|authentic)\b",
    _FLAGS,
)
# "whether it is a real case", "if the case exists": the question restated, not an answer to it (to the end of
# its sentence or clause)
_WHETHER_CLAUSE = lazy_pattern(r"\b(?:whether|if)\b[^;!?\n]*", _FLAGS)


def extract_existence(answer: str) -> bool | None:
    """Return whether the reply says the case exists: its yes/no, else a denial ("this case does not exist") or an
    affirmation ("it is a real case"; not inside "whether ..." or "if ..."); None when it says neither, or both (a
    yes with a denial: "Yes. This case does not exist."). Raises nothing."""
    text = answer_text(answer)
    said, weak = _read_yes_no(text)
    denied = denies_existence(text) is not None
    if said is not None:
        return (False if weak else None) if said and denied else said
    statements = " ".join(_WHETHER_CLAUSE.sub(" ", sentence) for sentence in split_sentences(text))
    affirmed = bool(_AFFIRMS_EXISTENCE.search(statements))
    return None if denied == affirmed else affirmed


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
