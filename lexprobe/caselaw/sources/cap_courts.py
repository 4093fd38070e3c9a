"""Where a CAP case was decided: CAP court names to courts-db ids (`resolve_cap_court`), state codes, and a
court's circuit and state on a date (`court_place`, with the circuits split off later). Part of `cap`; imports
nothing of it."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

from lexprobe.caselaw import courts

#: Federal courts of appeals → their circuits ("ca9" → "9", "cadc" → "dc").
CIRCUIT_OF_COURT: dict[str, str] = {court_id: circuit for circuit, court_id in courts.CIRCUIT_IDS.items()}

#: The circuit each state's district courts appeal to today.
_STATE_CIRCUITS: dict[str, str] = {
    **dict.fromkeys(("ME", "MA", "NH", "RI", "PR"), "1"),
    **dict.fromkeys(("CT", "NY", "VT"), "2"),
    **dict.fromkeys(("DE", "NJ", "PA", "VI"), "3"),
    **dict.fromkeys(("MD", "NC", "SC", "VA", "WV"), "4"),
    **dict.fromkeys(("LA", "MS", "TX"), "5"),
    **dict.fromkeys(("KY", "MI", "OH", "TN"), "6"),
    **dict.fromkeys(("IL", "IN", "WI"), "7"),
    **dict.fromkeys(("AR", "IA", "MN", "MO", "NE", "ND", "SD"), "8"),
    **dict.fromkeys(("AK", "AZ", "CA", "HI", "ID", "MT", "NV", "OR", "WA", "GU", "MP"), "9"),
    **dict.fromkeys(("CO", "KS", "NM", "OK", "UT", "WY"), "10"),
    **dict.fromkeys(("AL", "FL", "GA"), "11"),
    "DC": "dc",
}
#: Circuits split off later: (new circuit, start date, circuit before).
_CIRCUIT_SPLITS: tuple[tuple[str, str, str], ...] = (("11", "1981-10-01", "5"), ("10", "1929-02-28", "8"))


# --- courts -----------------------------------------------------------------------------------------------


@cache
def _courts_by_id() -> dict[str, dict[str, Any]]:
    import courts_db

    return {court["id"]: court for court in courts_db.courts}


@cache
def _state_codes() -> dict[str, str]:
    path = resources.files("courts_db") / "data" / "states.json"
    states: dict[str, str] = json.loads(path.read_text(encoding="utf-8"))
    codes = {name.lower(): code for code, name in states.items() if len(code) == 2}
    codes.update(dict.fromkeys(("washington d.c.", "washington, d.c.", "district of columbia"), "DC"))
    return codes


def state_code(name: str | None) -> str | None:
    """Two-letter code of a US state or territory named in full ("California" → "CA"); None if unknown."""
    if not name:
        return None
    text = name.strip()
    if len(text) == 2 and text.upper() in _state_codes().values():
        return text.upper()
    return _state_codes().get(text.lower())


@cache
def resolve_cap_court(name: str | None, abbreviation: str | None = None) -> str | None:
    """Return the courts-db id for a CAP court: its full name, else its abbreviation ("N.D. Cal."), through
    `caselaw.courts.resolve_court`; a bankruptcy court (which that leaves out) through courts-db directly."""
    for text in (name, abbreviation):
        court_id = courts.resolve_court(text) if text else None
        if court_id:
            return court_id
    if name and "bankruptcy" in name.lower():
        import courts_db

        found = courts_db.find_court(name, bankruptcy=True)
        return found[0] if len(found) == 1 else None
    return None


def court_place(court_id: str | None, when: str | None = None) -> tuple[str | None, str | None]:
    """Return (circuit, state) for a courts-db id: the circuit of a federal court of appeals; the circuit and
    two-letter state of a federal district court; the state of a state court; else (None, None). `when` (ISO date
    or year) gives a district court its circuit before the 10th and 11th Circuits were split off."""
    if not court_id:
        return None, None
    level = courts.court_level(court_id)
    if level == "coa":
        return CIRCUIT_OF_COURT[court_id], None
    if level == "district":
        state = courts.district_state(court_id)
        return (_circuit_of_state(state, when) if state else None), state
    court = _courts_by_id().get(court_id)
    if court is not None and court.get("system") == "state":
        return None, state_code(court.get("location"))
    return None, None


def _circuit_of_state(state: str, when: str | None) -> str | None:
    circuit = _STATE_CIRCUITS.get(state)
    for new, start, before in _CIRCUIT_SPLITS:
        if circuit == new and when and when[: len(start)] < start:
            return before
    return circuit
