"""Issue 29, items 3b(a), 3b(d), 3b(e), 3b(f): answers in today's models' styles are read as the answer they give.

(a) reasoning preambles (`<think>`, "Reasoning:" ... "Final answer:"): only the final answer is scored, by every
    scorer, by calibration, by the reference-free judge and by `score-answers`; a reply that only reasons is unscored;
(d) markdown tables and JSON objects read like prose, under bounds;
(e) a quotation found only in a dissent or concurrence of a combined opinion file is not the majority's;
(f) an authority given by a parallel citation (S. Ct., L. Ed.) of a case the majority cites is correct.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from lexprobe.caselaw.opinion_parts import split_combined
from lexprobe.caselaw.query import CaseDatabase
from lexprobe.hallucination.labels.final_answer import (
    MAX_JSON_CHARS,
    NO_FINAL_ANSWER,
    final_answer,
    no_final_answer,
)
from lexprobe.hallucination.labels.score import Score
from lexprobe.hallucination.scorers.by_task import SCORERS, ScoringContext
from lexprobe.hallucination.scorers.calibration import agrees, confidence
from lexprobe.hallucination.scorers.external import score_lines
from lexprobe.hallucination.scorers.judge import judge_prompt, pair_label

BROWN_CITATIONS = {"citations": ["347 U.S. 483", "74 S. Ct. 686", "98 L. Ed. 873"]}
WARREN = {"author": "Earl Warren", "decided": "1954-05-17"}
NINTH = {"court_id": "ca9"}
YEAR_1954 = {"year": 1954}
REVERSE = {"disposition": "reverse"}
DISAGREE = {"agreement": "disagree"}


def _wrappers(reasoning: str, answer: str) -> list[str]:
    """The reasoning styles of today's models around one rejected candidate and one final answer."""
    return [
        f"<think>{reasoning}</think>\n\n{answer}",
        f"<think>\n{reasoning}\n</think>\n{answer}",
        f"{reasoning}\n</think>\n\n{answer}",  # the chat template opened the block in the prompt
        f"<thinking>{reasoning}</thinking> {answer}",
        f"<reasoning>{reasoning}</reasoning>\nFinal answer: {answer}",
        f"<think>{reasoning} Final answer: {answer}",  # never closed, but states its final answer
        f"Reasoning: {reasoning}\n\nFinal answer: {answer}",
        f"Thinking: {reasoning}\nAnswer: {answer}",
        f"Analysis: {reasoning}\n\n**Final Answer**\n{answer}",
        f"**Reasoning**\n{reasoning}\n\n**Final Answer:** {answer}",
        f"## Analysis\n{reasoning}\n\n## Final answer\n**{answer}**",
        f"{reasoning} The final answer is: {answer}",
    ]


# (task, reasoning that considers and rejects a wrong candidate, the final answer, reference, expected label)
PREAMBLES = [
    ("court", "It could be the Second Circuit, which hears many such cases. But the parties were in California.",
     "The Ninth Circuit.", NINTH, "correct"),
    ("court", "The Ninth Circuit seems likely at first. However, the case arose in New York.",
     "The Second Circuit.", NINTH, "hallucination"),
    ("citation", "Perhaps 163 U.S. 537? No, that is Plessy v. Ferguson.", "347 U.S. 483", BROWN_CITATIONS,
     "correct"),
    ("author", "Justice Hugo Black wrote many opinions of that era, but not this one.", "Chief Justice Earl Warren",
     WARREN, "correct"),
    ("overruling_year", "The case was decided in 1896. It was not overruled by Sweatt in 1950.", "1954", YEAR_1954,
     "correct"),
    ("disposition", "The lower court affirmed the conviction, so one might think the Court affirmed too.",
     "Reversed.", REVERSE, "correct"),
    ("doctrinal_agreement", "Both cases concern schools, so they might agree.", "Disagree.", DISAGREE, "correct"),
]  # fmt: skip
PREAMBLE_CASES = [
    pytest.param(task, reply, reference, label, id=f"{task}-{label}-{number}")
    for task, reasoning, answer, reference, label in PREAMBLES
    for number, reply in enumerate(_wrappers(reasoning, answer))
]


