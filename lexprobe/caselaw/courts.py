"""Courts: free-text court names to courts-db ids ("Ninth Circuit" -> "ca9", "N.D. Cal." -> "cand") and back.

Resolution order, cheapest first:
1. the text as a courts-db citation string, name or name abbreviation ("N.D. Cal.", "S.D.N.Y.", "9th Cir.",
   "Court of Appeals for the Ninth Circuit"), or as one of the usual names of a federal district court built from
   courts-db's ids and locations and reporters-db's state abbreviations ("Eastern District of Pennsylvania",
   "D. Md."), compared without case, spaces or punctuation;
2. the usual ways of naming the Supreme Court and the courts of appeals ("SCOTUS", "U.S. Supreme Court",
   "the 9th Circuit Court of Appeals", "Court of Appeals, D.C. Circuit"), which courts-db's regexes miss;
3. `courts_db.find_court` on the text with "U.S." spelled out, first as given, then without a leading
   "United States District Court for the" (courts-db's own regexes cover "Northern District of California").
Among several matches a federal court wins; several federal courts, or several courts none federal, are
ambiguous (None).
"""

from __future__ import annotations

import functools
import json
import re
from importlib import resources
from typing import Any, Literal

import courts_db
from reporters_db import STATE_ABBREVIATIONS

from lexprobe.errors import BadInputError

CourtLevel = Literal["scotus", "coa", "district"]

#: The court levels in their one canonical spelling (the one every table, report and message prints).
COURT_LEVELS: tuple[CourtLevel, ...] = ("scotus", "coa", "district")
#: Every accepted spelling of a court level (compared without case, spaces or punctuation) -> the canonical level.
LEVEL_ALIASES: dict[str, CourtLevel] = {
    "scotus": "scotus",
    "supreme": "scotus",
    "supremecourt": "scotus",
    "ussc": "scotus",
    "coa": "coa",
    "uscoa": "coa",
    "appeals": "coa",
    "appellate": "coa",
    "circuit": "coa",
    "courtofappeals": "coa",
    "district": "district",
    "usdc": "district",
    "districtcourt": "district",
}
#: The levels and their main aliases, for --help and error messages.
LEVELS_TEXT = "scotus (or supreme), coa (or appeals, circuit, uscoa), district (or usdc)"

# The circuits by number: 1-11 are the numbered circuits, then the Songer/FJC convention 12 = D.C., 13 = Federal.
CIRCUIT_IDS: dict[str, str] = {**{str(n): f"ca{n}" for n in range(1, 12)}, "dc": "cadc", "fed": "cafc"}
_CIRCUIT_NUMBERS: dict[int, str] = {**{n: f"ca{n}" for n in range(1, 12)}, 12: "cadc", 13: "cafc"}
_ORDINAL_WORDS: dict[str, str] = {
    word: str(n)
    for n, word in enumerate(
        ["first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth", "eleventh"],
        start=1,
    )
}
_CIRCUIT_ALIASES: dict[str, str] = {
    "dc": "dc",
    "districtofcolumbia": "dc",
    "fed": "fed",
    "federal": "fed",
    **_ORDINAL_WORDS,
}
# The district a federal district court id ends with ("cand" = "ca" + "nd"), as Bluebook letter and as words.
_DISTRICT_DIVISIONS: dict[str, tuple[str, str]] = {
    "nd": ("N.", "Northern"),
    "sd": ("S.", "Southern"),
    "ed": ("E.", "Eastern"),
    "wd": ("W.", "Western"),
    "md": ("M.", "Middle"),
    "cd": ("C.", "Central"),
    "d": ("", ""),
}
_UMBRELLA_IDS = {"usdistct", "uscirct"}  # "United States District Court" names no one district
_DC_LOCATIONS = {"washington d.c.", "washington dc", "d.c.", "dc", "district of columbia"}

_US = r"(?:united\s+states|u\.?\s?s\.?(?:a\.?)?)"
_CIRCUIT_NAME = r"(?P<circuit>\d{1,2}(?:st|nd|rd|th|d)?|[a-z]+|d\.\s?c\.|district\s+of\s+columbia|fed\.)"
_CIRCUIT_PATTERNS = [
    # "Ninth Circuit", "9th Cir.", "the 9th Circuit Court of Appeals", "U.S. Court of Appeals for the 9th Circuit"
    re.compile(
        rf"(?:{_US}\s+)?(?:court\s+of\s+appeals?,?\s+(?:for\s+|of\s+)?(?:the\s+)?)?{_CIRCUIT_NAME}\s+"
        r"cir(?:cuit|\.)?(?:\s+court(?:\s+of\s+appeals?)?)?"
    ),
    # "CA9", "C.A. 9", "C.A.D.C."
    re.compile(r"c\.?\s?a\.?\s?(?P<circuit>\d{1,2}|d\.?\s?c\.?|fed\.?)"),
]
_SUPREME_COURT = re.compile(
    rf"(?:{_US}\s+)?supreme\s+court(?:\s+of\s+(?:the\s+)?{_US})?|{_US}\s+sup(?:reme|\.)\s+ct\.?|scotus"
)
_DISTRICT_PREFIX = re.compile(
    rf"(?:{_US}\s+)?district\s+court(?:\s*,|\s+for\s+the|\s+for|\s+of\s+the|\s+in\s+the|\s+in)?\s+", re.IGNORECASE
)
_LEADING_THE = re.compile(r"^\s*the\s+", re.IGNORECASE)
_US_ABBREVIATION = re.compile(r"\bU\.\s?S\.(?:\s?A\.)?(?=\s|$)|\bUSA?\b")


