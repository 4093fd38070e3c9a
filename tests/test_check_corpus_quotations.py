"""Issue #46, item 5: a quotation that is not in its cited case is looked for in every opinion of the offline corpus
(`lexprobe.check.quote_verdicts.CorpusSearch`, through the word index the database build writes), not only in the other cases the
document cites: found there, it is `other_case` naming the case (name and citation) and the opinion; found nowhere,
`not_found` says the whole corpus was searched; a short phrase is never matched corpus-wide."""

# ruff: noqa: E501 (whole sentences as the opinions write them)
from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from lexprobe.caselaw.query import CaseDatabase
from lexprobe.check.extract import extract_citations
from lexprobe.check.quote_verdicts import (
    MIN_CORPUS_LETTERS,
    MIN_NOT_FOUND_WORDS,
    QuotationVerdict,
    check_quotations,
    word_pieces,
)
from lexprobe.check.verify import case_lookup_for, verify_citations

MONELL = "Monell v. Department of Social Services, 436 U.S. 658"
WEST_COAST = "The Constitution does not speak of freedom of contract. It speaks of liberty and prohibits the deprivation of liberty without due process of law."
HARLAN = (
    "Nothing in the letter or the spirit of the Constitution or in the precedents squares with the heavy-handed and "
    "one-sided action that is so precipitously taken by the Court in the name of fulfilling its constitutional "
    "responsibilities."
)


@pytest.fixture(scope="module")
def db(case_db_path: Path) -> Iterator[CaseDatabase]:
    database = CaseDatabase(case_db_path)
    yield database
    database.close()


def only(text: str, db: CaseDatabase) -> QuotationVerdict:
    found = extract_citations(text)
    (quotation,) = check_quotations(text, found, verify_citations(found, case_lookup_for(db)), db)
    return quotation


def test_a_quotation_of_a_case_the_document_does_not_cite_is_named(db: CaseDatabase) -> None:
    # West Coast Hotel's words given to Monell; the document cites nothing else
    quotation = only(f"The Court held that “{WEST_COAST}” {MONELL}, 690 (1978).", db)
    assert quotation.verdict == "other_case", quotation.reason
    assert "West Coast Hotel Co. v. Parrish, 300 U.S. 379 (1937)" in quotation.reason
    assert "in the opinion of the Court of West Coast Hotel" in quotation.reason
    assert (
        "the whole offline corpus" not in quotation.reason and "opinion texts of the offline corpus" in quotation.reason
    )
    assert quotation.evidence is not None and quotation.evidence["case_id"] == "scotus:300_U.S._379"
    assert quotation.evidence["case"] == "West Coast Hotel Co. v. Parrish" and quotation.page == 391


def test_the_opinion_found_in_is_named(db: CaseDatabase) -> None:
    # Harlan's dissent in Miranda (held inside other texts of the case: split at the build), given to Monell; the
    # source prints a star page mark inside the passage ("precipitously *526 taken")
    quotation = only(f"“{HARLAN}” {MONELL}, 700 (1978).", db)
    assert quotation.verdict == "other_case", quotation.reason
    assert "the dissent of Harlan" in quotation.reason and "Miranda v. Arizona, 384 U.S. 436 (1966)" in quotation.reason
    assert quotation.evidence is not None and quotation.evidence["opinion_type"] == "dissent"


def test_the_cases_the_document_cites_are_searched_first(db: CaseDatabase) -> None:
    text = f"See West Coast Hotel Co. v. Parrish, 300 U.S. 379 (1937). But “{WEST_COAST}” {MONELL}, 690 (1978)."
    found = extract_citations(text)
    (quotation,) = check_quotations(text, found, verify_citations(found, case_lookup_for(db)), db)
    assert (
        quotation.verdict == "other_case" and "searched first: the other cases this document cites" in quotation.reason
    )


@pytest.mark.parametrize(
    ("quotation_text", "verdict", "reason"),
    [
        # words of a real passage, shuffled: in no opinion (the cited case's own text is closest)
        ("liberty speaks of It and deprivation prohibits the of contract without liberty freedom of due process",
         "not_found", "nor anywhere in all 1,722 opinion texts of the offline corpus"),
        # invented words
        ("the municipal corporation shall answer for every lamppost its aldermen ever failed to paint",
         "not_found", "nor anywhere in all 1,722 opinion texts of the offline corpus"),
        # fewer than MIN_NOT_FOUND_WORDS words, in many opinions: a phrase, not a quotation of another case
        ("separate educational facilities", "unverifiable", "too short to tell"),
        # four words but fewer than MIN_CORPUS_LETTERS letters: not looked for outside the cited cases
        ("with all deliberate speed", "not_found", "too short to look for in the whole corpus"),
    ],
)  # fmt: skip
def test_what_is_not_matched_corpus_wide(db: CaseDatabase, quotation_text: str, verdict: str, reason: str) -> None:
    quotation = only(f"The Court said that “{quotation_text}” {MONELL}, 690 (1978).", db)
    assert quotation.verdict == verdict and reason in quotation.reason, quotation.reason
    letters = sum(character.isalpha() for character in quotation_text)
    if verdict == "unverifiable":
        assert len(quotation_text.split()) < MIN_NOT_FOUND_WORDS
    elif "too short" in reason:
        assert letters < MIN_CORPUS_LETTERS


def test_the_words_asked_of_the_index() -> None:
    assert word_pieces("[T]he Court . . . held [that the statute] applies (emphasis added)") == [
        ["the", "court"],
        ["held"],
        ["applies"],
    ]
    assert word_pieces("The Court’s “separate but equal” rule … is gone; Brown, décidé") == [
        ["the", "court", "s", "separate", "but", "equal", "rule"],
        ["is", "gone", "brown", "decide"],
    ]
