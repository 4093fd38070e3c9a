"""House style: the cosmetic choices a seed makes for one document (font, size, margins, date and page formats).

Two documents rendered with the same seed look alike; different seeds give a corpus the variety of real
productions. Nothing here depends on the locale, so a seed gives the same text everywhere.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Literal

from lexprobe.documents.content import parse_iso

MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)

DateFormat = Literal["long", "us", "day_month"]
PageLabel = Literal["of", "dash"]


@dataclass(frozen=True)
class HouseStyle:
    """The cosmetic choices for one document."""

    serif: bool  # Times / Times New Roman, else Helvetica / Calibri
    font_size: int  # body size in points
    margin_in: float  # page margins in inches (pdf, docx)
    date_format: DateFormat  # "March 4, 2019" | "03/04/2019" | "4 March 2019"
    page_label: PageLabel  # "Page N of M" | "- N -"

    def format_date(self, value: str | None) -> str:
        """Return an ISO date or date-time printed as a date in this style; other strings unchanged; None -> ""."""
        if not value:
            return ""
        parsed = parse_iso(value)
        if parsed is None:
            return value
        if self.date_format == "us":
            return f"{parsed.month:02d}/{parsed.day:02d}/{parsed.year}"
        if self.date_format == "day_month":
            return f"{parsed.day} {MONTHS[parsed.month - 1]} {parsed.year}"
        return f"{MONTHS[parsed.month - 1]} {parsed.day}, {parsed.year}"

    def format_datetime(self, value: str | None) -> str:
        """Return an ISO date-time printed as date and 12-hour time ("March 4, 2019 10:30 AM"); a bare date as a
        date; other strings unchanged."""
        if not value:
            return ""
        parsed = parse_iso(value)
        if parsed is None:
            return value
        text = self.format_date(value)
        if "T" in value or " " in value.strip():
            text += " " + format_time(value)
        return text

    def page_text(self, page: int, pages: int) -> str:
        """Return the page label for page `page` of `pages`: "Page 2 of 5" or "- 2 -"."""
        return f"Page {page} of {pages}" if self.page_label == "of" else f"- {page} -"


def format_time(value: str) -> str:
    """Return the 12-hour time of an ISO date-time ("10:30 AM"); "" when `value` is not ISO."""
    parsed = parse_iso(value)
    if parsed is None:
        return ""
    hour = parsed.hour % 12 or 12
    return f"{hour}:{parsed.minute:02d} {'AM' if parsed.hour < 12 else 'PM'}"


def house_style(seed: int) -> HouseStyle:
    """Return the house style a seed picks (deterministic across runs and machines)."""
    rng = random.Random(seed)
    return HouseStyle(
        serif=rng.random() < 0.5,
        font_size=rng.choice((10, 11, 12)),
        margin_in=rng.choice((0.75, 1.0)),
        date_format=rng.choice(("long", "long", "us", "day_month")),
        page_label=rng.choice(("of", "dash")),
    )
