"""Small normalizations of CourtListener bulk values: authors without titles, the sole judge of a panel, the
disposition coarsened to affirm/reverse, dates, a court's circuit and state in a year, ints. Part of
`courtlistener_bulk`; imports nothing of it."""

from __future__ import annotations

import datetime as dt
import functools
import re

from lexprobe.caselaw.records import (
    Disposition,
)
from lexprobe.caselaw.sources.cap_cases import parse_partial_date
from lexprobe.caselaw.sources.cap_courts import court_place

# --- small normalizations ------------------------------------------------------------------------------------

_TITLE_BEFORE = re.compile(
    r"^(?:(?:the\s+)?(?:hon(?:orable)?\.?|mr\.?|mrs\.?|ms\.?)\s+)*"
    r"(?:(?:chief|senior|associate|circuit|district|magistrate|bankruptcy|presiding|acting)\s+)*"
    r"(?:judge|justice)\s+",
    re.IGNORECASE,
)
_TITLE_AFTER = re.compile(
    r"[,\s]+(?:(?:(?:u\.\s?s\.\s?)?(?:chief|senior|associate|circuit|district|magistrate|bankruptcy|presiding|"
    r"acting|united states)\s+)*(?:judge|justice)s?|c\.?\s?j|j|p\.?\s?j)\.?$",
    re.IGNORECASE,
)


def plain_author(text: str | None) -> str | None:
    """An author as a name without titles ("Circuit Judge Posner" / "POSNER, Circuit Judge." → "Posner"/"POSNER");
    None for an empty value or "per curiam"."""
    if not text:
        return None
    name = " ".join(text.split()).strip(" .,:;")
    for _ in range(2):
        name = _TITLE_AFTER.sub("", _TITLE_BEFORE.sub("", name)).strip(" .,:;")
    if not name or re.fullmatch(r"(?i)per\s+curiam|unknown|none", name):
        return None
    return name


def sole_judge(judges: str | None) -> str | None:
    """The cluster's `judges` as an author only when it names one person (a panel list names no author)."""
    if not judges or re.search(r",|;|\band\b|&", plain_author(judges) or ",", re.IGNORECASE):
        return None
    return plain_author(judges)


_AFFIRM = re.compile(r"\baffirm", re.IGNORECASE)
_REVERSE = re.compile(r"\b(?:revers|vacat)", re.IGNORECASE)
_MIXED = re.compile(r"\bin\s+part\b|\bmodif|\bdismiss|\bdenied\b|\bgranted\b", re.IGNORECASE)


def coarse_disposition(text: str | None) -> Disposition | None:
    """The study's affirm/reverse from a cluster's free-text disposition, only when unambiguous: "Affirmed" →
    affirm; "Reversed", "Reversed and remanded", "Vacated and remanded" → reverse; anything mixed ("affirmed in
    part", "affirmed and reversed", "modified", "dismissed") → None."""
    if not text or _MIXED.search(text):
        return None
    affirm, reverse = bool(_AFFIRM.search(text)), bool(_REVERSE.search(text))
    if affirm and not reverse:
        return "affirm"
    if reverse and not affirm:
        return "reverse"
    return None


def filed_date(text: str | None) -> tuple[str | None, int | None]:
    """(ISO date, year) of a `date_filed` value; the common "YYYY-MM-DD" without a regular expression."""
    if text and len(text) >= 10 and text[4] == "-" and text[7] == "-":
        try:
            day = dt.date.fromisoformat(text[:10])
            return day.isoformat(), day.year
        except ValueError:
            pass
    return parse_partial_date((text or "")[:10])


#: Years in which a district court's circuit changed (the 10th and 11th Circuits split off): no caching there.
_SPLIT_YEARS = frozenset({"1929", "1981"})


def cached_place(court_id: str | None, when: str | None) -> tuple[str | None, str | None]:
    """`court_place`, cached by court and year (a court's circuit and state change at most at a split)."""
    if when and when[:4] in _SPLIT_YEARS:
        return court_place(court_id, when)
    return _place_in_year(court_id, when[:4] if when else None)


@functools.lru_cache(maxsize=16384)
def _place_in_year(court_id: str | None, year: str | None) -> tuple[str | None, str | None]:
    return court_place(court_id, year)


def digits_int(value: str | None) -> int | None:
    """A CSV cell of digits as an int, else None."""
    if value is None:
        return None
    value = value.strip()
    return int(value) if value.isdigit() else None
