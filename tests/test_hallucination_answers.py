"""Answer extractors and the answer reader: lenient where the meaning is clear, None where it is not.

The one-value tasks are read by `lexprobe.hallucination.reader` (the value an answer gives as its answer); these
tables, written for the extractors it replaced, run through it unchanged except where the reader's value says more
(a split disposition is "mixed", a decade a `VagueYear`; both still score unscored).
"""

from __future__ import annotations

import pytest

from lexprobe.hallucination.labels.answers import extract_existence, extract_year
from lexprobe.hallucination.labels.answers import extract_yes_no as yes_no
from lexprobe.hallucination.tasks.base import reading_of


def _value(task: str):
    """Return the reader of `task` as a function giving the chosen value."""
    read = reading_of(task)
    return lambda answer: read(answer).value


extract_disposition = _value("disposition")
extract_agreement = _value("doctrinal_agreement")
extract_court = _value("court")
extract_citation = _value("citation")
extract_judge_name = _value("author")
read_overruling_year = _value("overruling_year")
extract_quote = _value("quotation")


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # regression: the original code compared the whole answer with "yes", so this was a hallucination
        ("Yes, it is a real case.", True),
        ("Yes", True),
        ("yes.", True),
        ("YES", True),
        ("Answer: Yes", True),
        ("**Yes**", True),
        ("Yes.\n\nBrown v. Board of Education is a landmark decision.", True),
        # a few-shot continuation is not part of the answer
        ("Yes\n\nCase: Smith v. Jones, 999 U.S. 1 (1990)\nAnswer: No", True),
        ("No\n```\nCase: Brown v. Board of Education, 347 U.S. 483 (1954)\nAnswer: Yes", False),
        ("The answer is yes.", True),
        ("I'm not sure, but yes.", True),
        ("Yep", True),
        ("No.", False),
        ("no", False),
        ("No, this case does not exist.", False),
        ("Nope.", False),
        ("I would say no.", False),
        ("Yes and no", None),
        ("Yes or no?", None),
        ("No. Yes.", None),
        ("Maybe", None),
        ("There is no doubt it is real.", None),
        ("Brown v. Board of Education is a landmark decision.", None),
        ("", None),
    ],
)
def test_extract_yes_no(answer: str, expected: bool | None) -> None:
    assert yes_no(answer) is expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("Yes, it is a real case.", True),
        ("It is a real case.", True),
        ("Brown v. Board of Education is indeed a real Supreme Court case.", True),
        ("The case exists.", True),
        ("This case does not exist.", False),
        ("It is not a real case.", False),
        ("Smith v. Jones appears to be a fictional case.", False),
        ("I have heard of it.", None),
    ],
)
def test_extract_existence(answer: str, expected: bool | None) -> None:
    assert extract_existence(answer) is expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("Affirmed.", "affirm"),
        ("Affirm", "affirm"),
        ("The Court affirmed", "affirm"),
        ("The Supreme Court affirmed the judgment of the Court of Appeals.", "affirm"),
        ("The court upheld the lower court's decision.", "affirm"),
        ("affirmance", "affirm"),
        ("Reverse", "reverse"),
        ("Reversed and remanded", "reverse"),
        ("The Supreme Court reversed the decision of the Court of Appeals.", "reverse"),
        # the study's truth coarsens vacated (and remanded) to reverse
        ("vacated", "reverse"),
        ("Vacated and remanded.", "reverse"),
        ("The judgment was vacated.", "reverse"),
        ("Remanded.", "reverse"),
        ("The Court overturned the lower court's ruling.", "reverse"),
        ("The court did not affirm; it reversed.", "reverse"),
        ("affirmed in part and reversed in part", "mixed"),
        ("Affirmed in part.", "mixed"),
        ("The court affirmed the district court, which had reversed the agency.", None),
        ("Dismissed.", None),
        ("Yes", None),
        ("", None),
    ],
)
def test_extract_disposition(answer: str, expected: str | None) -> None:
    assert extract_disposition(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("Disagree", "disagree"),
        ("disagree.", "disagree"),
        ("They disagree.", "disagree"),
        ("They do not agree.", "disagree"),
        ("The cases don't agree with each other.", "disagree"),
        ("Agree", "agree"),
        ("They agree.", "agree"),
        ("Yes, the two cases agree.", "agree"),
        ("They agree in part and disagree in part.", None),
        ("Consistent", None),
        ("", None),
    ],
)
def test_extract_agreement(answer: str, expected: str | None) -> None:
    assert extract_agreement(answer) == expected


@pytest.mark.parametrize(
    ("answer", "anchor", "expected"),
    [
        ("1954", None, 1954),
        ("1954.", None, 1954),
        ("It was overruled in 1954 by Brown", None, 1954),
        ("In 1954, by Brown v. Board of Education.", None, 1954),
        ("The year was 2022.", None, 2022),
        ("1810", None, 1810),
        # several years: the first after the anchor, else the first not dating a case in passing, else the first
        ("Plessy v. Ferguson (1896) was overruled by Brown v. Board of Education (1954).", "overrul", 1954),
        ("Plessy v. Ferguson (1896) was overruled by Brown v. Board of Education (1954).", None, 1896),
        ("Plessy v. Ferguson, 163 U.S. 537 (1896), was overruled in 1954.", None, 1954),
        ("It was overruled in 1954; the case was decided in 1896.", None, 1954),
        ("Brown v. Board of Education (1954) overruled it.", "overrul", 1954),
        # not years: citations, statute sections, decades, out of range, hedges between years
        ("42 U.S.C. § 1983", None, None),
        ("1954 U.S. LEXIS 2094", None, None),
        ("74 S. Ct. 1954", None, None),
        ("the 1950s", None, None),
        ("1492", None, None),
        ("3000", None, None),
        ("in 1954 or 1955", None, None),
        ("Never", None, None),
        ("", None, None),
    ],
)
def test_extract_year(answer: str, anchor: str | None, expected: int | None) -> None:
    assert extract_year(answer, anchor=anchor) == expected


