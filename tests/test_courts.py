"""Court names to courts-db ids and back (lexprobe.caselaw.courts)."""

from __future__ import annotations

import pytest

from lexprobe.caselaw.courts import (
    circuit_court_id,
    court_level,
    court_name,
    district_state,
    resolve_court,
    same_court,
)

# ------------------------------------------------------------------------------------------------ resolve_court


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # the Supreme Court
        ("Supreme Court", "scotus"),
        ("the Supreme Court", "scotus"),
        ("U.S. Supreme Court", "scotus"),
        ("US Supreme Court", "scotus"),
        ("United States Supreme Court", "scotus"),
        ("Supreme Court of the United States", "scotus"),
        ("Supreme Court of the U.S.", "scotus"),
        ("SCOTUS", "scotus"),
        ("U.S. Sup. Ct.", "scotus"),
        # the Ninth Circuit, every way the brief names it
        ("Ninth Circuit", "ca9"),
        ("9th Cir.", "ca9"),
        ("9th Cir", "ca9"),
        ("Court of Appeals for the Ninth Circuit", "ca9"),
        ("United States Court of Appeals for the Ninth Circuit", "ca9"),
        ("U.S. Court of Appeals for the 9th Circuit", "ca9"),
        ("the 9th Circuit Court of Appeals", "ca9"),
        ("Ninth Circuit Court of Appeals", "ca9"),
        ("Court of Appeals, Ninth Circuit", "ca9"),
        ("CA9", "ca9"),
        ("C.A.9", "ca9"),
        # D.C. and Federal Circuits
        ("D.C. Circuit", "cadc"),
        ("D.C. Cir.", "cadc"),
        ("DC Circuit", "cadc"),
        ("Court of Appeals for the D.C. Circuit", "cadc"),
        ("United States Court of Appeals for the District of Columbia Circuit", "cadc"),
        ("Federal Circuit", "cafc"),
        ("Fed. Cir.", "cafc"),
        ("U.S. Court of Appeals for the Federal Circuit", "cafc"),
        # district courts: Bluebook abbreviations, names, and "U.S. District Court for the ..."
        ("N.D. Cal.", "cand"),
        ("ND Cal", "cand"),
        ("N.D.Cal.", "cand"),
        ("N.D. California", "cand"),
        ("Northern District of California", "cand"),
        ("U.S. District Court for the Northern District of California", "cand"),
        ("United States District Court for the Northern District of California", "cand"),
        ("District Court for the Northern District of California", "cand"),
        ("C.D. Cal.", "cacd"),
        ("Central District of California", "cacd"),
        ("S.D. Cal.", "casd"),
        ("E.D. Cal.", "caed"),
        ("S.D.N.Y.", "nysd"),
        ("SDNY", "nysd"),
        ("Southern District of New York", "nysd"),
        ("U.S. District Court for the Southern District of New York", "nysd"),
        ("E.D.N.Y.", "nyed"),
        ("Eastern District of New York", "nyed"),
        ("D. Mass.", "mad"),
        ("District of Massachusetts", "mad"),
        ("U.S. District Court for the District of Massachusetts", "mad"),
        ("E.D. Pa.", "paed"),
        ("Eastern District of Pennsylvania", "paed"),
        ("D.D.C.", "dcd"),
        ("U.S. District Court for the District of Columbia", "dcd"),
        ("W.D. Tex.", "txwd"),
        ("Western District of Texas", "txwd"),
        ("S.D. Tex.", "txsd"),
        ("N.D. Ill.", "ilnd"),
        ("Northern District of Illinois", "ilnd"),
        ("D.N.J.", "njd"),
        ("District of New Jersey", "njd"),
        ("E.D. Va.", "vaed"),
        ("Eastern District of Virginia", "vaed"),
        ("S.D. Fla.", "flsd"),
        ("M.D. Fla.", "flmd"),
        ("D. Del.", "ded"),
        ("District of Delaware", "ded"),
        ("D. Md.", "mdd"),
        ("D. Minn.", "mnd"),
        ("E.D. Mich.", "mied"),
        ("W.D. Wash.", "wawd"),
        ("D. Ariz.", "azd"),
        ("D. Colo.", "cod"),
        ("N.D. Ga.", "gand"),
        ("E.D. La.", "laed"),
        ("D.P.R.", "prd"),
        ("District of Puerto Rico", "prd"),
        # other federal and state courts courts-db knows
        ("Court of International Trade", "cit"),
        ("Court of Federal Claims", "uscfc"),
        ("Tax Court", "tax"),
        ("California Supreme Court", "cal"),
        ("Supreme Court of California", "cal"),
        ("New York Court of Appeals", "ny"),
        # nothing, or nothing specific
        ("", None),
        ("   ", None),
        ("xyz", None),
        ("California", None),
        ("Southern District", None),
        ("Court of Appeals", None),
        ("District Court", None),
        ("Fourteenth Circuit", None),
    ],
)
def test_resolve_court(text: str, expected: str | None) -> None:
    assert resolve_court(text) == expected


