"""Stratified case samples, as in the study: year strata for the Supreme Court, circuit-year strata for the
courts of appeals, state-year strata for the district courts (each level's filter is `query.LEVEL_FILTERS`), within
a window of decision years (`PAPER_YEARS`, `parse_year_windows`) and, for `--complete-cases`, only cases with every
required fact of `CASE_FACTS`. Every stratum gets an equal share of `n` (`allocate`), and the draw is reproducible:
strata and cases are ordered by id before a `random.Random(seed)` draws. The rules: docs/caselaw.md ("Sampling")
and docs/hallucination.md ("Samples: date windows, coverage and complete cases").
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from lexprobe.caselaw.courts import canonical_level
from lexprobe.caselaw.query import CaseDatabase
from lexprobe.errors import BadInputError

#: The study's date windows per level (inclusive decision years), from the headers of its Tables 3-7.
PAPER_YEARS: dict[str, tuple[int, int]] = {"scotus": (1794, 2015), "coa": (1895, 2019), "district": (1932, 2019)}

YearWindow = tuple[int, int] | None


@dataclass(frozen=True)
class CaseFact:
    """A fact a case may lack (its SQL condition is `query.FACT_CONDITIONS[name]`), and the reason a task drops a
    case without it. `shared` facts restrict a `--complete-cases` sample; a fact that only keeps a false premise
    false (never overruled) is not shared: the task drops those cases itself."""

    name: str
    missing: str
    shared: bool = True


#: Every fact a task may need of a sampled case, by name (the tasks' needs are in `hallucination/tasks/coverage.py`).
CASE_FACTS: dict[str, CaseFact] = {
    fact.name: fact
    for fact in (
        CaseFact("name", "no case name"),
        CaseFact("court", "no court"),
        CaseFact("author", "no majority author"),
        CaseFact("disposition", "no unambiguous disposition"),
        CaseFact("opinion_text", "no majority opinion text"),
        CaseFact("never_overruled", "overruled (the false premise would be true)", shared=False),
    )
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
    years: YearWindow = None  # the inclusive window of decision years, None = every year
    require: tuple[str, ...] = ()  # facts every drawn case has (`CASE_FACTS`)

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


def _known_facts(require: Sequence[str]) -> tuple[str, ...]:
    """Return `require` as a tuple; raises `BadInputError` for a name that is not one of `CASE_FACTS`."""
    for name in require:
        if name not in CASE_FACTS:
            raise BadInputError(f"unknown case fact {name!r}; known: {', '.join(CASE_FACTS)}")
    return tuple(require)


def eligible_count(db: CaseDatabase, level: str, years: YearWindow = None, require: Sequence[str] = ()) -> int:
    """Return how many cases of a court level (any accepted spelling) pass its filter, decided within `years` and
    having every `require`d fact, i.e. the most a sample can draw. Raises `BadInputError` (a ValueError) for an
    unknown level or fact."""
    # summed from the stratum sizes, which the database keeps: a sample of the same cases then scans them once less
    return sum(db.stratum_sizes(canonical_level(level), years, _known_facts(require)).values())


def sample_cases(
    db: CaseDatabase, level: str, n: int, seed: int, years: YearWindow = None, require: Sequence[str] = ()
) -> SampleResult:
    """Draw a stratified sample of `n` cases of one court level (any accepted spelling: "usdc" is "district"),
    decided within `years` (inclusive; None = every year) and having every fact named in `require`.

    Raises `BadInputError` (a ValueError) for an unknown level or fact. The result's `level` is the canonical
    spelling.
    """
    level = canonical_level(level)
    require = _known_facts(require)
    # The draw depends only on the stratum sizes and the seed: `rng.sample` picks positions in a stratum's cases
    # (ordered by case id), so the database is asked for the sizes, then for the case ids of the strata drawn
    # from, then for the rows of the drawn cases only (not a row object per eligible case).
    sizes = db.stratum_sizes(level, years, require)
    rng = random.Random(seed)
    quotas = allocate(sizes, n, rng)
    equal_share = n // len(sizes) if sizes else 0
    result = SampleResult(level, n, seed, sum(sizes.values()), len(sizes), equal_share, years=years, require=require)
    positions = {stratum: rng.sample(range(sizes[stratum]), quotas[stratum]) for stratum in sorted(sizes)}
    members = db.stratum_members(level, years, require, [s for s, drawn in positions.items() if drawn])
    drawn_ids = [members[stratum][i] for stratum, drawn in positions.items() for i in drawn]
    rows = db.sample_rows(level, drawn_ids)
    result.rows.extend(rows[case_id].as_dict() for case_id in drawn_ids)
    result.short_strata.update(
        (stratum, (size, equal_share)) for stratum, size in sorted(sizes.items()) if size < equal_share
    )
    return result


#: What one stratum is, per level, for the sample's summary line.
STRATUM_WORDS = {"scotus": "decision years", "coa": "circuit-year pairs", "district": "state-year pairs"}


def describe_allocation(result: SampleResult) -> str:
    """Say in words how `result`'s cases were spread over its strata: the equal share (the requested n divided by
    the strata, rounded down) and, when that is 0 because there are more strata than cases asked for, that
    randomly chosen strata gave one case each."""
    what = STRATUM_WORDS.get(result.level, "strata")
    strata = f"{result.strata:,} strata ({what})"
    if result.strata == 0:
        return "no strata"
    if result.equal_share == 0:
        return (
            f"{strata}: more strata than the {result.n_requested:,} cases asked for, so the equal share "
            f"({result.n_requested:,} / {result.strata:,}, rounded down) is 0 and {len(result.rows):,} strata chosen "
            "at random gave one case each"
        )
    return (
        f"{strata}, an equal share of {result.equal_share:,} each ({result.n_requested:,} / {result.strata:,}, "
        "rounded down; the rest went one each to random strata, and a stratum with fewer cases gave all it has)"
    )


Row = TypeVar("Row")


def _row_stratum(row: Any) -> str:
    """Return the stratum of a sample row (a `SampleResult.rows` mapping)."""
    return str(row["stratum"])


def subsample(rows: list[Row], n: int, seed: int, stratum: Callable[[Row], str] = _row_stratum) -> list[Row]:
    """Return a stratified subsample of `n` of a sample's rows (`stratum(row)` is a row's stratum: by default its
    `stratum` key), allocated as the sample was (`allocate`) and in the sample's order, so a task asked of fewer
    cases (the study's 100 cases for the reference-free tasks) asks a stratified part of the same sample. All rows
    when `n` is not smaller. The rows may be any objects (the hallucination tasks pass their typed cases)."""
    if n >= len(rows):
        return list(rows)
    by_stratum: dict[str, list[Row]] = {}
    for row in rows:
        by_stratum.setdefault(stratum(row), []).append(row)
    rng = random.Random(seed)
    quotas = allocate({s: len(cases) for s, cases in by_stratum.items()}, n, rng)
    chosen = {id(row) for s in sorted(by_stratum) for row in rng.sample(by_stratum[s], quotas[s])}
    return [row for row in rows if id(row) in chosen]


def case_facts(db: CaseDatabase, case_ids: Iterable[str], facts: Sequence[str]) -> dict[str, set[str]]:
    """Return, for each case id, which of the named `CASE_FACTS` the case has (one query per 500 cases)."""
    return db.case_facts(case_ids, _known_facts(facts))


def _year_range(text: str, where: str) -> YearWindow:
    """Parse "FROM-TO" (inclusive years) or "all" (no window)."""
    text = text.strip()
    if text.lower() in ("all", "any", "none"):
        return None
    start, dash, end = text.partition("-")
    if not dash or not start.strip().isdigit() or not end.strip().isdigit():
        raise BadInputError(f"bad year range {text!r} in {where}: write FROM-TO (e.g. 1794-2015) or 'all'")
    window = (int(start), int(end))
    if window[0] > window[1]:
        raise BadInputError(f"bad year range {text!r} in {where}: the first year is after the last")
    return window


def parse_year_windows(spec: str, levels: Sequence[str]) -> dict[str, YearWindow]:
    """Return the date window of each of `levels` from a `--years` value.

    `paper` (the default) is the study's windows (`PAPER_YEARS`); `all` is no window at any level; a comma list
    of LEVEL=FROM-TO (or LEVEL=all) sets those levels, any level spelling accepted, and the levels it does not name
    keep the study's window; a bare FROM-TO sets every level. Raises `BadInputError` on anything else.
    """
    windows: dict[str, YearWindow] = {level: PAPER_YEARS.get(level) for level in levels}
    text = spec.strip()
    if text.lower() == "paper":
        return windows
    if "=" not in text:
        window = _year_range(text, f"--years {spec!r}")
        return {level: window for level in levels}
    for part in filter(None, (p.strip() for p in text.split(","))):
        name, equals, value = part.partition("=")
        if not equals:
            raise BadInputError(f"bad --years part {part!r}: write LEVEL=FROM-TO, e.g. scotus=1794-2015")
        windows[canonical_level(name)] = _year_range(value, f"--years {part!r}")
    return {level: windows[level] for level in levels}  # a window for a level the run does not ask is unused


def window_text(window: YearWindow) -> str:
    """Return a window as "1794-2015", or "all years"."""
    return "all years" if window is None else f"{window[0]}-{window[1]}"
