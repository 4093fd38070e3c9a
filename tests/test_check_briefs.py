"""Issue #46: two brief excerpts written for these tests in the forms briefs use (spaced "U. S.", pin ranges, short
forms, supra, "Id." chains, a two-deep "(quoting ...)" chain, citations before the quotation, a case named before it,
"See also" after a sentence naming its source, block quotations, footnotes, "(citations omitted)", "(alteration in
original)"), quoting real passages of the opinions the case database holds, with a few deliberate errors (a wrong pin,
a changed word, a dissent or concurrence presented as the Court's, words of another cited case, invented words, cases
without opinion text). Each quotation's verdict, page and pin were checked by hand against the opinion texts; the
sidecar JSON beside each text holds them, with why. The checker must give every one."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from lexprobe.caselaw.query import CaseDatabase
from lexprobe.check.extract import extract_citations
from lexprobe.check.quote_verdicts import check_quotations
from lexprobe.check.verify import case_lookup_for, verify_citations

BRIEFS = Path(__file__).parent / "data" / "briefs"
FOUND_IN_THE_CASE = ("verified", "altered", "separate_opinion")


@pytest.fixture(scope="module")
def db(case_db_path: Path) -> Iterator[CaseDatabase]:
    database = CaseDatabase(case_db_path)
    yield database
    database.close()


@pytest.mark.parametrize("name", ["suppression_memo", "first_amendment_brief"])
def test_the_checker_gives_every_hand_checked_verdict_and_pin(name: str, db: CaseDatabase) -> None:
    text = (BRIEFS / f"{name}.txt").read_text(encoding="utf-8")
    expected = json.loads((BRIEFS / f"{name}.json").read_text(encoding="utf-8"))["quotations"]
    found = extract_citations(text)
    got = check_quotations(text, found, verify_citations(found, case_lookup_for(db)), db)
    assert len(expected) >= 15
    assert [" ".join(q.text.split())[:60] for q in got] == [row["quotation"] for row in expected]
    for quotation, row in zip(got, expected, strict=True):
        facts = (found[quotation.citation].text, quotation.verdict, quotation.pin_ok)
        assert facts == (row["citation"], row["verdict"], row["pin_ok"]), (row["why"], quotation.reason)
        if row["verdict"] in FOUND_IN_THE_CASE:  # the page of a passage found elsewhere is that case's
            assert quotation.page == row["page"], (row["why"], quotation.reason)
