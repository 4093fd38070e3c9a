"""`inspect eval lexprobe/investigation`: lexprobe's two-turn investigation as an Inspect task, with the real
inspect-ai and lexprobe's scripted model. One scripted trajectory (a batch that crosses the tool budget, a failing
read, the shell) is run by `lexprobe investigation run` + `investigation score` and by `inspect eval`: the episode
records, the transcript and every score are the same, and Inspect's requests are the very requests lexprobe sent
(each answered from lexprobe's response cache); the tools ran as Inspect tool events; the shell is offered
where bubblewrap is installed; a missing or invalid environment is one clear error."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import read_eval_log
from inspect_ai.model import ChatMessage
from tool_requirements import needs_bwrap

from lexprobe.interop.inspect_errors import InspectInputError
from lexprobe.interop.inspect_investigation import investigation
from lexprobe.interop.inspect_investigation_scorer import COVERAGE_METRICS, EPISODE_KEY, VERDICT_METRICS
from lexprobe.interop.messages import transcript_messages
from lexprobe.investigation.agent.episode import Episode, load_episodes
from lexprobe.investigation.agent.harness import shuffled
from lexprobe.investigation.environment.format import HypothesisKind, load_environment
from lexprobe.investigation.sample.build import build_sample_environment

BIN = Path(sys.executable).parent
VERDICT_KEY = "give your view on each hypothesis"


@pytest.fixture(scope="module")
def sample_env(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_sample_environment(tmp_path_factory.mktemp("env") / "harlow", "merits")


def call(name: str, **arguments: object) -> dict:
    return {"name": name, "arguments": arguments}


def solving_verdicts(env: Path, model: str) -> str:
    """The Turn-2 reply that believes h* only, in the order the episode (epoch 0) shows the hypotheses."""
    environment, _ = load_environment(env)
    order = shuffled(environment.hypotheses, 0, f"{environment.case.case_id}|{model}|e0")
    rows = [{"label": f"H{i}", "verdict": "A" if h.kind == HypothesisKind.court_adopted else "B", "reason": "r"}
            for i, h in enumerate(order, start=1)]  # fmt: skip
    return "```json\n" + json.dumps(rows) + "\n```"


def write_script(path: Path, env: Path) -> str:
    """Five tool calls against a budget of four (the last of the batch is denied), then the summary and verdicts."""
    model = f"scripted:{path}"
    lines = [
        {"tool_calls": [call("glob", pattern="**")]},
        {"tool_calls": [call("grep", pattern="capacitor")]},
        {"tool_calls": [call("read", path="DOC-0003.pdf", limit=40), call("shell", command="grep -l capacitor *"),
                        call("read", path="nope.txt")]},
    ]  # fmt: skip
    lines += [
        {"text": "Summary: the second lot used an unapproved capacitor; the rejection was timely."},
        {"when": VERDICT_KEY, "text": solving_verdicts(env, model)},
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return model


def shown(message: ChatMessage) -> tuple:
    """What a message says (its id is Inspect's own)."""
    calls = [(c.id, c.function, c.arguments) for c in getattr(message, "tool_calls", None) or []]
    return message.role, message.text, calls, getattr(message, "tool_call_id", None)


def run(command: list[str], tmp_path: Path) -> subprocess.CompletedProcess:
    env = os.environ | {"INSPECT_LOG_DIR": str(tmp_path / "logs"), "COLUMNS": "200"}
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=300)


def test_inspect_eval_gives_lexprobe_episode_and_scores(sample_env: Path, tmp_path: Path) -> None:
    model = write_script(tmp_path / "agent.jsonl", sample_env)
    ran = run([str(BIN / "lexprobe"), "investigation", "run", str(sample_env), "--model", model, "--tool-budget", "4",
               "--run-dir", str(tmp_path / "run")], tmp_path)  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    scored = run([str(BIN / "lexprobe"), "investigation", "score", str(tmp_path / "run"), "--json"], tmp_path)
    assert scored.returncode == 0, scored.stderr
    (summary,) = json.loads(scored.stdout)["models"]
    evaluated = run([str(BIN / "inspect"), "eval", "lexprobe/investigation", "-T", f"env={sample_env}", "-T",
                     "tool_budget=4", "--model", f"lexprobe/{model}", "--display", "plain",
                     "--log-dir", str(tmp_path / "logs")], tmp_path)  # fmt: skip
    assert evaluated.returncode == 0, evaluated.stderr + evaluated.stdout
    (log_file,) = (tmp_path / "logs").glob("*.eval")
    log = read_eval_log(str(log_file))
    assert log.status == "success" and log.samples is not None
    (sample,) = log.samples
    (expected,) = load_episodes(tmp_path / "run")
    episode = Episode.model_validate(sample.store[EPISODE_KEY])
    # the same episode: id, tool calls (one denied), budget notice, summary, verdicts
    assert episode.episode_id == expected.episode_id and episode.status == "complete"
    assert episode.tool_calls == expected.tool_calls and [c.denied for c in episode.tool_calls][-1]
    assert episode.summary == expected.summary and episode.verdicts == expected.verdicts
    assert episode.steps == expected.steps and not episode.unparsed
    transcript = transcript_messages(expected.transcript, expected.model)
    assert [shown(m) for m in sample.messages] == [shown(m) for m in transcript]
    assert "You have used all 4 tool calls" in " ".join(m.text for m in sample.messages)
    executed = [c.name for c in expected.tool_calls if not c.denied]
    assert [e.function for e in sample.events if e.event == "tool"] == executed  # each ran as an Inspect tool
    assert sample.output.completion == expected.verdict_reply
    # the very requests `investigation run` sent: every answer comes from lexprobe's response cache
    outputs = [e.output for e in sample.events if e.event == "model"]
    assert len(outputs) == expected.steps + 1 and all(o.metadata["lexprobe_cached"] for o in outputs)
    # the same scores: per sample and as the log's metrics, equal to `investigation score`'s
    value = sample.scores["investigation_scorer"].value
    assert value["case_solved"] == 1.0 and summary["case_solved"] == 1.0
    metrics = {name: metric.value for name, metric in log.results.scores[0].metrics.items()}
    for name in (*VERDICT_METRICS, *COVERAGE_METRICS):
        assert metrics.get(name) == summary[name], name
    assert summary["coverage"] > 0 and summary["seen_share"] > 0


