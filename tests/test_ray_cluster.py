"""`--ray HOST:PORT` and `--ray ray://HOST:PORT` joining a cluster of two nodes started with `ray start` (a head and
a second node, two raylets on 127.0.0.1): the workers spread over both nodes and the run equals a local one (issue
31, section 2).

Ray 2.60 turns token authentication on for a cluster `ray start` starts when the Ray Client extra is installed
(the token in ~/.ray/auth_token); every process here runs with `RAY_AUTH_MODE=token`, as docs/scale.md tells
users to. The cluster is this module's own: `ray start --block` processes in their own process groups, stopped by
signalling those groups (never `ray stop`, which would stop every Ray instance on the machine, the other Ray
tests' too).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import free_port
from ray_support import skip_without_ray

pytestmark = pytest.mark.slow

LEXPROBE = str(Path(sys.executable).with_name("lexprobe"))
RAY = str(Path(sys.executable).with_name("ray"))


def ray_env() -> dict[str, str]:
    return {**os.environ, "RAY_AUTH_MODE": "token"}


def start_node(args: list[str], log: Path, extra_env: dict[str, str] | None = None) -> subprocess.Popen:
    handle = log.open("w")
    return subprocess.Popen([RAY, "start", "--block", "--disable-usage-stats", "--node-ip-address", "127.0.0.1",
                             "--num-cpus", "1", *args], stdout=handle, stderr=subprocess.STDOUT,
                            start_new_session=True, env={**ray_env(), **(extra_env or {})})  # fmt: skip


def stop_node(process: subprocess.Popen) -> None:
    for sig, wait in ((signal.SIGTERM, 20), (signal.SIGKILL, 10)):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            return
        try:
            process.wait(wait)
            return
        except subprocess.TimeoutExpired:
            continue


def alive_nodes(address: str) -> int:
    """The nodes `ray status` lists as active whose CPUs the cluster's resource view already counts."""
    status = subprocess.run([RAY, "status", "--address", address], capture_output=True, text=True, timeout=120,
                            env=ray_env())  # fmt: skip
    active = status.stdout.split("Active:")[-1].split("Pending:")[0] if "Active:" in status.stdout else ""
    nodes = sum(1 for line in active.splitlines() if line.strip().startswith("1 node_"))
    cpus = re.search(r"/(\d+)\.0 CPU", status.stdout)
    return min(nodes, int(cpus.group(1)) if cpus else 0)  # one CPU per node


def start_head(scratch: Path, args: list[str], extra_env: dict[str, str] | None = None) -> tuple[str, subprocess.Popen]:
    """Start a head node (its files under `scratch`) and wait until it is up; return its GCS address and process."""
    address = f"127.0.0.1:{free_port()}"
    head = start_node(["--head", "--port", address.split(":")[1], "--include-dashboard", "false", "--temp-dir",
                       str(scratch / "ray"), *args], scratch / "head.log", extra_env)  # fmt: skip
    deadline = time.monotonic() + 120
    while alive_nodes(address) < 1:
        if head.poll() is not None or time.monotonic() > deadline:
            stop_node(head)
            pytest.fail((scratch / "head.log").read_text()[-2000:])
        time.sleep(1)
    return address, head


@pytest.fixture(scope="module")
def two_node_cluster() -> Iterator[tuple[str, str]]:
    """A head node and a second node on 127.0.0.1; yields the head's GCS address and its Ray Client address."""
    skip_without_ray()
    scratch = Path(tempfile.mkdtemp(prefix="lxray-", dir="/tmp"))  # short: Ray's socket paths are length-bounded
    client = free_port()
    address, head = start_head(scratch, ["--ray-client-server-port", str(client)])
    nodes = [head]
    try:
        deadline = time.monotonic() + 120
        nodes.append(start_node(["--address", address], scratch / "node.log"))
        while alive_nodes(address) < 2:
            assert nodes[1].poll() is None and time.monotonic() < deadline, (scratch / "node.log").read_text()[-2000:]
            time.sleep(1)
        yield address, f"ray://127.0.0.1:{client}"
    finally:
        for node in reversed(nodes):
            stop_node(node)
        shutil.rmtree(scratch, ignore_errors=True)


