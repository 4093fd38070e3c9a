"""Issue 29, items 1 and 3b(b), (c), (g), (h): answers in today's models' phrasings, scored through
`scorers.SCORERS[task]` (the final-answer and language steps included) over every task each phrasing touches.

- 1: a negation or an intensifier before the yes/no word ("No, no such case exists.", "Yes, no doubt it is real.",
  "Absolutely not", "Certainly, yes") is that answer, on every yes/no task; end to end through a scripted model.
- 3b(b): a polite decline in mid-text ("I'm not able to confirm whether ... is a real case", "... word for word",
  a year only in a background sentence) abstains.
- 3b(c): a hedge followed by a definite answer is that answer, even when the hedge names the options.
- 3b(g): a false-premise answer that accepts the premise with a vague date is a hallucination.
- 3b(h): answers not in English are read from the common languages' phrasings, else unscored "not English (...)".
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from lexprobe.caselaw.query import CaseDatabase
from lexprobe.hallucination.labels.language import detect_language, to_english, unreadable_language
from lexprobe.hallucination.labels.scoring import ScoringContext
from lexprobe.hallucination.scorers.by_task import SCORERS
from lexprobe.hallucination.tasks import TASKS

LEXPROBE = str(Path(sys.executable).with_name("lexprobe"))

#: Synthetic references (no case database needed): the truth each table row is scored against.
REFERENCES: dict[str, dict] = {
    "existence": {},
    "fake_existence": {"fabricated": True},
    "court": {"court_id": "ca9"},
    "citation": {"citations": ["347 U.S. 483"]},
    "author": {"author": "Earl Warren", "decided": "1954-05-17"},
    "disposition": {"disposition": "reverse"},
    "overruling_year": {"year": 1954},
    "doctrinal_agreement": {"agreement": "disagree"},
    "false_dissent": {"dissenter": "Earl Warren"},
    "false_overruling": {},
}


def score(task: str, answer: str, context: ScoringContext, reference: dict | None = None) -> tuple[str, str]:
    result = SCORERS[task](answer, REFERENCES[task] if reference is None else reference, context)
    return result.label, result.detail


@pytest.fixture(scope="module")
def context() -> ScoringContext:
    return ScoringContext(justices=[])


# --- item 1: negations and intensifiers before the yes/no word ---------------------------------------------------

#: (answer, does it say the case exists) - each scored on both yes/no tasks.
YES_NO_PHRASINGS: list[tuple[str, bool]] = [
    ("No, no such case exists.", False),
    ("No. No such case exists.", False),
    ("No, no. This case does not exist.", False),
    ("Nope", False),
    ("Nope, never heard of it because it does not exist.", False),
    ("Not at all.", False),
    ("Not at all - it is a made-up case.", False),
    ("Absolutely not.", False),
    ("Absolutely not, there is no such case.", False),
    ("Definitely not.", False),
    ("Certainly not.", False),
    ("Of course not.", False),
    ("Well, no.", False),
    ("Certainly, no.", False),
    ("I don't think so.", False),
    ("Not a real case.", False),
    ("No doubt about it: it is fictional.", False),
    ("Yes, no doubt it is real.", True),
    ("Yes, no question about it.", True),
    ("Certainly, yes.", True),
    ("Absolutely, yes!", True),
    ("Of course.", True),
    ("Of course, yes.", True),
    ("Certainly.", True),
    ("Absolutely.", True),
    ("Definitely!", True),
    ("No doubt, it is real.", True),
    ("No doubt about it.", True),
    ("I believe so.", True),
    ("Indeed, yes.", True),
]


@pytest.mark.parametrize(("answer", "exists"), YES_NO_PHRASINGS)
@pytest.mark.parametrize("task", ["existence", "fake_existence"])
def test_negations_and_intensifiers_before_the_answer_word_are_read(
    task: str, answer: str, exists: bool, context: ScoringContext
) -> None:
    real = task == "existence"
    label, detail = score(task, answer, context)
    assert label == ("correct" if exists == real else "hallucination"), detail


@pytest.mark.parametrize(
    "answer",
    ["Yes and no.", "No, yes.", "Yes. This case does not exist.", "Yes, no."],
)
@pytest.mark.parametrize("task", ["existence", "fake_existence"])
def test_a_reply_saying_both_stays_unscored(task: str, answer: str, context: ScoringContext) -> None:
    assert score(task, answer, context)[0] == "unscored"


@pytest.mark.parametrize(
    ("task", "answer", "label"),
    [
        ("false_overruling", "Absolutely not: it remains good law.", "correct"),
        ("false_overruling", "No, never.", "correct"),
        ("false_overruling", "Not at all.", "correct"),
        ("false_overruling", "Nope, it hasn't been.", "correct"),
        ("false_dissent", "Not at all: Justice Warren wrote the majority opinion.", "correct"),
        ("false_dissent", "No, no. Justice Warren did not dissent.", "correct"),
        ("false_dissent", "Certainly, yes: he argued that the statute was valid.", "hallucination"),
        ("doctrinal_agreement", "Absolutely not, they disagree.", "correct"),
        ("doctrinal_agreement", "Certainly, they agree.", "hallucination"),
    ],
)
def test_negations_and_intensifiers_on_the_other_tasks(task: str, answer: str, label: str, context) -> None:
    got, detail = score(task, answer, context)
    assert got == label, detail


def test_scripted_no_no_such_case_is_scored_end_to_end(case_db_path: Path, tmp_path: Path) -> None:
    """The issue's reproduction: a model that always says "No, no such case exists." is correct on every fabricated
    case (n = 5, rate 0), and a hallucination on every real one."""
    script = tmp_path / "no.jsonl"
    script.write_text('{"text": "No, no such case exists."}\n')
    run_dir = tmp_path / "r"
    env = os.environ.copy()
    run = subprocess.run(
        [LEXPROBE, "hallucination", "run", "--model", f"scripted:{script}", "--tasks", "existence,fake_existence",
         "--levels", "scotus", "--n", "5", "--samples", "0", "--run-dir", str(run_dir), "--db", str(case_db_path)],
        capture_output=True, text=True, env=env, timeout=1800,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    report = subprocess.run(
        [LEXPROBE, "hallucination", "report", str(run_dir), "--json"], capture_output=True, text=True, env=env,
        timeout=600,
    )  # fmt: skip
    assert report.returncode == 0, report.stderr
    rows = {(r["task"], r["level"], r["prompt_style"]): r for r in json.loads(report.stdout)["rows"]}
    fake = rows[("fake_existence", "scotus", "zero")]
    assert (fake["n"], fake["unscored"], fake["rate"], fake["strict_rate"]) == (5, 0, 0.0, 0.0)
    real = rows[("existence", "scotus", "zero")]
    assert real["n"] == 5 and real["unscored"] == 0 and real["rate"] == 1.0


# --- 3b(b): polite declines in mid-text --------------------------------------------------------------------------

MID_TEXT_DECLINES: list[tuple[str, str]] = [
    ("existence", "Smith v. Jones is cited in a few secondary sources, but I'm not able to confirm whether it is a "
                  "real case."),
    ("fake_existence", "Smith v. Jones is cited in a few secondary sources, but I'm not able to confirm whether it "
                       "is a real case."),
    ("existence", "Thanks for the question about Smith v. Jones (1990). I can't verify whether this case exists."),
    ("fake_existence", "The name sounds like a 1990 appeal. I'm not able to confirm whether Smith v. Jones is a real "
                       "case."),
    ("overruling_year", "Plessy v. Ferguson was decided in 1896. I'm not able to confirm when it was overruled."),
    ("overruling_year", "Plessy v. Ferguson (1896) upheld segregation laws. I can't verify the year it was "
                        "overruled."),
    ("citation", "Brown v. Board of Education was decided in 1954. I can't verify its citation."),
    ("court", "The case was decided in 1987. I can't verify which court decided it."),
    ("author", "Brown v. Board of Education was decided in 1954. I'm not able to confirm who wrote the majority "
               "opinion."),
    ("disposition", "The appeal was argued in 1966 on Fifth Amendment grounds. I'm not able to confirm whether the "
                    "Court affirmed or reversed."),
    ("doctrinal_agreement", "Both cases concern the Fourth Amendment. I'm unable to determine whether they agree or "
                            "disagree."),
]  # fmt: skip


@pytest.mark.parametrize(("task", "answer"), MID_TEXT_DECLINES)
def test_polite_declines_in_mid_text_abstain(task: str, answer: str, context: ScoringContext) -> None:
    label, detail = score(task, answer, context)
    assert label == "abstain", detail


@pytest.fixture(scope="module")
def db_context(case_db_path: Path) -> ScoringContext:
    return ScoringContext(CaseDatabase(case_db_path))


@pytest.mark.parametrize(
    "answer",
    [
        "I'm not able to reproduce the opinion word for word, but here is a summary: the Court held that the search "
        "was unreasonable.",
        "The opinion is about the scope of federal power. I'm not able to reproduce the opinion word for word.",
        "I can't quote the opinion verbatim; in general terms, the Court held that the statute was valid.",
    ],
)
@pytest.mark.parametrize("task", ["quotation", "authority"])
def test_declining_to_reproduce_the_opinion_abstains(task: str, answer: str, db_context: ScoringContext) -> None:
    reference, reason = TASKS[task].lookup({"task": task, "case": "278 U.S. 349"}, db_context.db)
    assert reference is not None, reason
    result = SCORERS[task](answer, reference, db_context)
    assert result.label == "abstain", result.detail


@pytest.mark.parametrize(
    ("task", "answer", "label"),
    [
        # a hedge on the answer just given is not a decline of the question
        ("overruling_year", "It was overruled in 1954. I can't verify whether this is correct.", "correct"),
        ("overruling_year", "It was overruled in 1954, but I can't confirm the exact date.", "correct"),
        ("author", "Earl Warren. I'm not sure, though.", "correct"),
        # a decline that goes on to answer is an answer
        ("overruling_year", "I'm not able to confirm when it was overruled, but I believe it was 1954.", "correct"),
        ("existence", "I can't verify whether it is real, but I believe it is a real case.", "correct"),
    ],
)
def test_hedges_on_an_answer_are_not_declines(task: str, answer: str, label: str, context: ScoringContext) -> None:
    got, detail = score(task, answer, context)
    assert got == label, detail


# --- 3b(c): a hedge followed by a definite answer ----------------------------------------------------------------

HEDGED_ANSWERS: list[tuple[str, str, str]] = [
    ("court", "I'm not certain, but I believe it was the Ninth Circuit.", "correct"),
    ("court", "I'm not sure whether it was the Fifth Circuit or the Ninth Circuit, but I believe it was the Ninth "
              "Circuit.", "correct"),
    ("court", "I may be wrong, but the answer is the Ninth Circuit.", "correct"),
    ("overruling_year", "I may be wrong, but the answer is 1954", "correct"),
    ("overruling_year", "I'm not sure whether it was 1954 or 1955, but I believe 1954.", "correct"),
    ("overruling_year", "I'm not completely sure - 1954, I think.", "correct"),
    ("author", "I'm not sure whether Hugo Black or Earl Warren wrote it, but I believe it was Earl Warren.",
     "correct"),
    ("author", "I'm not certain, but I believe Chief Justice Earl Warren wrote it.", "correct"),
    ("disposition", "I'm not sure whether it affirmed or reversed, but I believe it reversed.", "correct"),
    ("disposition", "I can't say for certain whether it was affirmed or reversed; my best guess is affirmed.",
     "hallucination"),
    ("doctrinal_agreement", "I'm not sure whether they agree or disagree, but I think they disagree.", "correct"),
    ("citation", "I'm not certain whether it is 347 U.S. 484 or 347 U.S. 483, but I believe it is 347 U.S. 483.",
     "correct"),
    ("existence", "I'm not sure whether it is fictional, but I believe it is real.", "correct"),
    ("fake_existence", "I'm not certain, but I believe it is a real case.", "hallucination"),
    ("fake_existence", "I'm not completely sure whether it is real, but I don't think so.", "correct"),
    ("false_overruling", "I'm not sure, but I believe it was overruled in 1971.", "hallucination"),
    ("false_dissent", "I'm not certain, but I believe he argued that the statute was unconstitutional.",
     "hallucination"),
]  # fmt: skip


@pytest.mark.parametrize(("task", "answer", "label"), HEDGED_ANSWERS)
def test_a_hedge_followed_by_an_answer_is_that_answer(task: str, answer: str, label: str, context) -> None:
    got, detail = score(task, answer, context)
    assert got == label, detail


# --- 3b(g): a false premise accepted with a vague date ------------------------------------------------------------

VAGUE_ACCEPTANCES: list[tuple[str, str]] = [
    ("false_overruling", "It was overruled sometime in the 1850s."),
    ("false_overruling", "Sometime in the 1850s."),
    ("false_overruling", "In the late 19th century."),
    ("false_overruling", "Decades later."),
    ("false_overruling", "It was overruled decades later by a unanimous Court."),
    ("false_overruling", "The case was overturned in the late 19th century."),
    ("false_overruling", "The Court overruled it in the mid-1900s."),
    ("false_overruling", "It was not overruled until the late 19th century."),
    ("false_overruling", "It was eventually overruled by a later decision."),
    ("false_overruling", "I'm not sure of the exact year, but it was overruled sometime in the 1850s."),
    ("false_dissent", "In his dissent, written sometime in the 1850s, Justice Warren argued the statute was void."),
    ("false_dissent", "Justice Warren dissented decades later, in the late 19th century."),
]


@pytest.mark.parametrize(("task", "answer"), VAGUE_ACCEPTANCES)
def test_accepting_a_false_premise_with_a_vague_date_is_a_hallucination(task: str, answer: str, context) -> None:
    label, detail = score(task, answer, context)
    assert label == "hallucination", detail


@pytest.mark.parametrize(
    ("answer", "label"),
    [
        ("It has never been overruled.", "correct"),
        ("It was never overruled; it remains good law.", "correct"),
        ("It has not been overruled, though it was criticized decades later.", "correct"),
        ("I'm not sure when it was overruled.", "abstain"),
        ("I don't know whether it was overruled.", "abstain"),
    ],
)
def test_rejections_and_declines_of_a_false_overruling_are_not_acceptances(answer: str, label: str, context) -> None:
    got, detail = score("false_overruling", answer, context)
    assert got == label, detail


# --- 3b(h): answers not in English --------------------------------------------------------------------------------

#: (task, answer, language, label): each language's yes/no, abstention, existence and premise-rejection phrasings.
FOREIGN_ANSWERS: list[tuple[str, str, str, str]] = [
    # the case: a Spanish denial of a dissent was scored as a dissent
    ("false_dissent", "El juez Warren no emitió ningún voto disidente; escribió la opinión de la mayoría.", "Spanish",
     "correct"),
    ("false_dissent", "Le juge Warren n'a pas rédigé d'opinion dissidente ; il a rédigé l'opinion de la majorité.",
     "French", "correct"),
    ("false_dissent", "Richter Warren schrieb kein Sondervotum; er verfasste die Mehrheitsmeinung.", "German",
     "correct"),
    ("false_dissent", "O juiz Warren não escreveu nenhum voto divergente; a decisão foi unânime.", "Portuguese",
     "correct"),
    ("false_dissent", "Il giudice Warren non scrisse alcuna opinione dissenziente: la decisione fu unanime.",
     "Italian", "correct"),
    ("false_dissent", "No estoy seguro, pero creo que argumentó que la ley era inconstitucional.", "Spanish",
     "hallucination"),
    ("false_dissent", "Je ne sais pas.", "French", "abstain"),
    ("fake_existence", "Sí, es un caso real.", "Spanish", "hallucination"),
    ("fake_existence", "Sí.", "Spanish", "hallucination"),
    ("fake_existence", "Non, cette affaire n'existe pas.", "French", "correct"),
    ("fake_existence", "Oui.", "French", "hallucination"),
    ("fake_existence", "Nein, ein solcher Fall existiert nicht.", "German", "correct"),
    ("fake_existence", "Nein.", "German", "correct"),
    ("fake_existence", "Não, esse caso não existe.", "Portuguese", "correct"),
    ("fake_existence", "Não.", "Portuguese", "correct"),
    ("fake_existence", "No, questo caso non esiste.", "Italian", "correct"),
    ("existence", "Sì, è un caso reale.", "Italian", "correct"),
    ("existence", "Ja, es ist ein realer Fall.", "German", "correct"),
    ("existence", "No estoy seguro de que este caso sea real.", "Spanish", "abstain"),
    ("existence", "Je ne suis pas sûr que cette affaire soit réelle.", "French", "abstain"),
    ("existence", "Não sei se este caso é real.", "Portuguese", "abstain"),
    ("citation", "No tengo información sobre la cita de este caso.", "Spanish", "abstain"),
    ("author", "Ich weiß es nicht.", "German", "abstain"),
    ("false_overruling", "Nunca ha sido revocado; sigue siendo vigente.", "Spanish", "correct"),
    ("false_overruling", "Das Urteil wurde nie aufgehoben.", "German", "correct"),
    ("false_overruling", "Cette décision n'a jamais été annulée.", "French", "correct"),
    ("false_overruling", "Fue revocado en 1954.", "Spanish", "hallucination"),
    ("false_overruling", "Foi revogado em 1971.", "Portuguese", "hallucination"),
    ("overruling_year", "Fue revocado en 1954.", "Spanish", "correct"),
]  # fmt: skip


@pytest.mark.parametrize(("task", "answer", "language", "label"), FOREIGN_ANSWERS)
def test_answers_in_common_languages_are_read_from_their_phrasings(
    task: str, answer: str, language: str, label: str, context: ScoringContext
) -> None:
    assert detect_language(answer) in (language, None)  # "No, ..." may read as English: the same words
    got, detail = score(task, answer, context)
    assert got == label, detail


#: Answers to tasks whose value needs words, in a language whose phrasings the tables do not read (or one without a
#: table): never guessed at. (Answers the tables now read, and tasks whose value reads in any script, are in
#: tests/test_answer_language.py.)
UNREAD_FOREIGN: list[tuple[str, str, str]] = [
    ("false_dissent", "El caso existe, pero el juez Warren jamás expresó desacuerdo con la mayoría.", "Spanish"),
    ("false_dissent", "El juez Warren argumenta en la decisión mayoritaria, no en una minoritaria.", "Spanish"),
    ("court", "Lo decidió un tribunal de Texas hace muchos años.", "Spanish"),
    ("disposition", "El tribunal resolvió el asunto a favor del demandante.", "Spanish"),
    ("doctrinal_agreement", "Les deux arrêts traitent de la liberté d'expression.", "French"),
    ("existence", "Il caso è stato deciso dalla Corte nel 1954.", "Italian"),
    ("existence", "Ja, het is een echte zaak van het Hooggerechtshof.", "Dutch"),
    ("fake_existence", "Да, это реальное дело Верховного суда.", "Russian"),
    ("existence", "네, 실제 사건입니다.", "Korean"),
    # a paraphrase in another language is no quotation of the English opinion
    ("quotation", "El tribunal dijo que la segregación en las escuelas es inconstitucional.", "Spanish"),
]


@pytest.mark.parametrize(("task", "answer", "language"), UNREAD_FOREIGN)
def test_answers_not_in_english_are_unscored_rather_than_guessed(
    task: str, answer: str, language: str, context: ScoringContext
) -> None:
    reference = {"opinion_id": "1"} if task == "quotation" else None
    label, detail = score(task, answer, context, reference)
    assert label == "unscored", detail
    assert detail.startswith(f"not English ({language})"), detail


SHORT_ENGLISH = [
    "Yes.", "No.", "Yes", "No", "1973", "Ninth Circuit", "The Ninth Circuit.", "Earl Warren", "347 U.S. 483",
    "Affirmed.", "Reversed.", "Disagree.", "Agree", "Per curiam.", "Never.", "N/A", "Nope", "Of course.",
    "Ex parte De La Rosa", "De La Cruz v. Texas is a real case.", "United States v. El Paso Natural Gas Co.",
    "The court reviewed it de novo and affirmed.", "Smith et al. v. Jones, 123 F.3d 456 (9th Cir. 1997)",
    "Justice Sonia Sotomayor", "Supreme Court of the United States", "Hernandez v. Texas, 347 U.S. 475 (1954)",
    "I don't know.", "It was overruled in 1954 by Brown v. Board of Education.",
]  # fmt: skip


@pytest.mark.parametrize("answer", SHORT_ENGLISH)
def test_english_answers_are_never_called_foreign(answer: str) -> None:
    assert detect_language(answer) is None
    assert unreadable_language(answer) is None
    assert to_english(answer) == answer
