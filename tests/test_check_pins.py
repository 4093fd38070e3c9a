"""Issue #46, item 3: pin cites in the forms briefs write them ("at 641-42", "641–642", "641 - 42", "641 n. 3", "641,
643", spaced "U. S."), after full citations, short forms, "Id." and "supra", give `pin_ok` True or False (never None)
when the opinion text has page marks: a passage starting inside the pinned range is on the pin, one crossing a page
break counts as on its first page. Real passages of Terry v. Ohio, 392 U. S. 1 (on page 21) and Katz v. United
States, 389 U. S. 347 (from page 351 onto 352), as the case database holds them."""

# ruff: noqa: E501 (the tables hold whole sentences as a brief writes them)
from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from lexprobe.caselaw.query import CaseDatabase
from lexprobe.check.extract import extract_citations, pin_ranges, read_pin
from lexprobe.check.quote_verdicts import QuotationVerdict, check_quotations
from lexprobe.check.verify import case_lookup_for, verify_citations

ON_21 = "And in justifying the particular intrusion the police officer must be able to point to specific and articulable facts which, taken together with rational inferences from those facts, reasonably warrant that intrusion."
CROSSING = "But what he seeks to preserve as private, even in an area accessible to the public, may be constitutionally protected."
TERRY = "Terry v. Ohio, 392 U. S. 1"
KATZ = "Katz v. United States, 389 U. S. 347"
EARLIER = f"{TERRY}, 30 (1968). The Court went on at length."


@pytest.fixture(scope="module")
def db(case_db_path: Path) -> Iterator[CaseDatabase]:
    database = CaseDatabase(case_db_path)
    yield database
    database.close()


def last_quotation(text: str, db: CaseDatabase) -> QuotationVerdict:
    found = extract_citations(text)
    result = check_quotations(text, found, verify_citations(found, case_lookup_for(db)), db)
    assert result, text
    return result[-1]


PINS = [
    # (the pin form, the document, pin_ok); the quotation is on page 21 of Terry
    ("a page", f"“{ON_21}” {TERRY}, 21 (1968).", True),
    ("the wrong page", f"“{ON_21}” {TERRY}, 22 (1968).", False),
    ("at a page", f"{EARLIER} “{ON_21}” Terry, 392 U. S., at 21.", True),
    ("a range, hyphen, shortened", f"“{ON_21}” {TERRY}, 20-21 (1968).", True),
    ("a range, en dash, in full", f"“{ON_21}” {TERRY}, 21–22 (1968).", True),
    ("a range, em dash", f"“{ON_21}” {TERRY}, 21—22 (1968).", True),
    ("a range, hyphen, in full", f"“{ON_21}” {TERRY}, 21-22 (1968).", True),
    ("a range, spaced hyphen", f"“{ON_21}” {TERRY}, 20 - 21 (1968).", True),
    ("a range it starts after", f"“{ON_21}” {TERRY}, 18-20 (1968).", False),
    ("a footnote on the page", f"“{ON_21}” {TERRY}, 21 n. 18 (1968).", True),
    ("at a page and footnote", f"{EARLIER} “{ON_21}” Id. at 21 n. 18.", True),
    ("a list: on one of them", f"“{ON_21}” {TERRY}, 19, 21 (1968).", True),
    ("a list: on none of them", f"“{ON_21}” {TERRY}, 19, 23 (1968).", False),
    ("unspaced U.S.", f"“{ON_21}” Terry v. Ohio, 392 U.S. 1, 21 (1968).", True),
    ("Id. at", f"{EARLIER} “{ON_21}” Id. at 21.", True),
    ("Id., at a range with an en dash", f"{EARLIER} “{ON_21}” Id., at 20–21.", True),
    ("Id., at a shortened range", f"{EARLIER} “{ON_21}” Id., at 21-22.", True),
    ("Id., at the wrong page", f"{EARLIER} “{ON_21}” Id., at 25.", False),
    ("See id.", f"{EARLIER} “{ON_21}” See id., at 21.", True),
    ("short form, spaced range", f"{EARLIER} “{ON_21}” Terry, 392 U. S., at 20 - 21.", True),
    ("short form without at", f"{EARLIER} “{ON_21}” Terry, 392 U. S., 21.", True),
    ("supra, en dash range", f"{EARLIER} “{ON_21}” Terry, supra, at 21–22.", True),
    (
        "Id. after a (quoting ...) parenthetical",
        f"{TERRY}, 30 (1968) (quoting Camara v. Municipal Court, 387 U. S. 523, 536-537 (1967)). The Court went on. “{ON_21}” Id. at 21.",
        True,
    ),
    # a passage from page 351 onto 352 counts as on 351
    ("crossing a page break: its first page", f"“{CROSSING}” {KATZ}, 351 (1967).", True),
    ("crossing a page break: its second page only", f"“{CROSSING}” {KATZ}, 352 (1967).", False),
    ("crossing a page break: the range", f"“{CROSSING}” {KATZ}, 351-52 (1967).", True),
]


