"""Opinion authors as CAP prints them ("HOOD, Associate Judge.", "Mr. Justice Black", "ALVAREZ, Circuit Judge:")
turned into the judge's name alone ("Hood", "Black", "Alvarez"); per curiam and unsigned opinions have no author.

CAP's `casebody.opinions[].author` is the byline of the printed opinion: the surname in capitals, then the
judge's title after a comma ("CAYTON, Chief Judge", "WARREN, C.J.", "HARLAN, J., dissenting."), or the title
first ("Mr. Chief Justice Taft", "Judge Learned Hand"). The name is kept as printed apart from its capitals:
"McALLISTER" → "McAllister", "O'SCANNLAIN" → "O'Scannlain", "JOHN R. BROWN" → "John R. Brown".
"""

from __future__ import annotations

import functools
import re

_LEADING_TITLE = re.compile(
    r"^(?:(?:opinion(?:\s+of\s+the\s+court)?\s+)?by\s+|before\s+|"
    r"(?:mr|mrs|ms|madam|the|hon|honorable|honourable)\b\.?\s*|"
    r"(?:chief|associate|senior|circuit|district|magistrate|bankruptcy|presiding|acting|special|"
    r"united\s+states|u\.\s?s\.)\s+|"
    r"(?:justices?|judges?)\b\.?\s*)",
    re.IGNORECASE,
)
_TRAILING_PHRASE = re.compile(
    r"\s+(?:delivered|announced|wrote|filed|concurr\w*|dissent\w*|for\s+the\s+(?:court|majority))\b.*$",
    re.IGNORECASE,
)
_TRAILING_TITLE = re.compile(
    r"[\s,]+(?:(?:chief|associate|senior|circuit|district|magistrate|bankruptcy|presiding|acting|special|"
    r"united\s+states)\s+)*(?:justices?|judges?|c\.\s?j\.?|j\.?|jj\.?|p\.\s?j\.?|s\.\s?j\.?|u\.\s?s\.\s?d\.\s?j\.?)$",
    re.IGNORECASE,
)
#: Bylines that name no judge.
_NO_AUTHOR = re.compile(
    r"\b(?:per\s+curiam|curiam|by\s+the\s+court|the\s+court|memorandum|opinion|order|judgment|syllabus|"
    r"unanimous|court)\b",
    re.IGNORECASE,
)
_SUFFIXES = {"JR", "SR", "II", "III", "IV"}
_MAX_WORDS = 5


@functools.lru_cache(maxsize=8192)  # bylines repeat: a court has few judges
def author_name(byline: str | None) -> str | None:
    """Return the judge's name from a CAP opinion byline without titles or roles, in the name's own capitals
    ("HOOD, Associate Judge." → "Hood"; "Mr. Justice Black" → "Black"), or None for a per curiam or unsigned
    opinion or a byline that names no one. Raises nothing."""
    if not byline:
        return None
    text = re.sub(r"\s+", " ", byline).strip(" .:;,*")
    previous = None
    while previous != text:
        previous = text
        text = _LEADING_TITLE.sub("", text).strip(" .:;,")
        text = _TRAILING_PHRASE.sub("", text).strip(" .:;,")
        text = _TRAILING_TITLE.sub("", text).strip(" .:;,")
    if not text or _NO_AUTHOR.search(text):
        return None
    parts = [part.strip() for part in text.split(",")]
    name = parts[0]
    suffixes = [part for part in parts[1:] if part.upper().rstrip(".") in _SUFFIXES]
    if suffixes:
        suffix = suffixes[0].upper().rstrip(".")
        name = f"{name} {suffix.capitalize() + '.' if suffix in ('JR', 'SR') else suffix}"
    words = name.split()
    if not words or len(words) > _MAX_WORDS or not re.search(r"[A-Za-z]", name):
        return None
    return " ".join(_word_case(word) for word in words)


def _word_case(word: str) -> str:
    """One word of a name in its usual capitals: "HOOD" → "Hood", "O'CONNOR" → "O'Connor", "McALLISTER" →
    "McAllister", "R." and "III" unchanged."""
    bare = word.rstrip(".,")
    if bare.upper() in _SUFFIXES and bare.upper() not in ("JR", "SR"):
        return word.upper()
    match = re.fullmatch(r"(Ma?c)([A-Z]{2,}.*)", word)
    if match:
        return match.group(1) + _capitalize(match.group(2))
    if word.isupper():
        return _capitalize(word)
    return word


def _capitalize(word: str) -> str:
    """Capitalize each part of a word split at apostrophes and hyphens ("O'SCANNLAIN" → "O'Scannlain")."""
    return re.sub(r"[^\W\d_]+", lambda match: match.group(0).capitalize(), word)