_CIRCUIT_WORDS = [
    "First",
    "Second",
    "Third",
    "Fourth",
    "Fifth",
    "Sixth",
    "Seventh",
    "Eighth",
    "Ninth",
    "Tenth",
    "Eleventh",
]
_CIRCUIT_ABBREVIATIONS = ["1st", "2d", "3d", "4th", "5th", "6th", "7th", "8th", "9th", "10th", "11th"]
_CIRCUIT_SPELLINGS = [
    (form.format(word=word, abbr=abbr), f"ca{number}")
    for number, (word, abbr) in enumerate(zip(_CIRCUIT_WORDS, _CIRCUIT_ABBREVIATIONS, strict=True), start=1)
    for form in [
        "{word} Circuit",
        "{abbr} Cir.",
        "Court of Appeals for the {word} Circuit",
        "United States Court of Appeals for the {word} Circuit",
        "U.S. Court of Appeals for the {abbr} Circuit",
        "the {abbr} Circuit Court of Appeals",
        "{word} Circuit Court of Appeals",
    ]
] + [
    ("2nd Cir.", "ca2"),
    ("2nd Circuit", "ca2"),
    ("3rd Cir.", "ca3"),
    ("3rd Circuit", "ca3"),
    ("D.C. Circuit", "cadc"),
    ("D.C. Cir.", "cadc"),
    ("Court of Appeals for the D.C. Circuit", "cadc"),
    ("U.S. Court of Appeals for the D.C. Circuit", "cadc"),
    ("the D.C. Circuit Court of Appeals", "cadc"),
    ("Federal Circuit", "cafc"),
    ("Fed. Cir.", "cafc"),
    ("Court of Appeals for the Federal Circuit", "cafc"),
    ("United States Court of Appeals for the Federal Circuit", "cafc"),
    ("the Federal Circuit Court of Appeals", "cafc"),
]


@pytest.mark.parametrize(("text", "expected"), _CIRCUIT_SPELLINGS)
def test_all_thirteen_circuits(text: str, expected: str) -> None:
    assert resolve_court(text) == expected
    assert court_level(expected) == "coa"


# ------------------------------------------------------------------------------------------------ circuit_court_id


@pytest.mark.parametrize(
    ("circuit", "expected"),
    [
        (1, "ca1"),
        (9, "ca9"),
        (11, "ca11"),
        (12, "cadc"),
        (13, "cafc"),
        ("9", "ca9"),
        ("09", "ca9"),
        ("9th", "ca9"),
        ("ninth", "ca9"),
        ("Ninth Circuit", "ca9"),
        ("2d", "ca2"),
        ("2nd", "ca2"),
        ("3d", "ca3"),
        ("11th Cir.", "ca11"),
        ("dc", "cadc"),
        ("DC", "cadc"),
        ("D.C.", "cadc"),
        ("12", "cadc"),
        ("fed", "cafc"),
        ("Federal", "cafc"),
        ("13", "cafc"),
    ],
)
def test_circuit_court_id(circuit: str | int, expected: str) -> None:
    assert circuit_court_id(circuit) == expected


@pytest.mark.parametrize("circuit", [0, 14, -1, "", "0", "14", "zeroth", "twelfth", "Northern District"])
def test_circuit_court_id_rejects_non_circuits(circuit: str | int) -> None:
    with pytest.raises(ValueError):
        circuit_court_id(circuit)


# ------------------------------------------------------------------------------------------------ court facts


@pytest.mark.parametrize(
    ("court_id", "expected"),
    [
        ("scotus", "Supreme Court of the United States"),
        ("ca9", "Court of Appeals for the Ninth Circuit"),
        ("ca11", "United States Court of Appeals for the Eleventh Circuit"),
        ("cadc", "Court of Appeals for the D.C. Circuit"),
        ("cafc", "Court of Appeals for the Federal Circuit"),
        ("cand", "United States District Court for the Northern District of California"),
        ("nysd", "District Court, S.D. New York"),
        ("dcd", "District Court, District of Columbia"),
    ],
)
def test_court_name(court_id: str, expected: str) -> None:
    assert court_name(court_id) == expected
    assert resolve_court(court_name(court_id)) == court_id


def test_court_name_unknown_id() -> None:
    with pytest.raises(KeyError):
        court_name("nosuchcourt")


