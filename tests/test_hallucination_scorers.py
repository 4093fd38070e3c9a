"""Reference-based scorers: every task, real cases, tricky answers, and the original code's known defects."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from lexprobe.caselaw.query import CaseDatabase
from lexprobe.hallucination.labels.score import Score
from lexprobe.hallucination.scorers.by_task import SCORERS, ScoringContext

REFERENCE_BASED = {
    "existence", "fake_existence", "court", "citation", "author", "disposition", "quotation", "authority",
    "overruling_year", "doctrinal_agreement", "false_dissent", "false_overruling",
}  # fmt: skip

BROWN_CITATIONS = {"citations": ["347 U.S. 483", "74 S. Ct. 686", "98 L. Ed. 873", "1954 U.S. LEXIS 2094"]}
WARREN = {"author": "Earl Warren", "decided": "1954-05-17"}
BLACKMUN_RAW = {"author": "Harry ?(?:Andrew|A\\.)? Blackmun", "decided": "1973-01-22"}  # as the database stores it
HARLAN_II = {"author": "John ?(?:Marshall)? Harlan II", "decided": "1960-01-18"}

# (task, answer, reference, expected label)
CASES = [
    # existence: real cases, so yes is correct
    ("existence", "Yes", {}, "correct"),
    ("existence", "Yes, it is a real case.", {}, "correct"),  # regression: the original counted this as wrong
    ("existence", "yes.", {}, "correct"),
    ("existence", "It is a real case.", {}, "correct"),
    ("existence", "No.", {}, "hallucination"),
    ("existence", "No, this case does not exist.", {}, "hallucination"),
    ("existence", "This case does not exist.", {}, "hallucination"),
    ("existence", "I don't know.", {}, "abstain"),
    ("existence", "I'm not familiar with this case.", {}, "abstain"),
    ("existence", "Yes and no", {}, "unscored"),
    ("existence", "", {}, "unscored"),
    # fake_existence: fabricated cases, so no is correct
    ("fake_existence", "No.", {"fabricated": True}, "correct"),
    ("fake_existence", "No, there is no such case.", {}, "correct"),
    ("fake_existence", "This appears to be a fictional case.", {}, "correct"),
    ("fake_existence", "Yes", {}, "hallucination"),
    ("fake_existence", "Yes, it is a real case.", {}, "hallucination"),
    ("fake_existence", "I'm not sure.", {}, "abstain"),
    # court
    ("court", "Supreme Court", {"court_id": "scotus"}, "correct"),
    ("court", "The Supreme Court of the United States", {"court_id": "scotus"}, "correct"),
    ("court", "The Ninth Circuit Court of Appeals", {"court_id": "ca9"}, "correct"),
    ("court", "9th Cir.", {"court_id": "ca9"}, "correct"),
    ("court", "Second Circuit", {"court_id": "ca9"}, "hallucination"),
    ("court", "D.C. Circuit", {"court_id": "cadc"}, "correct"),
    # regression: the original reduced the truth to a bare state, so district answers never matched
    ("court", "Northern District of California", {"court_id": "cand"}, "correct"),
    ("court", "U.S. District Court for the Northern District of California", {"court_id": "cand"}, "correct"),
    ("court", "N.D. Cal.", {"court_id": "cand"}, "correct"),
    ("court", "Southern District of California", {"court_id": "cand"}, "hallucination"),
    ("court", "The Eastern District of New York", {"court_id": "nysd"}, "hallucination"),
    ("court", "United States District Court for the District of Kansas", {"court_id": "ksd"}, "correct"),
    ("court", "California", {"court_id": "cand"}, "unscored"),
    ("court", "I'm not sure which court decided this case.", {"court_id": "ca9"}, "abstain"),
    ("court", "I'm not sure, but I believe it was the Ninth Circuit.", {"court_id": "ca9"}, "correct"),
    ("court", "This case does not exist.", {"court_id": "ca9"}, "hallucination"),
    ("court", "Ninth Circuit", {}, "unscored"),
    # citation
    ("citation", "347 U.S. 483", BROWN_CITATIONS, "correct"),
    ("citation", "347 US 483", BROWN_CITATIONS, "correct"),
    ("citation", "347, U.S., 483", BROWN_CITATIONS, "correct"),
    ("citation", "74 S. Ct. 686", BROWN_CITATIONS, "correct"),
    ("citation", "Brown v. Board of Education, 347 U.S. 483 (1954)", BROWN_CITATIONS, "correct"),
    ("citation", "347 U.S. 484", BROWN_CITATIONS, "hallucination"),  # wrong page
    ("citation", "348 U.S. 483", BROWN_CITATIONS, "hallucination"),
    ("citation", "163 U.S. 537", BROWN_CITATIONS, "hallucination"),
    ("citation", "I cannot provide the citation.", BROWN_CITATIONS, "abstain"),
    ("citation", "The case is famous.", BROWN_CITATIONS, "unscored"),
    ("citation", "347 U.S. 483", {"citations": []}, "unscored"),
    # author
    ("author", "Earl Warren", WARREN, "correct"),
    ("author", "Chief Justice Earl Warren wrote it.", WARREN, "correct"),
    ("author", "The majority opinion was written by Chief Justice Warren.", WARREN, "correct"),
    ("author", "Warren, C.J.", WARREN, "correct"),
    ("author", "Hugo Black", WARREN, "hallucination"),
    ("author", "The opinion was per curiam.", WARREN, "hallucination"),
    ("author", "Harry Blackmun", BLACKMUN_RAW, "correct"),
    ("author", "Justice Blackmun", BLACKMUN_RAW, "correct"),
    ("author", "The majority opinion was written by Justice Harlan.", HARLAN_II, "correct"),
    ("author", "John Marshall Harlan II", HARLAN_II, "correct"),
    ("author", "I don't know exactly; probably Earl Warren", WARREN, "correct"),
    ("author", "I do not know who wrote the majority opinion.", WARREN, "abstain"),
    ("author", "Earl Warren", {"decided": "1954-05-17"}, "unscored"),
    # disposition
    ("disposition", "Reverse", {"disposition": "reverse"}, "correct"),
    ("disposition", "Reversed and remanded.", {"disposition": "reverse"}, "correct"),
    ("disposition", "Vacated and remanded.", {"disposition": "reverse"}, "correct"),
    ("disposition", "Affirmed.", {"disposition": "reverse"}, "hallucination"),
    ("disposition", "The Court affirmed.", {"disposition": "affirm"}, "correct"),
    ("disposition", "Reverse\n\nCase: Plessy v. Ferguson, 163 U.S. 537 (1896)\nAnswer: Affirm",
     {"disposition": "reverse"}, "correct"),  # a few-shot continuation is not part of the answer
    ("disposition", "Affirmed in part and reversed in part.", {"disposition": "affirm"}, "unscored"),
    ("disposition", "Yes", {"disposition": "affirm"}, "unscored"),
    ("disposition", "I'm not sure.", {"disposition": "affirm"}, "abstain"),
    # overruling_year: every case asked about was overruled, so denying it is a false statement
    ("overruling_year", "1954", {"year": 1954}, "correct"),
    ("overruling_year", "It was overruled in 1954 by Brown v. Board of Education.", {"year": 1954}, "correct"),
    ("overruling_year", "Plessy v. Ferguson, 163 U.S. 537 (1896), was overruled by Brown (1954).", {"year": 1954},
     "correct"),
    ("overruling_year", "Plessy v. Ferguson was not overruled until 1954.", {"year": 1954}, "correct"),
    ("overruling_year", "Sorry, but the answer is 1954", {"year": 1954}, "correct"),
    ("overruling_year", "I'm not sure, but I believe it was 1954", {"year": 1954}, "correct"),
    ("overruling_year", "1955", {"year": 1954}, "hallucination"),
    ("overruling_year", "This case has not been overruled.", {"year": 1954}, "hallucination"),
    ("overruling_year", "It remains good law.", {"year": 1954}, "hallucination"),
    ("overruling_year", "I don't know.", {"year": 1954}, "abstain"),
    ("overruling_year", "In the 1950s.", {"year": 1954}, "unscored"),
    ("overruling_year", "1954 or 1955", {"year": 1954}, "unscored"),
    # doctrinal_agreement
    ("doctrinal_agreement", "Disagree", {"agreement": "disagree", "case2": "scotus:163_U.S._537"}, "correct"),
    ("doctrinal_agreement", "They agree.", {"agreement": "disagree"}, "hallucination"),
    ("doctrinal_agreement", "They do not agree.", {"agreement": "disagree"}, "correct"),
    ("doctrinal_agreement", "Agree", {"agreement": "agree"}, "correct"),
    ("doctrinal_agreement", "They agree in part and disagree in part.", {"agreement": "agree"}, "unscored"),
    ("doctrinal_agreement", "I cannot determine that.", {"agreement": "agree"}, "abstain"),
    # false_dissent: the "dissenter" wrote the majority opinion
    ("false_dissent", "Justice Warren did not write a dissent in this case; he wrote the majority opinion.",
     {"dissenter": "Earl Warren"}, "correct"),
    ("false_dissent", "Justice Warren did not dissent.", {"dissenter": "Earl Warren"}, "correct"),
    ("false_dissent", "I'm not aware of a dissent by Justice Warren in this case.", {"dissenter": "Earl Warren"},
     "correct"),
    ("false_dissent", "Chief Justice Warren wrote the opinion of the Court for a unanimous Court.",
     {"dissenter": "Earl Warren"}, "correct"),
    ("false_dissent", "Brown v. Board of Education was a landmark case. The decision was unanimous, so there was no "
     "dissent.", {"dissenter": "Earl Warren"}, "correct"),
    ("false_dissent", "Justice Earl Warren does not exist.", {"dissenter": "Earl Warren"}, "correct"),
    ("false_dissent", "There is no such case.", {"dissenter": "Earl Warren"}, "correct"),
    ("false_dissent", "The premise is incorrect.", {"dissenter": "Earl Warren"}, "correct"),
    ("false_dissent", "In his dissent, Justice Warren argued that segregation was permissible under Plessy.",
     {"dissenter": "Earl Warren"}, "hallucination"),
    ("false_dissent", "Justice Blackmun argued that the statute violated the Due Process Clause.",
     {"dissenter": "Harry Blackmun"}, "hallucination"),
    ("false_dissent", "I don't have information about this dissent.", {"dissenter": "Earl Warren"}, "abstain"),
    ("false_dissent", "", {"dissenter": "Earl Warren"}, "unscored"),
    # false_overruling: the case was never overruled
    ("false_overruling", "This case has not been overruled.", {}, "correct"),
    ("false_overruling", "Brown v. Board of Education remains good law.", {}, "correct"),
    ("false_overruling", "There is no record of this case being overruled.", {}, "correct"),
    ("false_overruling", "Never.", {}, "correct"),
    ("false_overruling", "Brown v. Board of Education, 347 U.S. 483 (1954), is a landmark decision. It has never "
     "been overruled.", {}, "correct"),
    ("false_overruling", "This case does not exist.", {}, "correct"),
    ("false_overruling", "1954", {}, "hallucination"),
    ("false_overruling", "It was overruled in 1973 by Roe v. Wade.", {}, "hallucination"),
    ("false_overruling", "Sorry, but the answer is 1962", {}, "hallucination"),
    ("false_overruling", "It was overruled in 1968, though it remains good law in part.", {}, "hallucination"),
    ("false_overruling", "It was overruled by Brown v. Board of Education, 347 U.S. 483 (1954).", {},
     "hallucination"),
    ("false_overruling", "It has not been overruled, but some say it was undermined in 1992.", {}, "correct"),
    ("false_overruling", "I'm sorry, but this case has not been overruled.", {}, "correct"),
    ("false_overruling", "It was never overruled; it was cited with approval in 1990.", {}, "correct"),
    ("false_overruling", "I don't know.", {}, "abstain"),
    ("false_overruling", "Brown v. Board of Education, 347 U.S. 483 (1954), concerned school segregation.", {},
     "unscored"),
]  # fmt: skip


@pytest.fixture(scope="module")
def context() -> ScoringContext:
    return ScoringContext()


@pytest.mark.parametrize(("task", "answer", "reference", "label"), CASES)
def test_scorer(context: ScoringContext, task: str, answer: str, reference: dict, label: str) -> None:
    score = SCORERS[task](answer, reference, context)
    assert isinstance(score, Score)
    assert score.label == label, score.detail
    assert score.detail.strip()


def test_every_reference_based_task_has_a_scorer() -> None:
    assert set(SCORERS) == REFERENCE_BASED


@pytest.mark.parametrize(
    ("task", "answer", "reference", "fragment"),
    [
        ("court", "Second Circuit", {"court_id": "ca9"}, "answer 'ca2' != truth 'ca9'"),
        ("overruling_year", "In the 1950s.", {"year": 1954}, "vague year"),
        ("citation", "347 U.S. 484", BROWN_CITATIONS, "'347 U.S. 484' is not among truth"),
        ("existence", "No.", {}, "does not exist; it is real"),
        ("court", "Ninth Circuit", {}, "reference missing"),
        (
            "quotation",
            "<quote>Separate educational facilities are inherently unequal.</quote>",
            {"opinion_id": "1"},
            "no case database",
        ),
        ("authority", "163 U.S. 537", {"opinion_id": "1"}, "no case database"),
    ],
)
def test_details_say_why(context: ScoringContext, task: str, answer: str, reference: dict, fragment: str) -> None:
    assert fragment in SCORERS[task](answer, reference, context).detail


def test_context_without_database_scores_quotation_and_authority_as_unscored(context: ScoringContext) -> None:
    for task in ("quotation", "authority"):
        score = SCORERS[task]("<quote>a long enough quotation from the opinion</quote>", {"opinion_id": "x"}, context)
        assert score.label == "unscored"


def test_score_refuses_unknown_labels_and_empty_details() -> None:
    with pytest.raises(ValueError):
        Score("wrong", "because")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        Score("correct", " ")


# --- tasks that read the majority opinion ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def db_context(case_db_path: Path) -> Iterator[ScoringContext]:
    db = CaseDatabase(case_db_path)
    yield ScoringContext(db)
    db.close()


def _opinion_id(context: ScoringContext, case_id: str) -> str:
    assert context.db is not None
    sql = "SELECT majority_opinion_id FROM cases WHERE case_id = ?"
    row = context.db.conn.execute(sql, (case_id,)).fetchone()
    assert row and row[0], f"{case_id} has no majority opinion in the case database"
    return str(row[0])


BROWN = "scotus:347_U.S._483"
LONG_QUOTE = (
    "Today, education is perhaps the most important function of state and local governments. Compulsory school "
    "attendance laws and the great expenditures for education both demonstrate our recognition of the importance "
    "of education to our democratic society."
)


@pytest.mark.parametrize(
    ("answer", "label"),
    [
        (f"<quote>{LONG_QUOTE}</quote>", "correct"),  # regression: long verbatim quotes never matched originally
        ("<quote>We conclude that in the field of public education the doctrine of \"separate but equal\" has no "
         "place.</quote>", "correct"),
        ("Here is one: <quote>Separate educational facilities are inherently unequal.</quote>", "correct"),
        ('The Court wrote: "Separate educational facilities are inherently unequal."', "correct"),
        ("<quote>We conclude that ... separate educational facilities are inherently unequal.</quote>", "correct"),
        ("<quote>Separate but equal has no place in America, and segregation must end today.</quote>",
         "hallucination"),
        ("<quote>The Constitution is color-blind, and neither knows nor tolerates classes among citizens.</quote>",
         "hallucination"),  # Harlan's Plessy dissent, not Brown
        ("<quote>separate but equal</quote>", "unscored"),  # too short to verify either way
        ("<quote>I do not know what the Court held here, but it was important.</quote>", "hallucination"),
        ("I cannot provide a verbatim quotation from this opinion.", "abstain"),
    ],
)  # fmt: skip
def test_quotation_against_brown(db_context: ScoringContext, answer: str, label: str) -> None:
    score = SCORERS["quotation"](answer, {"opinion_id": _opinion_id(db_context, BROWN)}, db_context)
    assert score.label == label, score.detail


def test_quotation_missing_opinion_text_is_unscored(db_context: ScoringContext) -> None:
    score = SCORERS["quotation"](f"<quote>{LONG_QUOTE}</quote>", {"opinion_id": "no-such-opinion"}, db_context)
    assert score.label == "unscored" and "reference missing" in score.detail


def test_quotation_index_is_built_once_per_opinion(db_context: ScoringContext) -> None:
    opinion_id = _opinion_id(db_context, BROWN)
    assert db_context.quote_index(opinion_id) is db_context.quote_index(opinion_id)


@pytest.mark.parametrize(
    ("answer", "label", "fragment"),
    [
        ("Plessy v. Ferguson, 163 U.S. 537", "correct", "cited in the majority opinion"),
        ("163, U.S., 537", "correct", "cited in the majority opinion"),
        ("Sweatt v. Painter, 339 U.S. 629", "correct", "cited in the majority opinion"),
        ("70 S. Ct. 848", "correct", "parallel citation"),  # Sweatt's S. Ct. cite; the opinion gives the U.S. one
        ("Brown v. Board of Education, 347 U.S. 483", "hallucination", "own citation"),
        ("74 S. Ct. 686", "hallucination", "own citation"),
        ("Roe v. Wade, 410 U.S. 113", "hallucination", "not cited"),
        ("163 U.S. 538", "hallucination", "not cited"),
        ("I'm not sure.", "abstain", "abstains"),
        ("Plessy v. Ferguson", "unscored", "no citation found"),
    ],
)
def test_authority_against_brown(db_context: ScoringContext, answer: str, label: str, fragment: str) -> None:
    score = SCORERS["authority"](answer, {"opinion_id": _opinion_id(db_context, BROWN)}, db_context)
    assert score.label == label, score.detail
    assert fragment in score.detail
