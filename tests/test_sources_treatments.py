"""Free Law Project citator treatments loader: the real pairs and labels, and malformed fixtures."""

from __future__ import annotations

import csv
from collections import Counter
from pathlib import Path

import pytest

from lexprobe.caselaw.paths import data_root
from lexprobe.caselaw.records import LoadResult
from lexprobe.caselaw.sources import treatments

REAL = data_root() / "treatment"


@pytest.fixture(scope="module")
def real() -> LoadResult:
    """Load the real treatment folder once for the whole module."""
    if not REAL.is_dir():
        pytest.skip(f"real data not found at {REAL}")
    return treatments.load(REAL)


def test_real_counts(real: LoadResult) -> None:
    assert real.issues == []
    assert real.rows_read == 2 * 1099
    assert len(real.treatments) == 1099
    assert len({(t.citing_cluster_id, t.cited_cluster_id) for t in real.treatments}) == 1099
    assert Counter(t.label for t in real.treatments) == {
        "Mentioned": 773,
        "Overruled": 168,
        "Distinguished": 91,
        "Reversed": 24,
        "Criticized": 21,
        "Limited": 17,
        "Questioned": 5,
    }
    assert Counter(t.agreement for t in real.treatments) == {None: 773 + 24, "disagree": 168 + 91 + 21 + 17 + 5}
    assert sum(t.expert_reviewed for t in real.treatments) == 255


def test_real_label_mapping(real: LoadResult) -> None:
    mapping = {t.label: t.agreement for t in real.treatments}
    assert mapping == {
        "Mentioned": None,
        "Reversed": None,
        "Overruled": "disagree",
        "Distinguished": "disagree",
        "Criticized": "disagree",
        "Limited": "disagree",
        "Questioned": "disagree",
    }


def test_real_spot_checks(real: LoadResult) -> None:
    pairs = {(t.citing_cluster_id, t.cited_cluster_id): t for t in real.treatments}
    morgan = pairs[("91306", "88061")]
    assert (morgan.citing_name, morgan.citing_citations) == ("Morgan v. United States", ("113 U.S. 476",))
    assert morgan.cited_name == "Texas v. White"
    assert morgan.cited_citations == ("74 U.S. 700", "19 L. Ed. 227", "7 Wall. 700", "1868 U.S. LEXIS 1056")
    assert (morgan.label, morgan.agreement) == ("Overruled", "disagree")
    assert morgan.location == f"{REAL / 'flp_citator_pairs.csv'}:2"
    leloup = pairs[("92291", "88699")]
    assert (leloup.citing_name, leloup.cited_name, leloup.label, leloup.expert_reviewed) == (
        "Leloup v. Port of Mobile",
        "Osborne v. Mobile",
        "Overruled",
        True,
    )
    escobedo = next(t for t in real.treatments if t.citing_name == "Escobedo v. Illinois" and t.label == "Reversed")
    assert escobedo.agreement is None  # the decision below in the same case, not a precedent
    mille_lacs = [t for t in real.treatments if t.citing_citations == ("526 U.S. 172",)]
    assert mille_lacs and {t.citing_name for t in mille_lacs} == {"Minnesota v. Mille Lacs Band of Chippewa Indians"}
    assert all(len(t.citing_citations) == 1 and " U.S. " in t.citing_citations[0] for t in real.treatments)
    assert all(t.cited_citations and t.cited_name for t in real.treatments)


# -------------------------------------------------------------------------------------------------- fixtures

PAIR_HEADER = ["citing_cluster_id", "citing_decision_name", "cited_cluster_id", "cited_name", "cited_citations"]
EVAL_HEADER = ["citing_cluster_id", "cited_cluster_id", "cited_decision_name", "Final_Label", "True_Labelled", "notes"]


def write_csv(path: Path, header: list[str], rows: list[list[str]]) -> None:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows)


@pytest.fixture
def fixture_folder(tmp_path: Path) -> Path:
    morgan = "Morgan v. United States,113 U.S. 476  (1885)"
    write_csv(
        tmp_path / treatments.PAIRS_FILE,
        PAIR_HEADER,
        [
            ["1", morgan, "10", "Texas v. White", "['74 U.S. 700', '19 L. Ed. 227']"],  # line 2: good
            ["1", morgan, "11", "Bad List", "['74 U.S. 700'"],  # 3: unclosed list
            ["1", morgan, "12", "Not Strings", "[74, 700]"],  # 4: not strings
            ["1", morgan, "13", "Code", "__import__('os').system('touch pwned')"],  # 5: never evaluated
            ["1", morgan, "14", "Unknown Label", "[]"],  # 6: label Followed in eval
            ["1", "Odd Name Without Cite", "15", "Odd", "['1 U.S. 1']"],  # 7: record plus issue
            ["x", morgan, "16", "Bad Id", "[]"],  # 8: bad cluster id
            ["1", morgan, "10", "Texas v. White", "[]"],  # 9: duplicate pair
            ["1", morgan, "17", "No Label Row", "[]"],  # 10: not in eval
            ["1", morgan, "18"],  # 11: wrong width
            ["2", "Other v. Case,200 U.S. 5 (1905) (in part)", "19", "Reviewed", "['9 U.S. 9']"],  # 12: Reversed
        ],
    )
    write_csv(
        tmp_path / treatments.EVAL_FILE,
        EVAL_HEADER,
        [
            ["1", "10", "Texas v. White (1869)", "Overruled", "1", "a note\nover three\nlines"],  # lines 2-4
            ["1", "11", "", "Mentioned", "0", ""],  # 5
            ["1", "12", "", "Mentioned", "0", ""],  # 6
            ["1", "13", "", "Mentioned", "0", ""],  # 7
            ["1", "14", "", "Followed", "0", ""],  # 8: unknown label
            ["1", "15", "", "Distinguished", "1", ""],  # 9
            ["2", "19", "", "Reversed", "1", ""],  # 10
            ["3", "30", "", "Mentioned", "maybe", ""],  # 11: no pair row (and a bad flag)
        ],
    )
    return tmp_path


