"""LoC overruled-decisions and Songer loaders on the real public data, plus malformed fixtures."""

from __future__ import annotations

import gzip
import shutil
from collections import Counter
from pathlib import Path

import pytest

from lexprobe.caselaw.paths import data_root
from lexprobe.caselaw.records import CaseRecord, LoadResult, OverrulingRecord
from lexprobe.caselaw.sources import loc_overruled, songer


@pytest.fixture(scope="module")
def loc_2025() -> LoadResult:
    return loc_overruled.load(data_root() / "overruled/loc_overruled_2025.csv")


@pytest.fixture(scope="module")
def loc_2022() -> LoadResult:
    return loc_overruled.load(data_root() / "overruled/loc_overruled_2022.csv")


@pytest.fixture(scope="module")
def songer_result() -> LoadResult:
    return songer.load(data_root() / "coa/cta02.csv.gz")


def overruled(result: LoadResult, citation: str) -> list[OverrulingRecord]:
    return [record for record in result.overrulings if record.overruled_citation == citation]


def by_citation(result: LoadResult, citation: str) -> CaseRecord:
    matches = [case for case in result.cases if citation in case.citations]
    assert len(matches) == 1, f"{citation}: {len(matches)} cases"
    return matches[0]


# --- LoC, real data ----------------------------------------------------------------------------------------------


def test_loc_counts(loc_2025: LoadResult, loc_2022: LoadResult) -> None:
    assert (loc_2025.rows_read, len(loc_2025.overrulings), loc_2025.issues) == (236, 292, [])
    assert (loc_2022.rows_read, len(loc_2022.overrulings), loc_2022.issues) == (233, 288, [])


def test_loc_editions_differ_by_three_recent_rows(loc_2025: LoadResult, loc_2022: LoadResult) -> None:
    def pairs(result: LoadResult) -> set[tuple]:
        return {(r.overruled_citation, r.overruling_citation or r.overruling_docket) for r in result.overrulings}

    assert pairs(loc_2022) < pairs(loc_2025)
    assert pairs(loc_2025) - pairs(loc_2022) == {
        ("467 U.S. 837", "22-451"),  # Chevron by Loper Bright
        ("505 U.S. 833", "19-1391"),  # Casey by Dobbs
        ("410 U.S. 113", "19-1391"),  # Roe by Dobbs
        ("489 U.S. 288", "19-5807"),  # Teague by Edwards v. Vannoy
    }


def test_loc_roe_by_dobbs(loc_2025: LoadResult) -> None:
    (roe,) = overruled(loc_2025, "410 U.S. 113")
    assert roe.overruled_name == "Roe v. Wade" and roe.overruled_year == 1973
    assert roe.overruling_name == "Dobbs v. Jackson Women’s Health Organization"
    assert (roe.overruling_docket, roe.overruling_citation, roe.overruling_year) == ("19-1391", None, 2022)
    assert roe.location.endswith("loc_overruled_2025.csv:3") and not roe.in_part
    (casey,) = overruled(loc_2025, "505 U.S. 833")  # "Casey,505 U.S. 833 (1992)": no space after the comma
    assert casey.overruled_name == "Planned Parenthood of Southeastern Pennsylvania v. Casey"
    assert casey.overruled_year == 1992  # each year from its own case, not from "19921973"


def test_loc_chevron_by_loper_bright(loc_2025: LoadResult) -> None:
    (chevron,) = overruled(loc_2025, "467 U.S. 837")
    assert chevron.overruled_name == "Chevron U.S.A., Inc. v. Natural Resources Defense Council, Inc."
    assert chevron.overruling_name == "Loper Bright Enterprises v. Raimondo"
    assert (chevron.overruling_docket, chevron.overruling_citation, chevron.overruling_year) == ("22-451", None, 2024)


