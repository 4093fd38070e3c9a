"""Paper-sized corpora (issue 14): per-role counts and the `--size paper` preset, every role planned in batches sent
together, distinct titles across batches, generation in batches with dedup, and per-document resume after a kill.

Driven by the FakeLLM of tests/test_investigation_pipeline.py (canned answers per stage and item).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest
import typer
from test_investigation_pipeline import (
    SMALL,
    FakeLLM,
    build_until,
    canned_answers,
    code_words,
    doc_plan_answer,
    document_answer,
    judge_document,
    quiet,
    write_record,
)
from typer.testing import CliRunner

from lexprobe.cli.handler import LexprobeGroup
from lexprobe.cli.investigation_build import register
from lexprobe.investigation.environment.format import load_environment
from lexprobe.investigation.environment.validate import errors_in, validate_environment
from lexprobe.investigation.pipeline.context import (
    RENDERED_DIR,
    SIZE_PRESETS,
    STAGES_DIR,
    Answer,
    BuildSettings,
    LLMCall,
)
from lexprobe.investigation.pipeline.generate import CHECKPOINT_DIR, exhibit_notes
from lexprobe.investigation.pipeline.runner import run_build


class BatchLLM(FakeLLM):
    """A FakeLLM that also records which calls came in each `complete` request."""

    def __init__(self, table: dict) -> None:
        super().__init__(table)
        self.batches: list[list[LLMCall]] = []

    def complete(self, calls: list[LLMCall]) -> list[Answer]:
        self.batches.append(list(calls))
        return super().complete(calls)


class Killed(Exception):
    """Stands for the process being killed in the middle of the generate stage."""


class KillingLLM(FakeLLM):
    """A FakeLLM that dies when the writer has been asked for more than `writes` documents."""

    def __init__(self, table: dict, writes: int) -> None:
        super().__init__(table)
        self.writes = writes

    def complete(self, calls: list[LLMCall]) -> list[Answer]:
        asked = sum(c.stage == "generate" and c.role == "generator" for c in [*self.calls, *calls])
        if asked > self.writes:
            raise Killed
        return super().complete(calls)


# --- counts --------------------------------------------------------------------------------------------------


def test_size_presets_and_explicit_counts() -> None:
    small = BuildSettings()
    assert [small.signal_count, small.pro_alternative_count, small.refuting_count, small.noise_count] == [2] * 4
    assert (small.chaff_count, small.shard_count) == (4, 1)  # the defaults before presets existed
    paper = BuildSettings(size="paper")
    assert (paper.pro_alternative_count, paper.noise_count, paper.chaff_count) == (10, 57, 500)  # paper 4.2
    assert (paper.signal_count, paper.refuting_count, paper.shard_count) == (10, 3, 2)
    # docs_per_role fills the four per-role counts left unset; an explicit count beats both
    mixed = BuildSettings(size="paper", docs_per_role=4, noise_docs=7, chaff_docs=10)
    assert (mixed.signal_count, mixed.refuting_count, mixed.noise_count, mixed.chaff_count) == (4, 4, 7, 10)
    assert mixed.shard_count == SIZE_PRESETS["paper"]["shards"]
    assert BuildSettings(docs_per_role=11).signal_count == 11 and BuildSettings(docs_per_role=11).chaff_count == 4


def cli() -> typer.Typer:
    app = typer.Typer(cls=LexprobeGroup)
    register(app)

    @app.command("noop")
    def noop() -> None:  # a second command keeps `build` a sub-command, as under `lexprobe investigation`
        pass

    return app


def flat(output: str) -> str:
    """Return terminal output with line wrapping and the help panel's borders undone."""
    return re.sub(r"[\s\u2502]+", " ", output)


def test_cli_size_paper_with_an_explicit_chaff_count(tmp_path: Path) -> None:
    record = write_record(tmp_path / "record", skip=("attachment_a.txt",))  # every file classified by rules
    script = tmp_path / "script.jsonl"
    script.write_text('{"text": "{}"}\n', encoding="utf-8")
    runner = CliRunner()
    args = ["build", str(record), "--out", str(tmp_path / "env"), "--generator", f"scripted:{script}"]
    result = runner.invoke(cli(), [*args, "--size", "paper", "--chaff", "10", "--stage", "ingest"])
    assert result.exit_code == 0, result.output
    line = "signal 10 + 2 shard fact(s); per alternative: pro-alternative 10, refuting 3; noise 57; chaff 10"
    assert line in flat(result.output)
    small = flat(runner.invoke(cli(), [*args, "--noise", "5", "--stage", "ingest"]).output)
    assert "(--size small): signal 2 + 1 shard fact(s)" in small and "noise 5; chaff 4" in small
    bad = runner.invoke(cli(), [*args, "--size", "huge"])
    assert bad.exit_code == 2 and "unknown size 'huge'" in bad.output
    help_text = flat(runner.invoke(cli(), ["build", "--help"]).output)
    assert "'paper' (section 4.2 of the paper" in help_text and "(paper preset: 500)" in help_text


