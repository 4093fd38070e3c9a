"""Issue #34, quotations: quoted passages attributed to a citation, looked for in the real opinion texts of the case
database (Monell v. Department of Social Services, 436 U.S. 658, whose opinion of the Court, concurrence and
dissent are separate texts with star paging; Brown v. Board of Education, 347 U.S. 483, one combined text)."""

# ruff: noqa: E501 (the table holds whole sentences as a brief writes them)
from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from lexprobe.caselaw.query import CaseDatabase
from lexprobe.caselaw.quote_text import quote_segments
from lexprobe.check.extract import extract_citations
from lexprobe.check.quotations import CHECKED_CHARS, find_quotations, quoted_passages
from lexprobe.check.quote_verdicts import QuotationVerdict, check_quotations
from lexprobe.check.verify import case_lookup_for, verify_citations

MONELL = "Monell v. Department of Social Services, 436 U.S. 658"
HELD = "Congress did intend municipalities and other local government units to be included among those persons to whom § 1983 applies."
DISSENT = "the 42d Congress did not intend to subject a municipal corporation to liability"


@pytest.fixture(scope="module")
def db(case_db_path: Path) -> Iterator[CaseDatabase]:
    database = CaseDatabase(case_db_path)
    yield database
    database.close()


def quotations(text: str, db: CaseDatabase) -> list[QuotationVerdict]:
    found = extract_citations(text)
    return check_quotations(text, found, verify_citations(found, case_lookup_for(db)), db)


def only(text: str, db: CaseDatabase) -> QuotationVerdict:
    result = quotations(text, db)
    assert len(result) == 1, result
    return result[0]


CASES = [
    # (what it shows, text, verdict, page, pin_ok)
    ("straight quotes, pin page right", f'"{HELD}" {MONELL}, 690 (1978).', "verified", 690, True),
    (
        "curly quotes and a line break",
        f"“Congress did intend municipalities\nand other local government units to be included among those persons to whom § 1983 applies.” {MONELL}, 690 (1978).",
        "verified",
        690,
        True,
    ),
    (
        "a star page mark inside a word",
        f"“may be sued for constitutional deprivations visited pursuant to governmental custom” {MONELL}, 690-691 (1978).",
        "verified",
        690,
        True,
    ),
    (
        "footnote markers and a hyphenated line end in the opinion",
        f"“Local governing bodies, therefore, can be sued directly under § 1983 for monetary, declaratory, or injunctive relief” {MONELL}, 690 (1978).",
        "verified",
        690,
        True,
    ),
    (
        "an ellipsis and a one-letter alteration",
        f"“[l]ocal governments . . . may be sued for constitutional deprivations.” {MONELL}, 690 (1978).",
        "verified",
        690,
        True,
    ),
    (
        "a bracketed insertion",
        f"“[Such bodies] may be sued for constitutional deprivations visited pursuant to governmental custom” {MONELL}, 690 (1978).",
        "verified",
        690,
        True,
    ),
    (
        "a nested quotation",
        f"“local governments, like every other § 1983 ‘person,’ by the very terms of the statute, may be sued” {MONELL}, 690 (1978).",
        "verified",
        690,
        True,
    ),
    (
        "(emphasis added) and (internal quotation marks omitted)",
        f"“Local governing bodies . . . can be sued directly (emphasis added)” {MONELL}, 690 (1978) (internal quotation marks omitted).",
        "verified",
        690,
        True,
    ),
    ("a wrong pin page", f'"{HELD}" {MONELL}, 700 (1978).', "verified", 690, False),
    ("a changed word", f'"{HELD.replace("did intend", "did not intend")}" {MONELL}, 690 (1978).', "altered", 690, True),
    (
        "a dissent given as the Court's",
        f"The Court said “{DISSENT}.” {MONELL}, 714 (1978).",
        "separate_opinion",
        714,
        True,
    ),
    (
        "a dissent given as a dissent",
        f"“{DISSENT}.” {MONELL}, 714 (1978) (Rehnquist, J., dissenting).",
        "verified",
        714,
        True,
    ),
    (
        "an invented quotation",
        f"“municipalities are always liable for every act of every employee they hire” {MONELL}, 691 (1978).",
        "not_found",
        None,
        None,
    ),
    (
        "a case without opinion text offline",
        "“a passage the court never had to write down for us” Smith v. Jones, 100 F.3d 1, 5 (9th Cir. 1996).",
        "unverifiable",
        None,
        None,
    ),
]


@pytest.mark.parametrize(("what", "text", "verdict", "page", "pin_ok"), CASES, ids=[case[0] for case in CASES])
def test_quotation_verdicts(db: CaseDatabase, what: str, text: str, verdict: str, page, pin_ok) -> None:
    result = only(text, db)
    assert result.verdict == verdict, (what, result.reason)
    if page is not None:
        assert result.page == page, result.reason
    assert result.pin_ok is pin_ok, result.reason
    assert result.citation == 0
    assert text[result.span[0]] in '"“' and text[result.span[1] - 1] in '"”'


def test_reasons_and_evidence(db: CaseDatabase) -> None:
    altered = only(f'"{HELD.replace("did intend", "did not intend")}" {MONELL}, 690 (1978).', db)
    assert "“not” added" in altered.reason and altered.evidence["opinion_type"] == "lead"
    assert altered.evidence["author"] == "Brennan" and "did intend municipalities" in altered.evidence["passage"]
    dissent = only(f"The Court said “{DISSENT}.” {MONELL}, 714 (1978).", db)
    assert dissent.evidence["author"] == "Rehnquist" and dissent.evidence["opinion_type"] == "dissent"
    assert "dissent of Rehnquist" in dissent.reason and "as the Court's" in dissent.reason
    invented = only(f"“municipalities are always liable for every act of every employee they hire” {MONELL}, 691.", db)
    assert "closest passage" in invented.reason and 0 < invented.evidence["similarity"] < 88
    wrong_pin = only(f'"{HELD}" {MONELL}, 700 (1978).', db)
    assert "not on the pin page 700" in wrong_pin.reason
    json = wrong_pin.to_json(citation_offset=3)
    assert set(json) == {"text", "span", "citation", "verdict", "page", "pin_ok", "reason", "evidence"}
    assert json["citation"] == 3 and json["text"] == HELD