def test_loc_plessy(loc_2025: LoadResult) -> None:
    # The LoC table does not list Brown v. Board (347 U.S. 483) as overruling Plessy: only Bob Jones (1983) does.
    (plessy,) = overruled(loc_2025, "163 U.S. 537")
    assert plessy.overruled_name == "Plessy v. Ferguson" and plessy.overruled_year == 1896
    assert plessy.overruling_name == "Bob Jones University v. United States"
    assert (plessy.overruling_citation, plessy.overruling_year) == ("461 U.S. 574", 1983)
    assert all(record.overruling_citation != "347 U.S. 483" for record in loc_2025.overrulings)


def test_loc_in_part_and_qualifiers(loc_2025: LoadResult) -> None:
    (teague,) = overruled(loc_2025, "489 U.S. 288")
    assert teague.in_part and teague.note is None and teague.overruling_docket == "19-5807"
    (mapp_wolf,) = overruled(loc_2025, "338 U.S. 25")
    assert mapp_wolf.overruled_name == "Wolf v. Colorado" and mapp_wolf.in_part
    assert mapp_wolf.overruling_citation == "367 U.S. 643"
    (apodaca,) = overruled(loc_2025, "406 U.S. 404")
    assert apodaca.note == "(plurality opinion)" and not apodaca.in_part
    (johnson,) = overruled(loc_2025, "406 U.S. 366")
    assert johnson.note == "(Powell, J., concurring)"
    race_horse = {r.overruling_name: r for r in overruled(loc_2025, "163 U.S. 504")}
    assert race_horse["Minnesota v. Mille Lacs Band of Chippewa Indians"].in_part
    assert not race_horse["Herrera v. Wyoming"].in_part
    (opelika,) = [r for r in overruled(loc_2025, "316 U.S. 584") if r.overruling_citation == "319 U.S. 103"]
    assert opelika.note == "overruling: (re-argument)"
    assert sum(record.in_part for record in loc_2025.overrulings) == 36


def test_loc_odd_strings(loc_2025: LoadResult, loc_2022: LoadResult) -> None:
    (gouled,) = overruled(loc_2025, "255 U.S. 298")  # "255 U.S. 298 1921 (1921)"
    assert gouled.overruled_year == 1921
    (orchard,) = overruled(loc_2025, "68 U.S. 73")  # "68 U.S. (1 Wall.) 73, 77 (1864)"
    assert orchard.overruled_name == "Orchard v. Hughes" and orchard.overruled_year == 1864
    (plamals,) = overruled(loc_2025, "277 U.S. 151")
    assert plamals.overruled_name == "Plamals v. Steamship “Pinar Del Rio”" and plamals.in_part
    (coppage,) = overruled(loc_2022, "236 U.S. 1")  # "Coppage v. Kansas 236 U.S. 1 (1915)": no comma
    assert coppage.overruled_name == "Coppage v. Kansas" and coppage.overruled_year == 1915
    (korematsu,) = overruled(loc_2022, "323 U.S. 214")  # "(U.S. June 26,2018)"
    assert (korematsu.overruling_docket, korematsu.overruling_year) == ("17-965", 2018)
    (marchetti_lewis,) = overruled(loc_2022, "348 U.S. 419")  # the year column says 1967; the case says 1968
    assert marchetti_lewis.overruling_year == 1968


# --- LoC, malformed fixture ----------------------------------------------------------------------------------------

LOC_HEADER = (
    '"Order","Overruling Decision","Year of Overruling Decision","Overruled Decision(s)",'
    '"Year(s) of Overruled Decision(s)"\n'
)


