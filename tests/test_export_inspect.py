"""`lexprobe export RUN_DIR --format inspect`: a hallucination, an investigation and a QA run, made by the real CLI
with scripted models, written as Inspect `.eval` logs that the real inspect-ai reads back (`read_eval_log`, every
label; `samples_df`), and the command's errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lexprobe.cli import app as cli_app
from lexprobe.engine.store import RunStore
from lexprobe.hallucination.labels.score import REFERENCE_SCORER
from lexprobe.hallucination.profile.results import read_run
from lexprobe.hallucination.report.summary import summarize
from lexprobe.investigation.agent.episode import load_episodes
from lexprobe.investigation.qa.runner import load_qa_records
from lexprobe.investigation.sample.build import build_sample_environment
from lexprobe.investigation.scoring.metrics import score_episode

pytest.importorskip("inspect_ai")
from inspect_ai.analysis import samples_df
from inspect_ai.log import read_eval_log

VERDICT_KEY = "give your view on each hypothesis"


def invoke(*args: str) -> str:
    result = CliRunner().invoke(cli_app, list(args))
    assert result.exit_code == 0, result.output
    return result.stdout


def write_script(path: Path, lines: list[dict]) -> str:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return f"scripted:{path.name}"


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory, case_db_path: Path) -> dict[str, Path]:
    """A hallucination run (reference-based, contra-factual and reference-free tasks, with calibration), an
    investigation run (two epochs) and a QA run, each made by the CLI with scripted models."""
    root = tmp_path_factory.mktemp("export-runs")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("LEXPROBE_CACHE", str(root / "cache"))
        patch.setenv("INSPECT_LOG_DIR", str(root / "inspect-logs"))
        patch.chdir(root)
        yes = write_script(root / "yes.jsonl", [{"text": "Yes"}])
        invoke("hallucination", "run", "--model", yes, "--tasks", "existence,fake_existence,author,factual_background",
               "--levels", "scotus", "--n", "4", "--seed", "3", "--samples", "2", "--run-dir", "hall",
               "--db", str(case_db_path))  # fmt: skip
        env = build_sample_environment(root / "env", "merits")
        agent = write_script(root / "agent.jsonl", [
            {"tool_calls": [{"name": "glob", "arguments": {"pattern": "**"}}]},
            {"text": "Summary: the capacitor was swapped."},
            {"when": VERDICT_KEY, "text": '[{"label": "H1", "verdict": "A", "reason": "memo"}, '
                                          '{"label": "H2", "verdict": "B"}, {"label": "H3", "verdict": "C"}]'},
        ])  # fmt: skip
        invoke("investigation", "run", str(env), "--model", agent, "--run-dir", "inv", "--epochs", "2",
               "--tool-budget", "3", "--no-cache")  # fmt: skip
        qa_agent = write_script(root / "qa.jsonl", [{"text": "From the documents.\nANSWER: 229 units failed."}])
        judge = write_script(root / "judge.jsonl", [{"text": "[true, false]"}])
        invoke("investigation", "qa", str(env), "--model", qa_agent, "--judge", judge, "--run-dir", "qa",
               "--tool-budget", "3", "--no-cache")  # fmt: skip
    return {"root": root, "hallucination": root / "hall", "investigation": root / "inv", "qa": root / "qa"}


def export(run_dir: Path, out: Path, *extra: str) -> dict:
    return json.loads(invoke("export", str(run_dir), "--format", "inspect", "--out", str(out), "--json", *extra))


def test_a_hallucination_run_round_trips_with_every_label(runs: dict[str, Path]) -> None:
    out = runs["root"] / "hall.eval"
    summary = export(runs["hallucination"], out)
    log = read_eval_log(str(out))
    store = RunStore.open_read_only(runs["hallucination"])
    try:
        stored = {rid: value for (rid, scorer), value in store.scores().items() if scorer == REFERENCE_SCORER}
        rows = summarize(store)
    finally:
        store.close()
    _, units = read_run(runs["hallucination"])
    assert log.status == "success" and log.eval.task == "lexprobe/hallucination"
    assert log.eval.model == units[0].model and summary["samples"] == len(units) == len(log.samples)
    assert log.eval.dataset.samples == len(units)
    by_id = {sample.id: sample for sample in log.samples}
    for request_id, (label, detail) in stored.items():
        sample = by_id[request_id.split("#")[0]]  # a reference-free pair is scored on its first sample
        assert sample.scores["lexprobe_label"].value == label
        assert sample.scores["lexprobe_label"].explanation == detail["detail"]
    assert {s.metadata["task"] for s in log.samples} == {"existence", "fake_existence", "author", "factual_background"}
    author = next(s for s in log.samples if s.metadata["task"] == "author")
    assert json.loads(author.target)["author"] and author.messages[-1].text == "Yes"
    assert author.messages[0].role == "user" and author.input == author.messages[0].text
    assert any("lexprobe_confidence" in s.scores for s in log.samples)  # calibration: the measured confidence
    pair = next(s for s in log.samples if s.metadata["task"] == "factual_background")
    assert pair.metadata["second_sample"] == "Yes"
    metrics = log.results.scores[0].metrics
    for row in rows:  # the report's rates are the log's metrics
        assert metrics[f"{row.task}/{row.level}/{row.prompt_style}/n"].value == row.n
        if row.rate is not None:
            assert metrics[f"{row.task}/{row.level}/{row.prompt_style}/hallucination_rate"].value == row.rate
    frame = samples_df(str(out))
    assert len(frame) == len(units)
    assert sorted(frame["score_lexprobe_label"].dropna()) == sorted(label for label, _ in stored.values())


def test_the_sample_index_written_from_disk_is_inspects_own(runs: dict[str, Path], monkeypatch) -> None:
    """The summaries kept on disk between flushes (`SummarySpool`) make the `summaries.json` Inspect's recorder would
    write: every sample's own `summary()`, once each, across several flushes (a flush every 3 samples here)."""
    from inspect_ai.log import read_eval_log_sample_summaries

    from lexprobe.interop import inspect_log

    monkeypatch.setattr(inspect_log, "FLUSH_EVERY", 3)
    out = runs["root"] / "hall-flushed.eval"
    inspect_log.export_inspect_log(runs["hallucination"], out)
    samples = read_eval_log(str(out)).samples
    written = read_eval_log_sample_summaries(str(out))
    assert len(samples) > 3 * 3 and len(written) == len(samples)
    assert len({summary.id for summary in written}) == len(written)
    own = {sample.id: sample.summary().model_dump() for sample in samples}
    assert {summary.id: summary.model_dump() for summary in written} == own


