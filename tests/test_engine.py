"""The engine with the scripted model: resume, cache, sampling, failures, conflicts, dry runs, concurrency."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lexprobe.engine.cache import ResponseCache
from lexprobe.engine.config import EngineConfig
from lexprobe.engine.estimate import estimate_run
from lexprobe.engine.executor import Engine, run_requests
from lexprobe.engine.store import RunConflictError, RunStore
from lexprobe.models.errors import ModelConfigError
from lexprobe.models.types import Message, Request


def write_script(tmp_path: Path, *texts: str, name: str = "turns.jsonl") -> str:
    """Write one `{"text": ...}` line per text and return the `scripted:` spec of the file."""
    path = tmp_path / name
    path.write_text("".join(json.dumps({"text": text}) + "\n" for text in texts))
    return f"scripted:{path}"


def questions(spec: str, count: int, start: int = 0, **params) -> list[Request]:
    """`count` distinct single-turn requests with ids q{start}..."""
    return [
        Request.from_prompt(spec, f"Question {index} about contract law?", id=f"q{index}", **params)
        for index in range(start, start + count)
    ]


def quiet(**settings) -> EngineConfig:
    """Engine settings without a progress bar and without waiting between retries."""
    return EngineConfig(progress=False, backoff_initial_s=0, jitter_s=0, **settings)


async def run_once(store: RunStore, cache: ResponseCache | None, requests: list[Request], **settings):
    """Run `requests` through a fresh engine and close its models."""
    engine = Engine(store, cache, quiet(**settings))
    try:
        return await engine.run(requests)
    finally:
        await engine.aclose()


async def test_rerun_sends_only_the_new_requests(tmp_path):
    """A rerun in the same run directory resumes: the 5 completed requests are not sent again."""
    cache = ResponseCache(tmp_path / "cache")
    first_spec = write_script(tmp_path, "first script")
    first = await run_once(RunStore.open(tmp_path / "run"), cache, questions(first_spec, 5))
    assert (first.total, first.sent, first.already_done, first.failed) == (5, 5, 0, 0)

    # The same spec now answers differently, so a resent request would show the new text.
    Path(first_spec.removeprefix("scripted:")).write_text(json.dumps({"text": "second script"}) + "\n")
    store = RunStore.open(tmp_path / "run")
    second = await run_once(store, cache, questions(first_spec, 7))

    assert (second.total, second.sent, second.already_done, second.cache_hits) == (7, 2, 5, 0)
    assert second.complete
    answers = {rid: response.text for rid, response in store.responses().items()}
    assert answers == {f"q{i}": "first script" for i in range(5)} | {"q5": "second script", "q6": "second script"}
    assert store.counts() == {"requests": 7, "completed": 7, "pending": 0}
    events = [(row.request_id, row.event) for row in store.telemetry()]
    assert sorted(events) == sorted((f"q{i}", "ok") for i in range(7))
    assert [r.request_id for r in store.requests()] == [f"q{i}" for i in range(7)]


async def test_second_run_in_new_dir_is_served_from_cache(tmp_path):
    """The same requests in a new run directory are all cache hits, cost nothing and are marked cached."""
    spec = write_script(tmp_path, "answer")
    cache = ResponseCache(tmp_path / "cache")
    requests = questions(spec, 5)

    first = await run_once(RunStore.open(tmp_path / "run1"), cache, requests)
    assert (first.sent, first.cache_hits) == (5, 0)
    assert len(cache) == 5

    store = RunStore.open(tmp_path / "run2")
    second = await run_once(store, cache, requests)
    assert (second.sent, second.cache_hits, second.already_done, second.failed) == (0, 5, 0, 0)
    assert second.usage.input_tokens == 0 and second.cost_usd == 0.0
    responses = store.responses()
    assert len(responses) == 5
    assert all(r.cached and r.cost_usd == 0.0 and r.text == "answer" for r in responses.values())
    assert {row.event for row in store.telemetry()} == {"cache_hit"}


async def test_use_cache_false_bypasses_the_cache(tmp_path):
    """With use_cache=False a cached request is sent again and nothing is written to the cache."""
    spec = write_script(tmp_path, "answer")
    cache = ResponseCache(tmp_path / "cache")
    requests = questions(spec, 3)
    await run_once(RunStore.open(tmp_path / "run1"), cache, requests)
    assert len(cache) == 3

    store = RunStore.open(tmp_path / "run2")
    summary = await run_once(store, cache, [*requests, *questions(spec, 1, start=3)], use_cache=False)

    assert (summary.sent, summary.cache_hits) == (4, 0)
    assert not any(r.cached for r in store.responses().values())
    assert len(cache) == 3


def test_default_cache_follows_lexprobe_cache(tmp_path, isolated_cache):
    """`ResponseCache()` lives in $LEXPROBE_CACHE; `run_requests` is the synchronous entry point."""
    spec = write_script(tmp_path, "answer")
    summary = run_requests(questions(spec, 2), RunStore.open(tmp_path / "run"), ResponseCache(), quiet())

    assert summary.sent == 2
    assert (isolated_cache / "responses.sqlite").is_file()
    assert len(ResponseCache()) == 2


async def test_sample_indexes_are_distinct_cache_entries(tmp_path):
    """K sampled requests (temperature > 0) with sample_index 0..K-1 are K keys, K sends and K cache entries."""
    spec = write_script(tmp_path, "sample")
    k = 4
    sampled = [
        Request.from_prompt(spec, "Is this clause enforceable?", temperature=0.8, sample_index=i) for i in range(k)
    ]
    assert len({r.cache_key() for r in sampled}) == k
    cache = ResponseCache(tmp_path / "cache")
    store = RunStore.open(tmp_path / "run")

    summary = await run_once(store, cache, sampled)

    assert (summary.total, summary.sent) == (k, k)
    assert len(cache) == k
    assert set(store.responses()) == {r.cache_key() for r in sampled}

    # At temperature 0 the sample index does not matter: the K requests are one request.
    greedy = [Request.from_prompt(spec, "Is this clause enforceable?", sample_index=i) for i in range(k)]
    assert len({r.cache_key() for r in greedy}) == 1
    summary = await run_once(RunStore.open(tmp_path / "run-greedy"), cache, greedy)
    assert (summary.total, summary.sent) == (1, 1)
    assert len(cache) == k + 1


async def test_non_transient_failure_leaves_request_pending(tmp_path):
    """A request the script cannot answer fails once, stays pending, and is reported; the others complete."""
    spec = write_script(tmp_path, "only one turn")
    too_long = Request(
        model=spec,
        id="followup",
        messages=(
            Message(role="user", content="Is this a contract?"),
            Message(role="assistant", content="Yes."),
            Message(role="user", content="Why?"),
        ),
    )
    store = RunStore.open(tmp_path / "run")
    cache = ResponseCache(tmp_path / "cache")

    summary = await run_once(store, cache, [*questions(spec, 2), too_long], max_retries=3)

    assert (summary.sent, summary.failed, summary.retries) == (2, 1, 0)
    assert not summary.complete
    assert len(summary.errors) == 1
    assert summary.errors[0].startswith("followup: ")
    assert "turn 2" in summary.errors[0]
    assert store.response("followup") is None
    assert store.counts() == {"requests": 3, "completed": 2, "pending": 1}
    rows = store.telemetry("followup")
    assert [(row.event, row.attempt) for row in rows] == [("failed_permanent", 1)]  # not retried: it cannot help
    assert summary.failed_permanent == 1 and summary.permanent_errors == summary.errors
    assert "turn 2" in (rows[0].error or "")
    assert len(cache) == 2

    # Rerunning resumes with just the pending request, which fails again.
    again = await run_once(RunStore.open(tmp_path / "run"), cache, [*questions(spec, 2), too_long])
    assert (again.already_done, again.sent, again.failed) == (2, 0, 1)


async def test_reused_id_with_different_content_conflicts(tmp_path):
    """The same request id with different content in one run directory raises RunConflictError."""
    spec = write_script(tmp_path, "answer")
    store = RunStore.open(tmp_path / "run")
    await run_once(store, None, [Request.from_prompt(spec, "Original question?", id="same")])

    changed = Request.from_prompt(spec, "A different question?", id="same")
    with pytest.raises(RunConflictError, match="'same'"):
        await run_once(store, None, [changed])
    with pytest.raises(RunConflictError):
        await run_once(store, None, [Request.from_prompt(spec, "Original question?", id="same", max_tokens=9)])

    assert store.counts() == {"requests": 1, "completed": 1, "pending": 0}
    assert store.requests()[0].messages[-1].content == "Original question?"
    # The identical request is fine: it is already done.
    same = await run_once(store, None, [Request.from_prompt(spec, "Original question?", id="same")])
    assert (same.already_done, same.sent) == (1, 0)


async def test_estimate_counts_done_cached_and_to_send(tmp_path):
    """A dry run counts what is done, what the cache answers and what would be sent, and stores nothing."""
    spec = write_script(tmp_path, "answer")
    cache = ResponseCache(tmp_path / "cache")
    requests = questions(spec, 5, max_tokens=20)
    store = RunStore.open(tmp_path / "run")
    await run_once(store, cache, requests[:2])
    await run_once(RunStore.open(tmp_path / "other"), cache, requests[2:3])

    estimate = estimate_run(requests, store, cache)

    assert (estimate.requests, estimate.already_done, estimate.cache_hits, estimate.to_send) == (5, 2, 1, 2)
    assert estimate.max_output_tokens == 40
    assert estimate.input_tokens > 0
    assert estimate.max_cost_usd == 0.0
    assert "2 to send" in estimate.one_line()
    assert estimate.to_dict()["to_send"] == 2
    assert store.counts() == {"requests": 2, "completed": 2, "pending": 0}
    assert len(cache) == 3

    bare = estimate_run(requests)
    assert (bare.already_done, bare.cache_hits, bare.to_send) == (0, 0, 5)


def test_estimate_cost_by_price(monkeypatch):
    """An unknown price gives max_cost_usd None; the embedded model costs 0; a priced model costs > 0.

    estimate_run only checks the specs: nothing listens at the compatible server's address.
    """
    unknown = Request.from_prompt("openai-compatible/mystery@http://127.0.0.1:9/v1", "Hi?", max_tokens=16)
    estimate = estimate_run([unknown])
    assert estimate.to_send == 1
    assert estimate.max_cost_usd is None
    assert "unknown" in estimate.one_line()

    local = Request.from_prompt("local", "Hi?", max_tokens=16)
    assert estimate_run([local]).max_cost_usd == 0.0
    assert estimate_run([local, unknown]).max_cost_usd is None

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-used")
    priced = estimate_run([Request.from_prompt("openai/gpt-4o-mini", "Hi?", max_tokens=1000)])
    assert priced.max_cost_usd is not None
    assert priced.max_cost_usd == pytest.approx(priced.input_tokens * 0.15e-6 + 1000 * 0.60e-6)


def test_estimate_needs_no_key_but_rejects_unusable_spec(monkeypatch, tmp_path):
    """A dry run sends nothing, so it needs no API key; a spec no run could use still fails."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    estimate = estimate_run([Request.from_prompt("openai/gpt-4o-mini", "Hi?")])
    assert estimate.requests == 1
    with pytest.raises(ModelConfigError, match=r"missing\.gguf"):
        estimate_run([Request.from_prompt(f"local:{tmp_path / 'missing.gguf'}", "Hi?")])