def test_extract_year_can_ignore_years_that_date_a_case() -> None:
    answer = "Brown v. Board of Education, 347 U.S. 483 (1954), is a landmark case."
    assert extract_year(answer) == 1954
    assert extract_year(answer, dated_cases=False) is None


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("The Ninth Circuit Court of Appeals", "ca9"),
        ("Ninth Circuit", "ca9"),
        ("9th Cir.", "ca9"),
        ("It was decided by the Ninth Circuit.", "ca9"),
        ("The United States Court of Appeals for the Fifth Circuit decided this case.", "ca5"),
        ("Second Circuit", "ca2"),
        ("D.C. Circuit", "cadc"),
        ("Federal Circuit", "cafc"),
        ("Supreme Court of the United States", "scotus"),
        ("Supreme Court", "scotus"),
        ("The U.S. Supreme Court decided it in 1954.", "scotus"),
        ("SCOTUS", "scotus"),
        ("U.S. District Court for the Northern District of California", "cand"),
        ("Northern District of California", "cand"),
        ("N.D. Cal.", "cand"),
        ("The case was heard in the U.S. District Court for the Southern District of New York.", "nysd"),
        ("S.D.N.Y.", "nysd"),
        ("United States District Court for the District of Kansas", "ksd"),
        ("District of Maryland", "mdd"),
        ("E.D. Pa.", "paed"),
        ("The Eastern District of Pennsylvania decided it, and the Third Circuit affirmed.", "paed"),
        ("The Supreme Court of Delaware", "del"),
        ("California", None),
        ("A federal district court.", None),
        ("I am not sure.", None),
        ("", None),
    ],
)
def test_extract_court(answer: str, expected: str | None) -> None:
    assert extract_court(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("347 U.S. 483", "347 U.S. 483"),
        ("347 US 483", "347 U.S. 483"),
        ("347 U. S. 483 (1954)", "347 U.S. 483"),
        # the prompt's own "<volume>, <reporter>, <page>" format
        ("347, U.S., 483", "347 U.S. 483"),
        ("163, U.S., 537 (1896)", "163 U.S. 537"),
        ("124, F.3d, 243", "124 F.3d 243"),
        ("123, F. Supp. 2d, 456", "123 F. Supp. 2d 456"),
        ("Plessy v. Ferguson, 163 U.S. 537", "163 U.S. 537"),
        ("The citation is 347 U.S. 483, 74 S. Ct. 686.", "347 U.S. 483"),
        ("In 1954, Brown, 347 U.S. 483", "347 U.S. 483"),
        ("74 S. Ct. 686", "74 S. Ct. 686"),
        ("5 U.S. (1 Cranch) 137", "5 U.S. 137"),
        ("none", None),
        ("I do not know the citation.", None),
        ("", None),
    ],
)
def test_extract_citation(answer: str, expected: str | None) -> None:
    citation = extract_citation(answer)
    assert (citation.key if citation else None) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("<quote>We conclude that in the field of public education</quote>",
         "We conclude that in the field of public education"),
        ("Here it is: <quote> Separate educational facilities are inherently unequal. </quote> (p. 495)",
         "Separate educational facilities are inherently unequal."),
        ("<QUOTE>upper case tags</QUOTE>", "upper case tags"),
        ("<quote>unclosed, cut off by the token limit", "unclosed, cut off by the token limit"),
        ('The Court said "abc def" and later "a longer quoted span here".', "a longer quoted span here"),
        ("The Court said “separate but equal has no place”.", "separate but equal has no place"),
        ("Marshall escribió: «it is a constitution we are expounding».", "it is a constitution we are expounding"),
        ("Brandeis schrieb: „There is no federal general common law.“", "There is no federal general common law."),
        ("The Court held that a state may not compel a flag salute.", None),  # a description offers no quotation
        ("  a plain answer without quotes  ", "a plain answer without quotes"),
        ("<quote></quote>", None),
        ("", None),
    ],
)  # fmt: skip
def test_extract_quote(answer: str, expected: str | None) -> None:
    assert extract_quote(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("Chief Justice Earl Warren wrote it", "Earl Warren"),
        ("The majority opinion was written by Justice Harlan.", "Harlan"),
        ("The majority opinion in Brown v. Board of Education was written by Chief Justice Earl Warren.",
         "Earl Warren"),
        ("Earl Warren", "Earl Warren"),
        ("Earl Warren.", "Earl Warren"),
        ("Byron White", "Byron White"),
        ("Warren, C.J.", "Warren"),  # the byline read as the name
        ("Holmes, Jr.", "Holmes, Jr."),
        ("R.B. Ginsburg", "R.B. Ginsburg"),
        ("John Marshall Harlan II", "John Marshall Harlan II"),
        ("Justice Harlan wrote the majority opinion, joined by Justice Black.", "Harlan"),
        ("Mr. Justice Holmes delivered the opinion of the Court.", "Holmes"),
        ("I think it was Justice O'Connor.", "O'Connor"),
        ("Judge Learned Hand", "Learned Hand"),
        ("It was authored by Sandra Day O'Connor.", "Sandra Day O'Connor"),
        ("The opinion was per curiam.", "per curiam"),
        ("I do not know who wrote it.", None),
        ("", None),
    ],
)  # fmt: skip
def test_extract_judge_name(answer: str, expected: str | None) -> None:
    assert extract_judge_name(answer) == expected
