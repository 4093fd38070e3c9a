"""U.S. Reports volume coverage: which volumes the case database lists completely, and where each volume's run of
opinions ends. The citation checker (`lexprobe.check.verify`) calls a U.S. citation "not_found" only in a covered
volume and only before the end of its opinions. Rules in docs/check.md ("Coverage"):

- a volume is covered when the database lists at least `MIN_DECISIONS_PER_VOLUME` decisions in it and no SCDB case
  without a U.S. page may be printed in it (decided within `UNCITED_DATE_SLACK` of the volume's cited decisions);
- the run of opinions ends where the orders section starts (`opinions_end`).
"""

from __future__ import annotations

import bisect
import datetime as dt
import itertools
import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

from lexprobe.caselaw.query import CaseDatabase

#: A U.S. Reports volume counts as covered only when the database lists at least this many decisions in it.
MIN_DECISIONS_PER_VOLUME = 10
#: Opinions in a volume are printed in date order; an entry dated more than this before the latest date so far
#: starts the orders section.
ORDERS_DATE_SLACK = dt.timedelta(days=45)
#: An SCDB case without a U.S. page may sit in any volume printed within this many days of its decision.
UNCITED_DATE_SLACK = dt.timedelta(days=30)

_US_KEY = re.compile(r"^(\d+) U\.S\. (\d+)$")


@dataclass
class VolumeCoverage:
    """Whether the database lists every decision with an opinion in one U.S. Reports volume, and where."""

    volume: int
    covered: bool
    reason: str  # why not covered (empty when covered)
    decisions: int
    section_end: int | None  # the last first page of the run of opinions (the orders section follows)
    years: tuple[int, int] | None
    entries: list[tuple[int, str]] = field(default_factory=list)  # (first page, case id), sorted


def uncovered_volume(volume: int) -> VolumeCoverage:
    """The coverage of a volume the database lists no decision in."""
    return VolumeCoverage(volume, False, f"the database lists no decision in {volume} U.S.", 0, None, None)


def _date(text: str | None) -> dt.date | None:
    try:
        return dt.date.fromisoformat(text[:10]) if text else None
    except ValueError:
        return None


def us_coverage(db: CaseDatabase) -> dict[int, VolumeCoverage]:
    """Per U.S. Reports volume: covered or not (and why), and where its run of opinions ends. Rules in
    docs/check.md ("Coverage")."""
    entries: dict[int, dict[int, tuple[str, bool, dt.date | None, int | None]]] = defaultdict(dict)
    for entry in db.us_reports_entries():
        m = _US_KEY.match(entry.citation_key)
        if m is None:
            continue
        volume, page = int(m.group(1)), int(m.group(2))
        known = entries[volume].get(page)
        date = _date(entry.decision_date)
        if known is None or (known[2] is None and date is not None):
            entries[volume][page] = (entry.case_id, bool(entry.name), date, entry.year)

    uncertain = _volumes_of_uncited_scdb_cases(db)
    coverage: dict[int, VolumeCoverage] = {}
    for volume, pages in entries.items():
        ordered = sorted(pages.items())
        years = [year for _, (_, _, _, year) in ordered if year]
        decisions = len(ordered)
        reason = ""
        if decisions < MIN_DECISIONS_PER_VOLUME:
            reason = (
                f"the database lists only {decisions} decision(s) in {volume} U.S., too few for a complete volume "
                f"(at least {MIN_DECISIONS_PER_VOLUME} needed)"
            )
        elif volume in uncertain:
            reason = (
                f"the Supreme Court Database has decisions without a U.S. Reports page ({uncertain[volume]}) that "
                f"may be printed in {volume} U.S."
            )
        coverage[volume] = VolumeCoverage(
            volume=volume,
            covered=not reason,
            reason=reason,
            decisions=decisions,
            section_end=opinions_end(ordered),
            years=(min(years), max(years)) if years else None,
            entries=[(page, case_id) for page, (case_id, _, _, _) in ordered],
        )
    return coverage


def opinions_end(ordered: Sequence[tuple[int, tuple[str, bool, dt.date | None, int | None]]]) -> int | None:
    """The last first page of the volume's run of opinions, before its orders section and in-chambers opinions.

    Walking the entries in page order, the run ends at the first of two consecutive entries that have neither a
    name nor a date (Fowler lists orders with dissents that way), or at the first entry dated more than 45 days
    before the latest date seen so far (opinions are printed in date order; the orders section starts the period
    again). Its end is the last dated entry before that point, or, in volumes without dates (Fowler only), the last
    named one.
    """
    dated = any(date is not None for _, (_, _, date, _) in ordered)
    end = None
    latest: dt.date | None = None
    for i, (page, (_, named, date, _)) in enumerate(ordered):
        bare = date is None and not named
        if bare and i + 1 < len(ordered) and ordered[i + 1][1][2] is None and not ordered[i + 1][1][1]:
            break
        if date is not None:
            if latest is not None and date < latest - ORDERS_DATE_SLACK:
                break
            latest = max(latest, date) if latest else date
        if (date is not None) if dated else named:
            end = page
    return end


def _volumes_of_uncited_scdb_cases(db: CaseDatabase) -> dict[int, str]:
    """Volumes that may hold an SCDB case the database has no U.S. page for -> a description of those cases.

    Such a case, decided on date d, may be in any volume from the last volume holding a cited case decided more
    than 30 days before d to the first volume holding one decided more than 30 days after d.
    """
    cited: list[tuple[dt.date, int]] = []
    uncited: list[tuple[dt.date, int]] = []  # (date, term)
    for case in db.term_cases():
        date = _date(case.decision_date) or dt.date(int(case.term), 10, 1)
        volumes = [int(m.group(1)) for key in case.us_keys if (m := _US_KEY.match(key))]
        if volumes:
            cited.extend((date, volume) for volume in volumes)
        else:
            uncited.append((date, int(case.term)))
    if not cited or not uncited:
        return {}
    cited.sort()
    dates = [date for date, _ in cited]
    prefix_max = list(itertools.accumulate((volume for _, volume in cited), max))
    suffix_min = list(itertools.accumulate((volume for _, volume in reversed(cited)), min))[::-1]
    last_volume = max(volume for _, volume in cited)
    terms: dict[int, set[int]] = defaultdict(set)
    for date, term in uncited:
        before = bisect.bisect_left(dates, date - UNCITED_DATE_SLACK) - 1
        after = bisect.bisect_right(dates, date + UNCITED_DATE_SLACK)
        lo = prefix_max[before] if before >= 0 else 1
        hi = suffix_min[after] if after < len(cited) else last_volume + 1
        for volume in range(lo, hi + 1):
            terms[volume].add(term)
    return {
        volume: "terms " + ", ".join(str(t) for t in sorted(found)) if len(found) > 1 else f"term {min(found)}"
        for volume, found in terms.items()
    }