@pytest.mark.parametrize(
    ("court_id", "expected"),
    [
        ("scotus", "scotus"),
        *((f"ca{n}", "coa") for n in range(1, 12)),
        ("cadc", "coa"),
        ("cafc", "coa"),
        ("cand", "district"),
        ("cacd", "district"),
        ("nysd", "district"),
        ("mad", "district"),
        ("dcd", "district"),
        ("paed", "district"),
        ("txwd", "district"),
        ("prd", "district"),
        ("canb", None),  # bankruptcy court
        ("usdistct", None),  # the umbrella entry, not a district
        ("circtdca", None),  # the old U.S. Circuit Court for California
        ("cal", None),  # state supreme court
        ("cit", None),
        ("nosuchcourt", None),
    ],
)
def test_court_level(court_id: str, expected: str | None) -> None:
    assert court_level(court_id) == expected


@pytest.mark.parametrize(
    ("court_id", "expected"),
    [
        ("cand", "CA"),
        ("cacd", "CA"),
        ("nysd", "NY"),
        ("nyed", "NY"),
        ("mad", "MA"),
        ("paed", "PA"),
        ("txwd", "TX"),
        ("ilnd", "IL"),
        ("njd", "NJ"),
        ("dcd", "DC"),
        ("prd", "PR"),
        ("gud", "GU"),
        ("vid", "VI"),
        ("ca9", None),
        ("scotus", None),
        ("canb", None),
        ("cal", None),
        ("nosuchcourt", None),
    ],
)
def test_district_state(court_id: str, expected: str | None) -> None:
    assert district_state(court_id) == expected


# ------------------------------------------------------------------------------------------------ same_court


@pytest.mark.parametrize(
    ("answer", "court_id", "expected"),
    [
        ("Supreme Court", "scotus", True),
        ("U.S. Supreme Court", "scotus", True),
        ("Ninth Circuit", "ca9", True),
        ("9th Cir.", "ca9", True),
        ("the 9th Circuit Court of Appeals", "ca9", True),
        ("Ninth Circuit", "ca1", False),
        ("Second Circuit", "cadc", False),
        ("D.C. Circuit", "dcd", False),  # the circuit is not the district court
        ("District of Columbia", "cadc", False),
        ("Federal Circuit", "cafc", True),
        ("N.D. Cal.", "cand", True),
        ("S.D.N.Y.", "nysd", True),
        ("E.D.N.Y.", "nysd", False),
        ("Ninth Circuit", "cand", False),
        ("Supreme Court", "ca9", False),
        ("cand", "cand", True),
        ("", "cand", False),
        ("Northern District of California", "", False),
    ],
)
def test_same_court(answer: str, court_id: str, expected: bool) -> None:
    assert same_court(answer, court_id) is expected


@pytest.mark.parametrize(
    ("answer", "court_id", "expected"),
    [
        ("Northern District of California", "cand", True),
        ("U.S. District Court for the Northern District of California", "cand", True),
        ("N.D. Cal.", "cand", True),
        ("Southern District of California", "cand", False),
        ("Central District of California", "cand", False),
        ("Eastern District of California", "cand", False),
        ("California", "cand", False),
        ("CA", "cand", False),
        ("Northern District of California", "cacd", False),
        ("Northern District of California", "casd", False),
        ("Southern District of New York", "nysd", True),
        ("Eastern District of New York", "nysd", False),
        ("Western District of New York", "nysd", False),
        ("New York", "nysd", False),
        ("Eastern District of Pennsylvania", "paed", True),
        ("Western District of Pennsylvania", "paed", False),
        ("Northern District of Illinois", "ilnd", True),
        ("Southern District of Illinois", "ilnd", False),
    ],
)
def test_district_answers_are_compared_district_to_district(answer: str, court_id: str, expected: bool) -> None:
    """Regression: the original study reduced the true district court to its bare state, so "Northern District of
    California" could not match "cand" and any district in the state (or the state alone) could. The comparison is
    court against court."""
    assert same_court(answer, court_id) is expected


@pytest.mark.parametrize(
    "state_districts",
    [
        ["cand", "cacd", "casd", "caed"],
        ["nysd", "nyed", "nynd", "nywd"],
        ["txnd", "txsd", "txed", "txwd"],
        ["flnd", "flmd", "flsd"],
        ["paed", "pamd", "pawd"],
    ],
)
def test_each_district_matches_only_itself(state_districts: list[str]) -> None:
    for truth in state_districts:
        for other in state_districts:
            assert same_court(court_name(other), truth) is (other == truth), (other, truth)
        assert district_state(truth) == district_state(state_districts[0])
