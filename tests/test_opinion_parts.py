"""Issue #46, item 2: every opinion of a case. Combined opinion texts of the shipped data (CourtListener's
`010combined` files, in the case database as the build stores them) split into the majority part and each separate
opinion with its author and type (`lexprobe.caselaw.opinion_parts`), the parts in the built database
(`opinion_parts`), and `lexprobe check` searching them: a dissent the database holds only inside a combined text
is a `separate_opinion` naming its author, or `verified` when the document presents it as the dissent's."""

# ruff: noqa: E501 (whole sentences as the opinions write them)
from __future__ import annotations

import itertools
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from lexprobe.caselaw.opinion_index import part_spans, part_text
from lexprobe.caselaw.opinion_parts import split_combined
from lexprobe.caselaw.query import CaseDatabase, StaleCaseDatabase
from lexprobe.caselaw.schema import RULES_VERSION
from lexprobe.check.extract import extract_citations
from lexprobe.check.quote_verdicts import QuotationVerdict, check_quotations
from lexprobe.check.verify import case_lookup_for, verify_citations

ENTRY = "import sys; sys.argv[0] = 'lexprobe'; from lexprobe.cli import console_main; sys.exit(console_main())"


@pytest.fixture(scope="module")
def db(case_db_path: Path) -> Iterator[CaseDatabase]:
    database = CaseDatabase(case_db_path)
    yield database
    database.close()


def combined_text(db: CaseDatabase, case_id: str) -> str:
    (text,) = db.conn.execute(
        "SELECT text FROM opinions WHERE case_id = ? AND opinion_type = 'combined'", (case_id,)
    ).fetchone()
    return text


# One row per real combined file: the separate opinions it holds (type, author as the heading gives it) and how the
# first separate opinion's heading begins in the text (a star page mark is part of it).
REAL_COMBINED = [
    # "Mr. Justice Sutherland, dissenting:" (a citing opinion's plain text; the notes after it go with the majority)
    ("scotus:300_U.S._379", [("dissent", "Sutherland")], "Mr. Justice Sutherland, dissenting"),
    # two authors in one heading, then "MR. JUSTICE MURPHY, concurring." and Frankfurter's dissent
    ("scotus:319_U.S._624", [("concurrence", "BLACK"), ("concurrence", "MURPHY"), ("dissent", "FRANKFURTER")],
     "MR. JUSTICE BLACK and MR. JUSTICE DOUGLAS, concurring"),
    # "dissenting in Nos. 759, 760, and 761, and concurring in the result in No. 584."; "whom ... joins" without "with"
    ("scotus:384_U.S._436", [("dissent", "CLARK"), ("dissent", "HARLAN"), ("dissent", "WHITE")],
     "MR. JUSTICE CLARK, dissenting in Nos. 759"),
    ("scotus:273_U.S._418", [("dissent", "HOLMES"), ("dissent", "STONE"), ("dissent", "SANFORD")],
     "MR. JUSTICE HOLMES, dissenting"),
    # "(MR. JUSTICE FORTAS, concurring)" three times in the majority's citations: no heading
    ("scotus:392_U.S._1", [("concurrence", "HARLAN"), ("concurrence", "WHITE"), ("dissent", "DOUGLAS")],
     "MR. JUSTICE HARLAN, concurring"),
    # "with whom ... join, and with whom JUSTICE STEVENS joins as to Parts II-B, II-C, and III, concurring in the
    # judgment in part and dissenting in part."
    ("scotus:491_U.S._164", [("concurrence_in_part", "BRENNAN"), ("concurrence_in_part", "STEVENS")],
     "JUSTICE BRENNAN, with whom JUSTICE MARSHALL"),
    # a star page mark opens the heading: "*858 JUSTICE MARSHALL, with whom JUSTICE BRENNAN joins, dissenting."
    ("scotus:472_U.S._846", [("dissent", "MARSHALL")], "*858 JUSTICE MARSHALL"),
    # "Separate opinion of MR. CHIEF JUSTICE HUGHES." and "MR. JUSTICE CARDOZO (dissenting in Nos. 636, ...)."
    ("scotus:298_U.S._238", [("separate", "HUGHES"), ("dissent", "CARDOZO")], "Separate opinion of MR. CHIEF JUSTICE HUGHES"),
    # "*657 MR. JUSTICE BLACKMUN, joined by ... . I concur in the result as to ... and dissent as to ..."
    ("scotus:402_U.S._637", [("concurrence_in_part", "BLACKMUN")], "*657 MR. JUSTICE BLACKMUN, joined by"),
    # a court of appeals en banc: "TAMM, Circuit Judge, dissenting in part:", "MacKINNON, Circuit Judge (dissenting)."
    ("unknown:655_F.2d_1159", [("concurrence_in_part", "TAMM"), ("dissent", "MacKINNON"), ("dissent", "ROBB"),
                               ("dissent", "WILKEY")], "TAMM, Circuit Judge, dissenting in part"),
]  # fmt: skip


