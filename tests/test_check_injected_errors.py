"""Issue #46, injected errors: a few brief excerpts per category of the "Who Checks the Citations?" taxonomy through
the real checker (`extract_citations`, `verify_citations`, `check_quotations`), read as categories by the mapping of
`bench/injected_scoring.py`; the citation-side fixes (a Supreme Court case cited with a circuit's parenthetical,
"3d Cir.", a real case's wrong page named as such, an overruling the document itself states); and a small run of
`bench/injected_errors.py` reporting every category."""

# ruff: noqa: E501 (the tables hold whole sentences as a brief writes them)
from __future__ import annotations

import importlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from lexprobe.caselaw.query import CaseDatabase
from lexprobe.check.extract import circuit_court, extract_citations, year_after
from lexprobe.check.quote_verdicts import check_quotations
from lexprobe.check.verify import OVERRULING_SAID, case_lookup_for, verify_citations

BENCH = Path(__file__).resolve().parents[1] / "bench"
MONELL = "Monell v. Department of Social Services, 436 U.S. 658"
HELD = "Congress did intend municipalities and other local government units to be included among those persons to whom § 1983 applies."
DISSENT = "the 42d Congress did not intend to subject a municipal corporation to liability"


def bench_module(name: str) -> Any:
    """Import one of the bench scripts (bench/ is not a package)."""
    if str(BENCH) not in sys.path:
        sys.path.insert(0, str(BENCH))
    return importlib.import_module(name)


@pytest.fixture(scope="module")
def db(case_db_path: Path) -> Iterator[CaseDatabase]:
    database = CaseDatabase(case_db_path)
    yield database
    database.close()


def categories(text: str, db: CaseDatabase) -> list[set[str]]:
    """The categories the bench's mapping reads from the checker's output, per full citation of `text` (a quotation
    counts on the citation it is attributed to; a wrong citation's quotations and notes are not counted again)."""
    scoring = bench_module("injected_scoring")
    found = extract_citations(text)
    verdicts = verify_citations(found, case_lookup_for(db))
    quotations = check_quotations(text, found, verdicts, db)
    flags: list[set[str]] = [set() for _ in found]
    for index, verdict in enumerate(verdicts):
        category = scoring.citation_category(verdict)
        flags[index] = {category} if category else scoring.note_categories(verdict.notes)
    for quotation in quotations:
        category = scoring.quotation_category(quotation)
        if category and not scoring.citation_category(verdicts[quotation.citation]):
            flags[quotation.citation].add(category)
    return flags


ROWS = [
    # (category, excerpt, flags of its first citation)
    ("fabricated: a page inside Brown", "See Harwell v. Dunmore, 347 U.S. 490, 491 (1954).", {"fabricated case"}),
    ("fabricated: a name on Brown's page", "See Harwell v. Dunmore, 347 U.S. 483, 490 (1954).", {"fabricated case"}),
    (
        "wrong page: inside the case",
        "See Brown v. Board of Education, 347 U.S. 485, 495 (1954).",
        {"wrong volume/page"},
    ),
    (
        "wrong page: another decision's page",
        "That follows from Nicholas v. United States, 384 U.S. 768, 770 (1966), which the court below ignored.",
        {"wrong volume/page"},
    ),
    (
        "wrong page: another volume",
        "See United States v. Chase Nat'l Bank, 250 U.S. 485, 492 (1920).",
        {"wrong volume/page"},
    ),
    ("wrong year", "See Brown v. Board of Education, 347 U.S. 483, 495 (1958).", {"wrong year"}),
    (
        "wrong court: a circuit for a Supreme Court case",
        "See Brown v. Board of Education, 347 U.S. 483, 495 (9th Cir. 1954).",
        {"wrong court"},
    ),
    ("wrong court: another circuit", "See Doe v. Acme Corp., 124 F.3d 243, 250 (2d Cir. 1997).", {"wrong court"}),
    ("wrong court: 3d Cir.", "See Doe v. Acme Corp., 124 F.3d 243, 250 (3d Cir. 1997).", {"wrong court"}),
    ("right court: 1st Cir.", "See Doe v. Acme Corp., 124 F.3d 243, 250 (1st Cir. 1997).", set()),
    (
        "overruled, cited as good law",
        "The rule is settled. Plessy v. Ferguson, 163 U.S. 537, 540 (1896).",
        {"overruled as good law"},
    ),
    (
        "overruled, said as subsequent history",
        "Plessy v. Ferguson, 163 U.S. 537 (1896), overruled by Brown v. Board of Education, 347 U.S. 483 (1954).",
        set(),
    ),
    (
        "overruled, said on other grounds",
        "Plessy v. Ferguson, 163 U.S. 537 (1896), overruled on other grounds by Brown v. Board of Education, 347 U.S. 483 (1954).",
        set(),
    ),
    (
        "overruled, said in the sentence",
        "Petitioner's reliance on Plessy v. Ferguson, 163 U.S. 537 (1896) is misplaced: that decision was overruled in 1954.",
        set(),
    ),
    (
        "overruled, said before the citation",
        "Although the Court later overruled it, Plessy v. Ferguson, 163 U.S. 537 (1896), held otherwise.",
        set(),
    ),
    (
        "overruled, denied: not a statement of it",
        "Plessy v. Ferguson, 163 U.S. 537 (1896), has never been overruled.",
        {"overruled as good law"},
    ),
    (
        "overruled, said of the next sentence's case only",
        "See Plessy v. Ferguson, 163 U.S. 537 (1896). Another case was overruled.",
        {"overruled as good law"},
    ),
    ("clean quotation", f'"{HELD}" {MONELL}, 690 (1978).', set()),
    (
        "misattributed quotation",
        f'"{HELD}" Brown v. Board of Education, 347 U.S. 483, 495 (1954).',
        {"misattributed quotation"},
    ),
    (
        "misattributed, the source cited too",
        f'"{HELD}" Brown v. Board of Education, 347 U.S. 483, 495 (1954); see also {MONELL}, 690 (1978).',
        {"misattributed quotation"},
    ),
    (
        "altered quotation",
        f'"{HELD.replace("did intend", "did not intend")}" {MONELL}, 690 (1978).',
        {"altered quotation"},
    ),
    ("dissent as the Court's", f"The Court said “{DISSENT}.” {MONELL}, 714 (1978).", {"dissent as the Court's"}),
    ("wrong pin: another page", f'"{HELD}" {MONELL}, 700 (1978).', {"wrong pin"}),
    ("wrong pin: past the opinion", f'"{HELD}" {MONELL}, 790 (1978).', {"wrong pin"}),
]


