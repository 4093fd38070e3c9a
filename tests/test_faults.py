"""The engine against a real llama.cpp server behind a fault-injecting proxy: 429, 500, hangs and resets.

Every fault is retried, every retry is counted and written to the run's telemetry, and the answers are exactly
those of a fault-free run. Faults that outlast the retries leave the request pending for the next run.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from fault_proxy import FaultProxy

from lexprobe.engine.config import EngineConfig
from lexprobe.engine.executor import run_requests
from lexprobe.engine.store import RunStore
from lexprobe.models.types import Request

pytestmark = pytest.mark.slow

#: Distinct first words, so the server's prefix cache never reuses more than the chat template's opening.
PROMPTS = (
    "Define negligence in one sentence.",
    "Explain what a tort is.",
    "Name three parts of a contract.",
    "Summarize the role of a judge.",
    "List two kinds of evidence.",
    "Describe what an appeal is.",
)
MAX_TOKENS = 16
TIMEOUT_S = 6.0


def make_requests(base_url: str, prompts: tuple[str, ...] = PROMPTS) -> list[Request]:
    """Temperature-0 requests to the server at `base_url`, with stable ids q0, q1, ..."""
    spec = f"openai-compatible/smol@{base_url}"
    return [
        Request.from_prompt(spec, prompt, temperature=0.0, max_tokens=MAX_TOKENS, id=f"q{i}")
        for i, prompt in enumerate(prompts)
    ]


def faulty_config(**overrides: object) -> EngineConfig:
    """Fast backoff, a short per-request timeout, one request at a time (so the schedule order is fixed)."""
    settings = dict(
        max_retries=6,
        backoff_initial_s=0.05,
        backoff_max_s=0.2,
        jitter_s=0.05,
        timeout_s=TIMEOUT_S,
        concurrency=1,
        use_cache=False,
        progress=False,
    )
    settings.update(overrides)
    return EngineConfig(**settings)


def answers(store: RunStore) -> dict[str, str]:
    return {request_id: response.text for request_id, response in store.responses().items()}


def test_retries_survive_every_fault_kind_with_identical_answers(llama_server: str, tmp_path: Path) -> None:
    direct_store = RunStore.open(tmp_path / "direct")
    direct = run_requests(
        make_requests(llama_server),
        direct_store,
        cache=None,
        config=EngineConfig(use_cache=False, progress=False, concurrency=1, timeout_s=300),
    )
    assert direct.complete and direct.sent == len(PROMPTS) and direct.failed == 0
    expected = answers(direct_store)
    assert len(expected) == len(PROMPTS) and all(expected.values())
    # The hang costs one timeout. A timeout well above what a genuine answer takes on this machine right now keeps
    # load from cascading: a request cut off still occupies the one-slot server, so its retry waits behind it.
    slowest = max(row.latency_s or 0.0 for row in direct_store.telemetry() if row.event == "ok")
    timeout_s = float(max(TIMEOUT_S, math.ceil(3 * slowest)))

    schedule = ["pass", "429", "pass", "500", "pass", "hang", "pass", "reset", "pass", "pass"]
    faults = [action for action in schedule if action != "pass"]
    store = RunStore.open(tmp_path / "faulty")
    with FaultProxy(llama_server, schedule=schedule) as proxy:
        config = faulty_config(timeout_s=timeout_s)
        summary = run_requests(make_requests(proxy.base_url), store, cache=None, config=config)
        received = list(proxy.actions)

    assert summary.complete, summary.errors
    assert summary.failed == 0 and summary.sent == len(PROMPTS)
    assert answers(store) == expected
    # Each fault took one request, in the schedule's order (one request in flight at a time). A genuine request that
    # a loaded machine slows past the timeout is retried too, so more requests may follow the schedule: all passed.
    assert received[: len(schedule)] == schedule and set(received[len(schedule) :]) <= {"pass"}
    # One attempt per request the proxy saw: every retry is counted, none is hidden.
    assert summary.retries == len(received) - len(PROMPTS) >= len(faults)

    telemetry = store.telemetry()
    retries = [row for row in telemetry if row.event == "retry"]
    assert len(retries) == summary.retries
    errors = [row.error or "" for row in retries]
    # Every fault was seen and retried: one 429, one 500, one reset; the hang timed out (load may time out more).
    assert sum("HTTP 429" in error for error in errors) == 1
    assert sum("HTTP 500" in error for error in errors) == 1
    assert sum("APIConnectionError" in error for error in errors) == 1
    timeouts = sum(f"no answer within {timeout_s:g}s" in error for error in errors)
    assert timeouts >= 1 and timeouts == len(errors) - 3, errors
    # Every request succeeded once, on the attempt after its last retry; nothing failed.
    ok = [row for row in telemetry if row.event == "ok"]
    assert sorted(row.request_id for row in ok) == [f"q{i}" for i in range(len(PROMPTS))]
    for row in ok:
        attempts = sorted(retry.attempt for retry in retries if retry.request_id == row.request_id)
        assert attempts == list(range(1, row.attempt)), (row.request_id, attempts, row.attempt)
    assert not [row for row in telemetry if row.event == "failed"]


def test_faults_outlasting_retries_leave_request_pending_until_rerun(llama_server: str, tmp_path: Path) -> None:
    prompts = PROMPTS[:3]
    store = RunStore.open(tmp_path / "run")
    with FaultProxy(llama_server, schedule=["pass", "500", "500"]) as proxy:
        requests = make_requests(proxy.base_url, prompts)
        # No hang here, so a generous timeout costs nothing and a loaded machine cannot add a retry.
        config = faulty_config(max_retries=1, timeout_s=120)
        first = run_requests(requests, store, cache=None, config=config)

        assert proxy.actions == ["pass", "500", "500", "pass"]
        assert first.failed == 1 and not first.complete
        assert first.sent == 2 and first.retries == 1
        assert len(first.errors) == 1 and first.errors[0].startswith("q1: HTTP 500")
        assert store.response("q1") is None
        assert store.completed_ids() == {"q0", "q2"}
        q1_rows = store.telemetry("q1")
        assert [(row.event, row.attempt) for row in q1_rows] == [("retry", 1), ("failed", 2)]
        assert "HTTP 500" in (q1_rows[-1].error or "")

        second = run_requests(requests, store, cache=None, config=config)

        assert second.complete and second.failed == 0
        assert second.total == 3 and second.already_done == 2 and second.sent == 1 and second.retries == 0
        # Only the pending request went out again.
        assert proxy.actions == ["pass", "500", "500", "pass", "pass"]
        resent = json.loads(proxy.received[-1].body)
        assert resent["messages"][-1]["content"] == prompts[1]
    assert store.completed_ids() == {"q0", "q1", "q2"}
    assert store.response("q1") is not None and store.response("q1").text
    assert [row.event for row in store.telemetry("q1")] == ["retry", "failed", "ok"]
