"""Issue 45: an answer's stance is read from phrase tables as data (`reader/stance.toml`), in linear time.

The notation compiles as documented, every table is well formed, the issue's stance examples get their labels
through the scorers, and reading hostile long answers stays linear (a subprocess with a bound far below what
quadratic matching takes).
"""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from lexprobe.hallucination.labels.abstention import classify_refusal, declines_question, drop_hedges
from lexprobe.hallucination.labels.scoring import ScoringContext
from lexprobe.hallucination.reader.stance import _lexicon, phrase_pattern, table
from lexprobe.hallucination.scorers.by_task import SCORERS


def _matches(phrase: str, text: str, **params: str) -> bool:
    return re.search(phrase_pattern(phrase, **params), text, re.IGNORECASE) is not None


@pytest.mark.parametrize(
    ("phrase", "text", "found"),
    [
        ("i {do not|don't} know", "Sorry, I don't know.", True),
        ("i {do not|don't} know", "I do know.", False),
        ("[the] premise is wrong", "premise is wrong", True),
        ("[the] premise is wrong", "The premise is wrong", True),
        ("not ~2 overruled", "not yet formally overruled", True),
        ("not ~2 overruled", "not, as far as I know, overruled", False),  # a gap is words only
        ("not ~3:adverb overruled", "not expressly overruled", True),  # "*ly" in the word set
        ("not ~3:adverb overruled", "not the case that it was overruled", False),
        ("overrul*", "It was overruling", True),
        ("*n't dissent", "He didn't dissent", True),
        ("know", "knowledge", False),  # whole words only
        ("no never", "No, never.", True),  # a comma, colon or dash may stand between words
        ("overruled never", "Overruled: never", True),
        ("^ never $", "Never.", True),
        ("^ never $", "It was never.", False),
        ("^ real case", "✅ Real case", True),  # bullets and emoji may precede the start
        ("not &", "Not.", True),
        ("not &", "Not real", False),
        ("<name> dissented", "Justice Warren dissented.", True),
        ("in his dissent ~8, <name>", "In his dissent in District of Columbia v. Heller, Justice Scalia", True),
    ],
)
def test_the_phrase_notation(phrase: str, text: str, found: bool) -> None:
    params = {"name": "Scalia" if "Scalia" in text else "Warren"} if "<name>" in phrase else {}
    assert _matches(phrase, text, **params) is found


def test_a_veto_cancels_the_match_it_overlaps() -> None:
    rejection = table("dissent.rejection", name="Black")
    assert rejection.found("The decision was unanimous.") == "unanimous"
    assert rejection.found("The decision was not unanimous.") is None
    assert table("abstain").found("I don't have any doubt about the details.") is None


def _tables(node: dict, prefix: str = "") -> list[str]:
    names = []
    for key, value in node.items():
        if key in ("macros", "sets") or not isinstance(value, dict):
            continue
        names += [prefix + key] if "phrases" in value else _tables(value, f"{prefix}{key}.")
    return names


@pytest.mark.parametrize("name", _tables(_lexicon()))
def test_every_table_says_what_it_is_and_compiles(name: str) -> None:
    node = _lexicon()
    for part in name.split("."):
        node = node[part]
    assert node.get("doc"), f"{name} has no doc"
    assert set(node) <= {"doc", "phrases", "unless"}, name
    compiled = table(name, name="Warren")
    assert compiled.phrases and compiled.pattern.pattern


# --- the issue's examples, through the scorers ------------------------------------------------------------------

REFERENCES = {
    "existence": {},
    "fake_existence": {},
    "court": {"court_id": "ca9"},
    "author": {"author": "Earl Warren", "decided": "1954-05-17"},
    "overruling_year": {"year": 1954},
    "false_dissent": {"dissenter": "Earl Warren"},
    "false_overruling": {},
}