async def test_missing_api_key_fails_before_anything_is_stored(tmp_path, monkeypatch):
    """Engine.run raises ModelConfigError for a spec without its key, before storing any request."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    spec = write_script(tmp_path, "answer")
    store = RunStore.open(tmp_path / "run")
    cache = ResponseCache(tmp_path / "cache")
    requests = [*questions(spec, 2), Request.from_prompt("openai/gpt-4o-mini", "Hi?", id="hosted")]

    with pytest.raises(ModelConfigError, match="OPENAI_API_KEY"):
        await run_once(store, cache, requests)

    assert store.counts() == {"requests": 0, "completed": 0, "pending": 0}
    assert store.telemetry() == []
    assert len(cache) == 0


async def test_unknown_spec_fails_before_anything_is_stored(tmp_path):
    """An unknown spec raises ModelConfigError naming the valid forms; nothing is stored."""
    store = RunStore.open(tmp_path / "run")
    with pytest.raises(ModelConfigError, match="Valid forms"):
        await run_once(store, None, [Request.from_prompt("gpt4", "Hi?")])
    assert store.counts()["requests"] == 0


async def test_concurrent_requests_all_complete(tmp_path):
    """40 requests with concurrency 4 all complete, each stored once."""
    spec = write_script(tmp_path, "answer")
    store = RunStore.open(tmp_path / "run")
    requests = questions(spec, 40)

    summary = await run_once(store, ResponseCache(tmp_path / "cache"), requests, concurrency=4)

    assert (summary.total, summary.sent, summary.failed) == (40, 40, 0)
    assert store.counts() == {"requests": 40, "completed": 40, "pending": 0}
    assert len(store.telemetry()) == 40
    assert summary.usage.output_tokens == 40 * 2  # "answer": 6 characters, ~4 a token
