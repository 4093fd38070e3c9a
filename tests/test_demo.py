"""Issue 33, part C: the demo shows every task, says how its cases were chosen, and explains missing verdicts.

The planning tests run the demo's own settings on the real case database (`case_db_path`); the investigation tests
replay, with a scripted model, what the embedded SmolLM2-135M-Instruct really answered in the demo (issue 33's
report: eight identical failing grep calls, a one-sentence summary, and a verdict reply that copies the prompt's
example), through the real harness and the real `lexprobe demo` command.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lexprobe.caselaw.query import CaseDatabase
from lexprobe.caselaw.sampling import CASE_FACTS, PAPER_YEARS
from lexprobe.demo import DEMO_CASES, DEMO_REFERENCE_FREE_CASES, demo_settings, run_demo_investigation
from lexprobe.demo_notes import LARGER_MODEL_HINT, investigation_note, sample_note
from lexprobe.engine.config import EngineConfig
from lexprobe.hallucination.run.items import ItemPlan, plan_items
from lexprobe.hallucination.run.runner import ProfileSettings
from lexprobe.hallucination.tasks import TASKS

LEXPROBE = str(Path(sys.executable).with_name("lexprobe"))

#: What the embedded model answered in the demo before issue 33 (recorded in its episode file), replayed.
COPIED_EXAMPLE = (
    '[{"label": "<the label>", "verdict": "<A, B or C>", "reason": "<one short sentence>"}, {"label": "<the next '
    'label>", "verdict": "<A, B or C>", "reason": "<one short sentence>"}]'
)
EMBEDDED_REPLY = [
    {"when": "give your view on each hypothesis", "text": COPIED_EXAMPLE},
    {"when": "You have used all 8 tool calls", "text": "You've already written the final report."},
    {
        "when": "You are investigating a legal matter",
        "tool_calls": [{"name": "grep", "arguments": {"pattern": "*.pdf"}}],
    },
    {"text": "Yes"},  # every hallucination question (a conversation with no assistant turn yet)
]


def demo_plan(db_path: Path, n: int = DEMO_CASES) -> tuple[ItemPlan, ProfileSettings]:
    """Plan the demo's items exactly as `run_profile` does with the demo's settings."""
    settings = demo_settings("local", n=n)
    db = CaseDatabase(db_path)
    try:
        plan = plan_items(db, settings.tasks, settings.levels, settings.styles, settings.n, settings.seed,
                          settings.samples, years=settings.windows, complete_cases=settings.complete_cases,
                          task_n=settings.task_n)  # fmt: skip
    finally:
        db.close()
    return plan, settings


def test_every_registered_task_has_items_at_the_demos_levels_and_styles(case_db_path: Path) -> None:
    plan, settings = demo_plan(case_db_path)
    asked = {(item.task, item.level, item.prompt_style) for item in plan.items}
    for task in TASKS.values():
        for level in settings.levels:
            for style in settings.styles:
                if level in task.levels and style in task.styles:
                    assert (task.id, level, style) in asked, (task.id, plan.skipped)
    assert not [row for row in plan.skipped if "no sampled" in row[3]], plan.skipped
    assert {item.task for item in plan.items} == set(TASKS)
    coverage = {(row.task, row.level): row for row in plan.coverage}
    for task in TASKS.values():
        assert coverage[(task.id, "scotus")].usable > 0, coverage[(task.id, "scotus")]


def test_the_demo_sample_has_every_fact_the_tasks_need_within_the_study_window(case_db_path: Path) -> None:
    plan, _ = demo_plan(case_db_path)
    sample = plan.samples["scotus"]
    assert sample["years"] == "1794-2015" and sample["drawn"] == DEMO_CASES
    shared = [name for name, fact in CASE_FACTS.items() if fact.shared]
    assert sample["require"] == shared  # name, court, author, disposition, opinion text
    sampled = {item.case_id for item in plan.items if item.task == "existence"}
    assert len(sampled) == DEMO_CASES
    db = CaseDatabase(case_db_path)
    try:
        facts = db.case_facts(sampled, tuple(shared))
        years = [db.get_case(case_id).year for case_id in sampled]
    finally:
        db.close()
    assert all(facts[case_id] == set(shared) for case_id in sampled), facts
    low, high = PAPER_YEARS["scotus"]
    assert all(low <= year <= high for year in years), years
    for task in TASKS.values():  # the slow reference-free tasks ask a stratified part of the same cases
        cases = {item.case_id for item in plan.items if item.task == task.id}
        if task.reference_free:
            assert len(cases) == DEMO_REFERENCE_FREE_CASES and cases <= sampled
        elif not task.population and task.id != "false_overruling":  # that one drops overruled cases itself
            assert cases == sampled, task.id
    again, _ = demo_plan(case_db_path)
    assert [item.item_id for item in again.items] == [item.item_id for item in plan.items]  # deterministic


def test_a_one_case_demo_still_asks_every_sample_task(case_db_path: Path) -> None:
    plan, _ = demo_plan(case_db_path, n=1)
    assert plan.skipped == []  # zero-shot: every task has a zero-shot template
    for task in TASKS.values():
        if task.reference_free:
            assert sum(item.task == task.id for item in plan.items) == 1


def test_the_sample_note_says_how_the_cases_were_chosen(case_db_path: Path) -> None:
    plan, settings = demo_plan(case_db_path)
    note = sample_note(plan, settings.seed, settings.task_n)
    eligible = plan.samples["scotus"]["eligible"]
    assert note.startswith(f"{DEMO_CASES} Supreme Court cases decided ")
    assert f"from the {eligible:,} cases decided 1794-2015 (the study's window)" in note
    assert "majority author, unambiguous disposition, majority opinion text" in note
    assert f"central holding ask {DEMO_REFERENCE_FREE_CASES} of them" in note
    assert "fake existence draw their own items" in note
    sampled_years = sorted(item.covariates["year"] for item in plan.items if item.task == "existence")
    assert f"decided {sampled_years[0]}-{sampled_years[-1]}," in note


def test_the_embedded_models_real_reply_gives_no_verdict_and_a_note_saying_why(tmp_path: Path) -> None:
    script = tmp_path / "smollm2.jsonl"
    script.write_text("".join(json.dumps(line) + "\n" for line in EMBEDDED_REPLY))
    config = EngineConfig(use_cache=False, progress=False)
    summary, episodes = asyncio.run(run_demo_investigation(tmp_path, f"scripted:{script}", None, config))
    (episode,) = episodes
    assert episode.status == "complete" and episode.copied_example and episode.unparsed
    assert [v.verdict for v in episode.verdicts] == [None] * 4  # never filled in
    note = investigation_note(episode)
    assert note is not None and "copies the verdict prompt's example" in note
    assert "8 of its 8 tool calls failed" in note and "summary is 40 characters" in note
    assert note.endswith(LARGER_MODEL_HINT)
    assert summary is not None and summary.copied_example == 1


def test_readable_verdicts_need_no_note(tmp_path: Path) -> None:
    script = tmp_path / "agent.jsonl"
    answer = [{"label": f"H{i}", "verdict": "C", "reason": "not enough evidence"} for i in range(1, 5)]
    lines = [{"when": "give your view on each hypothesis", "text": json.dumps(answer)}, {"text": "Summary: none."}]
    script.write_text("".join(json.dumps(line) + "\n" for line in lines))
    config = EngineConfig(use_cache=False, progress=False)
    _, (episode,) = asyncio.run(run_demo_investigation(tmp_path, f"scripted:{script}", None, config))
    assert [v.verdict for v in episode.verdicts] == ["dont_know"] * 4
    assert investigation_note(episode) is None
    episode.verdicts[2].verdict = None  # one hypothesis unread: named
    assert "no readable verdict on H3 of 4 hypotheses" in (investigation_note(episode) or "")


def test_a_hostile_verdict_reply_is_quoted_escaped(tmp_path: Path) -> None:
    script = tmp_path / "agent.jsonl"
    lines = [{"when": "give your view on each hypothesis", "text": "\x1b[2J\u202eok"}, {"text": "Summary."}]
    script.write_text("".join(json.dumps(line) + "\n" for line in lines))
    config = EngineConfig(use_cache=False, progress=False)
    _, (episode,) = asyncio.run(run_demo_investigation(tmp_path, f"scripted:{script}", None, config))
    note = investigation_note(episode) or ""
    assert "\x1b" not in note and "\u202e" not in note and "\\x1b[2J\\u202eok" in note


@pytest.fixture
def demo_home(tmp_path: Path, case_db_path: Path) -> tuple[Path, dict[str, str]]:
    """A folder with its own cache (holding the built case database) and temporary folder for one demo."""
    cache, temp = tmp_path / "cache", tmp_path / "tmp"
    cache.mkdir()
    temp.mkdir()
    shutil.copy(case_db_path, cache / "caselaw.sqlite")
    env = os.environ.copy() | {"LEXPROBE_CACHE": str(cache), "TMPDIR": str(temp)}
    return tmp_path, env


def test_the_demo_prints_how_cases_were_chosen_and_why_there_are_no_verdicts(demo_home) -> None:
    root, env = demo_home
    script = root / "smollm2.jsonl"
    script.write_text("".join(json.dumps(line) + "\n" for line in EMBEDDED_REPLY))
    done = subprocess.run([LEXPROBE, "demo", "--model", f"scripted:{script}", "--samples", "0", "--html",
                           str(root / "demo-report.html")], capture_output=True, text=True, cwd=root, env=env,
                          timeout=1200)  # fmt: skip
    assert done.returncode == 0, done.stderr
    out = " ".join(done.stdout.split())
    assert "skipped" not in done.stderr  # every task asked
    for task in TASKS:
        assert task in out
    assert f"cases: {DEMO_CASES} Supreme Court cases decided " in out
    assert "verdicts H1=? H2=? H3=? H4=?" in out  # the episode line stays honest
    assert "gave no readable verdicts: its Turn-2 reply copies the verdict prompt's example" in out
    assert "lexprobe demo --model openai/gpt-4o-mini" in out
    assert (root / "demo-report.html").stat().st_size > 10_000