@pytest.mark.parametrize(("case_id", "separate", "first_heading"), REAL_COMBINED)
def test_real_combined_files_split_into_their_opinions(
    db: CaseDatabase, case_id: str, separate: list[tuple[str, str]], first_heading: str
) -> None:
    text = combined_text(db, case_id)
    majority, *parts = split_combined(text)
    assert [(part.opinion_type, part.author) for part in parts] == separate
    assert majority.opinion_type == "majority" and majority.start == 0 and majority.end == parts[0].start
    assert text[parts[0].start :].startswith(first_heading)
    for before, after in itertools.pairwise(parts):
        assert before.end == after.start  # each separate opinion runs to the next heading
    assert len(parts[-1].text_of(text)) > 500 and len(majority.text_of(text)) > 2_000


def test_a_citation_of_a_separate_opinion_is_no_heading() -> None:
    text = (
        "The Court so held. Justice Holmes, dissenting in Gitlow v. New York, 268 U. S. 652, said otherwise. "
        "JUSTICE POWELL, concurring in the result, criticized the majority. See Grady, supra (Scalia, J., "
        "dissenting). It is so ordered.\n\nMR. JUSTICE STONE and MR. JUSTICE CARDOZO, concurring in the result:\n\n"
        "We concur in the result."
    )
    majority, *parts = split_combined(text)
    assert [(part.opinion_type, part.author, part.heading) for part in parts] == [
        ("concurrence", "STONE", "MR. JUSTICE STONE, concurring in the result")
    ]
    assert "Gitlow" in majority.text_of(text) and "criticized" in majority.text_of(text)


def test_the_built_database_holds_the_parts(db: CaseDatabase) -> None:
    rows = db.conn.execute(
        "SELECT opinion_id, part_of, part, opinion_type, is_majority, author, heading, spans FROM opinion_parts"
        " WHERE case_id = 'scotus:273_U.S._418' ORDER BY part"
    ).fetchall()
    combined_id = rows[0][1]
    assert [row[0] for row in rows] == [f"{combined_id}#{n}" for n in range(4)]
    assert [(row[3], row[4], row[5]) for row in rows] == [
        ("majority", 1, "SUTHERLAND"),  # the combined text's author
        ("dissent", 0, "HOLMES"),
        ("dissent", 0, "STONE"),
        ("dissent", 0, "SANFORD"),
    ]
    text = combined_text(db, "scotus:273_U.S._418")
    assert part_text(text, part_spans(rows[1][7])).startswith("MR. JUSTICE HOLMES, dissenting.")
    # the opinions table is as before (no count of opinions changes); the parts and the word index are apart
    counts = db.table_counts()
    assert counts["opinions"] == 1_722 and counts["opinion_parts"] > 1_000
    assert not any(name.startswith("opinion_text_") for name in counts)
    assert db.build_info()["rules_version"] == str(RULES_VERSION) == "5"