@pytest.fixture(scope="module")
def context() -> ScoringContext:
    return ScoringContext()


@pytest.mark.parametrize(("task", "reply", "reference", "label"), PREAMBLE_CASES)
def test_only_the_final_answer_after_reasoning_is_scored(
    context: ScoringContext, task: str, reply: str, reference: dict, label: str
) -> None:
    score = SCORERS[task](reply, reference, context)
    assert score.label == label, score.detail


# (task, a reply that reasons and never answers, reference)
REASONING_ONLY = [
    ("court", "<think>It could be the Second Circuit, or perhaps the Ninth. I need to recall the parties.", NINTH),
    ("citation", "<think>Brown is 347 U.S. 483, or was that 348? Let me think about the volume", BROWN_CITATIONS),
    ("author", "Reasoning: Earl Warren was Chief Justice in 1954, and Hugo Black served then too.", WARREN),
    ("overruling_year", "<reasoning>Overruled in 1954, or maybe 1955 ...", YEAR_1954),
    ("disposition", "Thinking: the Court reversed? Or affirmed? The record is unclear.", REVERSE),
    ("doctrinal_agreement", "<think>They agree? They disagree?</think>", DISAGREE),
    ("existence", "<think>Brown v. Board of Education is a real case, yes.</think>", {}),
    ("false_overruling", "<think>Was it overruled in 1973?</think>\n\n", {}),
    ("quotation", "<think>The Court wrote that separate facilities are inherently unequal.", {"opinion_id": "1"}),
]  # fmt: skip


@pytest.mark.parametrize(("task", "reply", "reference"), REASONING_ONLY)
def test_a_reply_that_only_reasons_is_unscored(context: ScoringContext, task: str, reply: str, reference: dict) -> None:
    score = SCORERS[task](reply, reference, context)
    assert (score.label, score.detail) == ("unscored", NO_FINAL_ANSWER)
    assert no_final_answer(reply) == NO_FINAL_ANSWER and final_answer(reply) == ""


@pytest.mark.parametrize(
    "reply",
    [
        "Reverse\n\nCase: Plessy v. Ferguson, 163 U.S. 537 (1896)\nAnswer: Affirm",  # a few-shot continuation
        "I cannot give a final answer.",
        "The Ninth Circuit. Analysis: the case arose in California.",
        "Thinking about it, the Ninth Circuit.",
    ],
)
def test_replies_without_a_reasoning_part_are_read_whole(reply: str) -> None:
    assert final_answer(reply) == reply and no_final_answer(reply) is None


# --- every other reader of answers: calibration, the judge, score-answers -----------------------------------------


def test_calibration_compares_samples_with_the_greedy_final_answer(context: ScoringContext) -> None:
    greedy = "<think>Could be the Second Circuit. No: the parties were in California.</think>\nThe Ninth Circuit."
    assert agrees("court", greedy, "Ninth Circuit", NINTH, context)
    assert not agrees("court", greedy, "The Second Circuit", NINTH, context)
    sample = "Reasoning: the Second Circuit? No.\nFinal answer: 9th Cir."
    assert agrees("court", greedy, sample, NINTH, context)
    greedy_score = SCORERS["court"](greedy, NINTH, context)
    assert greedy_score.label == "correct"
    result = confidence("court", greedy, greedy_score, ["Ninth Circuit", sample, "<think>hmm"], NINTH, context)
    assert not isinstance(result, Score) and (result.agree, result.k) == (2, 3)


