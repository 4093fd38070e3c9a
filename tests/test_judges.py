"""Judge names: the SCDB justices roster and tolerant name matching (lexprobe.caselaw.judges)."""

from __future__ import annotations

import dataclasses
from datetime import date, datetime
from pathlib import Path

import pytest

from lexprobe.caselaw.judges import (
    Judge,
    default_justices_path,
    judge_matches,
    load_justices,
    normalize_name,
    resolve_justice,
)

# Real rows of SCDB's justices.csv (the `name` column is a pattern over the optional parts of the name): every
# justice the tables below use, with all the shared surnames (Harlan, Marshall, Johnson, Rutledge, Jackson, Clark /
# Clarke, White, Roberts, Chase, Lamar, Hughes twice).
ROSTER_CSV = r"""
scdb_id,name,last,first,tenure_start,tenure_end,median_wikipedia_views,tenure
1,John Jay,Jay,John,10/19/1789,06/29/1795,27218.5,6
2,John Rutledge,Rutledge,John,02/15/1790,03/05/1791,6843.5,1
7,Thomas Johnson,Johnson,Thomas,09/19/1791,02/22/1793,735.0,2
9,John Rutledge,Rutledge,John,08/12/1795,12/15/1795,6843.5,0
10,Samuel Chase,Chase,Samuel,02/04/1796,06/19/1811,5603.0,15
14,John Marshall,Marshall,John,02/04/1801,07/06/1835,23962.5,34
15,William Johnson,Johnson,William,05/07/1804,08/04/1834,1066.0,30
19,Joseph Story,Story,Joseph,02/03/1812,09/10/1845,4304.0,33
25,Roger ?(?:Brooke|B\.)? Taney,Taney,Roger,03/28/1836,10/12/1864,12745.0,28
33,Ben(?:jamin)? ?(?:Robbins|R\.)? Curtis,Curtis,Benjamin,10/10/1851,09/30/1857,1990.5,6
39,Stephen ?(?:Johnson|J\.)? Field,Field,Stephen,05/20/1863,12/01/1897,2731.5,34
40,Salmon Chase,Chase,Salmon,12/15/1864,05/07/1873,15816.0,9
44,Morrison Waite,Waite,Morrison,03/04/1874,04/03/1888,2852.0,14
45,John Harlan,Harlan,John,12/10/1877,10/14/1911,7619.0,34
50,Lucius Lamar,Lamar,Lucius,01/18/1888,01/23/1893,2107.5,5
55,Howell Jackson,Jackson,Howell,03/04/1893,08/08/1895,39.0,2
56,Edward ?(?:Douglas|Douglass|D\.)? White,White,Edward,03/12/1894,05/19/1921,5424.5,27
59,Oliver ?(?:Wendell)? Holmes,Wendell Holmes,Oliver,08/11/1902,01/12/1932,19498.0,30
63,Charles Hughes,Hughes,Charles,10/10/1910,06/10/1916,15160.0,6
64,Willis ?(?:Van)? Devanter,Van Devanter,Willis,01/03/1911,06/02/1937,2062.0,26
65,Joseph Lamar,Lamar,Joseph,01/03/1911,01/02/1916,931.0,5
68,Louis Brandeis,Brandeis,Louis,06/05/1916,02/13/1939,13486.0,23
69,John Clarke,Clarke,John,10/09/1916,09/18/1922,1035.0,6
74,Harlan ?(?:Fiske|F\.)? Stone,Stone,Harlan,03/02/1925,04/22/1946,5774.0,21
75,Charles ?(?:Evans|E\.)? Hughes,Hughes,Charles,02/24/1930,07/01/1941,15160.0,11
76,Owen ?(?:Josephus|J\.)? Roberts,Roberts,Owen,06/02/1930,07/31/1945,2569.0,15
78,Hugo ?(?:Lafayette|L\.)? Black,Black,Hugo,08/19/1937,09/17/1971,12145.5,34
80,Felix Frankfurter,Frankfurter,Felix,01/30/1939,08/28/1962,11124.5,23
81,William Douglas,Douglas,William,04/17/1939,11/12/1975,21576.5,36
84,Robert ?(?:Houghwout|H\.)? Jackson,Jackson,Robert,07/11/1941,10/09/1954,11145.5,13
85,Wiley Rutledge,Rutledge,Wiley,02/15/1943,09/10/1949,1480.0,6
88,(?:Thomas|Tom) ?(?:C\.)? Clark,Clark,Thomas,08/24/1949,06/12/1967,5072.0,18
90,Earl Warren,Warren,Earl,10/05/1953,06/23/1969,33434.5,16
91,John ?(?:Marshall)? Harlan II,Harlan II,John,03/28/1955,09/23/1971,5170.5,16
92,William ?(?:Joseph|J\.)? Brennan,Brennan,William,10/16/1956,07/20/1990,10395.0,34
95,Byron ?(?:R\.)? White,White,Byron,04/16/1962,06/28/1993,16060.0,31
98,Thurgood Marshall,Marshall,Thurgood,10/02/1967,10/01/1991,70916.5,24
99,Warren ?(?:Earl|E\.)? Burger,Burger,Warren,06/23/1969,09/26/1986,14252.5,17
102,William ?(?:Hubbs|H\.)? Rehnquist,Rehnquist,William,01/07/1972,09/03/2005,26395.5,33
104,Sandra ?(?:Day)? O'Connor,O'Connor,Sandra,09/25/1981,01/31/2006,43426.5,25
105,Antonin ?(?:Gregory|G\.)? Scalia,Scalia,Antonin,09/26/1986,02/13/2016,42189.5,30
108,Clarence Thomas,Thomas,Clarence,10/23/1991,00/00/0000,115501.0,32
109,Ruth ?(?:Bader|B\.)? Ginsburg,Ginsburg,Ruth,08/10/1993,09/18/2020,115277.0,27
111,John ?(?:Glover|G\.)? Roberts,Roberts,John,09/29/2005,00/00/0000,57689.0,18
112,Sam(?:uel)? ?(?:Anthony|A\.)? Alito,Alito,Samuel,01/31/2006,00/00/0000,44565.0,17
113,Sonia Sotomayor,Sotomayor,Sonia,08/08/2009,00/00/0000,62141.0,14
118,Ketanji ?(?:Brown)? Jackson,Jackson,Ketanji,06/30/2022,00/00/0000,82827.5,1
"""

