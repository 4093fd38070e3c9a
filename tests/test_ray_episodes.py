"""`--ray` for investigation runs: whole episodes and QA questions on Ray workers, the driver the only writer of the
run store (issue 31, section 2).

One local Ray instance (`ray.init(num_cpus=2)`) serves the module; the commands join it by its address from their
own processes. Checked: QA through Ray equals a local run; a worker SIGKILLed while its episode waits on a model
call loses nothing (the episode goes again on another worker, replaying what was stored) and duplicates nothing,
and the rerun sends nothing; a worker refuses an environment that is missing on its node or holds another corpus.
The node without the sandbox is in `test_ray_cluster.py` (it needs a node started with another environment).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from http_support import send_json, serving

pytestmark = pytest.mark.slow

LEXPROBE = str(Path(sys.executable).with_name("lexprobe"))
VERDICT_CUE = "give your view on each hypothesis"


def run_cli(*args: str, timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run([LEXPROBE, *args], capture_output=True, text=True, timeout=timeout)


def stored(run_dir: Path) -> tuple[dict[str, str], dict[str, int], list[tuple[str, str]]]:
    """A run directory's answers (request id -> text), `ok` rows per request, and its (request id, error) retries."""
    with sqlite3.connect(run_dir / "run.sqlite") as conn:
        rows = conn.execute("SELECT request_id, body FROM responses")
        answers = {request_id: json.loads(body)["text"] for request_id, body in rows}
        ok = dict(conn.execute("SELECT request_id, COUNT(*) FROM telemetry WHERE event = 'ok' GROUP BY request_id"))
        retries = conn.execute("SELECT request_id, error FROM telemetry WHERE event = 'retry'").fetchall()
    return answers, ok, retries


def test_qa_through_ray_matches_local(ray_address: str, tmp_path: Path) -> None:
    """Each question answered with its tools and graded by the judge on a Ray worker: the same records, stored
    answers and files in the run directory as a local run."""
    from lexprobe.investigation.sample.build import build_sample_environment

    env = build_sample_environment(tmp_path / "env", "merits")
    agent, judge = tmp_path / "agent.jsonl", tmp_path / "judge.jsonl"
    lines = [{"tool_calls": [{"name": "grep", "arguments": {"pattern": "units"}}]},
             {"text": "From the documents.\nANSWER: 229 of 600 units failed."}]  # fmt: skip
    agent.write_text("".join(json.dumps(line) + "\n" for line in lines))
    judge.write_text(json.dumps({"text": "[true, false]"}) + "\n")
    args = ["investigation", "qa", str(env), "--model", f"scripted:{agent}", "--judge", f"scripted:{judge}",
            "--no-cache", "--json"]  # fmt: skip
    local = run_cli(*args, "--run-dir", str(tmp_path / "local"))
    remote = run_cli("-v", *args, "--run-dir", str(tmp_path / "ray"), "--ray", ray_address, "--ray-workers", "2")
    assert local.returncode == 0, local.stderr
    assert remote.returncode == 0, remote.stderr
    assert remote.stdout == local.stdout and remote.stdout.count('"label"') >= 2
    assert "ray: 2 workers on 1 node" in remote.stderr
    assert stored(tmp_path / "ray")[:2] == stored(tmp_path / "local")[:2]
    files = sorted(path.name for path in (tmp_path / "local" / "qa").iterdir())
    assert files and sorted(path.name for path in (tmp_path / "ray" / "qa").iterdir()) == files


class SlowAgent(BaseHTTPRequestHandler):
    """A chat-completions endpoint playing an investigating agent, each answer after DELAY_S: a `glob` tool call
    first, then a summary once a tool result is in the conversation, and verdicts for the verdict turn.
    `server.seen` counts the requests received per (episode's first message, messages so far)."""

    DELAY_S = 0.6

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        messages = body["messages"]
        key = (messages[0]["content"][-80:], len(messages))
        with self.server.lock:  # type: ignore[attr-defined]
            self.server.seen[key] = self.server.seen.get(key, 0) + 1  # type: ignore[attr-defined]
        time.sleep(self.DELAY_S)
        message: dict = {"role": "assistant", "content": None}
        if VERDICT_CUE in messages[-1]["content"]:
            message["content"], finish = '[{"label": "H1", "verdict": "A", "reason": "seen"}]', "stop"
        elif any(m["role"] == "tool" for m in messages):
            message["content"], finish = "Summary: the corpus was listed.", "stop"
        else:
            call = {"id": "call_1", "type": "function", "function": {"name": "glob", "arguments": '{"pattern": "*"}'}}
            message["tool_calls"], finish = [call], "tool_calls"
        reply = {"id": "x", "object": "chat.completion", "created": 0, "model": "agent",
                 "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                 "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}  # fmt: skip
        send_json(self, 200, reply)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture()
