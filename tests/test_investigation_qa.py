"""Factual QA: answers after ANSWER:, rubric grades from a judge, unreadable grades unscored, missing answers."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from lexprobe.engine.cache import ResponseCache
from lexprobe.engine.config import EngineConfig
from lexprobe.investigation.agent.harness import HarnessSettings
from lexprobe.investigation.environment.format import load_environment
from lexprobe.investigation.qa.runner import extract_answer, load_qa_records, parse_grades, run_qa
from lexprobe.investigation.sample.build import build_sample_environment


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("I looked.\nANSWER: 229 units failed.", "229 units failed."),
        ("answer: lower case works", "lower case works"),
        ("ANSWER: first\nthen more\nANSWER: the last one counts", "the last one counts"),
        ("No terminator here.", None),
        ("ANSWER:   ", None),
    ],
)
def test_extract_answer(reply: str, expected: str | None) -> None:
    assert extract_answer(reply) == expected


@pytest.mark.parametrize(
    ("reply", "items", "expected"),
    [
        ("[true, false, true]", 3, [True, False, True]),
        ("Grades: [True, False]", 2, [True, False]),
        ("```json\n[false, false]\n```", 2, [False, False]),
        ("[true, false]", 3, None),  # wrong length
        ("[1, 0]", 2, None),  # not booleans
        ("yes, both", 2, None),
        ("first [true] then [true, true]", 2, [True, True]),
    ],
)
def test_parse_grades(reply: str, items: int, expected: list[bool] | None) -> None:
    assert parse_grades(reply, items) == expected


def test_scripted_qa_run(tmp_path: Path) -> None:
    env = build_sample_environment(tmp_path / "env", "merits")
    agent = tmp_path / "agent.jsonl"
    lines = [
        {"tool_calls": [{"name": "grep", "arguments": {"pattern": "units"}}]},
        {"text": "From the documents.\nANSWER: 229 of 600 units failed."},
    ]
    agent.write_text("".join(json.dumps(line) + "\n" for line in lines))
    judge = tmp_path / "judge.jsonl"
    judge.write_text(json.dumps({"text": "[true, false]"}) + "\n")
    settings = HarnessSettings(model=f"scripted:{agent}", tool_budget=5)
    config = EngineConfig(progress=False, max_retries=0)
    records = asyncio.run(run_qa([env], settings, f"scripted:{judge}", tmp_path / "run", ResponseCache(), config))
    _, questions = load_environment(env)
    assert len(records) == len(questions.questions) > 0
    by_id = {q.question_id: q for q in questions.questions}
    for record in records:
        assert record.answer == "229 of 600 units failed."
        items = len(by_id[record.question_id].rubric)
        if items == 2:
            assert record.label == "partial" and record.score == 0.5 and record.grades == [True, False]
        else:
            assert record.label == "unscored" and record.score is None and "booleans" in record.reason
        assert record.episode.tool_calls[0].name == "grep" and record.episode.status == "complete"
    assert len(load_qa_records(tmp_path / "run")) == len(records)