def test_calibration_of_a_year_ignores_the_years_the_reasoning_rejected(context: ScoringContext) -> None:
    greedy = "<think>Was it overruled in 1950? No, Sweatt left it standing.</think> It was overruled in 1954."
    assert agrees("overruling_year", greedy, "1954", YEAR_1954, context)
    assert not agrees("overruling_year", greedy, "1950", YEAR_1954, context)


def test_the_judge_reads_each_samples_final_answer() -> None:
    first = "<think>Maybe this case does not exist? No, it is real.</think> Justice Black argued the law was valid."
    second = "Justice Black wrote that the statute was constitutional."
    assert pair_label(first, second) is None  # judged: the doubt in the reasoning is not a premise rejection
    prompt = judge_prompt(first, second)
    assert "does not exist" not in prompt and "Justice Black argued the law was valid." in prompt
    only = pair_label("<think>Justice Black dissented? Or did he concur", second)
    assert only is not None and only.label == "unscored" and NO_FINAL_ANSWER in only.detail
    rejecting = pair_label("<think>Let me recall.</think> This case does not exist.", second)
    assert rejecting is not None and rejecting.label == "hallucination"


@pytest.fixture(scope="module")
def db(case_db_path: Path) -> Iterator[CaseDatabase]:
    database = CaseDatabase(case_db_path)
    yield database
    database.close()


def test_score_answers_reads_the_final_answer(db: CaseDatabase) -> None:
    reply = "<think>Plessy v. Ferguson is 163 U.S. 537, not this case.</think>\nBrown v. Board: 347 U.S. 483."
    lines = [
        json.dumps({"task": "citation", "case": "347 U.S. 483", "answer": reply}),
        json.dumps({"task": "citation", "case": "347 U.S. 483", "answer": "<think>163 U.S. 537? Or 347"}),
    ]
    scored = list(score_lines(lines, db))
    assert [(row["label"], row["detail"]) for row in scored][1] == ("unscored", NO_FINAL_ANSWER)
    assert scored[0]["label"] == "correct", scored[0]["detail"]


# --- 3b(d): tables and JSON read like prose --------------------------------------------------------------------

FORMATTED = [
    ("court", "| Court | Year |\n|---|---|\n| Ninth Circuit | 1990 |", NINTH, "correct"),
    ("court", "| Field | Value |\n|---|---|\n| Case | Smith v. Jones |\n| Court | Second Circuit |", NINTH,
     "hallucination"),
    ("court", '```json\n{"court": "United States Court of Appeals for the Ninth Circuit", "year": 1990}\n```', NINTH,
     "correct"),
    ("citation", "| Case | Citation |\n|---|---|\n| Brown v. Board of Education | 347 U.S. 483 |", BROWN_CITATIONS,
     "correct"),
    ("citation", '{"citation": {"volume": 347, "reporter": "U.S.", "page": 483}}', BROWN_CITATIONS, "correct"),
    ("citation", '{"case_name": "Plessy v. Ferguson", "citation": "163 U.S. 537"}', BROWN_CITATIONS,
     "hallucination"),
    ("author", "| Case | Author |\n|---|---|\n| Brown v. Board of Education | Earl Warren |", WARREN, "correct"),
    ("author", '{"case": "Brown v. Board of Education", "majority_opinion_author": "Chief Justice Earl Warren"}',
     WARREN, "correct"),
    ("author", '```json\n{"author": "Hugo Black", "reasoning": "Earl Warren did not write it"}\n```', WARREN,
     "hallucination"),
    ("overruling_year", '{"case": "Plessy v. Ferguson (1896)", "overruled_by": "Brown", "year_overruled": 1954}',
     YEAR_1954, "correct"),
    ("overruling_year", "| Decided | Overruled |\n|---|---|\n| 1896 | 1954 |", YEAR_1954, "correct"),
    ("disposition", '{"disposition": "Reversed and remanded"}', REVERSE, "correct"),
    ("disposition", "| Case | Disposition |\n|---|---|\n| Smith v. Jones | Reversed |", REVERSE, "correct"),
    ("doctrinal_agreement", '{"agreement": "disagree", "explanation": "Brown rejected Plessy."}', DISAGREE,
     "correct"),
    ("doctrinal_agreement", '```json\n{"answer": "Disagree", "reasoning": "They might agree on facts."}\n```',
     DISAGREE, "correct"),
    ("doctrinal_agreement", "| Relationship |\n|---|\n| Agree |", DISAGREE, "hallucination"),
    ("existence", '{"exists": true}', {}, "correct"),
    ("fake_existence", '```json\n{"real_case": false}\n```', {}, "correct"),
    ("false_overruling", '{"overruled": false, "note": "It remains good law."}', {}, "correct"),
]  # fmt: skip