ERA_WARREN = date(1960, 6, 13)
ERA_MARSHALL = date(1819, 3, 6)  # McCulloch v. Maryland
ERA_PLESSY = date(1896, 5, 18)


@pytest.fixture(scope="module", params=["embedded", "shared"])
def roster(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> list[Judge]:
    """The roster from the rows above, and from the shared data file where this checkout has it."""
    if request.param == "shared":
        if not default_justices_path().is_file():
            pytest.skip(f"no {default_justices_path()}")
        return load_justices()
    path = tmp_path_factory.mktemp("scdb") / "justices.csv"
    path.write_text(ROSTER_CSV.lstrip(), encoding="utf-8")
    return load_justices(path)


def by_name(roster: list[Judge], full_name: str) -> Judge:
    return next(judge for judge in roster if judge.full_name == full_name)


# ------------------------------------------------------------------------------------------------ normalize_name


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Earl Warren", "earl warren"),
        ("Chief Justice Warren", "warren"),
        ("Mr. Chief Justice Warren", "warren"),
        ("Warren, C.J.", "warren"),
        ("Warren, CJ", "warren"),
        ("Justice Ruth Bader Ginsburg", "ruth bader ginsburg"),
        ("Mr. Justice Holmes", "holmes"),
        ("Holmes, J.", "holmes"),
        ("Associate Justice Scalia", "scalia"),
        ("Judge Learned Hand", "learned hand"),
        ("Hon. Sonia Sotomayor", "sonia sotomayor"),
        ("The Honorable Sandra Day O'Connor", "sandra day oconnor"),
        ("Black and Douglas, JJ.", "black and douglas"),
        ("Oliver Wendell Holmes, Jr.", "oliver wendell holmes"),
        ("Oliver Wendell Holmes Jr.", "oliver wendell holmes"),
        ("John Marshall Harlan II", "john marshall harlan"),
        ("Harlan III", "harlan"),
        ("R.B. Ginsburg", "r b ginsburg"),
        ("Ginsburg, Ruth Bader", "ruth bader ginsburg"),
        ("Brennan, J., dissenting", "brennan"),
        ("Frankfurter, J., concurring in the judgment", "frankfurter"),
        ("Justice Black, writing for the majority", "black"),
        ("José A. Cabranes", "jose a cabranes"),
        ("  EARL   WARREN  ", "earl warren"),
        ("", ""),
        ("Chief Justice", ""),
    ],
)
def test_normalize_name(text: str, expected: str) -> None:
    assert normalize_name(text) == expected


