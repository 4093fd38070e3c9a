"""Field values of CourtListener API objects: citations in rank order (official reporters first, vendor cites
last), author names without titles, dispositions coarsened to affirm/reverse, and ids, ints and texts read
leniently. Part of `courtlistener_api`; imports nothing of it."""

from __future__ import annotations

import re
from typing import Any

from lexprobe.caselaw.records import (
    Disposition,
)
from lexprobe.caselaw.sources.cap_authors import author_name as cap_author_name

# --- citations: official reporters first, vendor cites last --------------------------------------------------

#: CourtListener citation types: 1 federal, 2 state, 3 state regional, 4 specialty, 5 early SCOTUS, 6 LEXIS, 7 WEST,
#: 8 neutral, 9 journal. Rank (lower first) of the non-vendor types; an untyped citation of an unknown reporter
#: ranks after them, and WEST, then LEXIS, come last.
_TYPE_RANK = {1: 0, 5: 0, 2: 1, 8: 2, 3: 3, 4: 4, 9: 5}
_UNTYPED_RANK, _WEST_RANK, _LEXIS_RANK = 6, 7, 8
_LEXIS = re.compile(r"\bLEXIS\b", re.IGNORECASE)
_WESTLAW = re.compile(r"^\d{4} WL \d+$")
_FEDERAL = re.compile(r"^\d+ (?:U\.\s?S\.|F\.(?: ?[234]d| ?4th)?|F\. ?Supp\.(?: ?[23]d)?|F\. ?App'x) \d+$")
_SPECIALTY = re.compile(r"^\d+ (?:S\. ?Ct\.|L\. ?Ed\.(?: ?2d)?) \d+$")
_DC_APPELLATE = re.compile(r"\bApp\. ?D\.\s?C\.")  # "80 U.S. App. D.C. 67": federal, but after F./F.2d

# --- authors: the name without titles or roles (CAP's rules, so both publishers name a judge alike) ------------

_ROLE_ONLY = re.compile(
    r"^(?:(?:the|chief|associate|circuit|district|senior|presiding|magistrate|bankruptcy|acting|special|visiting|"
    r"judges?|justices?|court)\b[\s.,]*)+$",
    re.IGNORECASE,
)

# --- dispositions ----------------------------------------------------------------------------------------------

_AFFIRM = re.compile(r"\baffirm", re.IGNORECASE)
_REVERSE = re.compile(r"\b(?:revers|vacat|set aside)", re.IGNORECASE)
MAX_DISPOSITION_CHARS = 500


# --- values --------------------------------------------------------------------------------------------------


def author_name(text: str | None) -> str | None:
    """Return an opinion author's name without titles or roles, capitalized normally, or None where no judge is
    named: "HOOD, Associate Judge." → "Hood"; "L. HAND, Circuit Judge" → "L. Hand"; "PER CURIAM" and "The CHIEF
    JUSTICE" → None. The rules are CAP's (`cap_authors.author_name`); a byline that is only titles names no one."""
    name = cap_author_name(text)
    return None if name is None or _ROLE_ONLY.match(name) else name


def disposition_of(text: str | None) -> Disposition | None:
    """The study's coarsening of a CourtListener disposition text: "affirm" ("Affirmed"), "reverse" ("Reversed
    and remanded", "Vacated"), None for mixed ("Affirmed in part, reversed in part") or other texts."""
    if not text:
        return None
    affirmed, reversed_ = bool(_AFFIRM.search(text)), bool(_REVERSE.search(text))
    if affirmed == reversed_:
        return None
    return "affirm" if affirmed else "reverse"


def citations_of(entries: Any) -> tuple[str, ...]:
    """Citation strings from v4 citation objects ({volume, reporter, page, type}) or plain strings, official
    reporters first and vendor cites last (stable within a rank)."""
    ranked: list[tuple[tuple[int, int], str]] = []
    for entry in entries if isinstance(entries, list) else ():
        if isinstance(entry, str) and entry.strip():
            text = " ".join(entry.split())
            ranked.append((_citation_rank(text, None), text))
        elif isinstance(entry, dict) and entry.get("volume") and entry.get("reporter") and entry.get("page"):
            text = " ".join(f"{entry['volume']} {entry['reporter']} {entry['page']}".split())
            ranked.append((_citation_rank(text, int_of(entry.get("type"))), text))
    ranked.sort(key=lambda item: item[0])
    return tuple(dict.fromkeys(text for _, text in ranked))


def _citation_rank(text: str, citation_type: int | None) -> tuple[int, int]:
    if citation_type == 6 or _LEXIS.search(text):
        return _LEXIS_RANK, 0
    if citation_type == 7 or _WESTLAW.match(text):
        return _WEST_RANK, 0
    rank = _TYPE_RANK.get(citation_type) if citation_type is not None else None
    if rank is None:
        rank = 0 if _FEDERAL.match(text) else 4 if _SPECIALTY.match(text) else _UNTYPED_RANK
    return rank, 1 if _DC_APPELLATE.search(text) else 0


def court_of(docket: dict[str, Any]) -> str | None:
    """The courts-db id of a docket: `court_id`, else the last part of its `court` URL."""
    court = text_of(docket.get("court_id"))
    if court:
        return court
    value = docket.get("court")
    if isinstance(value, dict):
        return text_of(value.get("id"))
    text = text_of(value)
    if text is None:
        return None
    return text.rstrip("/").rsplit("/", 1)[-1] or None


def ids_of(value: Any) -> tuple[str, ...]:
    """The ids of a list of API URLs or ids (a docket's `clusters`, a cluster's `sub_opinions`)."""
    return tuple(i for i in (id_of(item) for item in list_of(value)) if i)


def id_of(value: Any) -> str | None:
    """An object id from an int, a digit string, an API URL (".../clusters/123/") or a nested object."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return str(value)
    if isinstance(value, dict):
        return id_of(value.get("id"))
    if isinstance(value, str):
        match = re.search(r"(\d+)/?$", value.strip())
        return match.group(1) if match else None
    return None


def list_of(value: Any) -> list[Any]:
    """The value when it is a list, else an empty one."""
    return value if isinstance(value, list) else []


def int_of(value: Any) -> int | None:
    """An int from an int or a digit string (never a bool), else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value)
    return None


def text_of(value: Any) -> str | None:
    """A scalar as stripped text, None when empty or an object or list."""
    if value is None or isinstance(value, dict | list):
        return None
    text = str(value).strip()
    return text or None