@pytest.mark.parametrize(("form", "text", "pin_ok"), PINS, ids=[row[0] for row in PINS])
def test_pin_forms(form: str, text: str, pin_ok: bool, db: CaseDatabase) -> None:
    result = last_quotation(text, db)
    assert result.verdict == "verified", (form, result.reason)
    assert result.pin_ok is pin_ok, (form, result.page, result.reason)
    assert result.page == (351 if "crossing" in form else 21)


def test_the_pin_of_a_quoting_parenthetical_when_the_cited_case_has_no_text(db: CaseDatabase) -> None:
    """Illinois v. Wardlow (in the database, without opinion text) quoting Terry: the words are Terry's, checked
    there with Terry's pin."""
    quoted = "inchoate and unparticularized suspicion or ‘hunch’"
    for pin, ok in (("27", True), ("30", False)):
        text = f"The officer needs more than an “{quoted}.” Illinois v. Wardlow, 528 U. S. 119, 124 (2000) (quoting {TERRY}, {pin} (1968))."
        result = last_quotation(text, db)
        assert result.verdict == "verified" and result.page == 27 and result.pin_ok is ok, result.reason
        assert result.reason.startswith("checked against Terry v. Ohio")


def test_a_case_named_without_a_pin_gives_no_pin_verdict(db: CaseDatabase) -> None:
    """ "In Terry, the Court said that “...”": the name carries no pin, so the full citation's pin is not the
    quotation's."""
    result = last_quotation(f"{TERRY}, 30 (1968). The rule is old. In Terry, the Court said that “{ON_21}”", db)
    assert result.verdict == "verified" and result.page == 21 and result.pin_ok is None


READ = [
    # (kind, the citation's core, what follows it, the pin read)
    ("full", "392 U. S. 1", ", 641-42 (1968)", "641-42"),
    ("full", "392 U. S. 1", ", 641–642 (1968)", "641–642"),
    ("full", "392 U. S. 1", ", 641 - 42 (1968)", "641 - 42"),
    ("full", "392 U. S. 1", ", 641 n. 3 (1968)", "641 n. 3"),
    ("full", "392 U. S. 1", ", 641, 643 (1968)", "641, 643"),
    ("full", "392 U. S. 1", ", 641-42, 644, and n. 5 (1968)", "641-42, 644, and n. 5"),
    ("full", "347 U. S. 483", ", 495, 74 S. Ct. 686 (1954)", "495"),
    ("full", "347 U. S. 483", ", 74 S. Ct. 686 (1954)", None),
    ("full", "347 U. S. 483", " (1954)", None),
    ("short", "392 U. S., at 641", "-42.", "641-42"),
    ("short", "392 U. S.", " at 641 & n. 3.", "641 & n. 3"),
    ("id", "Id.", ", at 641–642.", "641–642"),
    ("id", "Id.", " at 5.", "5"),
    ("id", "Id.", " at *5.", "*5"),
    ("id", "Ibid.", " The Court", None),
    ("supra", "supra,", " at 641 - 42.", "641 - 42"),
    ("supra", "supra,", " p. 277.", "277"),
]


@pytest.mark.parametrize(("kind", "core", "after", "pin"), READ)
def test_read_pin(kind: str, core: str, after: str, pin: str | None) -> None:
    text = core + after
    read = read_pin(text, kind, 0, len(core), "U. S." if kind == "short" else None)
    assert (read[0] if read else None) == pin
    if read:
        assert text[read[1] - len(pin) : read[1]] == pin


@pytest.mark.parametrize(
    ("pin", "ranges"),
    [
        ("641", [(641, 641)]),
        ("at 641-42", [(641, 642)]),
        ("641–642", [(641, 642)]),
        ("641 - 42", [(641, 642)]),
        ("641 n. 3", [(641, 641)]),
        ("641, 643", [(641, 641), (643, 643)]),
        ("641-42, 644 & nn. 3-4", [(641, 642), (644, 644)]),
        ("99-101", [(99, 101)]),
        ("*5", []),
        (None, []),
    ],
)
def test_pin_ranges(pin: str | None, ranges: list[tuple[int, int]]) -> None:
    assert pin_ranges(pin) == ranges
