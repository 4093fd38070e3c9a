"""Quotation matching: normalization, ellipses, fuzzy threshold, short quotes, real opinions, speed."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from lexprobe.caselaw.query import CaseDatabase
from lexprobe.caselaw.quotations import MATCH_THRESHOLD
from lexprobe.hallucination.labels.quotation import MIN_QUOTE_WORDS, QuoteIndex

ELLIPSIS = re.compile(r"\.\s?\.\s?\.|…")

# --- matching on a small text -----------------------------------------------------------------------------------

OPINION = (
    "MR. CHIEF JUSTICE WARREN delivered the opinion of the Court.\n\n"
    "We come then to the question presented: Does segregation of children in public schools solely on the basis "
    'of race, even though the physical facilities and other "tangible" factors may be equal, deprive the children '
    "of the minority group of equal educational opportunities? We believe that it does.[11]\n\n"
    "We conclude that in the field of public education the doctrine of “separate but equal” has no place. Separate "
    "educational facilities are inherently unequal. Therefore, we hold that the plaintiffs and others similarly "
    "situated for whom the actions have been brought are, by reason of the segregation complained of, deprived of "
    "the equal protection of the laws guaranteed by the Four-\nteenth Amendment."
)


@pytest.fixture(scope="module")
def small() -> QuoteIndex:
    return QuoteIndex(OPINION)


@pytest.mark.parametrize(
    ("quote", "found"),
    [
        ('We conclude that in the field of public education the doctrine of "separate but equal" has no place.', True),
        ("we conclude that in the field of public education the doctrine of separate but equal has no place", True),
        ("Separate educational facilities are inherently unequal.", True),
        ("deprived of the equal protection of the laws guaranteed by the Fourteenth Amendment", True),  # hyphenation
        ("We conclude that ... separate educational facilities are inherently unequal.", True),  # ellipsis
        ("We conclude that … separate educational facilities are inherently unequal.", True),  # unicode ellipsis
        ("We conclude that . . . separate educational facilities are inherently unequal.", True),
        ("[T]he doctrine of separate but equal has no place.", True),  # alteration brackets
        ("We conclude that in the feild of public education the doctrine of separate but equal has no place.", True),
        ("Does segregation of children in public schools solely on the basis of race deprive the children?", False),
        ("Separate educational facilities are inherently unequal ... We conclude that in the field", False),  # order
        ("Segregation in public schools is unconstitutional and must end at once.", False),  # paraphrase
        ("We conclude that in the field of private education the rule of separate but equal has every place.", False),
    ],
)
def test_match_small_opinion(small: QuoteIndex, quote: str, found: bool) -> None:
    assert small.match(quote).found is found


@pytest.mark.parametrize("quote", ["separate but equal", "We believe it does.", "... no place ...", "", "  "])
def test_quotes_under_the_minimum_are_too_short(small: QuoteIndex, quote: str) -> None:
    result = small.match(quote)
    assert result.too_short and not result.found and result.words < MIN_QUOTE_WORDS


def test_match_reports_start_offset_and_similarity(small: QuoteIndex) -> None:
    result = small.match("Separate educational facilities are inherently unequal.")
    assert result.similarity == 100.0
    assert result.start is not None and OPINION[result.start :].startswith("Separate educational")
    near = small.match("Therefore, we hold that the plaintiffs and all others similarly situated for whom the actions")
    assert near.found and MATCH_THRESHOLD <= near.similarity < 100.0
    far = small.match("Separate dining facilities are sometimes perfectly equal.")
    assert not far.found and far.similarity < MATCH_THRESHOLD and far.start is None


# --- real opinions from the case database -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def db(case_db_path: Path) -> Iterator[CaseDatabase]:
    database = CaseDatabase(case_db_path)
    yield database
    database.close()


def _majority_text(db: CaseDatabase, case_id: str) -> str:
    row = db.conn.execute("SELECT majority_opinion_id FROM cases WHERE case_id = ?", (case_id,)).fetchone()
    assert row and row[0], f"{case_id} has no majority opinion in the case database"
    text = db.opinion_text(row[0])
    assert text
    return text


BROWN_LONG_QUOTE = (
    "Today, education is perhaps the most important function of state and local governments. Compulsory school "
    "attendance laws and the great expenditures for education both demonstrate our recognition of the importance "
    "of education to our democratic society. It is required in the performance of our most basic public "
    "responsibilities, even service in the armed forces. It is the very foundation of good citizenship."
)


@pytest.mark.parametrize(
    ("quote", "found"),
    [
        # regression: the original code regex-escaped the opinion text as well, so a verbatim quote with more than
        # about five spaces never matched; this one has 60
        (BROWN_LONG_QUOTE, True),
        (BROWN_LONG_QUOTE.upper(), True),
        (BROWN_LONG_QUOTE.replace(" ", "\n  "), True),
        ("We conclude that in the field of public education the doctrine of \"separate but equal\" has no place.",
         True),
        ("To separate them from others of similar age and qualifications solely because of their race generates a "
         "feeling of inferiority as to their status in the community that may affect their hearts and minds in a way "
         "unlikely ever to be undone.", True),
        ("Today, education is perhaps the most important function ... It is the very foundation of good citizenship.",
         True),
        ("To seperate them from others of similar age and qualifications soley because of their race generates a "
         "feeling of inferiority.", True),
        ("Segregation of white and colored children in public schools has a detrimental effect upon the colored "
         "children.", True),
        ("It is the very foundation of good citizenship ... Today, education is perhaps the most important function",
         False),
        ("The doctrine of separate but equal is hereby overruled in all its applications to public life.", False),
        ("Racial segregation in public education violates the Equal Protection Clause of the Fourteenth Amendment.",
         False),
    ],
)  # fmt: skip
def test_brown_v_board_quotes(db: CaseDatabase, quote: str, found: bool) -> None:
    index = QuoteIndex(_majority_text(db, "scotus:347_U.S._483"))
    assert index.match(quote).found is found


@pytest.mark.parametrize(
    ("quote", "found"),
    [
        # each spans a star-paging marker ("*390", "*392") in the CourtListener text
        ("We are of the opinion that this ruling of the state court demands on our part a reexamination of the "
         "Adkins case.", True),
        ("regulation which is reasonable in relation to its subject and is adopted in the interests of the community "
         "is due process. This essential limitation of liberty in general governs freedom of contract in particular.",
         True),
        ("We are of the opinion that this ruling of *390 the state court demands on our part a reexamination", True),
        ("The Constitution does not speak of freedom of contract. It speaks of liberty and prohibits the deprivation "
         "of liberty without due process of law.", True),
        ("Freedom of contract is an absolute right that no legislature may abridge for any reason.", False),
    ],
)  # fmt: skip
def test_west_coast_hotel_quotes_across_star_paging(db: CaseDatabase, quote: str, found: bool) -> None:
    index = QuoteIndex(_majority_text(db, "scotus:300_U.S._379"))
    assert index.match(quote).found is found


def _quotes_from(text: str, count: int, seed: int) -> list[tuple[str, bool]]:
    """Return `count` (quote, expected found) pairs: verbatim spans, one-word typos, and shuffled fakes.

    Spans holding the opinion's own ellipses are skipped: those split a quote into short fragments, where a single
    typo rightly falls below the threshold."""
    rng = random.Random(seed)
    words = text.split()
    quotes: list[tuple[str, bool]] = []
    while len(quotes) < count:
        i = len(quotes)
        length = rng.randint(8, 40)
        start = rng.randrange(0, len(words) - length)
        span = words[start : start + length]
        if ELLIPSIS.search(" ".join(span)):
            continue
        kind = i % 4
        if kind == 3:
            fake = span[:]
            rng.shuffle(fake)
            quotes.append((" ".join(fake), False))
        elif kind == 2 and length >= 20:
            typo = span[:]
            position = rng.randrange(len(typo))
            typo[position] = typo[position][::-1] if len(typo[position]) > 3 else typo[position]
            quotes.append((" ".join(typo), True))
        else:
            quotes.append((" ".join(span), True))
    return quotes


def test_1000_quotes_on_a_100k_character_opinion(db: CaseDatabase) -> None:
    """Correctness on a long opinion (its speed is measured in bench/scoring.py, not here)."""
    text = _majority_text(db, "scotus:376_U.S._254")  # New York Times Co. v. Sullivan, about 100,000 characters
    assert 90_000 <= len(text) <= 120_000
    quotes = _quotes_from(text, 1000, seed=7)
    index = QuoteIndex(text)
    results = [index.match(quote) for quote, _ in quotes]
    for (quote, expected), result in zip(quotes, results, strict=True):
        if expected:
            assert result.found, quote
    # a shuffled span shares words but not their order; almost none should pass
    fakes = [result.found for (_, expected), result in zip(quotes, results, strict=True) if not expected]
    assert sum(fakes) <= len(fakes) // 50