def quotations(text: str, db: CaseDatabase) -> list[QuotationVerdict]:
    found = extract_citations(text)
    return check_quotations(text, found, verify_citations(found, case_lookup_for(db)), db)


MIRANDA = "Miranda v. Arizona, 384 U.S. 436"
HARLAN = (
    "Nothing in the letter or the spirit of the Constitution or in the precedents squares with the heavy-handed and "
    "one-sided action that is so precipitously taken by the Court in the name of fulfilling its constitutional "
    "responsibilities."
)
WEST_COAST = "West Coast Hotel Co. v. Parrish, 300 U.S. 379"
SUTHERLAND = (
    "Under our form of government, where the written Constitution, by its own terms, is the supreme law, some agency, "
    "of necessity, must have the power to say the final word as to the validity of a statute assailed as unconstitutional."
)


@pytest.mark.parametrize(
    ("text", "verdict", "author", "page"),
    [
        # Miranda: the database has the Court's opinion, Clark's and White's as files, and Harlan's dissent only
        # inside other texts: after Clark's opinion in his file (CourtListener's 035concurrenceinpart), and in the
        # combined text
        (f"The Court held that “{HARLAN}” {MIRANDA}, 525-526 (1966).", "separate_opinion", "Harlan", 525),
        (f"“{HARLAN}” {MIRANDA}, 525-526 (1966) (Harlan, J., dissenting).", "verified", "Harlan", 525),
        # West Coast Hotel: one combined text, nothing else
        (f"As the Court explained, “{SUTHERLAND}” {WEST_COAST}, 401 (1937).", "separate_opinion", "Sutherland", 401),
        (f"“{SUTHERLAND}” {WEST_COAST}, 401 (1937) (Sutherland, J., dissenting).", "verified", "Sutherland", 401),
    ],
)
def test_a_dissent_held_only_in_a_combined_text(
    db: CaseDatabase, text: str, verdict: str, author: str, page: int
) -> None:
    (quotation,) = quotations(text, db)
    assert quotation.verdict == verdict, quotation.reason
    assert quotation.evidence is not None and quotation.evidence["author"] == author
    assert quotation.evidence["opinion_type"] == "dissent" and "#" in quotation.evidence["opinion_id"]
    assert quotation.page == page and quotation.pin_ok is True  # the part's page comes from the combined text
    if verdict == "separate_opinion":
        assert f"the dissent of {author.title()}" in quotation.reason and "as the Court's" in quotation.reason


def test_the_majority_part_is_the_courts(db: CaseDatabase) -> None:
    court = "The Constitution does not speak of freedom of contract."
    (quotation,) = quotations(f"The Court said: “{court}” {WEST_COAST}, 391 (1937).", db)
    assert quotation.verdict == "verified" and "opinion of the Court" in quotation.reason
    assert quotation.evidence is not None and quotation.evidence["opinion_type"] == "majority"


def test_a_database_built_before_the_parts_and_the_index_is_refused_with_one_message(tmp_path: Path) -> None:
    old = tmp_path / "old.sqlite"
    with sqlite3.connect(old) as conn:
        conn.executescript(
            "CREATE TABLE cases (case_id TEXT); CREATE TABLE case_citations (citation_key TEXT);"
            "CREATE TABLE facts (case_id TEXT); CREATE TABLE build_info (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
            "INSERT INTO build_info VALUES ('rules_version', '4');"
        )
    with pytest.raises(StaleCaseDatabase, match=r"split into their opinions.*lexprobe data build"):
        CaseDatabase(old)
    document = tmp_path / "brief.txt"
    document.write_text(f"“{HARLAN}” {MIRANDA}, 525 (1966).", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-c", ENTRY, "check", str(document), "--db", str(old)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 2 and "lexprobe data build" in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