def agent_server() -> Iterator[ThreadingHTTPServer]:
    with serving(SlowAgent) as server:
        server.seen, server.lock = {}, threading.Lock()  # type: ignore[attr-defined]
        yield server


def unit_workers() -> list[int]:
    """The process ids of the live `UnitWorker` actors of this module's Ray instance."""
    from ray._private.state import actors

    alive = actors(actor_state_name="ALIVE").values()
    return [info["Pid"] for info in alive if info["ActorClassName"] == "UnitWorker" and info["Pid"]]


def test_killed_worker_loses_no_episode_step_and_rerun_sends_nothing(
    ray_address: str, agent_server: ThreadingHTTPServer, tmp_path: Path
) -> None:
    """SIGKILL one of two workers while its episodes (two on each worker) wait on a model call: they run again on a
    worker, replaying the steps already stored (never sent twice), each call in flight gets a `retry` row naming the
    dead worker's node, every request ends with one answer and one `ok` row, the episodes equal a run no worker died
    in, and a rerun sends nothing."""
    from lexprobe.investigation.sample.build import build_sample_environment

    env = build_sample_environment(tmp_path / "env", "merits")
    spec = f"openai-compatible/agent@http://127.0.0.1:{agent_server.server_port}/v1"
    run_dir = tmp_path / "run"
    args = ["investigation", "run", str(env), "--model", spec, "--epochs", "4", "--no-cache", "--json",
            "--run-dir", str(run_dir), "--ray", ray_address, "--ray-workers", "2", "--concurrency", "4",
            "--max-retries", "3"]  # fmt: skip
    process = subprocess.Popen([LEXPROBE, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    killed = None
    deadline = time.monotonic() + 300
    while killed is None and time.monotonic() < deadline and process.poll() is None:
        pids = unit_workers()
        if len(pids) == 2 and sum(agent_server.seen.values()) >= 3:  # type: ignore[attr-defined]
            time.sleep(SlowAgent.DELAY_S / 2)  # mid-call: both workers' episodes wait on the server
            os.kill(pids[0], signal.SIGKILL)
            killed = pids[0]
        time.sleep(0.05)
    stdout, stderr = process.communicate(timeout=600)
    assert killed is not None, stderr
    assert process.returncode == 0, stderr
    episodes = [json.loads(line) for line in stdout.splitlines()]
    assert len(episodes) == 4 and all(e["status"] == "complete" and e["steps"] == 2 for e in episodes), stdout
    assert all([v["verdict"] for v in e["verdicts"] if v["label"] == "H1"] == ["believe"] for e in episodes)
    answers, ok, retries = stored(run_dir)
    assert len(answers) == 12 and ok == dict.fromkeys(answers, 1)  # 4 episodes x (2 steps + the verdict turn)
    # each episode the dead worker held names its node, not only the first to see it die (issue 44, item 18)
    place = f"Ray worker on node {socket.gethostname()} (id "
    assert len(retries) >= 2 and all(error.startswith(place) and "died" in error for _, error in retries), retries
    retried = {request_id for request_id, _ in retries}
    seen = dict(agent_server.seen)  # type: ignore[attr-defined]
    assert sum(seen.values()) == 12 + len(retries)  # only the calls the dead worker held were sent again
    assert sorted((run_dir / "episodes").iterdir()) and len(list((run_dir / "episodes").glob("*.json"))) == 4
    assert retried <= set(answers)

    rerun = run_cli(*args)
    assert rerun.returncode == 0, rerun.stderr
    assert dict(agent_server.seen) == seen  # type: ignore[attr-defined]
    assert [json.loads(line)["verdicts"] for line in rerun.stdout.splitlines()] == [e["verdicts"] for e in episodes]


def test_a_worker_refuses_an_environment_missing_or_different_on_its_node(tmp_path: Path) -> None:
    """The worker opens the environment itself: one absent at the driver's path, or one whose corpus hash differs
    from the driver's, is refused with a line saying which (the driver adds the node's name)."""
    from lexprobe.investigation.agent.harness import HarnessSettings
    from lexprobe.investigation.agent.run import EpisodeUnit
    from lexprobe.investigation.sample.build import build_sample_environment
    from lexprobe.models.errors import ModelConfigError

    env = build_sample_environment(tmp_path / "env", "merits")
    script = tmp_path / "agent.jsonl"
    script.write_text('{"text": "Summary."}\n')
    spec = f"scripted:{script}"
    unit = EpisodeUnit(env_dir=str(tmp_path / "elsewhere"), corpus_hash="abc", settings=HarnessSettings(model=spec),
                       name="e|x", run_dir=tmp_path / "run")  # fmt: skip
    with pytest.raises(ModelConfigError, match="elsewhere is not on this node: put every environment at the same"):
        unit.worker_view()
    with pytest.raises(ModelConfigError, match=r"holds another corpus on this node \(hash \w+ here, abc on the"):
        replace(unit, env_dir=str(env)).worker_view()
