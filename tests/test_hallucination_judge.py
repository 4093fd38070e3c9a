"""Reference-free scoring: the contradiction prompt, verdict parsing, and the full path through the engine."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from lexprobe.hallucination.scorers.judge import judge_prompt, pair_label, parse_verdict, verdict_label

LEXPROBE = str(Path(sys.executable).with_name("lexprobe"))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Both describe the same holding. So, the answer is yes.", True),
        ("They concern different issues. So, the answer is no.", False),
        ("So, the answer is [no].", False),
        ("So the answer is: Yes", True),
        ("The answer is no. On reflection, the answer is yes.", True),
        ("They are consistent.", None),
        ("", None),
    ],
)
def test_parse_verdict(text: str, expected: bool | None) -> None:
    assert parse_verdict(text) is expected


def test_verdict_labels_and_abstaining_pairs() -> None:
    assert verdict_label("So, the answer is no.").label == "hallucination"
    assert verdict_label("So, the answer is yes.").label == "correct"
    assert verdict_label("Hmm.").label == "unscored"
    assert pair_label("I don't know.", "The court held X.").label == "abstain"
    assert pair_label("The court held X.", "The court held Y.") is None


def test_judge_prompt_ends_with_the_pair() -> None:
    prompt = judge_prompt("First answer.", "Second answer.")
    assert prompt.startswith("Analyze pairs of statements about historical U.S. Supreme Court cases")
    assert 'Present your final answer in the following format: "So, the answer is [yes/no]."' in prompt
    assert prompt.endswith(
        "Premise: First answer.\n\nHypothesis: Second answer.\n\n"
        "Q: Is the premise consistent with the hypothesis?\n\nA:"
    )


def test_reference_free_run_with_a_scripted_judge(case_db_path: Path, tmp_path: Path) -> None:
    """Samples come from the script's first line; the judge (a second script) always says "no": every judged pair
    is a hallucination, and the report counts each pair once."""
    model = tmp_path / "model.jsonl"
    model.write_text('{"text": "The Court held that the statute was valid."}\n')
    judge = tmp_path / "judge.jsonl"
    judge.write_text('{"text": "They differ. So, the answer is no."}\n')
    result = subprocess.run(
        [LEXPROBE, "hallucination", "run", "--model", f"scripted:{model}", "--judge", f"scripted:{judge}",
         "--tasks", "central_holding,core_legal_question", "--n", "4", "--samples", "0",
         "--run-dir", str(tmp_path / "run"),
         "--db", str(case_db_path), "--json"],
        capture_output=True, text=True, env=os.environ.copy(), timeout=300,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    payload = json.loads(result.stdout)
    assert payload["judge"] == f"scripted:{judge}"
    rows = {row["task"]: row for row in payload["rows"]}
    assert rows["central_holding"]["n"] == 4 and rows["central_holding"]["rate"] == 1.0
    assert rows["core_legal_question"]["pending"] == 0


def test_reference_free_path_on_the_embedded_model(case_db_path: Path, tmp_path: Path) -> None:
    result = subprocess.run(
        [LEXPROBE, "hallucination", "run", "--model", "local", "--tasks", "central_holding", "--n", "2",
         "--run-dir", str(tmp_path / "run"), "--db", str(case_db_path), "--json"],
        capture_output=True, text=True, env=os.environ.copy(), timeout=900,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    row = json.loads(result.stdout)["rows"][0]
    assert row["task"] == "central_holding" and row["pending"] == 0
    assert row["n"] + row["unscored"] == 2