# --- planning --------------------------------------------------------------------------------------------------


def test_paper_preset_plans_every_role_in_batches_sent_together(tmp_path: Path) -> None:
    llm = BatchLLM(canned_answers())
    ctx = build_until(tmp_path, "shard_plans", llm, size="paper", docs_per_role=None, chaff_docs=None, shard_facts=None)
    plan = ctx.outputs["doc_plans"]
    counts = Counter(spec.role.value for spec in plan.specs)
    assert counts == {"signal": 10, "pro_alternative": 20, "refuting": 6, "noise": 57, "chaff": 500}, counts
    assert plan.dropped == [] and len({s.spec_id for s in plan.specs}) == len(plan.specs)
    assert len(ctx.outputs["shard_plans"].plans) == 2
    planning = [batch for batch in llm.batches if any(c.stage == "doc_plans" for c in batch)]
    assert len(planning) == 1, "every planning batch goes out in one request to the engine"
    items = [c.item for c in planning[0]]
    assert items[:2] == ["signal", "signal#2"] and "noise#8" in items and items[-1] == "chaff:63"
    assert all(c.schema["properties"]["specs"]["maxItems"] <= 8 for c in planning[0])
    # the planner reads every exhibit's annotation, not the first characters of a dozen files
    prompt = planning[0][0].prompt
    assert prompt.count('"title": "Exhibit"') == 3 and '"mentions": ' in prompt and "more exhibit(s)" not in prompt


@dataclass
class Note:
    """An exhibit annotation with the summary the chunked reading of exhibits may add."""

    title: str
    doc_type: str = "letter"
    date: str | None = "2021-09-03"
    author: str | None = None
    mentions: tuple[str, ...] = ()
    summary: str = ""


def test_exhibit_annotations_fill_the_budget_and_count_what_is_left_out() -> None:
    notes = [Note(f"Letter {n}", summary=f"Summary of letter {n}.") for n in range(100)]
    kept, left_out = exhibit_notes(notes, budget=100_000)
    assert len(kept) == 100 and left_out == 0 and kept[7]["summary"] == "Summary of letter 7."
    kept, left_out = exhibit_notes(notes, budget=2_000)
    assert 0 < len(kept) < 100 and left_out == 100 - len(kept)
    assert sum(len(json.dumps(k)) for k in kept) <= 2_000


def test_duplicate_titles_within_and_across_batches(tmp_path: Path) -> None:
    def plan(call: LLMCall) -> dict:
        answer = doc_plan_answer(call)
        first = doc_plan_answer(replace(call, item="noise"))["specs"]
        if call.item == "signal" and call.attempt == 0:  # two near-identical titles in one batch: refused
            answer["specs"][1]["title"] = answer["specs"][0]["title"].upper() + " (2)"
        if call.item == "noise#2":  # repeats the first noise batch's titles; once more after the re-plan
            answer["specs"][0]["title"] = first[0]["title"] + " #2"
            if call.attempt < SMALL.max_attempts:
                answer["specs"][1]["title"] = "room-note " + first[1]["title"][len("Room note ") :]
        return answer

    llm = FakeLLM(canned_answers(doc_plans=plan))
    ctx = build_until(tmp_path, "doc_plans", llm, docs_per_role=None, signal_docs=2, noise_docs=10, chaff_docs=0)
    result = ctx.outputs["doc_plans"]
    signal_calls = [c for c in llm.calls if c.stage == "doc_plans" and c.item == "signal"]
    assert [c.attempt for c in signal_calls] == [0, 1] and "nearly the same" in signal_calls[1].prompt
    replans = [c for c in llm.calls if c.stage == "doc_plans" and c.item == "noise#2"]
    assert [c.attempt for c in replans] == [0, SMALL.max_attempts]
    first = doc_plan_answer(replace(replans[0], item="noise"))["specs"]
    assert "TITLES ALREADY TAKEN" in replans[1].prompt and first[0]["title"] in replans[1].prompt
    assert "TITLES ALREADY TAKEN" not in replans[0].prompt
    assert Counter(s.role.value for s in result.specs)["noise"] == 9  # one spec still clashed: dropped
    assert [d.item for d in result.dropped] == [f"noise#2:{first[0]['title']} #2"]
    assert "nearly the same" in result.dropped[0].reason


# --- generation ------------------------------------------------------------------------------------------------


def long_document(call: LLMCall) -> dict:
    answer = document_answer(call)
    answer["body"][1]["text"] = f"Notes: {code_words(call.item.split('#')[0], 60)}."
    return answer