def test_an_investigation_run_round_trips(runs: dict[str, Path]) -> None:
    out = runs["root"] / "inv.eval"
    export(runs["investigation"], out)
    log = read_eval_log(str(out))
    episodes = {episode.episode_id: episode for episode in load_episodes(runs["investigation"])}
    assert log.eval.task == "lexprobe/investigation" and len(log.samples) == len(episodes) == 2
    for sample in log.samples:
        episode = episodes[sample.id]
        scored = score_episode(episode)
        assert sample.epoch == episode.epoch + 1
        assert sample.scores["case_solved"].value == scored.case_solved
        assert sample.scores["verdicts"].value == {v.label: v.verdict or "none" for v in episode.verdicts}
        assert [m.role for m in sample.messages] == [m["role"] for m in episode.transcript]
        assert sample.messages[1].tool_calls[0].function == "glob"
        assert sample.target == [v.label for v in episode.verdicts if v.kind == "court_adopted"]
    frame = samples_df(str(out))
    assert set(frame["score_case_solved"]) <= {True, False} and len(frame) == 2


def test_a_qa_run_round_trips(runs: dict[str, Path]) -> None:
    out = runs["root"] / "qa.eval"
    summary = export(runs["qa"], out)
    log = read_eval_log(str(out))
    records = {record.qa_id: record for record in load_qa_records(runs["qa"])}
    assert summary["kind"] == "qa" and len(log.samples) == len(records) > 0
    for sample in log.samples:
        record = records[sample.id]
        assert sample.scores["qa_label"].value == record.label
        assert sample.scores["qa_label"].explanation == record.reason
        assert sample.scores["qa_label"].answer == record.answer == "229 units failed."
        assert sample.metadata["environment_found"] and sample.target  # the reference answer from questions.json
    assert len(samples_df(str(out))) == len(records)


def test_export_errors_are_one_line(runs: dict[str, Path], tmp_path: Path) -> None:
    def fails(*args: str) -> str:
        result = CliRunner().invoke(cli_app, ["export", *args])
        assert result.exit_code == 2, result.output
        return result.output

    out = tmp_path / "x.eval"
    assert "does not exist" in fails(str(tmp_path / "missing"), "--format", "inspect", "--out", str(out))
    assert "unknown format" in fails(str(runs["qa"]), "--format", "csv", "--out", str(out))
    assert "not a lexprobe run" in fails(str(tmp_path), "--format", "inspect", "--out", str(out))
    out.write_text("keep me")
    assert "--force" in fails(str(runs["qa"]), "--format", "inspect", "--out", str(out))
    assert out.read_text() == "keep me"
    export(runs["qa"], out, "--force")
    assert read_eval_log(str(out)).samples
