"""Issue #46, item 4: the parentheticals after a citation allow what they say when the quotation is matched. A
quotation that silently leaves out the case citations inside the quoted passage (Katz v. United States, 389 U. S.
351: "... not a subject of Fourth Amendment protection. See Lewis v. United States, 385 U. S. 206, 210; United
States v. Lee, 274 U. S. 559, 563. But what he seeks ...") is verified after "(citations omitted)" or "(cleaned up)"
and stays a difference without; "(alteration in original)" makes brackets the original's text (Terry v. Ohio, 392
U. S. 21: "balancing the need to search [or seize] against ..."), not a gap; "(internal quotation marks omitted)",
"(emphasis added)", "(brackets omitted)" and "(footnote omitted)" change nothing the normalization does not already
allow. Without any of them, a quotation dropping words without an ellipsis stays `altered`."""

# ruff: noqa: E501 (the tables hold whole sentences as a brief writes them)
from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from lexprobe.caselaw.query import CaseDatabase
from lexprobe.check.extract import extract_citations
from lexprobe.check.parentheticals import (
    BRACKETS,
    CITATIONS,
    CLEANED_UP,
    EMPHASIS,
    FOOTNOTES,
    LITERAL_BRACKETS,
    QUOTATION_MARKS,
    allowances,
)
from lexprobe.check.quotations import find_quotations
from lexprobe.check.quote_verdicts import QuotationVerdict, check_quotations
from lexprobe.check.verify import case_lookup_for, verify_citations

KATZ = "Katz v. United States, 389 U. S. 347, 351 (1967)"
WITHOUT_CITATIONS = (
    "What a person knowingly exposes to the public, even in his own home or office, is not a subject of Fourth "
    "Amendment protection. But what he seeks to preserve as private, even in an area accessible to the public, may "
    "be constitutionally protected."
)
TERRY = "Terry v. Ohio, 392 U. S. 1, 21 (1968)"
ORIGINAL_BRACKETS = "no ready test for determining reasonableness other than by balancing the need to search [or seize] against the invasion which the search [or seizure] entails"
CHANGED_BRACKETS = "no ready test for determining reasonableness other than by balancing the need to search [or arrest] against the invasion which the search [or seizure] entails"
INNER_MARKS = "“first to focus upon the governmental interest which allegedly justifies official intrusion upon the constitutionally protected interests of the private citizen,”"
DROPPED_WORDS = "the police officer must be able to point to specific facts which, taken together with rational inferences from those facts, reasonably warrant that intrusion"


@pytest.fixture(scope="module")
def db(case_db_path: Path) -> Iterator[CaseDatabase]:
    database = CaseDatabase(case_db_path)
    yield database
    database.close()


def only(text: str, db: CaseDatabase) -> QuotationVerdict:
    found = extract_citations(text)
    result = check_quotations(text, found, verify_citations(found, case_lookup_for(db)), db)
    assert len(result) == 1, result
    return result[0]