def test_dedup_refuses_near_identical_documents_and_regenerates_them(tmp_path: Path) -> None:
    def write(call: LLMCall) -> dict:
        if call.role == "judge":
            return judge_document(call)
        if call.attempt == 0 and call.item == "noise_001":  # the same title as signal_001
            return long_document(call) | {"title": long_document(replace(call, item="signal_001"))["title"]}
        if call.attempt == 0 and call.item == "chaff_001":  # signal_001's text under another title
            return long_document(replace(call, item="signal_001")) | {"title": "Pallet rental statement"}
        return long_document(call)

    llm = FakeLLM(canned_answers(generate=write))
    ctx = build_until(tmp_path, "generate", llm)
    result = ctx.outputs["generate"]
    dedup = {r.spec_id: r for r in result.rejections if r.by == "dedup"}
    assert set(dedup) == {"noise_001", "chaff_001"}
    signal_title = next(d.content.title for d in result.documents if d.spec_id == "signal_001")
    assert "title" in dedup["noise_001"].reasons[0] and signal_title in dedup["noise_001"].reasons[0]
    assert "text nearly repeats" in dedup["chaff_001"].reasons[0] and signal_title in dedup["chaff_001"].reasons[0]
    accepted = {d.spec_id: d for d in result.documents}
    assert accepted["noise_001"].drafts == 2 and accepted["chaff_001"].drafts == 2 and result.failed == []
    rewrite = [c for c in llm.calls if c.item == "noise_001" and c.role == "generator"][-1]
    assert signal_title in rewrite.prompt  # the feedback names the earlier document
    judged = {c.item.split("#")[0] for c in llm.calls if c.role == "judge" and c.item.endswith("#1")}
    assert "noise_001" not in judged  # dedup comes before the judge


def test_generation_runs_in_batches_rendered_into_documents(tmp_path: Path) -> None:
    lines: list[str] = []
    llm = BatchLLM(canned_answers())
    record = write_record(tmp_path / "record")
    settings = SMALL.model_copy(update={"chaff_docs": 40, "generate_batch": 16})
    result = run_build(record, tmp_path / "env", settings, llm=llm, until="generate", log=lines.append)
    documents = result.outputs["generate"].documents
    assert len(documents) == 1 + 2 + 2 + 1 + 40 + 3
    writes = [b for b in llm.batches if b and b[0].stage == "generate" and b[0].role == "generator"]
    assert [len(b) for b in writes] == [16, 16, 16, 1]
    batch_lines = [line for line in lines if "generate: batch" in line]
    assert batch_lines[0].strip() == "generate: batch 1/4: 16 written, 16 accepted, 0 refused, 0 failed"
    assert len(batch_lines) == 4 and len([line for line in lines if line.strip().startswith("generate")]) == 5
    for document in documents:
        assert (tmp_path / "env" / RENDERED_DIR / document.path).is_file()
        assert (tmp_path / "env" / STAGES_DIR / CHECKPOINT_DIR / f"{document.spec_id}.json").is_file()


def test_a_killed_build_resumes_without_regenerating_finished_documents(tmp_path: Path) -> None:
    record, env_dir = write_record(tmp_path / "record"), tmp_path / "env"
    settings = SMALL.model_copy(update={"generate_batch": 4})
    with pytest.raises(Killed):
        run_build(record, env_dir, settings, llm=KillingLLM(canned_answers(), writes=6), log=quiet)
    checkpoints = env_dir / STAGES_DIR / CHECKPOINT_DIR
    finished = sorted(p.stem for p in checkpoints.glob("*.json"))
    assert len(finished) == 4, finished  # the first batch; the second was being written
    assert not list((env_dir / STAGES_DIR).glob("*_generate.json"))

    fresh = FakeLLM(canned_answers())
    result = run_build(record, env_dir, settings, llm=fresh, log=quiet)
    asked = {c.item.split("#")[0] for c in fresh.calls if c.stage == "generate"}
    assert asked and not asked & set(finished)
    assert len(result.outputs["generate"].documents) == 11  # 8 planned + 3 shards
    env, _ = load_environment(env_dir)
    assert errors_in(validate_environment(env_dir)) == []
    assert {d.role.value for d in env.documents} >= {"signal", "pro_alternative", "refuting", "noise", "chaff"}

    # a checkpoint that no longer matches its spec (here: its key) is written again; the others are reused
    stale = checkpoints / f"{finished[0]}.json"
    data: dict[str, Any] = json.loads(stale.read_text())
    stale.write_text(json.dumps(data | {"key": "changed"}))
    next((env_dir / STAGES_DIR).glob("*_generate.json")).unlink()
    again = FakeLLM(canned_answers())
    run_build(record, env_dir, settings, llm=again, log=quiet)
    assert {c.item.split("#")[0] for c in again.calls if c.stage == "generate"} == {finished[0]}
