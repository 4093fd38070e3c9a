"""The SQL conditions `query.CaseDatabase` reads the case schema with: the court levels, the coverage columns of
`lexprobe data info`, the cases each level samples from (`LEVEL_FILTERS`), the condition of each fact a task
needs (`FACT_CONDITIONS`)."""

from __future__ import annotations

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