@needs_bwrap
def test_shell_is_offered_and_sandboxed_where_bubblewrap_is_installed(sample_env: Path, tmp_path: Path) -> None:
    script = tmp_path / "shell.jsonl"
    lines = [{"tool_calls": [call("shell", command="wc -l DOC-0003.pdf && cat /etc/hostname")]}, {"text": "done"},
             {"when": VERDICT_KEY, "text": "[]"}]  # fmt: skip
    script.write_text("".join(json.dumps(line) + "\n" for line in lines))
    (log,) = inspect_eval(investigation(env=str(sample_env)), model=f"lexprobe/scripted:{script}",
                          model_args={"cache": False}, log_dir=str(tmp_path / "logs"), display="none")  # fmt: skip
    (sample,) = log.samples or []
    first = next(e for e in sample.events if e.event == "model")
    assert [tool.name for tool in first.tools] == ["read", "glob", "grep", "shell"]
    (event,) = [e for e in sample.events if e.event == "tool"]
    assert event.function == "shell" and "DOC-0003.pdf" in str(event.result)
    episode = Episode.model_validate(sample.store[EPISODE_KEY])
    assert episode.shell_enabled and episode.tool_calls[0].opened == []  # wc shows no content
    assert "/etc/hostname" in str(event.result) and "No such file" in str(event.result)  # not the host's files


def test_no_shell_offers_read_glob_grep_and_says_why(sample_env: Path, tmp_path: Path) -> None:
    script = tmp_path / "quiet.jsonl"
    script.write_text(json.dumps({"text": "nothing"}) + "\n" + json.dumps({"when": VERDICT_KEY, "text": "[]"}) + "\n")
    (log,) = inspect_eval(investigation(env=str(sample_env), shell=False), model=f"lexprobe/scripted:{script}",
                          model_args={"cache": False}, log_dir=str(tmp_path / "logs"), display="none")  # fmt: skip
    (sample,) = log.samples or []
    first = next(e for e in sample.events if e.event == "model")
    assert [tool.name for tool in first.tools] == ["read", "glob", "grep"]
    episode = Episode.model_validate(sample.store[EPISODE_KEY])
    assert not episode.shell_enabled and "disabled" in episode.shell_note
    assert sample.scores["investigation_scorer"].value["case_solved"] == 0.0 and episode.unparsed  # "[]": no verdict


def test_missing_or_invalid_environment_is_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(InspectInputError, match=r"-T env=.*nope: no such folder"):
        investigation(env=str(tmp_path / "nope"))
    (tmp_path / "empty").mkdir()
    with pytest.raises(InspectInputError, match="not an investigation environment"):
        investigation(env=str(tmp_path / "empty"))
    bad, script = tmp_path / "bad", tmp_path / "agent.jsonl"
    bad.mkdir()
    script.write_text(json.dumps({"text": "never asked"}) + "\n")
    (bad / "environment.json").write_text('{"schema_version": 2, "case": {}}')
    first = r"environment.json:case.case_id: required field missing \(and \d+ more"
    with pytest.raises(InspectInputError, match=first):
        investigation(env=str(bad))
    done = run([str(BIN / "inspect"), "eval", "lexprobe/investigation", "-T", f"env={bad}", "--model",
                f"lexprobe/scripted:{script}", "--display", "plain"], tmp_path)  # fmt: skip
    assert done.returncode != 0
    assert "Traceback" not in done.stderr + done.stdout
    assert "is not a valid investigation environment" in " ".join((done.stderr + done.stdout).split())