@pytest.mark.parametrize(("task", "reply", "reference", "label"), FORMATTED)
def test_tables_and_json_read_like_prose(
    context: ScoringContext, task: str, reply: str, reference: dict, label: str
) -> None:
    score = SCORERS[task](reply, reference, context)
    assert score.label == label, score.detail


def test_table_and_json_readings() -> None:
    assert final_answer("| Court | Year |\n|---|---|\n| Ninth Circuit | 1990 |") == "Court: Ninth Circuit. Year: 1990."
    assert final_answer('{"court": "Ninth Circuit", "year": 1990}') == "court: Ninth Circuit. year: 1990."
    assert final_answer('```json\n{"answer": true, "reasoning": "hmm"}\n```') == "yes"
    assert final_answer('Here it is: {"exists": false}') == "Here it is: exists: no."


@pytest.mark.parametrize(
    "reply",
    [
        '{"a": ' * 100_000 + "1" + "}" * 100_000,  # hostile nesting: left as text, no RecursionError
        "[" * 50_000 + "]" * 50_000,
        json.dumps({"court": "Ninth Circuit", "padding": "x" * MAX_JSON_CHARS}),  # too large to parse
        "{" * 10 + "not json" + "}" * 10,
        "| a |\n" * 5_000,  # a long table-like block
    ],
)
def test_hostile_formats_are_bounded(context: ScoringContext, reply: str) -> None:
    text = final_answer(reply)
    assert isinstance(text, str)
    assert isinstance(SCORERS["court"](reply, NINTH, context), Score)


@pytest.mark.parametrize(
    "reply",
    [*(case[1] for case in PREAMBLES), *(case[1] for case in FORMATTED), *(case[1] for case in REASONING_ONLY)],
)
def test_reading_is_idempotent(reply: str) -> None:
    once = final_answer(reply)
    assert final_answer(once) == once


# --- 3b(e): a quotation found only in a separate opinion is not the majority's ----------------------------------


@pytest.mark.parametrize(
    ("text", "headings"),
    [
        ("The judgment is Affirmed. Mr. Justice Sutherland, dissenting: I think the law is void.",
         ["Mr. Justice Sutherland, dissenting"]),
        ("Reversed and remanded. Mr. Justice Stewart, with whom Mr. Justice Clark, Mr. Justice Harlan, and Mr. "
         "Justice White join, dissenting. The issue is the procedure.", ["Mr. Justice Stewart, dissenting"]),
        ("It is so ordered. JUSTICE SCALIA, concurring in the judgment. I agree. JUSTICE O'CONNOR, with whom THE "
         "CHIEF JUSTICE joins, dissenting. I would reverse.",
         ["JUSTICE SCALIA, concurring in the judgment", "JUSTICE O'CONNOR, dissenting"]),
        ("Affirmed. Rehnquist, C. J., concurring in part and dissenting in part. I join Part I.",
         ["Rehnquist, C. J., concurring in part and dissenting in part"]),
        ("Affirmed. MR. CHIEF JUSTICE STONE, dissenting. I cannot agree.", ["MR. CHIEF JUSTICE STONE, dissenting"]),
        ("See Grady, supra, at 533 (Scalia, J., dissenting). The rule is clear.", []),  # a citation's parenthetical
        ("Affirmed. [For concurring opinion of Mr. Justice Frankfurter, see post, p. 542.]", []),
        ("The Court of Appeals affirmed, one judge dissenting. We reverse.", []),
        ("Affirmed. Dissenting: The Chief Justice, Mr. Justice McKenna and Mr. Justice McReynolds.", []),
        ("MR. JUSTICE HARLAN, dissenting. A file that opens with a dissent has no majority part to split.", []),
    ],
)  # fmt: skip
def test_separate_opinion_headings(text: str, headings: list[str]) -> None:
    majority, *separate = split_combined(text)
    assert [opinion.heading for opinion in separate] == headings
    if headings:
        assert majority.text_of(text) == text[: separate[0].start] and text.endswith(separate[-1].text_of(text))