CASES = [
    # (what it shows, quotation, citation, parenthetical, verdict)
    ("dropped citations, no parenthetical", WITHOUT_CITATIONS, KATZ, "", "not_found"),
    ("(citations omitted)", WITHOUT_CITATIONS, KATZ, " (citations omitted)", "verified"),
    ("(internal citations omitted)", WITHOUT_CITATIONS, KATZ, " (internal citations omitted)", "verified"),
    ("(citation omitted)", WITHOUT_CITATIONS, KATZ, " (citation omitted)", "verified"),
    (
        "(internal quotation marks and citations omitted)",
        WITHOUT_CITATIONS,
        KATZ,
        " (internal quotation marks and citations omitted)",
        "verified",
    ),
    ("(cleaned up)", WITHOUT_CITATIONS, KATZ, " (cleaned up)", "verified"),
    ("(emphasis added) allows no dropped citation", WITHOUT_CITATIONS, KATZ, " (emphasis added)", "not_found"),
    ("(citations omitted) after Id.", WITHOUT_CITATIONS, "Id., at 351", " (citations omitted)", "verified"),
    ("brackets as gaps", CHANGED_BRACKETS, TERRY, "", "verified"),
    (
        "(alteration in original): brackets are the original's text",
        ORIGINAL_BRACKETS,
        TERRY,
        " (alteration in original)",
        "verified",
    ),
    (
        "(alteration in original) with a changed bracket",
        CHANGED_BRACKETS,
        TERRY,
        " (alteration in original)",
        "altered",
    ),
    ("(alterations in original)", CHANGED_BRACKETS, TERRY, " (alterations in original)", "altered"),
    (
        "(internal quotation marks omitted)",
        INNER_MARKS.strip("“”"),
        "Terry v. Ohio, 392 U. S. 1, 20-21 (1968)",
        " (internal quotation marks omitted)",
        "verified",
    ),
    (
        "inner quotation marks kept",
        INNER_MARKS.replace("“", "‘").replace("”", "’"),
        "Terry v. Ohio, 392 U. S. 1, 20-21 (1968)",
        "",
        "verified",
    ),
    ("(emphasis added)", ORIGINAL_BRACKETS, TERRY, " (emphasis added)", "verified"),
    ("(emphasis in original)", ORIGINAL_BRACKETS, TERRY, " (emphasis in original)", "verified"),
    (
        "(brackets omitted)",
        ORIGINAL_BRACKETS.replace("[", "").replace("]", ""),
        TERRY,
        " (brackets omitted)",
        "verified",
    ),
    (
        "(footnote omitted): across the opinion's footnote mark",
        "the conduct involved in this case must be tested by the Fourth Amendment's general proscription against unreasonable searches and seizures. Nonetheless, the notions which underlie both the warrant procedure and the requirement of probable cause remain fully relevant in this context",
        "Terry v. Ohio, 392 U. S. 1, 20 (1968)",
        " (footnote omitted)",
        "verified",
    ),
    ("words dropped without an ellipsis, no parenthetical", DROPPED_WORDS, TERRY, "", "altered"),
    ("words dropped without an ellipsis, (citations omitted)", DROPPED_WORDS, TERRY, " (citations omitted)", "altered"),
]


@pytest.mark.parametrize(
    ("what", "quotation", "citation", "parenthetical", "verdict"), CASES, ids=[c[0] for c in CASES]
)
def test_parentheticals_allow_what_they_say(
    what: str, quotation: str, citation: str, parenthetical: str, verdict: str, db: CaseDatabase
) -> None:
    lead = f"{KATZ}. The Court went on. " if citation.startswith("Id.") else ""
    result = only(f"{lead}“{quotation}” {citation}{parenthetical}.", db)
    assert result.verdict == verdict, (what, result.reason)
    if verdict == "verified" and ("citation" in parenthetical or "cleaned up" in parenthetical):
        assert "leaving out the opinion's citations" in result.reason, result.reason
    if verdict == "verified":
        assert result.pin_ok is True, (what, result.page, result.reason)


@pytest.mark.parametrize(
    ("parentheticals", "allowed"),
    [
        ("(citations omitted)", {CITATIONS}),
        ("(1990) (internal quotation marks and citations omitted)", {CITATIONS, QUOTATION_MARKS}),
        ("(alteration in original)", {LITERAL_BRACKETS}),
        ("(first alteration in original)", set()),
        ("(emphasis added) (footnote omitted)", {EMPHASIS, FOOTNOTES}),
        ("(brackets omitted)", {BRACKETS}),
        ("(cleaned up)", {CLEANED_UP, CITATIONS, QUOTATION_MARKS, BRACKETS}),
        ("(quoting Camara v. Municipal Court, 387 U. S. 523 (1967) (citations omitted))", {CITATIONS}),
        ("(Harlan, J., dissenting)", set()),
    ],
)
def test_allowances(parentheticals: str, allowed: set[str]) -> None:
    assert allowances(parentheticals) == allowed


def test_the_quotation_carries_its_citations_allowances() -> None:
    text = f"“{WITHOUT_CITATIONS}” {KATZ} (internal quotation marks and citations omitted) (emphasis added). “{WITHOUT_CITATIONS}” Id."
    first, second = find_quotations(text, extract_citations(text)).items
    assert first.allowances == {CITATIONS, QUOTATION_MARKS, EMPHASIS}
    assert second.allowances == frozenset()