def _squash(text: str) -> str:
    """Return `text` lowercased without spaces or punctuation: "N.D. Cal." -> "ndcal"."""
    return re.sub(r"[\W_]+", "", text.lower())


def canonical_level(name: str) -> CourtLevel:
    """Return the canonical court level of any accepted spelling: "usdc" / "U.S.D.C." -> "district",
    "supreme" -> "scotus", "appeals" / "circuit" -> "coa". Raises `BadInputError` (a ValueError) naming the valid
    levels for anything else."""
    level = LEVEL_ALIASES.get(_squash(name))
    if level is None:
        raise BadInputError(f"unknown court level {name.strip()[:40]!r}; valid: {LEVELS_TEXT}")
    return level


def parse_levels(spec: str) -> list[CourtLevel]:
    """Return the canonical levels of a comma list ("scotus,usdc" -> ["scotus", "district"]), each once, in order.

    Raises `BadInputError` for an unknown level or an empty list.
    """
    levels = list(dict.fromkeys(canonical_level(part) for part in spec.split(",") if part.strip()))
    if not levels:
        raise BadInputError(f"no court level given; valid: {LEVELS_TEXT}")
    return levels


@functools.cache
def _courts_by_id() -> dict[str, dict[str, Any]]:
    """Return every courts-db court by id."""
    return {court["id"]: court for court in courts_db.courts}


def _is_federal(court: dict[str, Any]) -> bool:
    return court.get("system") == "federal"


def _is_district(court: dict[str, Any]) -> bool:
    """Return True for a federal district court (not a bankruptcy court, not the umbrella "usdistct")."""
    return (
        _is_federal(court)
        and court.get("type") != "bankruptcy"
        and "District Court" in court.get("name", "")
        and court["id"] != "usdistct"
    )


def _pick(ids: list[str] | set[str]) -> str | None:
    """Return the one court among `ids`, a federal court winning over others; None when none or still several."""
    ids = sorted(set(ids))
    if len(ids) <= 1:
        return ids[0] if ids else None
    federal = [court_id for court_id in ids if _is_federal(_courts_by_id()[court_id])]
    return federal[0] if len(federal) == 1 else None


def _district_aliases(court: dict[str, Any]) -> list[str]:
    """Return the usual names of a federal district court that courts-db's own fields and regexes may miss.

    Built from the court's id ("paed" = Pennsylvania + Eastern District), its courts-db location and reporters-db's
    state abbreviations: "Eastern District of Pennsylvania", "E.D. Pa.", "E.D. Pennsylvania"; "District of Maryland",
    "D. Md.". Returns [] for a court whose id does not follow that pattern (historic courts such as "californiad").
    """
    state = _state_codes().get(str(court.get("location", "")).strip().lower())
    if not state or not _is_district(court) or not court["id"].startswith(state.lower()):
        return []
    division = _DISTRICT_DIVISIONS.get(court["id"][len(state) :])
    if division is None:
        return []
    letter, word = division
    state_name = _state_names()[state]
    abbreviations = [abbr for abbr, name in STATE_ABBREVIATIONS.items() if name == state_name] or [state_name]
    district = f"{word} District" if word else "District"
    return [
        state_name if state_name.startswith("District") else f"{district} of {state_name}",
        f"{letter}D. {state_name}",
        *(f"{letter}D. {abbreviation}" for abbreviation in abbreviations),
    ]


@functools.cache
def _name_index() -> dict[str, str]:
    """Return squashed citation string / name / name abbreviation / usual district name -> court id (built once)."""
    found: dict[str, set[str]] = {}
    for court in courts_db.courts:
        names = [court.get(field) for field in ("citation_string", "name", "name_abbreviation")]
        for value in [*names, *_district_aliases(court)]:
            if value and _squash(value):
                found.setdefault(_squash(value), set()).add(court["id"])
    index = {}
    for key, ids in found.items():
        chosen = _pick(ids - _UMBRELLA_IDS)
        if chosen:
            index[key] = chosen
    return index