@pytest.mark.parametrize(("what", "text", "expected"), ROWS, ids=[row[0] for row in ROWS])
def test_each_category_is_read_from_the_checker(db: CaseDatabase, what: str, text: str, expected: set[str]) -> None:
    assert categories(text, db)[0] == expected, what


def test_the_overruling_said_note_keeps_the_facts_and_short_forms_carry_it(db: CaseDatabase) -> None:
    text = "Plessy v. Ferguson, 163 U.S. 537 (1896), overruled by Brown v. Board of Education, 347 U.S. 483 (1954). Plessy, 163 U.S. at 540."
    found = extract_citations(text)
    assert [c.overruling_said for c in found] == [True, True, False]  # Brown too: it stands next to "overruled by"
    plessy, brown, short = verify_citations(found, case_lookup_for(db))
    (note,) = [n for n in plessy.notes if "overruled" in n]
    assert note.startswith(OVERRULING_SAID + "overruled by Brown v. Board of Educ., 347 U.S. 483 (1954)")
    assert not brown.notes  # Brown was never overruled: nothing to say
    assert short.notes and short.notes[0].startswith(OVERRULING_SAID)


@pytest.mark.parametrize(
    ("parenthetical", "court"),
    [("1st Cir.", "ca1"), ("2d Cir.", "ca2"), ("2nd Cir.", "ca2"), ("3d Cir.", "ca3"), ("3rd Cir.", "ca3"),
     ("11th Cir.", "ca11"), ("D.C. Cir.", "cadc"), ("Fed. Cir.", "cafc"), ("S.D.N.Y.", None), ("", None)],
)  # fmt: skip
def test_the_circuits_are_read_from_the_bluebook_table(parenthetical: str, court: str | None) -> None:
    assert circuit_court(parenthetical) == court
    if court:
        assert year_after(f" ({parenthetical} 1997)", 0, 100) == (1997, court, len(parenthetical) + 8)


def test_a_supreme_court_parenthetical_is_no_wrong_court(db: CaseDatabase) -> None:
    """ "(U.S. 1954)" (eyecite reads "usjc") and a bare year say nothing against a U.S. Reports citation."""
    for text in (
        "Brown v. Board of Education, 347 U.S. 483 (U.S. 1954).",
        "Brown v. Board of Education, 347 U.S. 483 (1954).",
    ):
        (verdict,) = verify_citations(extract_citations(text), case_lookup_for(db))
        assert verdict.verdict == "verified", verdict.reason


def test_the_bench_runs_small_and_reports_every_category(
    case_db_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    injected_errors = bench_module("injected_errors")
    assert injected_errors.main(["--db", str(case_db_path), "--n", "12", "--controls", "24", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    excerpts = bench_module("injected_excerpts")
    assert set(report["per_category"]) == set(excerpts.CATEGORIES)
    assert report["errors"] == 12 * len(excerpts.CATEGORIES) and report["controls"] == 24
    assert report["paper"]["recall"] == 82.8 and report["paper"]["f1"] == 60.5
    for category, row in report["per_category"].items():
        assert row["injected"] == 12 and sum(row["confusion"].values()) == 12, category
        assert row["recall"] is not None and 0 <= row["recall"] <= 100, category
    # the citation categories the offline data decides, where the fixes of this issue are
    for category in ("wrong year", "wrong court", "overruled as good law", "fabricated case", "wrong volume/page"):
        assert report["per_category"][category]["recall_decidable"] >= 90, (category, report["per_category"][category])
        assert report["per_category"][category]["precision"] >= 90, (category, report["per_category"][category])


def test_the_excerpts_are_deterministic_and_hold_their_ground_truth(case_db_path: Path) -> None:
    material = bench_module("injected_material")
    excerpts = bench_module("injected_excerpts")
    db = CaseDatabase(case_db_path)
    try:
        loaded = material.load_material(db, case_lookup_for(db))
        first = excerpts.generate(loaded, 7, 3, 6)
        again = excerpts.generate(loaded, 7, 3, 6)
    finally:
        db.close()
    assert [e.text for e in first] == [e.text for e in again]
    for excerpt in first:
        for unit in excerpt.units:  # every unit's span is its "VOL REPORTER PAGE"
            assert excerpt.text[unit.span[0] : unit.span[1]].split()[1] in ("U.S.", "F.3d"), excerpt.text
        if excerpt.category == excerpts.CONTROL:
            assert excerpt.target is None
        else:
            assert excerpt.target is not None and excerpt.truth
