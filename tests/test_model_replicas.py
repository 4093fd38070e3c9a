"""Issue 31, section 3: replicas of one model on several OpenAI-compatible servers
(`openai-compatible/MODEL@URL1,URL2,...`), against real `python -m llama_cpp.server` processes on 127.0.0.1.

This module starts two servers (one thread each, prompt processing included, in parallel) and uses them as the two
replicas of every test; the last test kills the second one with SIGKILL in the middle of a run.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import free_port, llama_server_command, wait_for_http

from lexprobe.engine.config import EngineConfig
from lexprobe.engine.executor import Engine
from lexprobe.engine.store import RunStore
from lexprobe.models.errors import ModelConfigError
from lexprobe.models.identity import model_identity
from lexprobe.models.openai_chat import OpenAIModel
from lexprobe.models.registry import model_status, open_model
from lexprobe.models.replicas import ReplicaRouter
from lexprobe.models.spec import parse_model_spec
from lexprobe.models.types import Request

pytestmark = pytest.mark.slow

ENTRY = "import sys; sys.argv[0] = 'lexprobe'; from lexprobe.cli import console_main; sys.exit(console_main())"
QUESTIONS = [f"Is {name} v. {other} a real case? Answer yes or no." for name, other in
             [("Marbury", "Madison"), ("Brown", "Board of Education"), ("Roe", "Wade"), ("Gideon", "Wainwright"),
              ("Miranda", "Arizona"), ("Mapp", "Ohio"), ("Loving", "Virginia"), ("Baker", "Carr"),
              ("Katz", "United States"), ("Terry", "Ohio")]]  # fmt: skip


def closed_port_url() -> str:
    """A /v1 URL on 127.0.0.1 where nothing listens."""
    return f"http://127.0.0.1:{free_port()}/v1"


class Server:
    """One `python -m llama_cpp.server` process of this module."""

    def __init__(self, log: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/v1"
        self.log = log
        with log.open("w") as sink:
            self.process = subprocess.Popen(
                llama_server_command(self.port, 1, 1), stdout=sink, stderr=subprocess.STDOUT
            )

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, Server]]:
    """(a replica that stays up, one that the last test kills), started in parallel."""
    folder = tmp_path_factory.mktemp("replicas")
    started = [Server(folder / "steady.log"), Server(folder / "victim.log")]
    try:
        for server in started:
            wait_for_http(server.url + "/models", server.process, server.log)
        yield started[0], started[1]
    finally:
        for server in started:
            server.stop()


async def run_engine(store: RunStore, requests: list[Request], **config) -> tuple:
    """Run `requests` through a fresh engine on `store` (no cache); return (summary, engine's replica totals)."""
    settings = {"progress": False, "use_cache": False, "backoff_initial_s": 0.1, "jitter_s": 0.0} | config
    engine = Engine(store, None, EngineConfig(**settings))
    try:
        return await engine.run(requests)
    finally:
        await engine.aclose()


def test_spec_parsing_and_the_cache_identity_ignore_where_the_model_is_served() -> None:
    spec = parse_model_spec("openai-compatible/smol@http://a:1/v1/, http://b:2/v1,https://c/v1")
    assert spec.replica_urls == ("http://a:1/v1", "http://b:2/v1", "https://c/v1")
    assert spec.base_url == "http://a:1/v1" and spec.replicated and spec.name == "smol"
    single = parse_model_spec("openai-compatible/smol@http://a:1/v1/")
    assert single.replica_urls == () and not single.replicated and single.base_url == "http://a:1/v1"
    for bad, why in [("openai-compatible/smol@http://a/v1,", "expected openai-compatible/MODEL@"),
                     ("openai-compatible/smol@http://a/v1,ftp://b", "expected openai-compatible/MODEL@"),
                     ("openai-compatible/smol@http://a/v1,http://a/v1/", "given twice")]:  # fmt: skip
        with pytest.raises(ModelConfigError, match=why):
            parse_model_spec(bad)

    # one replica or three: the same model, so the same response-cache key; the request's own key (its id in a run
    # store) still names the spec, URLs included
    one = Request.from_prompt("openai-compatible/smol@http://a:1/v1", "Hi?")
    three = Request.from_prompt("openai-compatible/smol@http://b:2/v1,http://a:1/v1,https://c/v1", "Hi?")
    assert model_identity(one.model) == model_identity(three.model) == "openai-compatible/smol"
    assert one.response_key() == three.response_key()
    assert one.cache_key() != three.cache_key()
    other = Request.from_prompt("openai-compatible/other@http://a:1/v1", "Hi?")
    assert other.response_key() != one.response_key()

    rows = {row.form: row for row in model_status()}
    assert rows["openai-compatible/MODEL@URL1,URL2,..."].usable

    router = open_model("openai-compatible/smol@http://a:1/v1,http://b:2/v1")
    assert isinstance(router, ReplicaRouter) and all(isinstance(r.model, OpenAIModel) for r in router.replicas)
    assert [r.model.spec.base_url for r in router.replicas] == ["http://a:1/v1", "http://b:2/v1"]
    assert router.concurrency_for(None) == 8 and router.per_replica == 4  # the compatible default, per replica
    assert router.concurrency_for(3) == 6 and router.per_replica == 3
    assert router.timeout_for(None) is None and router.attempt_timeout_s == 120  # each attempt is timed instead
    assert router.timeout_for(5.0) is None and router.attempt_timeout_s == 5.0
    assert isinstance(open_model("openai-compatible/smol@http://a:1/v1"), OpenAIModel)  # one URL: as before


async def test_requests_spread_over_replicas_and_answers_match_one_server(
    servers: tuple[Server, Server], tmp_path: Path
) -> None:
    steady, other = servers
    spec = f"openai-compatible/smol@{steady.url},{other.url}"
    requests = [Request.from_prompt(spec, q, max_tokens=8, temperature=0.0, id=f"q{i}") for i, q in
                enumerate(QUESTIONS[:6])]  # fmt: skip

    summary = await run_engine(RunStore.open(tmp_path / "two"), requests, concurrency=1)

    assert (summary.sent, summary.failed) == (6, 0), summary.errors
    counts = {row["url"]: row for row in summary.to_dict()["replicas"]}
    assert list(counts) == [steady.url, other.url]
    assert all(row["requests"] == row["answered"] >= 1 and row["errors"] == 0 for row in counts.values()), counts
    assert sum(row["answered"] for row in counts.values()) == 6
    first, second = counts.values()
    assert summary.one_line().endswith(f"; replicas: {steady.url} {first['requests']} requests, 0 errors; "
                                       f"{other.url} {second['requests']} requests, 0 errors")  # fmt: skip

    single = [request.model_copy(update={"model": f"openai-compatible/smol@{steady.url}"}) for request in requests]
    alone = RunStore.open(tmp_path / "one")
    assert (await run_engine(alone, single)).replicas == []  # one server: no replica counts
    two = RunStore.open(tmp_path / "two")
    assert {r.request_id: two.response(r.request_id).text for r in requests} == {
        r.request_id: alone.response(r.request_id).text for r in single
    }


async def test_a_replica_on_a_closed_port_never_fails_the_run(servers: tuple[Server, Server], tmp_path: Path) -> None:
    steady, _ = servers
    closed = closed_port_url()
    spec = f"openai-compatible/smol@{closed},{steady.url}"
    requests = [Request.from_prompt(spec, q, max_tokens=4, temperature=0.0, id=f"q{i}") for i, q in
                enumerate(QUESTIONS[:4])]  # fmt: skip

    summary = await run_engine(RunStore.open(tmp_path / "run"), requests, concurrency=2, max_retries=0)

    assert (summary.sent, summary.failed, summary.retries) == (4, 0, 0), summary.errors  # failover is no retry
    counts = {row.url: row for row in summary.replicas}
    assert counts[closed].answered == 0 and counts[closed].errors == counts[closed].requests >= 1
    assert counts[steady.url].answered == 4 and counts[steady.url].errors == 0

    # every replica refusing before any answered is a wrong URL: the run ends at once, naming them
    nowhere = f"openai-compatible/smol@{closed},{closed_port_url()}"
    with pytest.raises(ModelConfigError, match=r"every replica of smol failed.*connection refused"):
        await run_engine(RunStore.open(tmp_path / "nowhere"), [Request.from_prompt(nowhere, "Hi?", max_tokens=4)])


def test_the_run_summary_json_and_line_count_each_replica(
    servers: tuple[Server, Server], case_db_path: Path, tmp_path: Path
) -> None:
    steady, other = servers
    closed = closed_port_url()
    args = ["hallucination", "run", "--model", f"openai-compatible/smol@{steady.url},{other.url},{closed}",
            "--tasks", "existence", "--levels", "scotus", "--prompt-styles", "zero", "--samples", "0", "--n", "4",
            "--db", str(case_db_path), "--run-dir", str(tmp_path / "run"), "--concurrency", "1",
            "--no-cache"]  # fmt: skip
    result = subprocess.run([sys.executable, "-c", ENTRY, *args, "--json"], capture_output=True, text=True,
                            timeout=300, env=os.environ | {"LEXPROBE_CACHE": str(tmp_path / "cache")})  # fmt: skip

    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)["summary"]
    assert (summary["sent"], summary["failed"]) == (4, 0)
    counts = {row["url"]: row for row in summary["replicas"]}
    assert list(counts) == [steady.url, other.url, closed]
    assert counts[closed]["errors"] >= 1 and counts[closed]["answered"] == 0
    assert counts[steady.url]["answered"] + counts[other.url]["answered"] == 4
    assert counts[steady.url]["answered"] >= 1 and counts[other.url]["answered"] >= 1
    assert f"{closed} {counts[closed]['requests']} requests, {counts[closed]['errors']} errors" in result.stderr