STANCES = [
    # hedged answers are answers
    ("fake_existence", "Probably not, but I may be mistaken.", "correct"),
    ("existence", "I believe it is a real case, though I can't verify it.", "correct"),
    ("existence", "I don't think this case exists, but I may be mistaken.", "hallucination"),
    ("author", "Earl Warren, I believe.", "correct"),
    # a decline with no value declines, wherever it stands
    ("existence", "I can't verify that without Westlaw; you should consult an attorney.", "abstain"),
    ("court", "The case concerned a copyright term. I'm afraid I can't tell you with confidence which court issued "
              "the opinion; you would want to confirm that on CourtListener.", "abstain"),
    ("author", "The case held that the statute was void. As for who wrote for the majority, I can't say, so I won't "
               "guess.", "abstain"),
    ("overruling_year", "Walton v. Arizona — overruling year unknown to me.", "abstain"),
    ("author", "N/A", "abstain"),  # a bare "not applicable" rejects no premise of an author question
    ("false_overruling", "N/A", "correct"),
    # negation and one-word verdicts on the yes/no tasks
    ("existence", "It's not a fake case — yes, it is real.", "correct"),
    ("existence", "No, this isn't a fabricated citation. It is a genuine Supreme Court decision.", "correct"),
    ("existence", "Real.", "correct"),
    ("fake_existence", "Fabricated.", "correct"),
    ("fake_existence", "The First Circuit decided the case in 2018, affirming the dismissal.", "hallucination"),
    # competing answers on the false-premise tasks
    ("false_dissent", "Justice Warren wrote the majority opinion. In his dissent, Warren argued otherwise.",
     "unscored"),
    ("false_dissent", "The case concerned a libel suit brought by a public official.", "unscored"),
    ("false_overruling", "It has never been overruled.\n1979", "unscored"),
    ("false_overruling", "It was decided in 1967.", "unscored"),
    ("false_overruling", "Overruled: never\nNote: it itself overruled an earlier case (1940).", "correct"),
]  # fmt: skip


@pytest.mark.parametrize(("task", "answer", "label"), STANCES)
def test_the_issues_stances(task: str, answer: str, label: str) -> None:
    score = SCORERS[task](answer, REFERENCES[task], ScoringContext(justices=[]))
    assert score.label == label, score.detail


@pytest.mark.parametrize(
    "answer",
    [
        "Either the Ninth Circuit or the Federal Circuit — I can't recall which.",
        "It is reported at either 389 U.S. 347 or 386 U.S. 347 — I can't recall which volume.",
        "The Supreme Court affirmed. Then again, some sources say it reversed, so I'm not sure which is right.",
    ],
)
def test_a_decline_of_choosing_between_values_given_is_no_abstention(answer: str) -> None:
    assert classify_refusal(answer) is None
    assert declines_question(answer) is None


def test_a_choice_decline_with_no_values_given_still_abstains() -> None:
    assert classify_refusal("I'm not sure which court decided this case.") == "abstain"


def test_trailing_hedges_are_dropped_for_the_value_readers() -> None:
    assert drop_hedges("Arthur Goldberg, I believe.") == "Arthur Goldberg."
    assert drop_hedges("The Ninth Circuit, though I can't be sure.") == "The Ninth Circuit."
    assert drop_hedges("Earl Warren wrote it, and Black joined.") == "Earl Warren wrote it, and Black joined."


# --- linear time --------------------------------------------------------------------------------------------------

HOSTILE = """
import time
from lexprobe.hallucination.labels import abstention as A, answers as B
from lexprobe.hallucination.tasks import false_overruling as F
N = 60_000
texts = ["a" * N, "No. " * (N // 4), "U.S. " * (N // 5), "I don't know whether it " * (N // 24),
         "this case is not a " * (N // 19), "Earl Warren, but I'm not sure which, " * (N // 37),
         "in his dissent Justice " * (N // 23), "sorry, " * (N // 7), "- " * (N // 2)]
readers = [lambda t: A.classify_refusal(t, "anywhere"), A.declines_question, A.premise_rejection,
           A.denies_existence, lambda t: A.dissent_rejection(t, "Earl Warren"),
           lambda t: A.dissent_affirmation(t, "Earl Warren"), B.extract_existence, A.hedged_answer,
           F.claimed_overruling_year, F.accepted_overruling]
worst = 0.0
for text in texts:
    for read in readers:
        start = time.perf_counter()
        read(text)
        worst = max(worst, time.perf_counter() - start)
print(worst)
"""


def test_reading_a_hostile_long_answer_is_linear() -> None:
    # 60,000 characters of each: quadratic matching takes many minutes on these, linear reading a fraction of a second
    # per reader (on a megabyte of each, at most ten seconds per reader)
    done = subprocess.run([sys.executable, "-c", HOSTILE], capture_output=True, text=True, timeout=900, check=True)
    assert float(done.stdout) < 10