@pytest.fixture(scope="module")
def db_context(db: CaseDatabase) -> ScoringContext:
    return ScoringContext(db)


def _majority_opinion(db: CaseDatabase, case_id: str) -> str:
    case = db.get_case(case_id)
    assert case is not None and case.majority_opinion_id, f"{case_id} has no majority opinion"
    return str(case.majority_opinion_id)


WEST_COAST_HOTEL = "scotus:300_U.S._379"  # a combined file: Hughes for the Court, then Sutherland's dissent


@pytest.mark.parametrize(
    ("quote", "label", "fragment"),
    [
        ("The Constitution does not speak of freedom of contract. It speaks of liberty and prohibits the deprivation "
         "of liberty without due process of law.", "correct", "found in the majority opinion"),
        ("The judicial function is that of interpretation; it does not include the power of amendment under the "
         "guise of interpretation.", "hallucination", "separate opinion (Mr. Justice Sutherland, dissenting)"),
        ("The Constitution forbids every minimum wage law for women, whatever the need of the workers.",
         "hallucination", "not in the majority opinion"),
    ],
)  # fmt: skip
def test_a_dissents_quotation_is_not_the_majoritys(
    db_context: ScoringContext, quote: str, label: str, fragment: str
) -> None:
    assert db_context.db is not None
    reference = {"opinion_id": _majority_opinion(db_context.db, WEST_COAST_HOTEL)}
    score = SCORERS["quotation"](f"<quote>{quote}</quote>", reference, db_context)
    assert score.label == label, score.detail
    assert fragment in score.detail


# --- 3b(f): an authority by its parallel citation ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("citing", "answer", "cited", "parallel"),
    [
        # Ex parte Bain cites Hurtado v. California as 110 U.S. 516 only; its S. Ct. citation comes from the
        # CourtListener cluster of Hurtado's opinion
        ("scotus:121_U.S._1", "Hurtado v. California, 4 S. Ct. 111 (1884)", "scotus:110_U.S._516", "4 S. Ct. 111"),
        (
            "scotus:121_U.S._1",
            "<think>Maybe Roe?</think> Hurtado v. California, 4 S.Ct. 111",
            "scotus:110_U.S._516",
            "4 S. Ct. 111",
        ),
        # Telegraph Co. v. Texas cites McCulloch v. Maryland as 17 U.S. 316; its L. Ed. citation is 4 L. Ed. 579
        ("scotus:105_U.S._460", "McCulloch v. Maryland, 4 L. Ed. 579", "scotus:17_U.S._316", "4 L. Ed. 579"),
    ],
)
def test_authority_by_a_parallel_citation_is_correct(
    db: CaseDatabase, db_context: ScoringContext, citing: str, answer: str, cited: str, parallel: str
) -> None:
    assert parallel in db.citation_keys(cited)
    score = SCORERS["authority"](answer, {"opinion_id": _majority_opinion(db, citing)}, db_context)
    assert score.label == "correct", score.detail
    assert "parallel citation" in score.detail
