"""SCDB and Fowler loaders on the real public data, plus malformed fixtures that must become RowIssues."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from lexprobe.caselaw.paths import data_root
from lexprobe.caselaw.records import CaseRecord, LoadResult
from lexprobe.caselaw.sources import fowler, scdb

SCDB_FILE = "scdb/SCDB_2024_01_caseCentered_Citation.csv.gz"


@pytest.fixture(scope="module")
def scdb_result() -> LoadResult:
    return scdb.load(data_root() / SCDB_FILE)


@pytest.fixture(scope="module")
def fowler_result() -> LoadResult:
    return fowler.load(data_root() / "network/fowler_judicial.csv.gz")


@pytest.fixture(scope="module")
def fowler_edges() -> LoadResult:
    return fowler.load_edges(data_root() / "network/fowler_allcites.txt.gz")


def by_citation(result: LoadResult, citation: str) -> CaseRecord:
    matches = [case for case in result.cases if citation in case.citations]
    assert len(matches) == 1, f"{citation}: {len(matches)} cases"
    return matches[0]


# --- SCDB, real data ---------------------------------------------------------------------------------------------


def test_scdb_counts(scdb_result: LoadResult) -> None:
    assert scdb_result.rows_read == 9277
    assert len(scdb_result.cases) == 9277
    assert scdb_result.issues == []
    assert len({case.source_id for case in scdb_result.cases}) == 9277


def test_scdb_brown(scdb_result: LoadResult) -> None:
    brown = by_citation(scdb_result, "347 U.S. 483")
    assert brown.source == "scdb" and brown.source_id == "1953-069" and brown.court_id == "scotus"
    assert brown.name == "BROWN et al. v. BOARD OF EDUCATION OF TOPEKA et al."  # kept as given
    assert brown.decision_date == "1954-05-17" and brown.year == 1954 and brown.term == 1953
    assert brown.author == "Earl Warren"
    assert brown.precedent_alteration is True
    assert (brown.majority_votes, brown.minority_votes) == (9, 0)
    # "98 L. Ed. 2d 873" in the file is the first series: corrected, the printed form kept
    assert brown.citations == ("347 U.S. 483", "74 S. Ct. 686", "98 L. Ed. 873", "1954 U.S. LEXIS 2094")
    assert ("ledCite_raw", "98 L. Ed. 2d 873") in brown.extra


def test_scdb_miranda_reverse(scdb_result: LoadResult) -> None:
    miranda = by_citation(scdb_result, "384 U.S. 436")
    assert miranda.disposition == "reverse" and miranda.disposition_raw == "3"
    assert miranda.decision_date == "1966-06-13"
    assert (miranda.majority_votes, miranda.minority_votes) == (5, 4)


def test_scdb_disposition_mapping(scdb_result: LoadResult) -> None:
    expected = {"2": "affirm", "3": "reverse", "4": "reverse", "5": "reverse", "8": "reverse"}
    seen = set()
    for case in scdb_result.cases:
        assert case.disposition == expected.get(case.disposition_raw or "")
        seen.add(case.disposition_raw)
    assert {"1", "2", "3", "4", "5", "6", "7", "9", None} <= seen


def test_scdb_quirks(scdb_result: LoadResult) -> None:
    cases = {case.source_id: case for case in scdb_result.cases}
    assert cases["2010-085"].docket == "11-5001"  # en dash in the file
    assert cases["2023-058"].name == "DEPARTMENT OF STATE v. MUñOZ"  # UTF-8, kept as given
    assert cases["2021-019"].name == "DOBBS v. JACKSON WOMEN’S HEALTH ORGANIZATION"
    no_us = [case for case in scdb_result.cases if not any(" U.S. " in c and "LEXIS" not in c for c in case.citations)]
    assert len(no_us) == 440
    assert sum(case.author is None for case in scdb_result.cases) == 1755  # unsigned: no majOpinWriter
    second_series = [c for case in scdb_result.cases for c in case.citations if "L. Ed. 2d" in c and case.term < 1956]
    assert second_series == []


# --- SCDB, malformed fixtures ------------------------------------------------------------------------------------

SCDB_HEADER = (
    "caseId,usCite,sctCite,ledCite,lexisCite,dateDecision,term,docket,caseName,caseDisposition,partyWinning,"
    "precedentAlteration,issueArea,majOpinWriter,majVotes,minVotes\n"
)


def test_scdb_bad_rows_become_issues(tmp_path: Path) -> None:
    justices = tmp_path / "justices.csv"
    justices.write_text("scdb_id,name\n90,Earl Warren\n")
    path = tmp_path / "scdb.csv.gz"
    body = (
        SCDB_HEADER
        + '"1953-069","347 U.S. 483",,,,5/17/1954,1953,"1","BROWN v. BOARD",1,1,1,2,90,9,0\n'
        + '"1999-001","1 U.S. 1",,,,13/45/1999,1999,"2","BAD DATE",2,1,0,1,90,9,0\n'
        + '"1999-002","1 U.S. 2",,,,1/2/1999\n'
        + '"1999-003","1 U.S. 3",,,,1/2/1999,1999,"3","BAD VOTES",2,1,0,1,90,nine,0\n'
        + ',"1 U.S. 4",,,,1/2/1999,1999,"4","NO ID",2,1,0,1,90,9,0\n'
        + '"1999-005","1 U.S. 5",,,,1/2/1999,1999,"5","UNKNOWN WRITER, LATIN-1 é",8,,,,77,6,3\n'
    )
    path.write_bytes(gzip.compress(body.encode("cp1252")))  # not UTF-8: the loader must fall back
    result = scdb.load(path, justices=justices)
    assert result.rows_read == 6
    assert [case.source_id for case in result.cases] == ["1953-069", "1999-005"]
    assert [issue.location for issue in result.issues] == [f"{path}:{line}" for line in (3, 4, 5, 6)]
    assert "dateDecision" in result.issues[0].message
    assert "fields" in result.issues[1].message
    assert "majVotes" in result.issues[2].message
    assert "caseId" in result.issues[3].message
    ok = result.cases[1]
    assert ok.name == "UNKNOWN WRITER, LATIN-1 é" and ok.author is None and ok.disposition == "reverse"
    assert ok.party_winning is None and ok.precedent_alteration is None
    assert result.cases[0].author == "Earl Warren"


def test_scdb_missing_justices_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "scdb.csv"
    path.write_text(SCDB_HEADER + '"1953-069","347 U.S. 483",,,,5/17/1954,1953,"1","BROWN",1,1,1,2,90,9,0\n')
    result = scdb.load(path)
    assert len(result.cases) == 1 and result.cases[0].author is None
    assert len(result.issues) == 1 and "justices" in result.issues[0].message


def test_scdb_wrong_file_raises(tmp_path: Path) -> None:
    path = tmp_path / "other.csv"
    path.write_text("a,b\n1,2\n")
    with pytest.raises(ValueError, match="missing columns"):
        scdb.load(path)


# --- Fowler, real data -------------------------------------------------------------------------------------------


def test_fowler_counts(fowler_result: LoadResult, fowler_edges: LoadResult) -> None:
    assert fowler_result.rows_read == 30288 and len(fowler_result.cases) == 30288
    assert fowler_result.issues == []
    assert fowler_edges.rows_read == 216738 and len(fowler_edges.edges) == 216738
    assert fowler_edges.issues == []


def test_fowler_plessy_and_brown(fowler_result: LoadResult) -> None:
    plessy = by_citation(fowler_result, "163 U.S. 537")
    assert plessy.source_id == "10322" and plessy.name == "Plessy v. Ferguson" and plessy.year == 1896
    assert plessy.court_id == "scotus"
    facts = dict(plessy.extra)
    assert facts["overruled_by"] == "fowler:21109" and facts["indeg"] == "64" and facts["outdeg"] == "13"
    brown = by_citation(fowler_result, "347 U.S. 483")
    assert brown.source_id == "21109"
    assert dict(brown.extra)["overrules"] == "fowler:10322 fowler:10962 fowler:17040"
    assert brown.authority_score == pytest.approx(0.07309142) and brown.hub_score == pytest.approx(0.00420793)
    assert 99 < brown.prominence <= 100


def test_fowler_prominence_is_a_percentile(fowler_result: LoadResult) -> None:
    scores = [case.prominence for case in fowler_result.cases]
    assert all(0 < score < 100 for score in scores)
    assert sum(scores) / len(scores) == pytest.approx(
        50, abs=1e-3
    )  # mid-rank percentiles average to 50 (rounded to 4 places)
    uncited = {case.prominence for case in fowler_result.cases if case.authority_score == 0}
    assert len(uncited) == 1  # ties share one value
    top = max(fowler_result.cases, key=lambda case: case.authority_score or 0)
    assert top.prominence == max(scores)


def test_fowler_overruled_columns(fowler_result: LoadResult) -> None:
    overruled = [case for case in fowler_result.cases if "overruled_by" in dict(case.extra)]
    overruling = [case for case in fowler_result.cases if "overrules" in dict(case.extra)]
    assert (len(overruled), len(overruling)) == (252, 191)
    assert sum(len(dict(case.extra)["overrules"].split()) for case in overruling) == 256


def test_fowler_edges_name_fowler_ids(fowler_result: LoadResult, fowler_edges: LoadResult) -> None:
    ids = {f"fowler:{case.source_id}" for case in fowler_result.cases}
    first = fowler_edges.edges[0]
    assert (first.source, first.citing, first.cited) == ("fowler", "fowler:388", "fowler:332")
    assert all(edge.citing in ids and edge.cited in ids for edge in fowler_edges.edges)


# --- Fowler, malformed fixtures ----------------------------------------------------------------------------------

FOWLER_HEADER = "caseid,usid,parties,year,overruled,overruling,oxford,liihc,indeg,outdeg,hub,hubrank,auth,authrank\n"


def test_fowler_bad_rows_become_issues(tmp_path: Path) -> None:
    path = tmp_path / "judicial.csv"
    path.write_text(
        FOWLER_HEADER
        + "1,1US1,,1754,0,0,0,0,0,0,0,20,0,20\n"
        + "2,1 U.S. 2,Bad Usid,1759,0,0,0,0,0,0,0,20,0,20\n"
        + "3,1US3,Short Row,1760\n"
        + "4,1US4,Bad Year,17x0,0,0,0,0,0,0,0,20,0,20\n"
        + "5,2US5,Bad Auth,1761,0,0,0,0,0,0,0,20,high,20\n"
        + '6,2US6,"Doe v. Roe, Inc.",1790,0,1 7,0,1,3,0,0.5,1,0.25,2\n'
        + "7,2US7,Roe v. Doe,1791,6,0,0,0,2,1,0,20,0.5,1\n"
        + "8,2US8,Bad Overruled,1792,x,0,0,0,0,0,0,20,0,20\n"
    )
    result = fowler.load(path)
    assert result.rows_read == 8
    assert [case.source_id for case in result.cases] == ["1", "6", "7"]
    assert [issue.location for issue in result.issues] == [f"{path}:{line}" for line in (3, 4, 5, 6, 9)]
    first, doe, roe = result.cases
    assert first.name is None and first.citations == ("1 U.S. 1",)
    assert doe.name == "Doe v. Roe, Inc." and dict(doe.extra)["overrules"] == "fowler:1 fowler:7"
    assert dict(roe.extra)["overruled_by"] == "fowler:6"
    # auth 0, 0.25, 0.5 → mid-rank percentiles 100*(0+0.5)/3, 100*(1+0.5)/3, 100*(2+0.5)/3
    assert [case.prominence for case in result.cases] == [pytest.approx(16.6667), 50.0, pytest.approx(83.3333)]


def test_fowler_bad_edges_become_issues(tmp_path: Path) -> None:
    path = tmp_path / "allcites.txt.gz"
    path.write_bytes(gzip.compress(b"1 2\n3\n\n4 five\n6 7 8\n9 10\n"))
    result = fowler.load_edges(path)
    assert result.rows_read == 6
    assert [(edge.citing, edge.cited) for edge in result.edges] == [("fowler:1", "fowler:2"), ("fowler:9", "fowler:10")]
    assert [issue.location for issue in result.issues] == [f"{path}:{line}" for line in (2, 3, 4, 5)]


def test_percentiles_average_ties() -> None:
    assert fowler.percentiles([0.0, 0.0, 1.0, 2.0]) == [25.0, 25.0, 62.5, 87.5]
    assert fowler.percentiles([]) == []
