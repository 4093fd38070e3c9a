"""Fabricated cases for the fake_existence task: plausible, distinct, reproducible, and real by no name or citation."""

from __future__ import annotations

import re
import statistics
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import pytest

from lexprobe.caselaw.case_names import normalize_case_name
from lexprobe.caselaw.citations import citation_key, parse_citation
from lexprobe.caselaw.query import CaseDatabase
from lexprobe.hallucination.tasks.fabricate import VOLUME_YEARS, FabricatedCase, fabricate_cases, is_real

KEY_SHAPE = re.compile(r"(\d+) (.+) \d+")
NAME_SHAPE = re.compile(r"[A-Z][^,()]* v\. [A-Z][^,()]*")
REPORTER_YEARS = {"F.2d": (1924, 1993), "F.3d": (1993, 2021), "F. Supp.": (1932, 1998), "F. Supp. 2d": (1998, 2014)}


@pytest.fixture(scope="module")
def db(case_db_path: Path) -> Iterator[CaseDatabase]:
    """Open the real case database once for this module."""
    handle = CaseDatabase(case_db_path)
    yield handle
    handle.close()


@pytest.fixture(scope="module")
def scotus_cases(db: CaseDatabase) -> list[FabricatedCase]:
    """Fabricate 200 Supreme Court cases."""
    return fabricate_cases(db, "scotus", 200, seed=7)


@pytest.fixture(scope="module")
def real_names(db: CaseDatabase) -> set[str]:
    """Return every case name in the database, normalized, read straight from its tables."""
    rows = db.conn.execute(
        "SELECT name FROM cases WHERE name IS NOT NULL UNION SELECT value FROM facts WHERE field = 'name'"
        " UNION SELECT overruled_name FROM overrulings UNION SELECT overruling_name FROM overrulings"
    )
    return {normalize_case_name(row[0]) for row in rows}


def assert_fabricated(db: CaseDatabase, cases: list[FabricatedCase], real_names: set[str]) -> None:
    """Check that the cases are distinct, shaped like "X v. Y", and match no real name or citation."""
    assert len({normalize_case_name(case.name) for case in cases}) == len(cases)
    assert len({citation_key(case.citation) for case in cases}) == len(cases)
    for case in cases:
        assert NAME_SHAPE.fullmatch(case.name), case
        assert case.name.count(" v. ") == 1, case
        assert normalize_case_name(case.name) not in real_names, case
        assert db.find_by_citation(case.citation) == [], case
        assert not is_real(db, case.name, case.citation), case


@pytest.fixture(scope="module")
def volume_years(db: CaseDatabase) -> dict[tuple[str, str, str], list[int]]:
    """Return (level, volume, reporter) -> the years of the level's real cases cited in that volume."""
    found: dict[tuple[str, str, str], list[int]] = defaultdict(list)
    rows = db.conn.execute(
        "SELECT c.level, cc.citation_key, c.year FROM cases c JOIN case_citations cc ON cc.case_id = c.case_id"
        " WHERE c.year IS NOT NULL"
    )
    for level, key, year in rows:
        match = KEY_SHAPE.fullmatch(key)
        if match:
            found[(level, match.group(1), match.group(2))].append(year)
    return found


def years_of_volume(volume_years: dict[tuple[str, str, str], list[int]], case: FabricatedCase) -> list[int]:
    """Return the years of the real cases of the fabricated case's level in the fabricated citation's volume."""
    citation = parse_citation(case.citation)
    assert citation is not None
    return volume_years.get((case.level, citation.volume, citation.reporter), [])


def test_scotus_cases_are_distinct_plausible_and_not_real(
    db: CaseDatabase, scotus_cases: list[FabricatedCase], real_names: set[str]
) -> None:
    assert len(scotus_cases) == 200
    assert_fabricated(db, scotus_cases, real_names)
    for case in scotus_cases:
        citation = parse_citation(case.citation)
        assert citation is not None and citation.reporter == "U.S.", case
        assert (case.level, case.court_id) == ("scotus", "scotus")


def test_scotus_years_fit_their_volumes(
    scotus_cases: list[FabricatedCase], volume_years: dict[tuple[str, str, str], list[int]]
) -> None:
    for case in scotus_cases:
        years = years_of_volume(volume_years, case)
        assert years, case
        assert min(years) - 3 <= case.year <= max(years) + 3, (case, sorted(years))
        assert abs(case.year - statistics.median_low(years)) <= 3, (case, sorted(years))


def test_fabrication_is_reproducible_by_seed(db: CaseDatabase, scotus_cases: list[FabricatedCase]) -> None:
    assert fabricate_cases(db, "scotus", 200, seed=7) == scotus_cases
    assert fabricate_cases(db, "scotus", 50, seed=7) == scotus_cases[:50]
    other = fabricate_cases(db, "scotus", 200, seed=8)
    assert len({case.citation for case in other} & {case.citation for case in scotus_cases}) < 20
    assert len({case.name for case in other} & {case.name for case in scotus_cases}) < 20


def test_coa_cases_use_federal_reporter(
    db: CaseDatabase, real_names: set[str], volume_years: dict[tuple[str, str, str], list[int]]
) -> None:
    cases = fabricate_cases(db, "coa", 60, seed=1)
    assert len(cases) == 60
    assert_fabricated(db, cases, real_names)
    for case in cases:
        citation = parse_citation(case.citation)
        assert citation is not None and citation.reporter in {"F.2d", "F.3d"}, case
        first, last = REPORTER_YEARS[citation.reporter]
        assert first <= case.year <= last, case
        years = years_of_volume(volume_years, case)
        if years:  # a real volume: its year is the volume's
            assert abs(case.year - statistics.median_low(years)) <= 3, (case, sorted(years))


def test_district_cases_use_federal_supplement(db: CaseDatabase, real_names: set[str]) -> None:
    cases = fabricate_cases(db, "district", 60, seed=1)
    assert len(cases) == 60
    assert_fabricated(db, cases, real_names)
    for case in cases:
        citation = parse_citation(case.citation)
        assert citation is not None and citation.reporter in {"F. Supp.", "F. Supp. 2d"}, case
        first, last = REPORTER_YEARS[citation.reporter]
        assert first <= case.year <= last, case
        assert 1 <= int(citation.volume) <= 999, case


def test_is_real_recognizes_real_names_and_citations(db: CaseDatabase) -> None:
    name, citation = db.conn.execute(
        "SELECT name, citation FROM cases WHERE level = 'scotus' AND name LIKE '% v. %' AND citation LIKE '% U.S. %'"
        " ORDER BY case_id LIMIT 1"
    ).fetchone()
    assert is_real(db, name, "999 F. Supp. 9999")
    assert is_real(db, name.upper() + " et al.", "")
    assert is_real(db, "Nobody v. Nothing Whatsoever", citation)
    assert not is_real(db, "Nobody v. Nothing Whatsoever", "999 F. Supp. 9999")


def test_unknown_level_raises(db: CaseDatabase) -> None:
    with pytest.raises(ValueError, match="unknown court level"):
        fabricate_cases(db, "state", 5, seed=0)


def test_documented_volume_years_cover_each_reporter() -> None:
    for reporter, anchors in VOLUME_YEARS.items():
        volumes = [volume for volume, _ in anchors]
        years = [year for _, year in anchors]
        assert volumes[0] == 1 and volumes[-1] == 999 and volumes == sorted(set(volumes)), reporter
        assert years == sorted(years) and (years[0], years[-1]) == REPORTER_YEARS[reporter], reporter