@pytest.mark.parametrize("how", ["gcs", "client"])
def test_a_run_on_two_nodes_spreads_its_workers_and_equals_a_local_run(
    two_node_cluster: tuple[str, str], how: str, case_db_path: Path, tmp_path: Path
) -> None:
    """`--ray HOST:PORT` (the driver joins as a node-less driver of the cluster) and `--ray ray://HOST:PORT` (Ray
    Client: the driver talks to the head's client server)."""
    address = two_node_cluster[0] if how == "gcs" else two_node_cluster[1]
    script = tmp_path / "answers.jsonl"
    script.write_text('{"text": "Yes, it is a real case."}\n')
    job = ["hallucination", "run", "--model", f"scripted:{script}", "--tasks", "existence,court", "--levels",
           "scotus", "--n", "3", "--samples", "2", "--db", str(case_db_path), "--no-cache", "--json"]  # fmt: skip
    env = ray_env()
    local = subprocess.run([LEXPROBE, *job, "--run-dir", str(tmp_path / "local")], capture_output=True, text=True,
                           env=env, timeout=600)  # fmt: skip
    assert local.returncode == 0, local.stderr
    env["COLUMNS"] = "200"  # one log line per line
    command = [LEXPROBE, "-v", *job, "--run-dir", str(tmp_path / "ray"), "--ray", address, "--ray-workers", "2"]
    ray = subprocess.run(command, capture_output=True, text=True, env=env, timeout=600)
    if how == "client" and "Initialization failure from server" in ray.stderr:
        # Ray Client's proxy starts a server process per client; on a loaded machine that start can fail once
        # (seen once in about ten runs of this file). lexprobe reports it as one line and exits 2, as here; a
        # second try is the user's remedy too, so the test retries once and still fails on anything else.
        time.sleep(5)
        ray = subprocess.run(command, capture_output=True, text=True, env=env, timeout=600)
    assert ray.returncode == 0, ray.stderr
    assert "ray: 2 workers on 2 nodes" in ray.stderr, ray.stderr
    through_ray, here = json.loads(ray.stdout), json.loads(local.stdout)
    assert through_ray["summary"]["sent"] == here["summary"]["sent"] > 0
    for result in (through_ray, here):
        result["summary"].pop("elapsed_s")
    assert through_ray == here


def test_a_node_without_the_sandbox_ends_an_investigation_run_naming_the_node(tmp_path: Path) -> None:
    """A cluster whose node has no bubblewrap (its raylet started with `LEXPROBE_BWRAP` naming a missing program):
    an investigation run with the shell tool ends before any model call with exit 2, naming the node; with
    --no-shell the same run completes there."""
    skip_without_ray()
    from lexprobe.investigation.sample.build import build_sample_environment

    scratch = Path(tempfile.mkdtemp(prefix="lxray-", dir="/tmp"))
    address, head = start_head(scratch, [], {"LEXPROBE_BWRAP": "/nonexistent/bwrap"})
    try:
        env_dir = build_sample_environment(tmp_path / "env", "merits")
        script = tmp_path / "agent.jsonl"
        script.write_text('{"text": "Summary."}\n{"when": "give your view", "text": "[]"}\n')
        job = [LEXPROBE, "investigation", "run", str(env_dir), "--model", f"scripted:{script}", "--no-cache",
               "--ray", address]  # fmt: skip
        refused = subprocess.run([*job, "--run-dir", str(tmp_path / "a")], capture_output=True, text=True,
                                 env=ray_env(), timeout=600)  # fmt: skip
        assert refused.returncode == 2, refused.stderr
        assert f"Ray worker on node {socket.gethostname()}: the shell tool's sandbox is missing there" in refused.stderr
        assert not (tmp_path / "a" / "episodes").exists()
        fine = subprocess.run([*job, "--no-shell", "--run-dir", str(tmp_path / "b")], capture_output=True, text=True,
                              env=ray_env(), timeout=600)  # fmt: skip
        assert fine.returncode == 0, fine.stderr
        assert ": complete, 1 steps" in fine.stdout, fine.stdout
    finally:
        stop_node(head)
        shutil.rmtree(scratch, ignore_errors=True)
