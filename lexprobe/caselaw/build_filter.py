"""`data build --courts / --years`: which cases the user-supplied sources keep, as a `records.SourceFilter`.

`--courts` is a comma-separated list of courts-db ids ("ca9,cadc,nysd") and level names: `scotus`, `coa` (every
federal court of appeals) and `district` (every federal district court), in any of the spellings
`courts.LEVEL_ALIASES` accepts. `--years` is one inclusive range FROM-TO ("1990-2005") or one year ("1997").
"""

from __future__ import annotations

import functools

from lexprobe.caselaw.courts import COURT_LEVELS, LEVEL_ALIASES, court_level
from lexprobe.caselaw.records import SourceFilter
from lexprobe.errors import BadInputError


@functools.cache
def courts_of_level(level: str) -> frozenset[str]:
    """Return the courts-db ids of every court of a canonical level ("coa" -> ca1 ... ca11, cadc, cafc)."""
    import courts_db  # imported on first use, as in `courts`

    return frozenset(court["id"] for court in courts_db.courts if court_level(court["id"]) == level)


@functools.cache
def _known_ids() -> frozenset[str]:
    import courts_db

    return frozenset(court["id"] for court in courts_db.courts)


def parse_courts(spec: str) -> frozenset[str]:
    """Return the court ids named by a `--courts` value. Raises `BadInputError` naming an unknown court."""
    ids: set[str] = set()
    for part in (p.strip() for p in spec.split(",")):
        if not part:
            continue
        squashed = "".join(c for c in part.lower() if c.isalnum())
        level = LEVEL_ALIASES.get(squashed)
        if level in COURT_LEVELS:
            ids |= courts_of_level(level)
        elif part.lower() in _known_ids():
            ids.add(part.lower())
        else:
            raise BadInputError(
                f"--courts: unknown court {part[:40]!r}: give courts-db ids (ca9, cadc, nysd) or a level "
                "(scotus, coa, district), comma-separated"
            )
    if not ids:
        raise BadInputError("--courts: no court given: e.g. --courts coa or --courts ca9,cand")
    return frozenset(ids)


def parse_years(spec: str) -> tuple[int, int]:
    """Return the inclusive year range of a `--years` value ("1990-2005" or "1997"). Raises `BadInputError`."""
    text = spec.strip()
    start, dash, end = text.partition("-")
    if not dash:
        end = start
    if not start.strip().isdigit() or not end.strip().isdigit():
        raise BadInputError(f"--years {text[:40]!r}: write FROM-TO (e.g. 1990-2005) or one year")
    years = (int(start), int(end))
    if years[0] > years[1]:
        raise BadInputError(f"--years {text[:40]!r}: the first year is after the last")
    return years


def source_filter(courts: str | None, years: str | None) -> SourceFilter:
    """Return the filter of `--courts` and `--years` (either may be None: no filter on that)."""
    return SourceFilter(
        courts=parse_courts(courts) if courts is not None else None,
        years=parse_years(years) if years is not None else None,
    )
