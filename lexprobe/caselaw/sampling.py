"""Stratified case samples, as in the study: year strata for the Supreme Court, circuit-year strata for the
courts of appeals, state-year strata for the district courts.

Filters (one per level, applied before stratifying; a level may be given in any spelling `courts.canonical_level`
accepts, such as "usdc" for "district"):
- scotus: a case with a name and a U.S. Reports citation;
- coa: a case with a Federal Reporter citation (F., F.2d, F.3d, F.4th) and a circuit;
- district: a case with a Federal Supplement citation (F. Supp., F. Supp. 2d, F. Supp. 3d) and a state.

Allocation: every stratum gets an equal share of `n` (the per-term cap for the Supreme Court); a stratum with
fewer eligible cases gives all it has, and the shortfall is spread evenly over the strata that still have cases,
until `n` is reached or every eligible case is drawn (`allocate`). Strata that could not fill the equal share are
reported. The draw is reproducible: strata and cases are ordered by id before a `random.Random(seed)` draws.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from lexprobe.caselaw.courts import canonical_level
from lexprobe.caselaw.query import CaseDatabase

LEVEL_FILTERS: dict[str, tuple[str, str]] = {
    # level -> (SQL condition, stratum expression)
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


@dataclass
class SampleResult:
    """A drawn sample and how it was drawn."""

    level: str
    n_requested: int
    seed: int
    eligible: int
    strata: int
    equal_share: int
    rows: list[dict] = field(default_factory=list)
    short_strata: dict[str, tuple[int, int]] = field(default_factory=dict)  # stratum -> (available, equal share)

    @property
    def shortfall(self) -> int:
        """How many fewer cases were drawn than requested (0 when the sample is full)."""
        return self.n_requested - len(self.rows)


def allocate(sizes: dict[str, int], n: int, rng: random.Random) -> dict[str, int]:
    """Return how many cases to draw from each stratum.

    Water-filling: every stratum gets up to a common cap (the largest cap whose total stays within `n`), a
    stratum smaller than the cap gives all it has, and the few cases still missing go one each to randomly
    chosen strata that have more. So the strata that are not short differ by at most one case.
    """
    n = min(n, sum(sizes.values()))
    low, high = 0, max(sizes.values(), default=0)
    while low < high:
        middle = (low + high + 1) // 2
        if sum(min(size, middle) for size in sizes.values()) <= n:
            low = middle
        else:
            high = middle - 1
    quotas = {stratum: min(size, low) for stratum, size in sizes.items()}
    remaining = n - sum(quotas.values())
    larger = sorted(stratum for stratum, size in sizes.items() if size > low)
    for stratum in rng.sample(larger, remaining):
        quotas[stratum] += 1
    return quotas


def eligible_count(db: CaseDatabase, level: str) -> int:
    """Return how many cases of a court level (any accepted spelling) pass its filter, i.e. the most a sample
    can draw. Raises `BadInputError` (a ValueError) for an unknown level."""
    level = canonical_level(level)
    condition, _ = LEVEL_FILTERS[level]
    return db.conn.execute(f"SELECT COUNT(*) FROM cases WHERE level = ? AND {condition}", (level,)).fetchone()[0]


def sample_cases(db: CaseDatabase, level: str, n: int, seed: int) -> SampleResult:
    """Draw a stratified sample of `n` cases of one court level (any accepted spelling: "usdc" is "district").

    Raises `BadInputError` (a ValueError) for an unknown level. The result's `level` is the canonical spelling.
    """
    level = canonical_level(level)
    condition, stratum_sql = LEVEL_FILTERS[level]
    rows = db.conn.execute(
        f"SELECT case_id, name, citation, court_id, year, state, {stratum_sql} AS stratum FROM cases"
        f" WHERE level = ? AND {condition} ORDER BY case_id",
        (level,),
    ).fetchall()
    by_stratum: dict[str, list[dict]] = {}
    for row in rows:
        by_stratum.setdefault(row["stratum"], []).append(dict(row))
    rng = random.Random(seed)
    sizes = {s: len(cases) for s, cases in by_stratum.items()}
    quotas = allocate(sizes, n, rng)
    equal_share = n // len(sizes) if sizes else 0
    result = SampleResult(level, n, seed, len(rows), len(sizes), equal_share)
    for stratum in sorted(by_stratum):
        result.rows.extend(rng.sample(by_stratum[stratum], quotas[stratum]))
        if sizes[stratum] < equal_share:
            result.short_strata[stratum] = (sizes[stratum], equal_share)
    return result