def test_short_forms_id_supra_and_attribution_before(db: CaseDatabase) -> None:
    text = (
        # (an "Id." right after "§ 1983" would refer to the statute: eyecite's rule, so the first quotation has none)
        f"In {MONELL}, 690 (1978), the Court held that “local governments . . . may be sued.” Later: “{DISSENT}.” "
        "Id. at 714 (Rehnquist, J., "
        f"dissenting). Again: “[l]ocal governments . . . may be sued for constitutional deprivations.” Monell, 436 "
        "U.S., at 690. And once more “may be sued for constitutional deprivations visited pursuant to governmental "
        "custom.” Monell, supra, at 690."
    )
    found = extract_citations(text)
    result = quotations(text, db)
    assert [q.verdict for q in result] == ["verified"] * 4
    assert [found[q.citation].kind for q in result] == ["full", "id", "short", "supra"]


def test_other_case_combined_text_and_quoting(db: CaseDatabase) -> None:
    text = (
        "“Separate educational facilities are inherently unequal.” Brown v. Board of Education, 347 U.S. 483, 495 "
        f"(1954). But see {MONELL}, 690 (1978) (“Separate educational facilities are inherently unequal.”). "
        f"Finally, “{HELD}” Smith v. Jones, 100 F.3d 1, 5 (9th Cir. 1996) (quoting {MONELL}, 690 (1978))."
    )
    brown, other, quoting = quotations(text, db)
    assert brown.verdict == "verified" and "one combined text" in brown.reason
    assert brown.page == 495 and brown.pin_ok is True  # the star paging of the raw CourtListener HTML is kept
    assert other.verdict == "other_case" and "Brown" in other.reason and other.evidence["case_id"].endswith("483")
    # attributed to Smith (not in the database); the text it quotes is Monell's, checked there with Monell's pin
    # (issue 46: a "(quoting ...)" parenthetical's case is read when the cited case has no text)
    assert quoting.citation == 2 and quoting.verdict == "verified" and quoting.pin_ok is True
    assert quoting.reason.startswith("checked against Monell") and "Smith v. Jones" in quoting.reason


def test_block_quote(db: CaseDatabase) -> None:
    text = (
        "The Court explained:\n\n    Local governing bodies, therefore, can be sued directly under § 1983 for "
        "monetary,\n    declaratory, or injunctive relief where, as here, the action that is alleged\n    to be "
        f"unconstitutional implements or executes a policy statement.\n\n{MONELL}, 690 (1978).\n"
    )
    result = only(text, db)
    assert result.verdict == "verified" and result.page == 690 and result.text.startswith("Local governing")


def test_normalisation_pieces() -> None:
    assert quote_segments("[t]he Court . . . held [that the statute] applies (emphasis added)") == [
        "thecourt",
        "held",
        "applies",
    ]
    assert quote_segments("“It is … so” ordered") == ["itis", "soordered"]
    assert quote_segments("a b") == []


def test_unbalanced_quotes_do_not_swallow_the_document(db: CaseDatabase) -> None:
    text = f'A straight mark that never closes: "oops. A stray ” mark. Then “{HELD}” {MONELL}, 690 (1978).'
    assert [text[a:b] for a, b in quoted_passages(text)] == [f"“{HELD}”"]
    result = only(text, db)
    assert result.verdict == "verified" and result.text == HELD
    assert quoted_passages("“never closed " * 1000) == []
    nested_unclosed = f"“an inner “mark that opens twice {HELD}” {MONELL}, 690 (1978)."
    # the first mark never closes and is skipped; the second opens the one quotation read
    (inner,) = quotations(nested_unclosed, db)
    assert inner.span[0] == nested_unclosed.index("“mark") and inner.verdict == "altered"


def test_a_ten_megabyte_quotation_is_cut_and_said_so(db: CaseDatabase) -> None:
    body = HELD + " " + "word " * 2_100_000
    text = f"“{body}” {MONELL}, 690 (1978)."
    result = only(text, db)
    assert result.reason.endswith(f"only its first {CHECKED_CHARS:,} characters were checked: it is longer)")
    assert len(result.text) <= 5_001 and result.span == (0, len(body) + 2)


def test_thousands_of_citations_on_one_line(db: CaseDatabase) -> None:
    line = f"“{HELD}” {MONELL}, 690 (1978); " + "; ".join(f"Monell, 436 U.S. at {660 + i % 40}" for i in range(2000))
    found = extract_citations(line)
    assert len(found) > 1000
    items = find_quotations(line, found).items
    assert len(items) == 1 and items[0].citation == 0
    assert quotations(line, db)[0].verdict == "verified"


def test_a_paragraph_before_one_that_starts_with_a_citation_is_not_a_block_quote(db: CaseDatabase) -> None:
    text = (
        "Municipal liability was long thought impossible under the statute, and the lower courts said so often.\n\n"
        f"{MONELL} (1978), changed that: it held that local governments are persons under the statute and may be "
        "sued for their own policies and customs, though not on a theory of respondeat superior.\n"
    )
    assert quotations(text, db) == []
