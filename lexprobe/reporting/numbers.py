"""How the HTML reports print numbers: a share as a percentage, a 95% interval in percentage points, a number with
thousands separators; "–" (an en dash) for a missing value. The report environment (`reporting.html`) gives every
template these as `pct`, `interval` and `num`."""

from __future__ import annotations

from collections.abc import Sequence

MISSING = "–"


def pct(value: float | None, digits: int = 1) -> str:
    """A share as a percentage ("33.3%"), "–" for None."""
    return MISSING if value is None else f"{100 * value:.{digits}f}%"


def interval(ci: Sequence[float] | None) -> str:
    """A 95% interval as "[20.0, 45.0]" percentage points, "–" for None or an empty interval."""
    return MISSING if not ci else f"[{100 * ci[0]:.1f}, {100 * ci[1]:.1f}]"


def num(value: float | None, digits: int = 2) -> str:
    """A number with thousands separators ("1,234.50"), "–" for None."""
    return MISSING if value is None else f"{value:,.{digits}f}"


__all__ = ["interval", "num", "pct"]
