"""`sample_cases` draws exactly what the straightforward draw over every eligible row draws.

`sample_cases` asks the database for stratum sizes, then the case ids of the strata it draws from, then the rows
of the drawn cases only. The reference below is the draw as it was written before that: every eligible row
(`CaseDatabase.eligible_cases`), grouped by stratum, `rng.sample` over each stratum's rows. Both must give the same
rows in the same order, and the same counts, for every level, seed, size, date window and required fact.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path

import pytest

from lexprobe.caselaw.paths import default_db_path
from lexprobe.caselaw.query import CaseDatabase, case_database_is_current
from lexprobe.caselaw.sampling import SampleResult, YearWindow, allocate, eligible_count, sample_cases


def reference_sample(
    db: CaseDatabase, level: str, n: int, seed: int, years: YearWindow = None, require: Sequence[str] = ()
) -> SampleResult:
    """The draw over every eligible row (the implementation `sample_cases` replaced), for a canonical level."""
    rows = db.eligible_cases(level, years, tuple(require))
    by_stratum: dict[str, list] = {}
    for row in rows:
        by_stratum.setdefault(row.stratum, []).append(row)
    rng = random.Random(seed)
    sizes = {s: len(cases) for s, cases in by_stratum.items()}
    quotas = allocate(sizes, n, rng)
    equal_share = n // len(sizes) if sizes else 0
    result = SampleResult(level, n, seed, len(rows), len(sizes), equal_share, years=years, require=tuple(require))
    for stratum in sorted(by_stratum):
        result.rows.extend(row.as_dict() for row in rng.sample(by_stratum[stratum], quotas[stratum]))
        if sizes[stratum] < equal_share:
            result.short_strata[stratum] = (sizes[stratum], equal_share)
    return result


CASES = [
    # (level, n, seed, years, require)
    ("scotus", 60, 47, (1794, 2015), ()),
    ("scotus", 60, 1, (1794, 2015), ()),
    ("scotus", 5, 3, None, ()),
    ("scotus", 400, 11, (1900, 1950), ("author",)),
    ("scotus", 100, 47, None, ("name", "author", "disposition")),
    ("scotus", 10**6, 2, (1990, 2000), ()),  # more than eligible: every case
    ("scotus", 1500, 5, None, ("opinion_text",)),  # most of the sample from most strata
    ("coa", 60, 47, (1895, 2019), ()),
    ("coa", 250, 9, None, ("court",)),
    ("coa", 10**6, 4, None, ()),
    ("district", 60, 47, (1932, 2019), ()),
    ("district", 30, 8, None, ("name",)),
    ("scotus", 50, 7, (3000, 3001), ()),  # no eligible case
]


def check_same_draws(path: Path) -> None:
    db = CaseDatabase(path)
    try:
        drawn = 0
        for level, n, seed, years, require in CASES:
            got = sample_cases(db, level, n, seed, years, require)
            want = reference_sample(db, level, n, seed, years, require)
            assert got == want, (level, n, seed, years, require)
            counted = db.eligible_count(level, years, require)  # the SQL count, not the summed strata
            assert eligible_count(db, level, years, require) == counted == want.eligible
            drawn += len(got.rows)
        assert drawn > 0  # the database had cases to draw
    finally:
        db.close()


def test_same_draw_as_every_row_draw(case_db_path: Path) -> None:
    check_same_draws(case_db_path)


@pytest.mark.parametrize("extra", [0, 600])  # 600 strata no case has: more than one IN list binds, so every row
def test_stratum_members_are_the_eligible_rows_of_each_stratum(case_db_path: Path, extra: int) -> None:
    db = CaseDatabase(case_db_path)
    try:
        # each level's strata end with the year, which the query also narrows by (through the level-year index)
        for level, years in (("scotus", None), ("coa", (1895, 2019)), ("district", None)):
            want: dict[str, list[str]] = {}
            for row in db.eligible_cases(level, years, ()):
                want.setdefault(row.stratum, []).append(row.case_id)
            assert want or level != "scotus"  # the test database has Supreme Court cases
            strata = sorted(want)[::2] + [f"none-{i}" for i in range(extra)]
            assert db.stratum_members(level, years, (), strata) == {s: want[s] for s in sorted(want)[::2]}
            assert sum(db.stratum_sizes(level, years, ()).values()) == db.eligible_count(level, years, ())
    finally:
        db.close()


#: The user's case database (read at collection, before the tests' cache folder is isolated), when built.
DEFAULT_DB = default_db_path()


def test_same_draw_on_the_default_database() -> None:
    path = DEFAULT_DB
    if not path.is_file():
        pytest.skip(f"no case database at {path}")
    if not case_database_is_current(path):
        pytest.skip(f"the case database at {path} was built by an older lexprobe (rebuild: lexprobe data build)")
    check_same_draws(path)
