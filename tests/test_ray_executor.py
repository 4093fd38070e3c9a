"""`--ray ADDRESS`: model calls on Ray workers, the run store written by the driver alone (issue 31, section 2).

One local Ray instance (`ray.init(num_cpus=2)`) serves every test here: the command-line runs join it by its
address (`--ray HOST:PORT`, the form `auto` resolves to) from their own processes, and the worker-kill test drives an
`Engine` in this process. Checked: a run through Ray gives the same answers, labels and `report --json` as a local
run, on the scripted model and on the embedded one; a worker killed with SIGKILL mid-run loses nothing and
duplicates nothing, and the rerun sends nothing; without the package `--ray` fails with the install line; a dry run
with `--ray` imports no Ray.
"""

from __future__ import annotations

import asyncio
import json
import os
import pickle
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from http_support import send_json, serving
from ray_support import RAY_MISSING, ray_missing

from lexprobe.engine.config import EngineConfig
from lexprobe.engine.executor import Engine
from lexprobe.engine.store import RunStore
from lexprobe.models.errors import ModelConfigError
from lexprobe.models.types import Request

pytestmark = pytest.mark.slow

LEXPROBE = str(Path(sys.executable).with_name("lexprobe"))


def run_cli(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([LEXPROBE, *args], capture_output=True, text=True, env=env or os.environ.copy(),
                          timeout=600)  # fmt: skip


def run_both(first: list[str], second: list[str]) -> tuple[subprocess.CompletedProcess, ...]:
    """Run two `lexprobe` commands side by side (each mostly waits on start-up or on its model); return both."""
    with ThreadPoolExecutor(2) as pool:
        return tuple(pool.map(lambda args: run_cli(*args), (first, second)))


def stored_answers(run_dir: Path) -> dict[str, str]:
    """Request id -> stored answer text of a run directory."""
    with sqlite3.connect(run_dir / "run.sqlite") as conn:
        rows = conn.execute("SELECT request_id, body FROM responses").fetchall()
    return {request_id: json.loads(body)["text"] for request_id, body in rows}


def reports(*run_dirs: Path) -> list[str]:
    """`hallucination report RUN_DIR --json` of each run directory, with the run directory (the one field that
    differs) blanked."""
    results = run_both(*(["hallucination", "report", str(run_dir), "--json"] for run_dir in run_dirs))
    for result in results:
        assert result.returncode == 0, result.stderr
    return [result.stdout.replace(str(run_dir), "RUN_DIR") for result, run_dir in zip(results, run_dirs, strict=True)]


def profile_through_ray_and_locally(
    args: list[str], tmp_path: Path, address: str, workers: int = 2
) -> tuple[Path, Path]:
    """Run `hallucination run ARGS` locally and with `--ray ADDRESS` (`workers` workers); check both succeed with the
    same stdout."""
    local, remote = tmp_path / "local", tmp_path / "ray"
    first, second = run_both(["hallucination", "run", *args, "--run-dir", str(local)],
                             ["hallucination", "run", *args, "--run-dir", str(remote), "--ray", address,
                              "--ray-workers", str(workers)])  # fmt: skip
    assert first.returncode == 0, first.stderr
    assert second.returncode == 0, second.stderr
    through_ray, in_process = json.loads(second.stdout), json.loads(first.stdout)  # Ray logs stay off stdout
    for result in (through_ray, in_process):  # the engine's counts of each run agree; only their wall time differs
        assert result["summary"].pop("elapsed_s") >= 0
    assert through_ray == in_process
    return local, remote


def test_scripted_profile_through_ray_matches_local(ray_address: str, case_db_path: Path, tmp_path: Path) -> None:
    """Items, calibration samples and contradiction-judge pairs through two Ray workers: the same stored answers,
    labels and report, byte for byte, as the local executor."""
    script = tmp_path / "yes.jsonl"
    script.write_text('{"text": "Yes"}\n')
    args = ["--model", f"scripted:{script}", "--tasks", "existence,fake_existence,central_holding", "--levels",
            "scotus", "--n", "3", "--seed", "5", "--samples", "2", "--db", str(case_db_path), "--no-cache",
            "--json"]  # fmt: skip
    local, remote = profile_through_ray_and_locally(args, tmp_path, ray_address)
    answers = stored_answers(local)
    assert len(answers) > 12 and stored_answers(remote) == answers
    through_ray, in_process = reports(remote, local)
    assert through_ray == in_process and '"rows"' in through_ray


def test_embedded_profile_through_ray_matches_local(ray_address: str, case_db_path: Path, tmp_path: Path) -> None:
    """The embedded llama.cpp model loaded in a Ray worker (one CPU, one thread) answers as it does in-process:
    greedy answers and seeded calibration samples alike, so labels and report match. (One worker: two copies of
    the model beside the local run's would only slow a 2-core machine; the scripted test spreads over two.)"""
    args = ["--model", "local", "--tasks", "existence", "--levels", "scotus", "--n", "1", "--samples", "1",
            "--db", str(case_db_path), "--no-cache", "--json"]  # fmt: skip
    local, remote = profile_through_ray_and_locally(args, tmp_path, ray_address, workers=1)
    answers = stored_answers(local)
    assert len(answers) == 4 and stored_answers(remote) == answers
    through_ray, in_process = reports(remote, local)
    assert through_ray == in_process and '"rows"' in through_ray


def test_investigation_episodes_through_ray_match_local(ray_address: str, tmp_path: Path) -> None:
    """An episode stays on the driver (its tools read the environment here) while each of its model calls goes to a
    Ray worker: the same steps, verdicts and stored answers as a local run."""
    from lexprobe.investigation.sample.build import build_sample_environment

    env = build_sample_environment(tmp_path / "env", "merits")
    script = tmp_path / "agent.jsonl"
    lines = [{"tool_calls": [{"name": "glob", "arguments": {"pattern": "*"}}]}, {"text": "Summary: nothing."},
             {"when": "give your view on each hypothesis", "text": '[{"label": "H1", "verdict": "A"}]'}]  # fmt: skip
    script.write_text("".join(json.dumps(line) + "\n" for line in lines))
    args = ["investigation", "run", str(env), "--model", f"scripted:{script}", "--epochs", "2", "--no-cache"]
    local, remote = tmp_path / "local", tmp_path / "ray"
    first, second = run_both([*args, "--run-dir", str(local)],
                             [*args, "--run-dir", str(remote), "--ray", ray_address, "--ray-workers", "2"])  # fmt: skip
    assert first.returncode == 0, first.stderr
    assert second.returncode == 0, second.stderr
    assert second.stdout == first.stdout and first.stdout.count(": complete, 2 steps, 1 tool calls") == 2
    answers = stored_answers(local)
    assert len(answers) == 6 and stored_answers(remote) == answers


class SlowEcho(BaseHTTPRequestHandler):
    """A chat-completions endpoint that answers each request after DELAY_S with its last user message echoed;
    `server.seen` counts the requests received per prompt."""

    DELAY_S = 0.3

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        prompt = body["messages"][-1]["content"]
        with self.server.lock:  # type: ignore[attr-defined]
            self.server.seen[prompt] = self.server.seen.get(prompt, 0) + 1  # type: ignore[attr-defined]
        time.sleep(self.DELAY_S)
        answer = {"id": "c", "object": "chat.completion", "created": 0, "model": "echo",
                  "choices": [{"index": 0, "message": {"role": "assistant", "content": f"echo {prompt}"},
                               "finish_reason": "stop"}],
                  "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}}  # fmt: skip
        send_json(self, 200, answer)

    def log_message(self, *args: object) -> None:
        """Quiet."""


@pytest.fixture
def echo_server() -> Iterator[ThreadingHTTPServer]:
    with serving(SlowEcho) as server:
        server.seen, server.lock = {}, threading.Lock()  # type: ignore[attr-defined]
        yield server


async def test_killed_worker_loses_nothing_and_rerun_sends_nothing(
    ray_address: str, echo_server: ThreadingHTTPServer, tmp_path: Path
) -> None:
    """SIGKILL one of two workers while it holds a call: that call is retried on a worker (a `retry` telemetry row
    naming the dead worker), the dead actor is replaced, every request ends with exactly one answer and one `ok`
    row; a rerun finds everything done and sends nothing."""
    spec = f"openai-compatible/echo@http://127.0.0.1:{echo_server.server_port}/v1"
    requests = [Request.from_prompt(spec, f"q{i}", max_tokens=8, id=f"r{i}") for i in range(12)]
    config = EngineConfig(ray=ray_address, ray_workers=2, concurrency=1, progress=False, use_cache=False,
                          backoff_initial_s=0.05, backoff_max_s=0.1, jitter_s=0.0)  # fmt: skip
    run_dir = tmp_path / "run"
    engine = Engine(RunStore.open(run_dir), None, config)
    killed: list[int] = []

    async def kill_one_worker() -> None:
        while spec not in engine.models or sum(echo_server.seen.values()) < 3:  # type: ignore[attr-defined]
            await asyncio.sleep(0.02)
        workers = await engine.models[spec].workers()  # type: ignore[attr-defined]
        await asyncio.sleep(SlowEcho.DELAY_S / 2)  # mid-call: both workers hold a request now
        os.kill(workers[0]["pid"], signal.SIGKILL)
        killed.append(workers[0]["pid"])

    try:
        summary, _ = await asyncio.gather(engine.run(requests), kill_one_worker())
        after = [worker["pid"] for worker in await engine.models[spec].workers()]  # type: ignore[attr-defined]
    finally:
        await engine.aclose()
    assert killed and killed[0] not in after  # the dead worker was replaced
    assert (summary.sent, summary.failed) == (12, 0), summary.errors
    assert summary.retries >= 1
    with sqlite3.connect(run_dir / "run.sqlite") as conn:
        assert conn.execute("SELECT COUNT(*), COUNT(DISTINCT request_id) FROM responses").fetchone() == (12, 12)
        ok = conn.execute("SELECT request_id, COUNT(*) FROM telemetry WHERE event = 'ok' GROUP BY request_id")
        assert dict(ok.fetchall()) == {f"r{i}": 1 for i in range(12)}
        retries = [row[0] for row in conn.execute("SELECT error FROM telemetry WHERE event = 'retry'")]
    assert retries and all("Ray worker on node" in error and "died" in error for error in retries)
    assert stored_answers(run_dir) == {f"r{i}": f"echo q{i}" for i in range(12)}
    sent_before = dict(echo_server.seen)  # type: ignore[attr-defined]
    assert sum(sent_before.values()) == 12 + len(retries)  # only the calls the dead worker held were sent again

    rerun = Engine(RunStore.open(run_dir), None, config)
    try:
        again = await rerun.run(requests)
    finally:
        await rerun.aclose()
    assert (again.already_done, again.sent) == (12, 0)
    assert echo_server.seen == sent_before  # type: ignore[attr-defined]


async def test_every_call_a_killed_worker_held_names_its_node(
    ray_address: str, echo_server: ThreadingHTTPServer, tmp_path: Path
) -> None:
    """Issue 44 (18): one worker holding three calls is killed; each call's `retry` row names the worker's node (host,
    node id, pid), not only the first one's (the others once read the record `_replace` had already emptied: `?`)."""
    spec = f"openai-compatible/echo@http://127.0.0.1:{echo_server.server_port}/v1"
    requests = [Request.from_prompt(spec, f"held{i}", max_tokens=8, id=f"h{i}") for i in range(6)]
    config = EngineConfig(ray=ray_address, ray_workers=1, concurrency=3, progress=False, use_cache=False,
                          backoff_initial_s=0.05, backoff_max_s=0.1, jitter_s=0.0)  # fmt: skip
    run_dir = tmp_path / "run"
    engine = Engine(RunStore.open(run_dir), None, config)
    killed: list[dict] = []

    async def kill_the_worker() -> None:
        while spec not in engine.models or sum(echo_server.seen.values()) < 3:  # type: ignore[attr-defined]
            await asyncio.sleep(0.02)
        (worker,) = await engine.models[spec].workers()  # type: ignore[attr-defined]
        await asyncio.sleep(SlowEcho.DELAY_S / 2)  # mid-call: the worker holds three requests
        os.kill(worker["pid"], signal.SIGKILL)
        killed.append(worker)

    try:
        summary, _ = await asyncio.gather(engine.run(requests), kill_the_worker())
    finally:
        await engine.aclose()
    assert killed and (summary.sent, summary.failed) == (6, 0), summary.errors
    with sqlite3.connect(run_dir / "run.sqlite") as conn:
        retries = [row[0] for row in conn.execute("SELECT error FROM telemetry WHERE event = 'retry'")]
    place = f"Ray worker on node {socket.gethostname()} (id {killed[0]['node_id'][:8]}, pid {killed[0]['pid']}) died"
    assert len(retries) >= 2 and all(error.startswith(place) for error in retries), retries


async def test_a_model_that_does_not_load_on_a_worker_ends_the_run_naming_the_node(
    ray_address: str, tmp_path: Path
) -> None:
    """A GGUF whose header passes the driver's check but whose body does not load: the worker's first call fails,
    and the run ends with the model error naming the worker's node (exit 2 on the command line)."""
    bad = tmp_path / "truncated.gguf"
    bad.write_bytes(b"GGUF" + bytes(64))
    spec = f"local:{bad}"
    config = EngineConfig(ray=ray_address, ray_workers=1, progress=False, use_cache=False)
    engine = Engine(RunStore.open(tmp_path / "run"), None, config)
    try:
        with pytest.raises(ModelConfigError, match=f"{spec}: Ray worker on node {socket.gethostname()}: "):
            await engine.run([Request.from_prompt(spec, "Hi?", max_tokens=4, id="hi")])
    finally:
        await engine.aclose()


def test_worker_errors_cross_to_the_driver_as_the_same_errors() -> None:
    """What a worker's model raises reaches the engine as the same class with the same text and fields (their
    constructors take keywords that plain pickling drops)."""
    from lexprobe.engine.ray_executor import pack_error, unpack_error
    from lexprobe.models.errors import CallInterrupted, ModelError, TransientModelError, UnreachableError

    errors = [UnreachableError("cannot connect", url="http://x/v1"), TransientModelError("429", retry_after_s=2.0),
              ModelError("HTTP 400: bad"), ModelConfigError("no file"), CallInterrupted("stopped"),
              TimeoutError("slow"), KeyError("k")]  # fmt: skip
    for error in errors:
        back = unpack_error(*pickle.loads(pickle.dumps(pack_error(error))))
        assert type(back) is type(error) and str(back) == str(error)
        assert getattr(back, "url", None) == getattr(error, "url", None)
        assert getattr(back, "retry_after_s", None) == getattr(error, "retry_after_s", None)


BLOCK_RAY = """
import sys
sys.modules["ray"] = None  # as if the package were not installed: `import ray` fails, find_spec finds nothing
sys.argv[0] = "lexprobe"
from lexprobe.cli import app
sys.exit(app())
"""


def test_ray_without_the_package_fails_with_the_install_line(case_db_path: Path, tmp_path: Path) -> None:
    args = ["hallucination", "run", "--model", "local", "--tasks", "existence", "--levels", "scotus", "--n", "1",
            "--samples", "0", "--db", str(case_db_path), "--run-dir", str(tmp_path / "run"),
            "--ray", "local"]  # fmt: skip
    result = subprocess.run([sys.executable, "-c", BLOCK_RAY, *args], capture_output=True, text=True, timeout=300)
    assert result.returncode == 2
    assert result.stderr.strip().splitlines()[-1] == (
        "error: --ray needs the Python package 'ray', which is not installed: pip install 'lexprobe[ray]'"
    )
    assert not (tmp_path / "run").exists()  # refused before any work


DRY_RUN_MODULES = """
import atexit, json, os, sys
atexit.register(lambda: open(os.environ["MODULES_OUT"], "w").write(json.dumps(sorted(sys.modules))))
sys.argv[0] = "lexprobe"
from lexprobe.cli import app
sys.exit(app())
"""


@pytest.mark.skipif(ray_missing(), reason=RAY_MISSING)
def test_dry_run_with_ray_imports_no_ray_and_a_bad_address_is_one_line(case_db_path: Path, tmp_path: Path) -> None:
    out = tmp_path / "modules.json"
    args = ["hallucination", "run", "--model", "local", "--tasks", "existence", "--levels", "scotus", "--n", "2",
            "--samples", "0", "--db", str(case_db_path), "--run-dir", str(tmp_path / "run"),
            "--ray", "auto"]  # fmt: skip
    env = os.environ | {"MODULES_OUT": str(out)}
    dry = subprocess.run([sys.executable, "-c", DRY_RUN_MODULES, *args, "--dry-run"], capture_output=True,
                         text=True, env=env, timeout=300)  # fmt: skip
    assert dry.returncode == 0, dry.stderr
    assert dry.stdout.startswith("dry run: 4 requests")
    assert not [name for name in json.loads(out.read_text()) if name == "ray" or name.startswith("ray.")]
    bad = run_cli(*args[:-1], "not an address")
    assert bad.returncode == 2
    assert bad.stderr.strip().splitlines()[-1] == (
        "error: --ray 'not an address' is not a Ray address; use one of: local, auto, ray://HOST:PORT or HOST:PORT"
    )


def test_bare_ray_is_a_local_instance() -> None:
    """`--ray` with no address (the last word, or before another option) means `--ray local`; a word that is not
    an option stays its address, and nothing after `--` changes."""
    from lexprobe.cli.options import bare_ray_means_local

    assert bare_ray_means_local(["run", "--ray"]) == ["run", "--ray", "local"]
    assert bare_ray_means_local(["run", "--ray", "--n", "2"]) == ["run", "--ray", "local", "--n", "2"]
    assert bare_ray_means_local(["run", "--ray", "-v"]) == ["run", "--ray", "local", "-v"]
    assert bare_ray_means_local(["run", "--ray", "auto", "--n", "2"]) == ["run", "--ray", "auto", "--n", "2"]
    assert bare_ray_means_local(["run", "--ray", "-"]) == ["run", "--ray", "-"]
    assert bare_ray_means_local(["run", "--", "--ray"]) == ["run", "--", "--ray"]


@pytest.mark.skipif(ray_missing(), reason=RAY_MISSING)
def test_bare_ray_on_the_command_line_starts_nothing_in_a_dry_run(case_db_path: Path, tmp_path: Path) -> None:
    """`lexprobe ... --ray --dry-run` and `... --dry-run --ray`: the bare flag is read as `local`, and the dry run
    counts the requests as with an address."""
    args = ["hallucination", "run", "--model", "local", "--tasks", "existence", "--levels", "scotus", "--n", "2",
            "--samples", "0", "--db", str(case_db_path), "--run-dir", str(tmp_path / "run")]  # fmt: skip
    for tail in (["--ray", "--dry-run"], ["--dry-run", "--ray"]):
        dry = run_cli(*args, *tail)
        assert dry.returncode == 0, dry.stderr
        assert dry.stdout.startswith("dry run: 4 requests"), dry.stdout


@pytest.mark.skipif(ray_missing(), reason=RAY_MISSING)
def test_an_address_where_nothing_listens_fails_at_once_with_one_line(case_db_path: Path, tmp_path: Path) -> None:
    """Issue 44 (10): `--ray HOST:PORT` (and `ray://HOST:PORT`) where nothing listens is probed before Ray is asked
    to join it (which retries for minutes): exit 2, one line naming the address given."""
    from conftest import free_port

    script = tmp_path / "yes.jsonl"
    script.write_text('{"text": "Yes"}\n')
    args = ["hallucination", "run", "--model", f"scripted:{script}", "--tasks", "existence", "--levels", "scotus",
            "--n", "1", "--samples", "0", "--db", str(case_db_path), "--no-cache"]  # fmt: skip
    for address in (f"127.0.0.1:{free_port()}", f"ray://127.0.0.1:{free_port()}"):
        result = subprocess.run([LEXPROBE, *args, "--run-dir", str(tmp_path / "run"), "--ray", address],
                                capture_output=True, text=True, timeout=300)  # fmt: skip
        assert result.returncode == 2, result.stderr
        assert result.stderr.strip().splitlines()[-1] == (
            f"error: --ray {address}: no Ray cluster answers at that address (connection refused); start one there "
            "(`ray start --head`) or check the address"
        )
