"""The case database built from the real public data: counts, well-known cases, overruling links, lookups."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from lexprobe.caselaw.query import CaseDatabase, CaseDatabaseMissing
from lexprobe.caselaw.stored import CaseDetail


@pytest.fixture(scope="module")
def db(case_db_path: Path) -> Iterator[CaseDatabase]:
    database = CaseDatabase(case_db_path)
    yield database
    database.close()


def one(db: CaseDatabase, citation: str) -> CaseDetail:
    ids = db.find_by_citation(citation)
    assert len(ids) == 1, (citation, ids)
    info = db.case(ids[0])
    assert info is not None
    return info


def test_every_scdb_case_is_its_own_case(db: CaseDatabase) -> None:
    """Memorandum decisions printed on one U.S. Reports page stay separate cases: all 9,277 SCDB rows survive."""
    (count,) = db.conn.execute("SELECT COUNT(*) FROM cases WHERE sources LIKE '%scdb%'").fetchone()
    assert count == 9_277
    shared = db.find_by_citation("346 U.S. 906")
    assert len(shared) == 2


def test_fowler_reaches_back_to_the_eighteenth_century(db: CaseDatabase) -> None:
    (oldest,) = db.conn.execute("SELECT MIN(year) FROM cases WHERE level = 'scotus'").fetchone()
    assert oldest <= 1760
    (count,) = db.conn.execute("SELECT COUNT(*) FROM cases WHERE sources LIKE '%fowler%'").fetchone()
    assert count >= 30_000


def test_appeals_rows_are_kept_without_names(db: CaseDatabase) -> None:
    (count,) = db.conn.execute("SELECT COUNT(*) FROM cases WHERE sources LIKE '%songer%'").fetchone()
    assert count >= 2_100
    (levels,) = db.conn.execute("SELECT COUNT(DISTINCT court_id) FROM cases WHERE level = 'coa'").fetchone()
    assert levels >= 12


@pytest.mark.parametrize(
    ("citation", "name_part", "year"),
    [
        ("347 U.S. 483", "Brown", 1954),
        ("347 US 483", "Brown", 1954),
        ("74 S. Ct. 686", "Brown", 1954),
        ("163 U.S. 537", "Plessy", 1896),
        ("384 U.S. 436", "Miranda", 1966),
        ("410 U.S. 113", "Roe", 1973),
        ("5 U.S. 137", "Marbury", 1803),
        ("5 U.S. (1 Cranch) 137", "Marbury", 1803),
    ],
)
def test_well_known_cases_resolve_by_any_citation(db: CaseDatabase, citation: str, name_part: str, year: int) -> None:
    case = one(db, citation).case
    assert name_part.lower() in case.name.lower()
    assert case.year == year
    assert case.court_id == "scotus" and case.level == "scotus"


def test_authors_are_names_not_patterns(db: CaseDatabase) -> None:
    """justices.csv spells names as small patterns ("Harry ?(?:Andrew|A\\.)? Blackmun"): authors are expanded."""
    (patterns,) = db.conn.execute(
        "SELECT COUNT(*) FROM cases WHERE author LIKE '%?%' OR author LIKE '%(%' OR author LIKE '%|%'"
    ).fetchone()
    assert patterns == 0
    assert one(db, "410 U.S. 113").case.author == "Harry Andrew Blackmun"


def test_brown_facts_and_their_sources(db: CaseDatabase) -> None:
    info = one(db, "347 U.S. 483")
    case = info.case
    assert case.author == "Earl Warren"
    assert case.decision_date == "1954-05-17"
    sources = {entry.source for entry in info.facts["year"]}
    assert {"scdb", "fowler"} <= sources
    assert info.cites > 0 and info.cited_by > 0


def test_plessy_overruled_by_brown_in_1954(db: CaseDatabase) -> None:
    info = one(db, "163 U.S. 537")
    case = info.case
    assert case.overruled_year == 1954
    brown = db.find_by_citation("347 U.S. 483")[0]
    assert case.overruling_case_id == brown
    assert any(rule.overruling_year == 1954 for rule in info.overruled_by)


@pytest.mark.parametrize(
    ("overruled", "year", "overruling_name"),
    [("410 U.S. 113", 2022, "Dobbs"), ("467 U.S. 837", 2024, "Loper Bright")],
)
def test_slip_cite_overrulings_match_by_docket(
    db: CaseDatabase, overruled: str, year: int, overruling_name: str
) -> None:
    case = one(db, overruled).case
    assert case.overruled_year == year
    assert case.overruling_case_id is not None
    overruling = db.case(case.overruling_case_id).case
    assert overruling_name.lower() in overruling.name.lower()


def test_every_loc_overruled_case_is_recorded(db: CaseDatabase) -> None:
    (rows,) = db.conn.execute("SELECT COUNT(*) FROM overrulings WHERE source = 'loc'").fetchone()
    (linked,) = db.conn.execute(
        "SELECT COUNT(*) FROM overrulings WHERE source = 'loc' AND overruled_case_id IS NOT NULL"
    ).fetchone()
    assert rows == 292
    assert linked >= 288


def test_disposition_coarsening(db: CaseDatabase) -> None:
    assert one(db, "384 U.S. 436").case.disposition == "reverse"
    rows = dict(db.conn.execute("SELECT disposition_raw, COUNT(*) FROM cases WHERE disposition='affirm' GROUP BY 1"))
    assert set(rows) <= {"2", "1"}  # SCDB 2 = affirmed, Songer 1 = affirmed


def test_treatments_and_opinions_are_linked(db: CaseDatabase) -> None:
    (treatments,) = db.conn.execute("SELECT COUNT(*) FROM treatments").fetchone()
    assert treatments == 1_099
    (linked,) = db.conn.execute(
        "SELECT COUNT(*) FROM treatments WHERE citing_case_id IS NOT NULL AND cited_case_id IS NOT NULL"
    ).fetchone()
    assert linked >= 1_000
    (with_text,) = db.conn.execute("SELECT COUNT(*) FROM cases WHERE majority_opinion_id IS NOT NULL").fetchone()
    assert with_text >= 100


def test_coverage_and_counts(db: CaseDatabase) -> None:
    coverage = db.coverage()
    assert coverage["scotus"]["cases"] >= 30_000
    assert coverage["scotus"]["author"] >= 7_400  # SCDB names no majority writer for per curiam decisions
    assert coverage["scotus"]["overruling"] >= 250
    assert coverage["coa"]["disposition"] >= 1_500
    counts = db.table_counts()
    assert counts["citation_edges"] >= 200_000


@pytest.mark.parametrize(
    ("name", "citation"),
    [
        ("Plessy v. Ferguson", "163 U.S. 537"),
        ("plessy v ferguson", "163 U.S. 537"),
        ("Brown v. Board of Education", "347 U.S. 483"),  # not the 1952 order of the same name
        ("Marbury v. Madison", "5 U.S. 137"),
        ("Roe v. Wade", "410 U.S. 113"),
        ("United States v. Nixon", "418 U.S. 683"),
        ("Miranda v. Arizona", "384 U.S. 436"),
    ],
)
def test_find_by_name(db: CaseDatabase, name: str, citation: str) -> None:
    ids = db.find_by_name(name)
    assert ids and db.case(ids[0]).case.citation == citation


def test_display_names_prefer_normal_case(db: CaseDatabase) -> None:
    assert one(db, "347 U.S. 483").case.name == "Brown v. Board of Educ."


def test_missing_database_names_the_fix(tmp_path: Path) -> None:
    with pytest.raises(CaseDatabaseMissing, match="lexprobe data build"):
        CaseDatabase(tmp_path / "nope.sqlite")


def test_database_is_a_valid_sqlite_file(case_db_path: Path) -> None:
    conn = sqlite3.connect(case_db_path)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    conn.close()


def test_records_as_dict_is_dataclasses_asdict(db: CaseDatabase) -> None:
    # `as_dict` skips asdict's deep-copy walk for records of plain columns: the dict must be the same, and records
    # holding other records or tuples (a case's detail) still go through asdict
    import dataclasses

    ids = [row[0] for row in db.conn.execute("SELECT case_id FROM cases ORDER BY case_id LIMIT 400")]
    ids += db.find_by_citation("347 U.S. 483") + db.find_by_citation("163 U.S. 537")
    for case_id in ids:
        case = db.get_case(case_id)
        assert case is not None
        assert case.as_dict() == dataclasses.asdict(case)
        assert [type(v) for v in case.as_dict().values()] == [type(v) for v in dataclasses.asdict(case).values()]
    detail = db.case(db.find_by_citation("347 U.S. 483")[0])
    assert detail is not None and detail.citations  # nested records and tuples
    assert detail.as_dict() == dataclasses.asdict(detail)
    rows = db.sample_rows("scotus", ids)
    assert rows and all(row.as_dict() == dataclasses.asdict(row) for row in rows.values())
