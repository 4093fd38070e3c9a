"""Issue 44, item 5: a server that answers HTTP 200 with a body that is not a chat completion (`{"choices": "nope"}`,
an HTML page, JSON cut in half) or not a Messages answer. Real servers on 127.0.0.1: a healthy scripted server
(`Echo`) and `FaultProxy` in front of it answering the malformed 200s.

Such an answer is a transient error with a one-line reason ("the server's answer is not a chat completion (...)"):
a replica that gives it is failed over, counted and marked down; a single endpoint is retried like a 5xx."""

from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from fault_proxy import FaultProxy
from http_support import send_json, serving

from lexprobe.engine.config import EngineConfig
from lexprobe.engine.executor import Engine
from lexprobe.engine.store import RunStore
from lexprobe.models.types import Request

MALFORMED = ["wrong_shape", "not_json", "broken_json"]


class Echo(BaseHTTPRequestHandler):
    """Chat Completions and Messages answers: "echo <the last user message>"."""

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        text = "echo " + body["messages"][-1]["content"]
        if self.path.endswith("/messages"):
            answer = {"id": "msg_1", "type": "message", "role": "assistant", "model": body["model"],
                      "content": [{"type": "text", "text": text}], "stop_reason": "end_turn", "stop_sequence": None,
                      "usage": {"input_tokens": 3, "output_tokens": 2}}  # fmt: skip
        else:
            answer = {"id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": body["model"],
                      "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                                   "finish_reason": "stop"}],
                      "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}}  # fmt: skip
        send_json(self, 200, answer)

    def log_message(self, *args: object) -> None:
        """Quiet."""


@pytest.fixture
def echo() -> Iterator[ThreadingHTTPServer]:
    with serving(Echo) as server:
        yield server


def run(run_dir: Path, requests: list[Request], **config: object):
    """Run `requests` through a fresh engine (no cache); return the summary."""
    import asyncio

    async def main():
        settings = {"progress": False, "use_cache": False, "backoff_initial_s": 0.01, "backoff_max_s": 0.02,
                    "jitter_s": 0.0} | config  # fmt: skip
        engine = Engine(RunStore.open(run_dir), None, EngineConfig(**settings))
        try:
            return await engine.run(requests)
        finally:
            await engine.aclose()

    return asyncio.run(main())


def retry_errors(run_dir: Path) -> list[str]:
    with sqlite3.connect(run_dir / "run.sqlite") as conn:
        return [row[0] for row in conn.execute("SELECT error FROM telemetry WHERE event = 'retry' ORDER BY rowid")]


def test_a_replica_answering_malformed_200s_is_failed_over_counted_and_marked_down(
    echo: ThreadingHTTPServer, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    healthy = f"http://127.0.0.1:{echo.server_port}/v1"
    with FaultProxy(healthy, MALFORMED * 20) as bad:
        spec = f"openai-compatible/echo@{bad.base_url},{healthy}"
        requests = [Request.from_prompt(spec, f"q{i}", max_tokens=8, id=f"r{i}") for i in range(12)]
        with caplog.at_level(logging.WARNING):
            summary = run(tmp_path / "run", requests, concurrency=2, max_retries=0)
        assert bad.actions and set(bad.actions) <= set(MALFORMED)
    assert (summary.sent, summary.failed, summary.retries) == (12, 0, 0), summary.errors  # failover is no retry
    counts = {row.url: row for row in summary.replicas}
    assert counts[bad.base_url].errors == len(bad.actions) > 0 and counts[bad.base_url].answered == 0
    assert counts[healthy].answered == 12 and counts[healthy].errors == 0
    warned = [record.getMessage() for record in caplog.records if "replica" in record.getMessage()]
    assert any("the server's answer is not a chat completion (choices: not a list)" in line for line in warned)
    assert any("down for" in line for line in warned)


def test_a_single_endpoint_retries_malformed_200s_like_a_5xx(echo: ThreadingHTTPServer, tmp_path: Path) -> None:
    with FaultProxy(f"http://127.0.0.1:{echo.server_port}/v1", MALFORMED) as proxy:
        spec = f"openai-compatible/echo@{proxy.base_url}"
        summary = run(tmp_path / "run", [Request.from_prompt(spec, "hello", max_tokens=8, id="r")], max_retries=3)
        assert proxy.actions == [*MALFORMED, "pass"]
    assert (summary.sent, summary.failed, summary.retries) == (1, 0, 3), summary.errors
    first, second, third = retry_errors(tmp_path / "run")
    assert first == "the server's answer is not a chat completion (choices: not a list)"
    assert second.startswith("the server's answer is not a chat completion (not JSON: '<html><body>502 Bad")
    assert third.startswith("the server's answer is not a chat completion (not JSON")
    with sqlite3.connect(tmp_path / "run" / "run.sqlite") as conn:
        assert conn.execute("SELECT COUNT(*) FROM responses").fetchone() == (1,)

    # out of retries: the request stays pending with the reason, the run goes on (exit 1: rerun to resume)
    with FaultProxy(f"http://127.0.0.1:{echo.server_port}/v1", ["wrong_shape"] * 3) as proxy:
        spec = f"openai-compatible/echo@{proxy.base_url}"
        summary = run(tmp_path / "out", [Request.from_prompt(spec, "hello", max_tokens=8, id="r")], max_retries=2)
    assert (summary.failed, summary.failed_permanent) == (1, 0)
    assert "not a chat completion (choices: not a list)" in summary.errors[0]


def test_an_anthropic_endpoint_retries_an_answer_that_is_not_a_messages_answer(
    echo: ThreadingHTTPServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    with FaultProxy(f"http://127.0.0.1:{echo.server_port}", MALFORMED) as proxy:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", proxy.base_url)
        spec = "anthropic/claude-3-5-haiku-latest"
        summary = run(tmp_path / "run", [Request.from_prompt(spec, "hello", max_tokens=8, id="r")], max_retries=3)
        assert proxy.actions == [*MALFORMED, "pass"]
    assert (summary.sent, summary.failed, summary.retries) == (1, 0, 3), summary.errors
    first, second, third = retry_errors(tmp_path / "run")
    assert first == "the server's answer is not a Messages answer (missing content, usage)"
    assert second.startswith("the server's answer is not a Messages answer (not JSON: '<html>")
    assert third.startswith("the server's answer is not a Messages answer (not JSON")