# ------------------------------------------------------------------------------------------------ load_justices


def test_load_justices_expands_the_name_patterns(roster: list[Judge]) -> None:
    taney = by_name(roster, "Roger Brooke Taney")
    assert taney.aliases == ("Roger Brooke Taney", "Roger B. Taney", "Roger Taney")
    assert (taney.first_name, taney.last_name) == ("Roger", "Taney")
    assert (taney.start, taney.end) == (date(1836, 3, 28), date(1864, 10, 12))
    assert "Tom Clark" in by_name(roster, "Thomas C. Clark").aliases
    assert by_name(roster, "Oliver Wendell Holmes").last_name == "Holmes"  # the file's `last` says "Wendell Holmes"
    assert by_name(roster, "Willis Van Devanter").last_name == "Van Devanter"
    assert by_name(roster, "Ruth Bader Ginsburg").scdb_id == 109
    assert by_name(roster, "Clarence Thomas").end is None  # the file's 00/00/0000: still serving


def test_load_justices_the_two_harlans(roster: list[Judge]) -> None:
    first, second = (judge for judge in roster if judge.last_name == "Harlan")
    assert (first.full_name, first.suffix, first.scdb_id) == ("John Harlan", None, 45)
    assert (second.full_name, second.suffix, second.scdb_id) == ("John Marshall Harlan II", "ii", 91)
    assert first.person != second.person
    assert (first.start, first.end) == (date(1877, 12, 10), date(1911, 10, 14))
    assert (second.start, second.end) == (date(1955, 3, 28), date(1971, 9, 23))


def test_load_justices_two_tenures_are_one_person(roster: list[Judge]) -> None:
    hughes = [judge for judge in roster if judge.last_name == "Hughes"]
    assert [judge.full_name for judge in hughes] == ["Charles Hughes", "Charles Evans Hughes"]
    assert hughes[0].person == hughes[1].person


def test_shared_roster_is_complete() -> None:
    if not default_justices_path().is_file():
        pytest.skip(f"no {default_justices_path()}")
    judges = load_justices()
    assert len(judges) == 118
    assert all(judge.start for judge in judges)
    assert sum(judge.end is None for judge in judges) == 9


def test_judge_is_a_frozen_value(roster: list[Judge]) -> None:
    warren = by_name(roster, "Earl Warren")
    with pytest.raises(dataclasses.FrozenInstanceError):
        warren.last_name = "Burger"  # type: ignore[misc]
    assert warren.served_on(date(1954, 5, 17))
    assert not warren.served_on(date(1970, 1, 1))