def test_fixture_folder(fixture_folder: Path, tmp_path: Path) -> None:
    result = treatments.load(fixture_folder)
    pairs_file = fixture_folder / treatments.PAIRS_FILE
    eval_file = fixture_folder / treatments.EVAL_FILE
    assert result.rows_read == 11 + 8
    records = {t.cited_cluster_id: t for t in result.treatments}
    assert set(records) == {"10", "15", "19"}
    white = records["10"]
    assert (white.citing_name, white.citing_citations, white.cited_citations) == (
        "Morgan v. United States",
        ("113 U.S. 476",),
        ("74 U.S. 700", "19 L. Ed. 227"),
    )
    assert (white.label, white.agreement, white.expert_reviewed, white.location) == (
        "Overruled",
        "disagree",
        True,
        f"{pairs_file}:2",
    )
    odd = records["15"]
    assert (odd.citing_name, odd.citing_citations, odd.agreement) == ("Odd Name Without Cite", (), "disagree")
    reversed_ = records["19"]
    assert (reversed_.citing_name, reversed_.citing_citations, reversed_.agreement) == (
        "Other v. Case",
        ("200 U.S. 5",),
        None,
    )
    issues = {issue.location: issue.message for issue in result.issues}
    assert "not a Python list literal" in issues[f"{pairs_file}:3"]
    assert "not a list of strings" in issues[f"{pairs_file}:4"]
    assert "not a Python list literal" in issues[f"{pairs_file}:5"]
    assert not (tmp_path / "pwned").exists()
    assert "unknown Final_Label 'Followed'" in issues[f"{eval_file}:8"]
    assert "Name, VOL U.S. PAGE (YEAR)" in issues[f"{pairs_file}:7"]
    assert "not numbers" in issues[f"{pairs_file}:8"]
    assert "duplicate pair" in issues[f"{pairs_file}:9"]
    assert f"no row in {treatments.EVAL_FILE}" in issues[f"{pairs_file}:10"]
    assert "3 fields" in issues[f"{pairs_file}:11"]
    assert f"no row in {treatments.PAIRS_FILE}" in issues[f"{eval_file}:11"]
    assert len(result.issues) == 10


def test_bad_flag_and_missing_files(tmp_path: Path) -> None:
    write_csv(tmp_path / treatments.PAIRS_FILE, PAIR_HEADER, [["1", "A v. B,1 U.S. 1 (1800)", "2", "C v. D", "[]"]])
    write_csv(tmp_path / treatments.EVAL_FILE, EVAL_HEADER, [["1", "2", "", "Limited", "maybe", ""]])
    result = treatments.load(tmp_path)
    assert result.treatments == []
    assert [(Path(i.location).name, i.message) for i in result.issues] == [
        (f"{treatments.EVAL_FILE}:2", "True_Labelled 'maybe' is not 1 or 0")
    ]
    (tmp_path / treatments.EVAL_FILE).unlink()
    result = treatments.load(tmp_path)
    assert [(i.location, i.message) for i in result.issues] == [
        (str(tmp_path / treatments.EVAL_FILE), "file not found")
    ]
    (tmp_path / treatments.EVAL_FILE).write_text("citing_cluster_id,cited_cluster_id\n1,2\n")
    result = treatments.load(tmp_path)
    assert "missing columns Final_Label, True_Labelled" in result.issues[0].message
    (tmp_path / treatments.EVAL_FILE).write_text("")
    assert "empty file" in treatments.load(tmp_path).issues[0].message


def test_parse_list_string() -> None:
    assert treatments.parse_list_string("['74 U.S. 700', '19 L. Ed. 227']") == ("74 U.S. 700", "19 L. Ed. 227")
    assert treatments.parse_list_string("[]") == ()
    for bad in ("['a'", "[1, 2]", "'74 U.S. 700'", "{'a': 1}", "open('x')", "[" * 200_000):
        with pytest.raises(ValueError):
            treatments.parse_list_string(bad)


def test_parse_citing_name() -> None:
    assert treatments.parse_citing_name("Morgan v. United States,113 U.S. 476  (1885)") == (
        "Morgan v. United States",
        "113 U.S. 476",
    )
    assert treatments.parse_citing_name("Minnesota v. Mille Lacs Band,526 U.S. 172  (1999) (in part)") == (
        "Minnesota v. Mille Lacs Band",
        "526 U.S. 172",
    )
    assert treatments.parse_citing_name("Smith v. Jones, 5 U. S. 1 (1801)") == ("Smith v. Jones", "5 U. S. 1")
    assert treatments.parse_citing_name("No citation here") == ("No citation here", None)