def test_loc_bad_fragments_become_issues(tmp_path: Path) -> None:
    path = tmp_path / "loc.csv"
    path.write_text(
        LOC_HEADER
        + '"1","Good v. Case,\u00a0100 U.S. 1\u00a0 (1900) (in part)","1900",'
        + '"First v. Old,50 U.S. (9 How.) 2 (1850) (per curiam);Garbled fragment;Second v. Old, 51 U.S. 3 (1851);",'
        + '"18501851"\n'
        + '"2","no citation at all","1901","Third v. Old, 52 U.S. 4 (1852)","1852"\n'
        + '"3","Slip v. Cite, No. 21–7 (U.S. Jan. 5, 2023)","2023","",""\n'
        + '"4","Slip v. Cite, No. 21-8 (U.S. undated)","","Fourth v. Old, 53 U.S. 5 (1853)",""\n'
        + '"5","Slip v. Cite, No. 21-9 (U.S. undated)","2024","Fifth v. Old, 54 U.S. 6","1854"\n',
        encoding="utf-8",
    )
    result = loc_overruled.load(path)
    assert result.rows_read == 5
    first, second = result.overrulings
    assert (first.overruled_name, first.overruled_citation, first.overruled_year) == ("First v. Old", "50 U.S. 2", 1850)
    assert first.note == "(per curiam)" and first.in_part  # "(in part)" on the overruling decision
    assert (first.overruling_name, first.overruling_citation, first.overruling_year) == (
        "Good v. Case",
        "100 U.S. 1",
        1900,
    )
    assert second.overruled_name == "Second v. Old" and second.location == f"{path}:2"
    issues = [(issue.location, issue.message.split(":")[0]) for issue in result.issues]
    assert issues == [
        (f"{path}:2", "overruled decision unreadable"),
        (f"{path}:3", "overruling decision unreadable"),
        (f"{path}:4", "no overruled decision"),
        (f"{path}:5", "no year for overruling decision 'Slip v. Cite'"),
        (f"{path}:6", "overruled decision unreadable"),
    ]


def test_loc_parse_case_handles_curly_quotes_and_spacing() -> None:
    ref = loc_overruled.parse_case(
        "  A Book Named “John Cleland’s Memoirs”  v.\u2009Attorney General,383 U.S.  413 (1966) "
    )
    assert ref is not None
    assert ref.name == "A Book Named “John Cleland’s Memoirs” v. Attorney General"
    assert (ref.citation, ref.year, ref.qualifiers) == ("383 U.S. 413", 1966, ())
    assert loc_overruled.parse_case("Name only (1999)") is None


# --- Songer, real data -----------------------------------------------------------------------------------------------


def test_songer_counts(songer_result: LoadResult) -> None:
    assert songer_result.rows_read == 2160 and len(songer_result.cases) == 2160
    assert songer_result.issues == []
    assert len({case.source_id for case in songer_result.cases}) == 2160  # repeated casenums disambiguated
    courts = Counter(case.court_id for case in songer_result.cases)
    assert courts == {**{f"ca{n}": 180 for n in range(1, 12)}, "cadc": 180}
    assert {case.year for case in songer_result.cases} == set(range(1997, 2003))


def test_songer_first_case(songer_result: LoadResult) -> None:
    case = by_citation(songer_result, "124 F.3d 243")
    assert (case.source, case.source_id, case.court_id, case.circuit) == ("songer", "20001", "ca1", "1")
    assert case.name is None
    assert (case.decision_date, case.year, case.docket) == ("1997-08-18", 1997, "97-1065")
    assert (case.disposition, case.disposition_raw) == ("affirm", "1")
    assert case.state == "PR" and ("state_code", "52") in case.extra
    assert case.author == "Conrad F. Cyr"


def test_songer_known_authors(songer_result: LoadResult) -> None:
    emerson = by_citation(songer_result, "270 F.3d 203")  # United States v. Emerson (5th Cir. 2001)
    assert emerson.author == "William Lockhart Garwood" and emerson.disposition == "reverse"
    microsoft = by_citation(songer_result, "253 F.3d 34")  # United States v. Microsoft, per curiam
    assert microsoft.court_id == "cadc" and microsoft.author is None
    assert ("opinionstatus", "2") in microsoft.extra and ("j1", "1212") in microsoft.extra
    designated = by_citation(songer_result, "123 F.3d 10")  # a district judge sitting by designation
    assert designated.author == "Robert E. Keeton"
    assert sum(case.author is not None for case in songer_result.cases) == 1682
    assert all(dict(case.extra).get("j1") != "570" or case.author is None for case in songer_result.cases)


