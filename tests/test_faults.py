"""The engine against a real llama.cpp server behind a fault-injecting proxy: 429, 500, hangs and resets.

Every fault is retried, every retry is counted and written to the run's telemetry, and the answers are exactly
those of a fault-free run. Faults that outlast the retries leave the request pending for the next run.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fault_proxy import FaultProxy

from lexprobe.engine import EngineConfig, RunStore, run_requests
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
        config=EngineConfig(use_cache=False, progress=False, concurrency=1, timeout_s=60),
    )
    assert direct.complete and direct.sent == len(PROMPTS) and direct.retries == 0
    expected = answers(direct_store)
    assert len(expected) == len(PROMPTS) and all(expected.values())

    schedule = ["pass", "429", "pass", "500", "pass", "hang", "pass", "reset", "pass", "pass"]
    faults = [action for action in schedule if action != "pass"]
    store = RunStore.open(tmp_path / "faulty")
    with FaultProxy(llama_server, schedule=schedule) as proxy:
        summary = run_requests(make_requests(proxy.base_url), store, cache=None, config=faulty_config())
        received = list(proxy.actions)

    assert summary.complete, summary.errors
    assert summary.failed == 0 and summary.sent == len(PROMPTS)
    assert summary.retries == len(faults)
    # Each fault took exactly one request; with one request in flight at a time the order is the schedule's.
    assert received == schedule
    assert answers(store) == expected

    telemetry = store.telemetry()
    retries = [row for row in telemetry if row.event == "retry"]
    assert len(retries) == len(faults)
    assert all(row.attempt == 1 for row in retries)  # each fault hit a request once, on its first attempt
    errors = [row.error or "" for row in retries]
    assert "HTTP 429" in errors[0]
    assert "HTTP 500" in errors[1]
    assert f"no answer within {TIMEOUT_S:g}s" in errors[2]
    assert "APIConnectionError" in errors[3]
    assert [row.request_id for row in retries] == ["q1", "q2", "q3", "q4"]
    ok = [row for row in telemetry if row.event == "ok"]
    assert sorted(row.request_id for row in ok) == [f"q{i}" for i in range(len(PROMPTS))]
    assert {row.attempt for row in ok if row.request_id in {"q1", "q2", "q3", "q4"}} == {2}
    assert not [row for row in telemetry if row.event == "failed"]


def test_faults_outlasting_retries_leave_request_pending_until_rerun(llama_server: str, tmp_path: Path) -> None:
    prompts = PROMPTS[:3]
    store = RunStore.open(tmp_path / "run")
    with FaultProxy(llama_server, schedule=["pass", "500", "500"]) as proxy:
        requests = make_requests(proxy.base_url, prompts)
        config = faulty_config(max_retries=1)
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