def circuit_court_id(circuit: str | int) -> str:
    """Return the courts-db id of a federal court of appeals: 9 / "9" / "9th" / "ninth" -> "ca9",
    12 / "dc" / "D.C." -> "cadc", 13 / "fed" / "Federal" -> "cafc".

    Raises ValueError for anything that names no circuit.
    """
    if isinstance(circuit, int):
        if circuit in _CIRCUIT_NUMBERS:
            return _CIRCUIT_NUMBERS[circuit]
        raise ValueError(f"no federal circuit numbered {circuit}")
    key = re.sub(r"(?<=.)(?:circuit|cir)$", "", _squash(str(circuit)))
    key = re.sub(r"(?<=\d)(?:st|nd|rd|th|d)$", "", key)
    if key.isdigit() and int(key) in _CIRCUIT_NUMBERS:
        return _CIRCUIT_NUMBERS[int(key)]
    if key in _CIRCUIT_ALIASES:
        return CIRCUIT_IDS[_CIRCUIT_ALIASES[key]]
    raise ValueError(f"no federal circuit named {circuit!r}")


def _special_form(text: str) -> str | None:
    """Return the court id for the Supreme Court / court of appeals phrasings courts-db does not know, else None."""
    lowered = re.sub(r"\s+", " ", text.lower()).strip(" .,;:")
    if _SUPREME_COURT.fullmatch(lowered) or _SUPREME_COURT.fullmatch(lowered + "."):
        return "scotus"
    for pattern in _CIRCUIT_PATTERNS:
        match = pattern.fullmatch(lowered) or pattern.fullmatch(lowered + ".")
        if match:
            try:
                return circuit_court_id(match.group("circuit"))
            except ValueError:
                return None
    return None


def _find(text: str) -> str | None:
    """Return the court courts-db's regexes find for `text` (bankruptcy courts excluded), else None."""
    if not _squash(text):
        return None
    return _pick(set(courts_db.find_court(text, bankruptcy=False)) - _UMBRELLA_IDS)


@functools.lru_cache(maxsize=4096)
def resolve_court(text: str) -> str | None:
    """Return the courts-db id named by `text`, or None when it names no court or several equally well.

    "Supreme Court", "SCOTUS" -> "scotus"; "Ninth Circuit", "9th Cir.", "the 9th Circuit Court of Appeals" -> "ca9";
    "N.D. Cal.", "Northern District of California",
    "U.S. District Court for the Northern District of California" -> "cand". Raises nothing.
    """
    text = _LEADING_THE.sub("", text or "").strip()
    if not text:
        return None
    index = _name_index()
    hit = index.get(_squash(text)) or _special_form(text)
    if hit:
        return hit
    spelled = _US_ABBREVIATION.sub("United States", text)
    hit = index.get(_squash(spelled)) or index.get(_squash(f"United States {spelled}")) or _find(spelled)
    if hit:
        return hit
    remainder = _DISTRICT_PREFIX.sub("", spelled, count=1)
    if remainder != spelled:
        hit = index.get(_squash(remainder)) or _find(remainder)
        if hit and _is_district(_courts_by_id()[hit]):
            return hit
    return None


def court_name(court_id: str) -> str:
    """Return the courts-db full name of `court_id` ("ca9" -> "Court of Appeals for the Ninth Circuit").

    Raises KeyError for an id courts-db does not know.
    """
    return _courts_by_id()[court_id]["name"].strip()


def court_level(court_id: str) -> CourtLevel | None:
    """Return "scotus", "coa" (a federal court of appeals), "district" (a federal district court) or None
    (any other court, or an unknown id). Raises nothing."""
    if court_id == "scotus":
        return "scotus"
    if court_id in CIRCUIT_IDS.values():
        return "coa"
    court = _courts_by_id().get(court_id)
    return "district" if court and _is_district(court) else None


@functools.cache
def _state_names() -> dict[str, str]:
    """Return two-letter code -> state or territory name, from courts-db's states table (DC: "District of Columbia")."""
    path = resources.files("courts_db") / "data" / "states.json"
    states: dict[str, str] = json.loads(path.read_text(encoding="utf-8"))
    names = {code: name for code, name in states.items() if len(code) == 2}
    names["DC"] = "District of Columbia"
    return names


@functools.cache
def _state_codes() -> dict[str, str]:
    """Return lowercased state / territory name (or courts-db location) -> two-letter code."""
    codes = {name.lower(): code for code, name in _state_names().items()}
    codes.update(dict.fromkeys(_DC_LOCATIONS, "DC"))
    return codes


def district_state(court_id: str) -> str | None:
    """Return the two-letter state (or territory) of a federal district court ("cand" -> "CA", "dcd" -> "DC"),
    or None for any other court or an unknown id. Raises nothing."""
    court = _courts_by_id().get(court_id)
    if not court or not _is_district(court):
        return None
    return _state_codes().get(str(court.get("location", "")).strip().lower())


def same_court(answer_text: str, court_id: str) -> bool:
    """Return True when `answer_text` names exactly the court `court_id` (an id itself also counts).

    The comparison is court against court: for a district court the district must match - "Southern District of
    California" is not "cand", and neither is a bare "California". Raises nothing.
    """
    if not answer_text or not court_id:
        return False
    if answer_text.strip().lower() == court_id.lower():
        return True
    return resolve_court(answer_text) == court_id
