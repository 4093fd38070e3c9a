"""How lexprobe prints numbers, the one home of its number formatters.

The HTML reports and the command line's rate tables print a share as a percentage, a 95% interval in percentage
points and a number with thousands separators, with "–" (an en dash) for a missing value; the report environment
(`reporting.html`) gives every template these as `pct`, `interval` and `num`. The hallucination and labelling
tables of the command line also print fixed decimals, a share in Python's percent format and a rate with its
standard error, with "-" (a hyphen) for a missing value, as they always have.
"""

from __future__ import annotations

from collections.abc import Sequence

MISSING = "–"
TABLE_MISSING = "-"


def pct(value: float | None, digits: int = 1) -> str:
    """A share as a percentage ("33.3%"), "–" for None."""
    return MISSING if value is None else f"{100 * value:.{digits}f}%"


def interval(ci: Sequence[float] | None) -> str:
    """A 95% interval as "[20.0, 45.0]" percentage points, "–" for None or an empty interval."""
    return MISSING if not ci else f"[{100 * ci[0]:.1f}, {100 * ci[1]:.1f}]"


def num(value: float | None, digits: int = 2) -> str:
    """A number with thousands separators ("1,234.50"), "–" for None."""
    return MISSING if value is None else f"{value:,.{digits}f}"


def fixed(value: float | None, digits: int = 3) -> str:
    """A number with `digits` decimals ("0.125"), "-" for None."""
    return TABLE_MISSING if value is None else f"{value:.{digits}f}"


def share(value: float | None) -> str:
    """A share as a percentage with one decimal ("33.3%"), "-" for None."""
    return TABLE_MISSING if value is None else f"{value:.1%}"


def whole_share(value: float | None) -> str:
    """A share as a whole percentage ("33%"), "-" for None (the run viewer's tables)."""
    return TABLE_MISSING if value is None else f"{100 * value:.0f}%"


def rate_se(rate: float | None, se: float | None) -> str:
    """A rate and its standard error, "0.500 (0.020)", "-" for no rate."""
    return TABLE_MISSING if rate is None else f"{rate:.3f} ({se:.3f})"


__all__ = ["fixed", "interval", "num", "pct", "rate_se", "share", "whole_share"]
