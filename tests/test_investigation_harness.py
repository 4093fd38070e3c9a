"""The two-turn investigation protocol on the sample environment: a scripted agent playing a known trajectory
(budgets enforced exactly, including a parallel batch that crosses the limit), Turn 2 isolation, resumption, a
failed step resumed, and an end-to-end episode with the embedded model."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from lexprobe.engine.cache import ResponseCache
from lexprobe.engine.config import EngineConfig
from lexprobe.engine.store import RunStore
from lexprobe.investigation.agent.episode import load_episodes
from lexprobe.investigation.agent.harness import HarnessSettings, parse_text_calls, shuffled
from lexprobe.investigation.agent.run import run_investigations
from lexprobe.investigation.sample.build import build_sample_environment

VERDICT_KEY = "give your view on each hypothesis"


@pytest.fixture(scope="module")
def sample_env(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_sample_environment(tmp_path_factory.mktemp("env") / "harlow", "merits")


def write_script(path: Path, lines: list[dict]) -> str:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return f"scripted:{path}"


def call(name: str, **arguments) -> dict:
    return {"name": name, "arguments": arguments}


TRAJECTORY = [
    {"tool_calls": [call("glob", pattern="**")]},
    {"tool_calls": [call("grep", pattern="capacitor")]},
    {"tool_calls": [call("read", path="DOC-0001.pdf"), call("grep", pattern="KX-220"), call("read", path="nope.txt")]},
    {"text": "Summary: the second lot used an unapproved capacitor and failed in the cold; the rejection was timely."},
    {"when": VERDICT_KEY, "text": 'Sure:\n```json\n[{"label": "H1", "verdict": "A", "reason": "x"}, '
                                  '{"label": "H2", "verdict": "b"}, {"label": "H3", "verdict": "Don\'t know"}]\n```'},
]  # fmt: skip


def run(env: Path, model: str, run_dir: Path, **settings) -> list:
    harness = HarnessSettings(model=model, **settings)
    config = EngineConfig(progress=False, max_retries=0)
    return asyncio.run(run_investigations([env], harness, run_dir, ResponseCache(), config))


def test_scripted_trajectory_enforces_the_tool_budget_exactly(sample_env: Path, tmp_path: Path) -> None:
    model = write_script(tmp_path / "agent.jsonl", TRAJECTORY)
    (episode,) = run(sample_env, model, tmp_path / "run", tool_budget=3, turn_budget=10)
    assert episode.status == "complete", episode.error
    executed = [c for c in episode.tool_calls if not c.denied]
    denied = [c for c in episode.tool_calls if c.denied]
    assert [c.name for c in executed] == ["glob", "grep", "read"]  # the batch of three is cut after its first call
    assert [c.name for c in denied] == ["grep", "read"] and all(c.step == 3 for c in denied)
    assert episode.steps == 4 and episode.summary.startswith("Summary:")
    grep = executed[1]
    assert grep.documents and all(role == "merits" for role in grep.roles) and all(grep.doc_ids)
    # the denial and the budget notice reached the model; the final request offered no tools
    store = RunStore.open(tmp_path / "run")
    requests = {r.request_id: r for r in store.requests()}
    store.close()
    step4 = requests[f"{episode.episode_id}|t1|4"]
    assert step4.tools == () and "denied: the budget of 3 tool calls is spent" in str(step4.messages)
    assert "You have used all 3 tool calls" in step4.messages[-1].content
    # Turn 2 holds only the summary and the shuffled hypotheses: no corpus text, no tools
    turn2 = requests[f"{episode.episode_id}|t2"]
    assert len(turn2.messages) == 1 and turn2.tools == ()
    assert episode.summary in turn2.messages[0].content and "DOC-0001" not in turn2.messages[0].content
    labels = [v.label for v in episode.verdicts]
    assert labels == ["H1", "H2", "H3", "H4"]
    assert [v.verdict for v in episode.verdicts] == ["believe", "reject", "dont_know", None]
    assert not episode.unparsed
    order = [v.hypothesis_id for v in episode.verdicts]
    assert sorted(order) == sorted(h.hypothesis_id for h in shuffled_hypotheses(sample_env, episode.episode_id))


def shuffled_hypotheses(env: Path, episode_id: str) -> list:
    from lexprobe.investigation.environment.format import load_environment

    environment, _ = load_environment(env)
    return shuffled(environment.hypotheses, 0, episode_id)


def test_turn_budget_ends_the_loop(sample_env: Path, tmp_path: Path) -> None:
    looping = [{"tool_calls": [call("glob", pattern="*")]}] * 3 + [{"text": "done"}, TRAJECTORY[-1]]
    model = write_script(tmp_path / "loop.jsonl", looping)
    (episode,) = run(sample_env, model, tmp_path / "run", tool_budget=30, turn_budget=2)
    assert episode.status == "complete"
    assert [c.denied for c in episode.tool_calls] == [False, False, True]  # step 3 asked again after the notice
    assert episode.summary == ""


def test_rerun_resumes_without_model_calls_and_a_failed_step_resumes(sample_env: Path, tmp_path: Path) -> None:
    script = tmp_path / "agent.jsonl"
    model = write_script(script, TRAJECTORY[:2])  # too short: step 3 has no answer
    (failed,) = run(sample_env, model, tmp_path / "run", tool_budget=3)
    assert failed.status == "failed" and "rerun" in failed.error
    write_script(script, TRAJECTORY)
    (episode,) = run(sample_env, model, tmp_path / "run", tool_budget=3)
    assert episode.status == "complete"
    store = RunStore.open(tmp_path / "run")
    sent = [row for row in store.telemetry() if row.event == "ok"]
    store.close()
    assert len(sent) == 5  # steps 1-2 once, then 3, 4 and Turn 2: nothing asked twice
    (again,) = run(sample_env, model, tmp_path / "run", tool_budget=3)
    assert again.verdicts == episode.verdicts and again.tool_calls == episode.tool_calls
    assert load_episodes(tmp_path / "run")[0].status == "complete"
    with pytest.raises(ValueError, match="other settings"):
        run(sample_env, model, tmp_path / "run", tool_budget=4)


def test_text_protocol_calls_are_parsed() -> None:
    calls = parse_text_calls('Let me look.\nTOOL: {"name": "grep", "arguments": {"pattern": "x"}}\nTOOL: {bad', 2)
    assert calls[0].name == "grep" and calls[0].arguments == {"pattern": "x"}
    assert parse_text_calls("TOOL: [1]", 1)[0].raw_arguments == "[1]"
    assert parse_text_calls("no tools here", 1) == ()


def test_text_protocol_episode(sample_env: Path, tmp_path: Path) -> None:
    lines = [{"text": 'TOOL: {"name": "glob", "arguments": {"pattern": "*.pdf"}}'}, {"text": "My summary."},
             TRAJECTORY[-1]]  # fmt: skip
    model = write_script(tmp_path / "text.jsonl", lines)
    (episode,) = run(sample_env, model, tmp_path / "run", protocol="text")
    assert episode.status == "complete" and episode.tool_calls[0].name == "glob" and episode.summary == "My summary."
    assert "TOOL:" in episode.transcript[0]["content"]  # the protocol is explained in the system message


@pytest.mark.slow
def test_embedded_model_episode(sample_env: Path, tmp_path: Path) -> None:
    """The 135M model rarely investigates well; the machinery must still run both turns and record everything."""
    (episode,) = run(sample_env, "local", tmp_path / "run", tool_budget=2, turn_budget=2, max_tokens=96)
    assert episode.status == "complete", episode.error
    assert episode.steps >= 1 and len(episode.verdicts) == 4 and episode.input_tokens > 0
    assert all(v.verdict in (None, "believe", "reject", "dont_know") for v in episode.verdicts)
    saved = load_episodes(tmp_path / "run")
    assert saved[0].episode_id == episode.episode_id


@pytest.mark.slow
def test_killed_cli_run_resumes_at_the_last_step(sample_env: Path, tmp_path: Path) -> None:
    """SIGKILL a two-epoch run of the embedded model mid-way; the rerun finishes without asking anything twice."""
    import os
    import signal
    import subprocess
    import sys
    import time

    lexprobe = str(Path(sys.executable).with_name("lexprobe"))
    run_dir = tmp_path / "run"
    args = [lexprobe, "investigation", "run", str(sample_env), "--model", "local", "--epochs", "2", "--concurrency",
            "1", "--tool-budget", "3", "--turn-budget", "3", "--max-tokens", "64", "--run-dir", str(run_dir),
            "--no-cache"]  # fmt: skip
    process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=os.environ.copy())
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        time.sleep(0.2)
        records = list((run_dir / "episodes").glob("*.json")) if (run_dir / "episodes").is_dir() else []
        if records and any('"steps": 2' in path.read_text() for path in records):
            break
    process.send_signal(signal.SIGKILL)
    process.wait()
    store = RunStore.open(run_dir)
    before = store.counts()["completed"]
    store.close()
    assert before >= 2
    rerun = subprocess.run(args, capture_output=True, text=True, timeout=600, env=os.environ.copy())
    assert rerun.returncode == 0, rerun.stderr
    episodes = load_episodes(run_dir)
    assert [e.status for e in episodes] == ["complete", "complete"]
    store = RunStore.open(run_dir)
    counts = store.counts()
    sent = sum(row.event == "ok" for row in store.telemetry())
    store.close()
    assert counts["pending"] == 0 and sent == counts["completed"]  # every step answered exactly once


def test_show_refuses_a_missing_run_directory(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from lexprobe.cli.investigation import investigation_app

    result = CliRunner().invoke(investigation_app, ["show", str(tmp_path / "nope")])
    assert result.exit_code == 2 and "is not a directory" in result.output
