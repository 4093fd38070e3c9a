"""Spreadsheet numbers as printed text and back: "$1,234.50" <-> (1234.5, '"$"#,##0.00').

The xlsx renderer stores numeric-looking cells as numbers with a number format (`parse_number`); the extractor
prints numeric cells through their number format (`format_number`), so a rendered "$1,234.50" extracts as
"$1,234.50". Only plain formats are understood (currency sign, thousands separators, fixed decimals, percent);
anything else prints like Excel's General format.
"""

from __future__ import annotations

import re

_NUMBER = re.compile(r"^(-)?(\$)?(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?(%)?$")
_DECIMALS = re.compile(r"\.(0+)")


def parse_number(text: str) -> tuple[int | float, str] | None:
    """Return (value, number_format) when `text` is a plain number as printed ("1,200", "$80.50", "-3", "12.5%"),
    else None. Numbers with leading zeros ("00123": ids, zip codes) and more than 15 digits stay text."""
    match = _NUMBER.match(text)
    if not match:
        return None
    sign, dollar, whole, fraction, percent = match.groups()
    digits = whole.replace(",", "")
    if (len(digits) > 1 and digits[0] == "0") or len(digits) + len(fraction or "") > 15:
        return None
    if sign and not digits.strip("0") and not (fraction or "").strip("0"):
        return None  # "-0" would lose its sign
    number_format = ('"$"' if dollar else "") + ("#,##0" if "," in whole else "0")
    if fraction:
        number_format += "." + "0" * len(fraction)
    if percent:
        number_format += "%"
    value: int | float = float(f"{digits}.{fraction}") if fraction else int(digits)
    if percent:
        value = round(value / 100, len(fraction or "") + 2)
    if sign:
        value = -value
    return value, number_format


def format_number(value: int | float, number_format: str | None) -> str:
    """Return a numeric cell as printed by its number format (plain formats only; else like General)."""
    fmt = (number_format or "General").split(";")[0]
    if fmt == "General" or not any(ch in fmt for ch in "0#"):
        if isinstance(value, float) and value.is_integer():
            return str(int(value))
        return f"{value:.10g}" if isinstance(value, float) else str(value)
    decimals_match = _DECIMALS.search(fmt)
    decimals = len(decimals_match.group(1)) if decimals_match else 0
    percent = "%" in fmt
    shown = abs(value) * 100 if percent else abs(value)
    text = f"{shown:,.{decimals}f}" if "," in fmt else f"{shown:.{decimals}f}"
    if "$" in fmt:
        text = "$" + text
    if percent:
        text += "%"
    return ("-" if value < 0 and float(text.strip("$%").replace(",", "")) != 0 else "") + text