def test_songer_disposition_mapping(songer_result: LoadResult) -> None:
    expected = {"1": "affirm", "2": "reverse", "3": "reverse", "4": "reverse", "7": "reverse"}
    for case in songer_result.cases:
        assert case.disposition == expected.get(case.disposition_raw or "")
    counts = Counter(case.disposition for case in songer_result.cases)
    assert counts == {"affirm": 1115, "reverse": 538, None: 507}


def test_songer_dates_and_states(songer_result: LoadResult) -> None:
    rejected = {
        case.source_id: dict(case.extra)["decisiondate_raw"]
        for case in songer_result.cases
        if case.decision_date is None
    }
    assert rejected == {"20256": "08/19/87", "20800": "04/01/09", "20908": "10/04/06", "21483": "06/06/05"}
    four_digit = [case for case in songer_result.cases if case.source_id == "21006-L1007"]
    assert four_digit[0].decision_date == "1999-08-12"  # "8/12/1999"
    dc = [case for case in songer_result.cases if case.court_id == "cadc"]
    assert {case.state for case in dc} == {"DC", None}
    assert Counter(case.state for case in songer_result.cases)["NY"] == 142


# --- Songer, malformed fixture -------------------------------------------------------------------------------------

SONGER_HEADER = (
    "casenum,year,citevol,beginpage,decisiondate,docketnum,treatment,circuit,state,district,opinionstatus,j1\n"
)


def test_songer_bad_rows_become_issues(tmp_path: Path) -> None:
    path = tmp_path / "cta.csv.gz"
    rows = (
        "1,1998,150,10,03/04/98,97-1,1,0,53,0,1,1212\n"  # ok: D.C. Circuit, Harry T. Edwards
        "2,1998,150,20,03/04/98,97-2,2,12,55,0,1,1212\n"  # circuit 12 is not used by the file
        "3,1998,,30,03/04/98,97-3,3,1,21,1,1,114\n"  # no volume
        "4,1998,150,40,03/04/98\n"  # short row
        "5,1998,150,50,xx/yy,97-5,4,1,21,1,1,5555\n"  # bad date kept raw; unknown judge
        "6,1998,150,60,03/04/98,97-6,x,1,21,1,1,114\n"  # treatment not a number
        "7,1998,150,70,03/04/98,97-7,5,1,21,1,2,114\n"  # per curiam: no author
        "7,1999,150,80,03/04/99,97-8,7,2,32,1,1,114\n"  # repeated casenum
    )
    path.write_bytes(gzip.compress((SONGER_HEADER + rows).encode()))
    shutil.copy(data_root() / "coa/auburn_appct.dta", tmp_path / "auburn_appct.dta")
    result = songer.load(path)  # no auburn_district.dta beside it: reported once
    assert result.rows_read == 8
    assert [issue.location for issue in result.issues] == [
        str(tmp_path / "auburn_district.dta"),
        *(f"{path}:{line}" for line in (3, 4, 5, 7)),
    ]
    assert "circuit" in result.issues[1].message and "citation" in result.issues[2].message
    assert "fields" in result.issues[3].message and "treatment" in result.issues[4].message
    dc, bad_date, per_curiam, repeated = result.cases
    assert (dc.court_id, dc.circuit, dc.state, dc.author) == ("cadc", "dc", "DC", "Harry T. Edwards")
    assert bad_date.decision_date is None and ("decisiondate_raw", "xx/yy") in bad_date.extra
    assert bad_date.year == 1998 and bad_date.author is None and bad_date.disposition == "reverse"
    assert per_curiam.author is None and per_curiam.disposition is None and per_curiam.source_id == "7-L8"
    assert repeated.source_id == "7-L9" and repeated.author == "Bruce M. Selya" and repeated.state == "NY"


def test_natural_name() -> None:
    assert songer.natural_name("Garwood, William Lockhart") == "William Lockhart Garwood"
    assert songer.natural_name("Birch, Stanley F., Jr.") == "Stanley F. Birch, Jr."
    assert songer.natural_name("Roberts, John G. Jr.") == "John G. Roberts, Jr."
    assert songer.natural_name("Ginsburg, Douglas, H.") == "Douglas H. Ginsburg"
