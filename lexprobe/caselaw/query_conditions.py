"""The SQL conditions `query.CaseDatabase` reads the case schema with: the court levels, the coverage columns of
`lexprobe data info`, the cases each level samples from (`LEVEL_FILTERS`), the condition of each fact a task
needs (`FACT_CONDITIONS`) and the WHERE clause of a level's eligible cases."""

from __future__ import annotations

from collections.abc import Sequence

LEVELS = ("scotus", "coa", "district")

#: Coverage columns of `lexprobe data info`: label -> SQL condition on `cases`.
COVERAGE = {
    "name": "name IS NOT NULL AND name != ''",
    "citation": "citation IS NOT NULL",
    "author": "author IS NOT NULL",
    "disposition": "disposition IS NOT NULL",
    "opinion_text": "majority_opinion_id IS NOT NULL",
    "overruling": "overruled_year IS NOT NULL",
    "prominence": "prominence IS NOT NULL",
}


#: The cases each court level samples from (rules in `sampling.py`): level -> (SQL condition on `cases`, stratum).
LEVEL_FILTERS: dict[str, tuple[str, str]] = {
    "scotus": (
        "name IS NOT NULL AND name != '' AND citation LIKE '% U.S. %' AND year IS NOT NULL",
        "CAST(year AS TEXT)",
    ),
    "coa": (
        "(citation LIKE '% F. %' OR citation LIKE '% F.2d %' OR citation LIKE '% F.3d %' OR citation LIKE '% F.4th %')"
        " AND court_id IS NOT NULL AND year IS NOT NULL",
        "court_id || '-' || year",
    ),
    "district": (
        "citation LIKE '% F. Supp.%' AND state IS NOT NULL AND year IS NOT NULL",
        "state || '-' || year",
    ),
}

#: The SQL condition on `cases` that holds when a case has each fact of `sampling.CASE_FACTS`.
FACT_CONDITIONS: dict[str, str] = {
    "name": "(name IS NOT NULL AND name != '' AND citation IS NOT NULL AND citation != '' AND year IS NOT NULL)",
    "court": "(court_id IS NOT NULL AND court_id != '')",
    "author": "(author IS NOT NULL AND author != '')",
    "disposition": "(disposition IS NOT NULL AND disposition != '')",
    "opinion_text": "(majority_opinion_id IS NOT NULL AND majority_opinion_id != ''"
    " AND EXISTS (SELECT 1 FROM opinions o WHERE o.opinion_id = cases.majority_opinion_id AND o.text != ''))",
    "never_overruled": "(overruled_year IS NULL AND NOT EXISTS (SELECT 1 FROM overrulings v"
    " WHERE v.overruled_case_id = cases.case_id))",
}


#: The most values one `IN (...)` list of a query binds (far below SQLite's limit on parameters).
_MAX_IN = 500


def _stratum_years(strata: Sequence[str]) -> list[int]:
    """Return the decision years of `strata` (every level's stratum ends with the year: "1954", "ca9-1954",
    "NY-1954"), or [] when one of them does not end with a year."""
    years = [stratum.rpartition("-")[2] for stratum in strata]
    return sorted({int(year) for year in years}) if all(year.isdigit() for year in years) else []


def _eligible(level: str, years: tuple[int, int] | None, require: Sequence[str]) -> tuple[str, list]:
    """Return the WHERE clause (without the keyword) and parameters of a level's eligible cases."""
    condition, _ = LEVEL_FILTERS[level]
    clauses, params = ["level = ?", condition], [level]
    if years is not None:
        clauses.append("year BETWEEN ? AND ?")
        params.extend(years)
    clauses.extend(FACT_CONDITIONS[name] for name in require)
    return " AND ".join(clauses), params