async def test_killing_a_replica_mid_run_loses_and_duplicates_nothing(
    servers: tuple[Server, Server], tmp_path: Path
) -> None:
    """Last in the module: it kills the second server."""
    steady, victim = servers
    spec = f"openai-compatible/smol@{steady.url},{victim.url}"
    requests = [Request.from_prompt(spec, q, max_tokens=24, temperature=0.0, id=f"q{i}") for i, q in
                enumerate(QUESTIONS)]  # fmt: skip
    store = RunStore.open(tmp_path / "run")
    engine = Engine(store, None, EngineConfig(progress=False, use_cache=False, concurrency=1))
    try:
        run = asyncio.ensure_future(engine.run(requests))
        killed = False
        while not run.done():  # kill the victim while it is answering, after it has answered once
            router = engine.models.get(spec)
            if isinstance(router, ReplicaRouter):
                replica = router.replicas[1]
                if replica.count.answered >= 1 and replica.outstanding == 1:
                    os.kill(victim.process.pid, signal.SIGKILL)
                    killed = True
                    break
            await asyncio.sleep(0.01)
        summary = await run
    finally:
        await engine.aclose()
    assert killed  # mid-run, with a request in flight on the victim
    assert victim.process.wait(timeout=10) == -signal.SIGKILL

    assert (summary.sent, summary.failed) == (len(requests), 0), summary.errors
    counts = {row.url: row for row in summary.replicas}
    assert counts[victim.url].errors >= 1 and counts[victim.url].answered >= 1
    assert counts[steady.url].answered + counts[victim.url].answered == len(requests)
    with sqlite3.connect(tmp_path / "run" / "run.sqlite") as conn:
        answered = conn.execute("SELECT request_id, COUNT(*) FROM responses GROUP BY request_id").fetchall()
        ok = conn.execute(
            "SELECT request_id, COUNT(*) FROM telemetry WHERE event = 'ok' GROUP BY request_id"
        ).fetchall()
    assert sorted(answered) == sorted(ok) == sorted((r.request_id, 1) for r in requests)  # each exactly once

    rerun = await run_engine(RunStore.open(tmp_path / "run"), requests)
    assert (rerun.already_done, rerun.sent, rerun.cache_hits) == (len(requests), 0, 0)
    assert rerun.replicas == [] or all(row.requests == 0 for row in rerun.replicas)
