"""Courts: free-text court names to courts-db ids ("Ninth Circuit" -> "ca9", "N.D. Cal." -> "cand") and back.

Resolution order, cheapest first:
1. the text as a courts-db citation string, name or name abbreviation ("N.D. Cal.", "S.D.N.Y.", "9th Cir.",
   "Court of Appeals for the Ninth Circuit"), or as one of the usual names of a federal district court built from
   courts-db's ids and locations and reporters-db's state abbreviations ("Eastern District of Pennsylvania",
   "D. Md."), compared without case, spaces or punctuation;
2. the usual ways of naming the Supreme Court and the courts of appeals ("SCOTUS", "U.S. Supreme Court",
   "the 9th Circuit Court of Appeals", "Court of Appeals, D.C. Circuit"), which courts-db's regexes miss;
3. `courts_db.find_court` on the text with "U.S." spelled out, first as given, then without a leading
   "United States District Court for the" (courts-db's own regexes cover "Northern District of California"); asked
   only when a screen of its regexes by first character says it may find a court (`_find`; same answers, see below).
Among several matches a federal court wins; several federal courts, or several courts none federal, are
ambiguous (None).
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable
from importlib import resources
from typing import Any, Literal

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
    import courts_db  # imported on first use: the CLI's start-up needs none of courts-db

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
    from reporters_db import STATE_ABBREVIATIONS

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
    import courts_db

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
    """Return the court courts-db's regexes find for `text` (bankruptcy courts excluded), else None: exactly
    `_find_reference`, trying only the courts-db regexes that may span `text` (see `_courts_db_find`)."""
    if not _squash(text):
        return None
    return _pick(set(_courts_db_find(text)) - _UMBRELLA_IDS)


def _find_reference(text: str) -> str | None:
    """`_find` asking courts-db on every text (~50 ms each): the reference the screened `_find` must equal."""
    import courts_db

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
    return _resolve(text, _find)


def resolve_court_reference(text: str) -> str | None:
    """`resolve_court` with every courts-db question asked unscreened (slow, not memoized): the reference that the
    tests compare `resolve_court` with."""
    return _resolve(text, _find_reference)


def _resolve(text: str, find: Callable[[str], str | None]) -> str | None:
    """`resolve_court`, asking `find` what courts-db's regexes say."""
    text = _LEADING_THE.sub("", text or "").strip()
    if not text:
        return None
    index = _name_index()
    hit = index.get(_squash(text)) or _special_form(text)
    if hit:
        return hit
    spelled = _US_ABBREVIATION.sub("United States", text)
    hit = index.get(_squash(spelled)) or index.get(_squash(f"United States {spelled}")) or find(spelled)
    if hit:
        return hit
    remainder = _DISTRICT_PREFIX.sub("", spelled, count=1)
    if remainder != spelled:
        hit = index.get(_squash(remainder)) or find(remainder)
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


# --- courts-db's regexes, screened by first character ------------------------------------------------------------
# `courts_db.find_court(text)` compiles ~8,400 regexes once (seconds), then searches each across the whole text
# (~50 ms a text), and keeps a match only when it spans the whole (whitespace-collapsed) text. A pattern can span a
# text only if the text's first character is one the pattern can start with, so each pattern is filed under the
# first characters it can start with (read from its parse tree, an over-approximation: a non-ASCII character or any
# construct not understood files it under "any"), and `_courts_db_find` follows courts-db's steps with only the
# patterns filed under the text's first character and under "any" (compiled per first character, on first use),
# each tried as courts-db tries it once it `fullmatch`es. A text starting with a non-ASCII character goes to courts-db
# itself. `_find_reference` (tests: `resolve_court_reference`, the reader's `candidates.courts` given it) keeps the
# unscreened path, and the tests check both give the same court on thousands of realistic answers.

_ANY = "any"


