"""Issue 44, item 7: scoring is linear in the answer's length and reads a bounded part of it.

A 10 MB answer used to take minutes per task (the language detector copied the text before every word); the scorers
now read the first `MAX_ANSWER_CHARS` characters of a final answer (the first `MAX_REPLY_CHARS` of a reply) and the
label's detail says what was cut. The big inputs run in a subprocess with a timeout far beyond what linear code
needs and far below what the quadratic code took: the bound is on the input's size, not on seconds.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from lexprobe.hallucination.labels.final_answer import MAX_ANSWER_CHARS, MAX_REPLY_CHARS, read_reply
from lexprobe.hallucination.labels.language import detect_language
from lexprobe.hallucination.labels.scoring import ScoringContext
from lexprobe.hallucination.scorers.by_task import SCORERS

# (task, reference) of every reference-based task that needs no database
TASKS = [
    ("existence", {}),
    ("fake_existence", {}),
    ("court", {"court_id": "ca9"}),
    ("citation", {"citations": ["347 U.S. 483"]}),
    ("author", {"decided": "1954-05-17", "author": "Earl Warren"}),
    ("disposition", {"disposition": "reverse"}),
    ("overruling_year", {"year": 1954}),
    ("doctrinal_agreement", {"agreement": "disagree", "case2": "scotus:163_U.S._537"}),
    ("false_dissent", {"dissenter": "Earl Warren"}),
    ("false_overruling", {}),
]

SCRIPT = """
import json, sys
from lexprobe.hallucination.labels.scoring import ScoringContext
from lexprobe.hallucination.scorers.by_task import SCORERS
tasks = json.loads(sys.argv[1])
filler = "The court considered the matter at length, and the parties argued about it. " * 140_000  # ~10.6 MB
out = {}
for task, reference in tasks:
    score = SCORERS[task]("Yes, it is a real case. " + filler, reference, ScoringContext())
    out[task] = [score.label, score.detail]
print(json.dumps(out))
"""


def test_a_ten_megabyte_answer_is_scored_for_every_task_and_the_detail_says_it_was_cut() -> None:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, json.dumps(TASKS)], capture_output=True, text=True, timeout=300, check=True
    )
    scores = json.loads(done.stdout)
    assert set(scores) == {task for task, _ in TASKS}
    for task, (_label, detail) in scores.items():
        assert "read the first 1,000,000 of the reply's" in detail, (task, detail)
        assert f"read the first {MAX_ANSWER_CHARS:,} of the answer's" in detail, (task, detail)
    assert scores["existence"][0] == "correct"
    assert scores["fake_existence"][0] == "hallucination"


def test_the_language_detector_reads_a_long_text_in_one_pass() -> None:
    # 4 MB of Spanish: the old detector copied the text before each of its 800,000 words
    code = (
        "from lexprobe.hallucination.labels.language import detect_language\n"
        "print(detect_language('No, el caso no existe y la corte no lo decidió. ' * 80_000))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert done.stdout.strip() == "Spanish"


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("No, el caso no existe y la corte no lo decidió.", "Spanish"),
        ("No, el caso no existe.", "Spanish"),  # lingua reads a short sentence
        ("No.", None),  # the same word in English: read as English
        ("Ex parte De La Rosa was decided by the Fifth Circuit.", None),  # a name is not Spanish
        ("El Paso. The case is real.", None),
        ("Não, o caso não existe e o tribunal não decidiu.", "Portuguese"),
        ("Yes.", None),
    ],
)
def test_the_one_pass_detector_keeps_its_answers(text: str, language: str | None) -> None:
    assert detect_language(text) == language


def test_answers_under_the_bound_are_read_whole_and_carry_no_note() -> None:
    answer = "Yes, it is a real case. " + "x " * (MAX_ANSWER_CHARS // 2 - 20)
    assert len(answer) < MAX_ANSWER_CHARS
    assert read_reply(answer).cut_note is None
    score = SCORERS["existence"](answer, {}, ScoringContext())
    assert score.label == "correct" and "read the first" not in score.detail


def test_a_reasoning_reply_longer_than_the_reply_bound_is_cut_and_says_so() -> None:
    reply = "<think>" + "hmm " * (MAX_REPLY_CHARS // 4 + 10) + "</think>Yes."
    reading = read_reply(reply)
    assert reading.reasoning_only and "of the reply's" in (reading.cut_note or "")
    score = SCORERS["existence"](reply, {}, ScoringContext())
    assert score.label == "unscored" and "read the first 1,000,000 of the reply's" in score.detail