def test_load_justices_errors(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        load_justices(tmp_path / "missing.csv")
    bad = tmp_path / "justices.csv"
    bad.write_text(
        "scdb_id,name,last,first,tenure_start,tenure_end,median_wikipedia_views,tenure\n"
        "90,Earl Warren,Warren,Earl,13/45/1953,06/23/1969,1,16\n",
        encoding="utf-8",
    )
    with pytest.raises(ValueError, match=r"justices\.csv:2"):
        load_justices(bad)


# ------------------------------------------------------------------------------------------------ judge_matches


@pytest.mark.parametrize(
    ("answer", "truth", "decided", "expected"),
    [
        # Earl Warren, every way an answer names him
        ("Earl Warren", "Earl Warren", None, True),
        ("Warren", "Earl Warren", None, True),
        ("Chief Justice Warren", "Earl Warren", None, True),
        ("Warren, C.J.", "Earl Warren", None, True),
        ("Justice Warren", "Earl Warren", None, True),
        ("Mr. Chief Justice Warren", "Earl Warren", ERA_WARREN, True),
        ("E. Warren", "Earl Warren", None, True),
        ("Warren Burger", "Earl Warren", None, False),  # Warren E. Burger, not Earl Warren
        ("Burger", "Earl Warren", None, False),
        ("Frankfurter", "Earl Warren", ERA_WARREN, False),
        # Ruth Bader Ginsburg
        ("Justice Ruth Bader Ginsburg", "Ruth Bader Ginsburg", None, True),
        ("Ginsburg", "Ruth Bader Ginsburg", None, True),
        ("R.B. Ginsburg", "Ruth Bader Ginsburg", None, True),
        ("Ruth Ginsburg", "Ruth Bader Ginsburg", None, True),
        ("Bader Ginsburg", "Ruth Bader Ginsburg", None, True),
        ("Ginsburg, Ruth Bader", "Ruth Bader Ginsburg", None, True),
        ("Ruth Bader Ginsberg", "Ruth Bader Ginsburg", None, True),  # misspelt
        ("Justice Ginsberg", "Ruth Bader Ginsburg", None, True),
        ("Scalia", "Ruth Bader Ginsburg", None, False),
        ("Sandra Day O'Connor", "Ruth Bader Ginsburg", None, False),
        # other full names, initials, misspellings
        ("Antonin Scalia", "Antonin Gregory Scalia", None, True),
        ("Justice Scalia", "Antonin Gregory Scalia", None, True),
        ("O'Connor", "Sandra Day O'Connor", None, True),
        ("OConnor", "Sandra Day O'Connor", None, True),
        ("Justice Sotomayor", "Sonia Sotomayor", None, True),
        ("Sonia Sotomayer", "Sonia Sotomayor", None, True),
        ("Brandies", "Louis Brandeis", None, True),
        ("Felix Frankfurter", "Louis Brandeis", None, False),
        ("Oliver Wendell Holmes, Jr.", "Oliver Wendell Holmes", None, True),
        ("Mr. Justice Holmes", "Oliver Wendell Holmes", None, True),
        ("Holmes, J., dissenting", "Oliver Wendell Holmes", None, True),
        ("Van Devanter", "Willis Van Devanter", None, True),
        ("Hugo Black", "Hugo Lafayette Black", None, True),
        ("Black", "Harry Andrew Blackmun", None, False),
        ("Blackmun", "Hugo Lafayette Black", None, False),
        ("William O. Douglas", "William Douglas", None, True),
        ("William J. Brennan", "William Douglas", None, False),  # same first name, other justice
        ("Harlan Fiske Stone", "John M. Harlan", ERA_WARREN, False),  # Harlan is Stone's first name
        ("Taney", "Roger Brooke Taney", date(1857, 3, 6), True),
        ("John Roberts", "John Glover Roberts", date(2012, 6, 28), True),
        ("John Roberts", "Owen Josephus Roberts", date(1936, 1, 6), False),
        ("Owen Roberts", "Owen Josephus Roberts", date(1936, 1, 6), True),
        ("Tom Clark", "Thomas C. Clark", ERA_WARREN, True),
        ("Clark", "Thomas C. Clark", ERA_WARREN, True),
        ("Clarke", "Thomas C. Clark", date(1920, 1, 5), False),  # John Clarke, not a misspelt Clark
        ("Clark", "John Clarke", date(1920, 1, 5), False),
        # the two Harlans: a bare surname goes by the decision date
        ("Harlan", "John M. Harlan", ERA_WARREN, True),
        ("Harlan", "John Marshall Harlan II", ERA_WARREN, True),
        ("Justice Harlan", "John Harlan", ERA_WARREN, False),  # truth Harlan I (justices.csv's spelling)
        ("Harlan", "John Harlan", ERA_PLESSY, True),
        ("Harlan", "John Marshall Harlan II", ERA_PLESSY, False),
        ("John Marshall Harlan", "John Harlan", ERA_PLESSY, True),  # Harlan I's usual full name
        ("John Marshall Harlan II", "John Harlan", ERA_PLESSY, False),  # names the wrong Harlan
        ("John Marshall Harlan II", "John M. Harlan", ERA_WARREN, True),
        ("John Marshall Harlan II", "John Marshall Harlan II", ERA_WARREN, True),
        ("Harlan II", "John M. Harlan", ERA_WARREN, True),
        ("Harlan I", "John M. Harlan", ERA_WARREN, False),
        ("Harlan I", "John Harlan", ERA_PLESSY, True),
        ("John M. Harlan", "John M. Harlan", ERA_WARREN, True),
        # John Marshall (1801-1835) and Thurgood Marshall (1967-1991)
        ("Marshall", "John Marshall", ERA_MARSHALL, True),
        ("Chief Justice Marshall", "John Marshall", ERA_MARSHALL, True),
        ("Marshall, C.J.", "John Marshall", ERA_MARSHALL, True),
        ("Marshall", "Thurgood Marshall", ERA_MARSHALL, False),
        ("Marshall", "Thurgood Marshall", date(1972, 6, 29), True),
        ("Marshall", "John Marshall", date(1972, 6, 29), False),
        ("Thurgood Marshall", "John Marshall", ERA_MARSHALL, False),
        ("John Marshall", "Thurgood Marshall", date(1972, 6, 29), False),
        ("John Marshall", "John Marshall", ERA_MARSHALL, True),
        # Johnson, Rutledge, Jackson, White, Chase, Lamar
        ("Johnson", "William Johnson", date(1820, 2, 1), True),
        ("Johnson", "Thomas Johnson", date(1820, 2, 1), False),
        ("Johnson", "Thomas Johnson", date(1792, 8, 1), True),
        ("Thomas Johnson", "William Johnson", date(1820, 2, 1), False),
        ("Rutledge", "Wiley Rutledge", date(1946, 1, 1), True),
        ("Rutledge", "John Rutledge", date(1946, 1, 1), False),
        ("Rutledge", "John Rutledge", date(1795, 9, 1), True),
        ("Jackson", "Robert Houghwout Jackson", date(1952, 6, 2), True),
        ("Jackson", "Ketanji Brown Jackson", date(1952, 6, 2), False),
        ("Jackson", "Ketanji Brown Jackson", date(2023, 6, 30), True),
        ("Jackson", "Howell Jackson", date(1895, 5, 20), True),
        ("Justice Jackson", "Robert H. Jackson", date(1952, 6, 2), True),
        ("White", "Byron R. White", date(1973, 1, 22), True),
        ("White", "Edward Douglas White", date(1973, 1, 22), False),
        ("White", "Edward Douglas White", date(1905, 4, 17), True),
        ("Chase", "Salmon Chase", date(1869, 4, 12), True),
        ("Chase", "Samuel Chase", date(1869, 4, 12), False),
        ("Lamar", "Joseph Lamar", date(1913, 1, 6), True),
        ("Lamar", "Lucius Lamar", date(1913, 1, 6), False),
        # one person, two tenures
        ("Hughes", "Charles Evans Hughes", date(1935, 5, 27), True),
        ("Hughes", "Charles Hughes", date(1912, 1, 1), True),
        ("Charles Evans Hughes", "Charles Hughes", date(1912, 1, 1), True),
        # nothing to match
        ("", "Earl Warren", None, False),
        ("Chief Justice", "Earl Warren", None, False),
        ("I don't know", "Earl Warren", None, False),
    ],
)
def test_judge_matches_with_roster(
    roster: list[Judge], answer: str, truth: str, decided: date | None, expected: bool
) -> None:
    assert judge_matches(answer, truth, decided, roster) is expected


@pytest.mark.parametrize(
    ("answer", "truth", "expected"),
    [
        # without a roster the names are compared as names
        ("Earl Warren", "Earl Warren", True),
        ("Warren", "Earl Warren", True),
        ("Chief Justice Warren", "Earl Warren", True),
        ("Warren, C.J.", "Earl Warren", True),
        ("Warren Burger", "Earl Warren", False),
        ("R.B. Ginsburg", "Ruth Bader Ginsburg", True),
        ("Ruth Bader Ginsberg", "Ruth Bader Ginsburg", True),
        ("Ginsburg", "Ruth Bader Ginsburg", True),
        ("Scalia", "Ruth Bader Ginsburg", False),
        ("Judge Learned Hand", "Learned Hand", True),
        ("Hand, J.", "Learned Hand", True),
        ("Augustus Hand", "Learned Hand", False),
        ("Henry Friendly", "Learned Hand", False),
        ("Posner", "Richard A. Posner", True),
        ("Judge Richard Posner", "Richard A. Posner", True),
        ("Frank Easterbrook", "Richard A. Posner", False),
        ("Judge Sotomayor", "Sonia Sotomayor", True),
        ("José Cabranes", "Jose A. Cabranes", True),
        ("John Marshall Harlan II", "John Marshall Harlan", False),  # the suffix names the other one
        ("", "Learned Hand", False),
    ],
)
def test_judge_matches_without_roster(answer: str, truth: str, expected: bool) -> None:
    assert judge_matches(answer, truth) is expected


def test_judge_matches_with_a_truth_off_the_roster(roster: list[Judge]) -> None:
    """A lower-court judge is not on the Supreme Court roster: the names are compared directly."""
    assert judge_matches("Judge Learned Hand", "Learned Hand", date(1947, 1, 9), roster)
    assert not judge_matches("Augustus Hand", "Learned Hand", date(1947, 1, 9), roster)


def test_judge_matches_accepts_datetime(roster: list[Judge]) -> None:
    assert judge_matches("Harlan", "John M. Harlan", datetime(1960, 6, 13, 12, 0), roster)


def test_surname_shared_without_date_is_lenient(roster: list[Judge]) -> None:
    """With no decision date a surname that fits the truth among several justices counts."""
    assert judge_matches("Harlan", "John M. Harlan", None, roster)
    assert judge_matches("Marshall", "Thurgood Marshall", None, roster)
    assert not judge_matches("Marshall", "Earl Warren", None, roster)


# ------------------------------------------------------------------------------------------------ resolve_justice


@pytest.mark.parametrize(
    ("answer", "decided", "expected"),
    [
        ("Harlan", ERA_WARREN, "John Marshall Harlan II"),
        ("Harlan", ERA_PLESSY, "John Harlan"),
        ("Justice Harlan", date(1971, 6, 30), "John Marshall Harlan II"),
        ("Harlan", None, None),  # two Harlans, no date
        ("Harlan", date(1930, 1, 1), None),  # no Harlan on the Court then
        ("John Harlan", None, "John Harlan"),  # justices.csv's own spelling of Harlan I
        ("John Harlan", ERA_WARREN, "John Marshall Harlan II"),
        ("John Marshall Harlan II", None, "John Marshall Harlan II"),
        ("John Marshall Harlan II", ERA_PLESSY, "John Marshall Harlan II"),  # an explicit name wins over the date
        ("Harlan II", None, "John Marshall Harlan II"),
        ("Marshall", ERA_MARSHALL, "John Marshall"),
        ("Marshall", date(1970, 1, 1), "Thurgood Marshall"),
        ("Marshall", None, None),
        ("Thurgood Marshall", ERA_MARSHALL, "Thurgood Marshall"),
        ("Johnson", date(1792, 8, 1), "Thomas Johnson"),
        ("Johnson", date(1820, 2, 1), "William Johnson"),
        ("Rutledge", date(1946, 1, 1), "Wiley Rutledge"),
        ("Jackson", date(2023, 6, 30), "Ketanji Brown Jackson"),
        ("Jackson", date(1952, 6, 2), "Robert Houghwout Jackson"),
        ("Roberts", date(2012, 6, 28), "John Glover Roberts"),
        ("Roberts", date(1936, 1, 6), "Owen Josephus Roberts"),
        ("J. Roberts", None, "John Glover Roberts"),
        ("White", date(1973, 1, 22), "Byron R. White"),
        ("Clark", None, "Thomas C. Clark"),
        ("Clarke", None, "John Clarke"),
        ("Ginsberg", None, "Ruth Bader Ginsburg"),
        ("Brandies", None, "Louis Brandeis"),
        ("Stone", None, "Harlan Fiske Stone"),
        ("Chief Justice Warren", None, "Earl Warren"),
        ("Hughes", date(1935, 5, 27), "Charles Evans Hughes"),
        ("Hughes", date(1912, 1, 1), "Charles Hughes"),
        ("Learned Hand", None, None),
        ("", None, None),
    ],
)
def test_resolve_justice(roster: list[Judge], answer: str, decided: date | None, expected: str | None) -> None:
    judge = resolve_justice(answer, decided, roster)
    assert (judge.full_name if judge else None) == expected


def test_resolve_justice_without_roster() -> None:
    assert resolve_justice("Earl Warren") is None