def _first_chars(items: Any) -> tuple[set[str] | None, bool]:
    """Return (the lowercased ASCII first characters a parsed regex sequence can start with, None for any, or for a
    non-ASCII one, which case folding may map to ASCII; whether it can match the empty string)."""
    chars: set[str] = set()
    for op, argument in items:
        name = op.name
        nullable = False
        if name == "LITERAL":
            found: set[str] | None = {chr(argument).lower()} if argument < 128 else None
        elif name == "IN":
            found = set()
            for item_op, item_argument in argument:
                item_name = item_op.name
                if item_name == "LITERAL" and item_argument < 128:
                    found.add(chr(item_argument).lower())
                elif item_name == "RANGE" and item_argument[1] < 128:
                    found.update(chr(code).lower() for code in range(item_argument[0], item_argument[1] + 1))
                else:
                    found = None
                    break
        elif name == "SUBPATTERN":
            found, nullable = _first_chars(argument[3])
        elif name == "ATOMIC_GROUP":
            found, nullable = _first_chars(argument)
        elif name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            found, nullable = _first_chars(argument[2])
            nullable = nullable or argument[0] == 0
        elif name == "BRANCH":
            found, nullable = set(), False
            for branch in argument[1]:
                branch_chars, branch_nullable = _first_chars(branch)
                nullable = nullable or branch_nullable
                if branch_chars is None or found is None:
                    found = None
                else:
                    found |= branch_chars
        elif name in ("AT", "ASSERT", "ASSERT_NOT"):
            found, nullable = set(), True  # zero-width: ignoring what it asserts only widens the screen
        else:  # ANY, NOT_LITERAL, CATEGORY, group references, anything new: may start with anything
            return None, False
        if found is None:
            return None, False
        chars |= found
        if not nullable:
            return chars, False
    return chars, True


@functools.cache
def _screen() -> dict[str, list[tuple[str, dict[str, Any]]]]:
    """Return lowercased first character (or "any") -> the non-bankruptcy courts-db regexes (as courts-db spells
    them, in its order, each with its court) that may span a text starting with it."""
    import re._parser as sre_parse  # the parser the `re` module itself uses

    import courts_db

    screen: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    for court in courts_db.courts:
        if court["type"] == "bankruptcy":
            continue
        for pattern in [*court["regex"], court["name"]]:
            pattern = pattern.replace("\\\\", "\\")  # as `courts_db.utils.gather_regexes` does
            try:
                chars, nullable = _first_chars(sre_parse.parse(pattern, re.IGNORECASE | re.UNICODE))
            except re.error:  # courts-db could not compile it either; tried on every text all the same
                chars, nullable = None, True
            for key in [_ANY] if chars is None or nullable else sorted(chars):
                screen.setdefault(key, []).append((pattern, court))
    return screen


@functools.lru_cache(maxsize=128)
def _screen_patterns(key: str) -> tuple[tuple[re.Pattern[str], dict[str, Any]], ...]:
    """Return the compiled courts-db regexes filed under `key`, each with its court (compiled on first use)."""
    return tuple((_compiled(pattern), court) for pattern, court in _screen().get(key, []))


@functools.cache
def _compiled(pattern: str) -> re.Pattern[str]:
    """Return a courts-db regex compiled as courts-db compiles it, once (a pattern may be filed under several keys;
    `re`'s own cache holds only 512)."""
    return re.compile(pattern, re.IGNORECASE | re.UNICODE)


@functools.cache
def _courts_by_folded_name() -> dict[str, list[dict[str, Any]]]:
    """Return every court (bankruptcy courts too) by its name as courts-db's name fallback compares it (lowercased,
    spaces collapsed)."""
    import courts_db
    from courts_db.text_utils import strip_punc

    found: dict[str, list[dict[str, Any]]] = {}
    for court in courts_db.courts:
        found.setdefault(strip_punc(court["name"].lower()), []).append(court)
    return found


def _courts_db_find(text: str) -> list[str]:
    """Return what `courts_db.find_court(text, bankruptcy=False)` returns (the same ids; order aside), trying only
    the regexes the screen files under the text's first character (courts-db 0.10.27's logic, step by step)."""
    import courts_db
    from courts_db.text_utils import strip_punc

    court_str = strip_punc(text)
    if not court_str or not court_str[0].isascii():
        return courts_db.find_court(text, bankruptcy=False)
    matches: set[tuple[str, str, str | None]] = set()
    for key in (court_str[0].lower(), _ANY):
        for pattern, court in _screen_patterns(key):
            if not pattern.fullmatch(court_str):  # courts-db keeps only a match spanning the text: this one cannot
                continue
            match = pattern.search(court_str)  # what courts-db tries: the first match, kept if it spans the text
            if match and len(court_str) == match.end() - match.start():
                matches.add((match.group(0), court["id"], court.get("parent")))
    if not matches:  # courts-db's fallback: the text is a court's name
        for court in _courts_by_folded_name().get(strip_punc(court_str.lower()), []):
            matches.add((court_str, court["id"], court.get("parent")))
    found = list(matches)
    if len(found) > 1:
        found = courts_db.reduce_court_list(found)
    strings = [match[0] for match in found]
    kept = [item for item in strings if not [item for other in strings if item in other and item != other]]
    ids = list({match[1] for item in kept for match in found if item == match[0]})
    ids = courts_db.filter_courts_by_bankruptcy(matches=ids, bankruptcy=False)
    if len(ids) > 1:
        ids = courts_db._filter_parents_from_list(ids)
    return ids
