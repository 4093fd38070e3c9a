"""`--batch` through the engine: the real `openai` and `anthropic` SDKs against the batch provider server of
tests/batch_provider_server.py on 127.0.0.1 (their file, batch and result endpoints with the real status values).

Answers that come by batch must be the ones the synchronous path stores (same text, usage, cache key), priced at
half; expired, errored and cancelled items are submitted again in a new batch, at most `MAX_ROUNDS` times; a batch
created before a crash recorded its id is found on the provider instead of being created twice."""

from __future__ import annotations

import asyncio
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from batch_provider_server import BatchProviderServer

from lexprobe.engine.batch.ledger import BatchLedger
from lexprobe.engine.batch.providers import AnthropicBatches, OpenAIBatches, open_provider, split_batches
from lexprobe.engine.batch.runner import MAX_ROUNDS
from lexprobe.engine.batch.status import batch_count_lines, batch_status
from lexprobe.engine.cache import ResponseCache
from lexprobe.engine.config import EngineConfig
from lexprobe.engine.estimate import batch_estimate, estimate_run
from lexprobe.engine.executor import Engine
from lexprobe.engine.store import RunStore
from lexprobe.engine.summary import RunSummary
from lexprobe.models.errors import ModelConfigError, ModelError
from lexprobe.models.pricing import batch_price, price_for
from lexprobe.models.types import Request

pytestmark = pytest.mark.slow  # starts the batch provider server (and, in the CLI file, subprocesses)

OPENAI = "openai/gpt-4o-mini"
ANTHROPIC = "anthropic/claude-3-5-haiku-latest"


@pytest.fixture(scope="module")
def server() -> Iterator[BatchProviderServer]:
    provider = BatchProviderServer().start()
    yield provider
    provider.stop()


@pytest.fixture
def provider_env(server: BatchProviderServer, monkeypatch: pytest.MonkeyPatch) -> BatchProviderServer:
    """Point both SDKs at the server (dummy keys); reset its script."""
    server.reset()
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    monkeypatch.setenv("OPENAI_BASE_URL", server.url + "/v1")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
    return server


def requests_for(model: str, n: int, tag: str = "q") -> list[Request]:
    return [Request.from_prompt(model, f"{tag} question {i}?", id=f"{tag}|{model}|{i}") for i in range(n)]


def run(run_dir: Path, requests: list[Request], *, batch: bool, cache: bool = True) -> RunSummary:
    async def main() -> RunSummary:
        store = RunStore.open(run_dir)
        config = EngineConfig(batch=batch, batch_poll_s=0.02, progress=False, use_cache=cache, backoff_initial_s=0.01)
        engine = Engine(store, ResponseCache() if cache else None, config)
        try:
            return await engine.run(requests)
        finally:
            await engine.aclose()
            store.close()

    return asyncio.run(main())


def stored(run_dir: Path) -> dict:
    store = RunStore.open_read_only(run_dir)
    try:
        return store.responses()
    finally:
        store.close()


def events(run_dir: Path) -> Counter:
    store = RunStore.open_read_only(run_dir)
    try:
        return Counter(row.event for row in store.telemetry())
    finally:
        store.close()


def test_split_at_the_providers_limits() -> None:
    assert (OpenAIBatches.max_requests, OpenAIBatches.max_bytes) == (50_000, 200 * 1024 * 1024)
    assert (AnthropicBatches.max_requests, AnthropicBatches.max_bytes) == (100_000, 256 * 1024 * 1024)
    assert split_batches([10] * 7, 3, 10_000) == [range(0, 3), range(3, 6), range(6, 7)]
    assert split_batches([40, 40, 40, 10], 100, 90) == [range(0, 2), range(2, 4)]  # 41 + 41 <= 90 < 41 * 3
    assert split_batches([], 3, 100) == []
    with pytest.raises(ModelError, match="more than a batch may hold"):
        split_batches([5, 500], 10, 100)


def test_batch_price_is_half_the_list_price() -> None:
    full, half = price_for("openai", "gpt-4o-mini"), batch_price("openai", "gpt-4o-mini")
    assert half is not None and full is not None
    assert (half.input, half.output, half.cache_read) == (full.input / 2, full.output / 2, full.cache_read / 2)
    assert batch_price("anthropic", "claude-3-5-haiku-latest").cache_write == 0.5  # type: ignore[union-attr]
    assert batch_price("openai-compatible", "llama") is None


@pytest.mark.parametrize("model", [OPENAI, ANTHROPIC])
def test_batched_answers_equal_synchronous_ones_at_half_price(
    provider_env: BatchProviderServer, tmp_path: Path, model: str
) -> None:
    server = provider_env
    requests = requests_for(model, 6)
    server.faults = ["expired", "ok", "errored", "canceled"]  # partial failures in the first batch
    before = len(server.submitted)
    summary = run(tmp_path / "batch", requests, batch=True)
    assert summary.complete and summary.batched == summary.sent == 6
    sync = run(tmp_path / "sync", requests, batch=False, cache=False)
    assert sync.sent == 6 and sync.batched == 0
    batched, direct = stored(tmp_path / "batch"), stored(tmp_path / "sync")
    assert set(batched) == {r.request_id for r in requests}
    for request_id, response in batched.items():
        assert (response.text, response.usage, response.finish_reason, response.model) == (
            direct[request_id].text,
            direct[request_id].usage,
            direct[request_id].finish_reason,
            direct[request_id].model,
        )
        assert response.cost_usd == pytest.approx(direct[request_id].cost_usd / 2)
    # the three failed items went into a second batch, once each; nothing else was sent twice
    items = Counter(body for _, _, body in server.submitted[before:])
    assert sorted(items.values()) == [1, 1, 1, 2, 2, 2]
    report = batch_status(tmp_path / "batch")
    assert [b["round"] for b in report["batches"]] == [1, 2]
    assert report["batches"][0]["items"] == {"succeeded": 3, "expired": 1, "errored": 1, "canceled": 1}
    assert len(report["batches"][0]["reasons"]) == 3 and all(report["batches"][0]["reasons"].values())
    assert report["batched_answers"] == 6 and report["open"] == 0
    retries = [row for row in RunStore.open_read_only(tmp_path / "batch").telemetry() if row.event == "retry"]
    assert sorted(row.error.split(":")[0] for row in retries) == ["batch canceled", "batch errored", "batch expired"]
    # the answers are in the shared cache under the synchronous keys: a rerun elsewhere replays them
    replay = run(tmp_path / "again", requests, batch=True)
    assert replay.cache_hits == 6 and replay.sent == 0


def test_a_run_mixing_cached_and_batched_answers(provider_env: BatchProviderServer, tmp_path: Path) -> None:
    server = provider_env
    requests = requests_for(OPENAI, 8, tag="mix")
    run(tmp_path / "first", requests[:3], batch=False)  # fills the cache with three answers
    before = len(server.submitted)
    summary = run(tmp_path / "mixed", requests, batch=True)
    assert (summary.cache_hits, summary.batched, summary.complete) == (3, 5, True)
    assert len(server.submitted) - before == 5  # only the five the cache did not hold
    counts = events(tmp_path / "mixed")
    assert (counts["cache_hit"], counts["batch"]) == (3, 5)
    assert batch_status(tmp_path / "mixed")["batched_answers"] == 5


def test_items_failing_every_round_stay_pending_with_their_reason(
    provider_env: BatchProviderServer, tmp_path: Path
) -> None:
    server = provider_env
    server.faults, server.sticky_faults = ["errored"], True  # the first item of every batch errors
    requests = requests_for(ANTHROPIC, 3, tag="stuck")
    summary = run(tmp_path / "run", requests, batch=True)
    assert summary.batched == 2 and summary.failed == 1 and summary.failed_permanent == 0
    assert f"no answer after {MAX_ROUNDS} batches" in summary.errors[0] and "scripted error" in summary.errors[0]
    assert len(batch_status(tmp_path / "run")["batches"]) == MAX_ROUNDS
    server.reset()
    again = run(tmp_path / "run", requests, batch=True)  # a rerun tries again
    assert again.already_done == 2 and again.batched == 1 and again.complete


@pytest.mark.parametrize("model", [OPENAI, ANTHROPIC])
def test_cancelled_by_hand_and_expired_batches_are_reported_and_resubmitted(
    provider_env: BatchProviderServer, tmp_path: Path, model: str
) -> None:
    server = provider_env
    server.cancel_next = True
    requests = requests_for(model, 4, tag="cancel")
    summary = run(tmp_path / "run", requests, batch=True)
    assert summary.complete and summary.batched == 4
    first, second = batch_status(tmp_path / "run")["batches"]
    assert "cancelled by hand" in first["note"] and first["items"] == {"succeeded": 2, "canceled": 2}
    assert second["requests"] == 2 and second["items"] == {"succeeded": 2}
    server.expire_next = True
    summary = run(tmp_path / "expiring", requests_for(model, 4, tag="expire"), batch=True)
    assert summary.complete and summary.batched == 4
    assert batch_status(tmp_path / "expiring")["batches"][0]["items"] == {"succeeded": 2, "expired": 2}


def test_an_openai_batch_that_fails_validation_is_submitted_again(
    provider_env: BatchProviderServer, tmp_path: Path
) -> None:
    provider_env.failed_next = True
    summary = run(tmp_path / "run", requests_for(OPENAI, 3, tag="invalid"), batch=True)
    assert summary.complete and summary.batched == 3
    first = batch_status(tmp_path / "run")["batches"][0]
    assert first["state"] == "failed" and "scripted failure" in first["note"] and first["items"] == {"missing": 3}


@pytest.mark.parametrize("model", [OPENAI, ANTHROPIC])
def test_a_batch_created_before_its_id_was_recorded_is_found_not_created_again(
    provider_env: BatchProviderServer, tmp_path: Path, model: str
) -> None:
    """The crash between the provider's create and the commit of its id: the intent is in the ledger, the batch on
    the provider. The rerun finds it (OpenAI by metadata, Anthropic by time and size) and creates nothing."""
    server = provider_env
    requests = requests_for(model, 3, tag="found")
    store = RunStore.open(tmp_path / "run")
    store.add_requests(requests)
    ledger = BatchLedger(store)
    local_id, ids = ledger.add_intent(model.split("/")[0], model, [r.request_id for r in requests], 1)

    async def create_without_recording() -> str:
        provider = open_provider(model)
        try:
            entries = [provider.entry(cid, request) for cid, request in zip(ids, requests, strict=True)]
            return (await provider.submit(local_id, entries))[0]
        finally:
            await provider.aclose()

    provider_id = asyncio.run(create_without_recording())
    store.close()
    before = len(server.submitted)
    summary = run(tmp_path / "run", requests, batch=True)
    assert summary.complete and summary.batched == 3
    assert len(server.submitted) == before  # nothing created again
    (row,) = batch_status(tmp_path / "run")["batches"]
    assert (row["local_id"], row["provider_id"]) == (local_id, provider_id)


def test_an_intent_never_sent_is_created_with_its_recorded_custom_ids(
    provider_env: BatchProviderServer, tmp_path: Path
) -> None:
    server = provider_env
    requests = requests_for(OPENAI, 2, tag="intent")
    store = RunStore.open(tmp_path / "run")
    store.add_requests(requests)
    _, ids = BatchLedger(store).add_intent("openai", OPENAI, [r.request_id for r in requests], 1)
    store.close()
    before = len(server.submitted)
    summary = run(tmp_path / "run", requests, batch=True)
    assert summary.complete and summary.batched == 2
    assert [cid for _, cid, _ in server.submitted[before:]] == ids


def test_models_without_a_batch_api_stay_synchronous(provider_env: BatchProviderServer, tmp_path: Path) -> None:
    script = tmp_path / "s.jsonl"
    script.write_text('{"text": "Yes"}\n')
    requests = requests_for(f"scripted:{script}", 2, tag="sync") + requests_for(OPENAI, 2, tag="sync")
    summary = run(tmp_path / "run", requests, batch=True)
    assert summary.complete and summary.sent == 4 and summary.batched == 2
    assert events(tmp_path / "run") == Counter({"ok": 2, "batch": 2})


def test_dry_run_lines_and_models_without_a_batch_api(tmp_path: Path) -> None:
    script = tmp_path / "s.jsonl"
    script.write_text('{"text": "Yes"}\n')
    requests = requests_for(f"scripted:{script}", 3, tag="dry") + requests_for(OPENAI, 4, tag="dry")
    estimate = estimate_run(requests)
    estimate.batch = batch_estimate(estimate, requests, None, None)
    assert estimate.batch["synchronous"] == 3 and estimate.batch["requests"] == 4 and estimate.batch["batches"] == 1
    (share,) = [row for row in estimate.by_model if row.model == OPENAI]
    assert estimate.batch["max_cost_usd"] == pytest.approx(share.max_cost_usd / 2)
    lines = estimate.lines().splitlines()
    assert lines[-2].startswith("batch: 4 requests in 1 batch(es), at most $")
    assert lines[-2].endswith("; 3 request(s) of models without a batch API stay synchronous")
    assert lines[-1].startswith(f"  {OPENAI}: 4 requests, 1 batch(es)")
    assert estimate_run(requests).batch is None  # without --batch: no batch part


def test_report_lines_only_for_runs_with_batched_answers() -> None:
    rows = [{"run_dir": "a", "answers": 10, "batched_answers": 7}, {"run_dir": "b", "answers": 5, "batched_answers": 0}]
    assert batch_count_lines(rows) == ["answers by batch (provider batch API): 7 of 10 (a)"]


def test_synchronous_calls_bypass_batching(provider_env: BatchProviderServer, tmp_path: Path) -> None:
    """An agent's turns (`Engine.run(..., synchronous=True)`, what the investigation harness passes) never wait for
    a batch, even under --batch; a judge's call from the same engine does go by batch."""
    server = provider_env
    turn, judge = requests_for(OPENAI, 1, tag="turn"), requests_for(ANTHROPIC, 1, tag="judge")

    async def main() -> tuple[RunSummary, RunSummary]:
        store = RunStore.open(tmp_path / "run")
        engine = Engine(store, None, EngineConfig(batch=True, batch_poll_s=0.02, progress=False, use_cache=False))
        try:
            return await engine.run(turn, synchronous=True), await engine.run(judge)
        finally:
            await engine.aclose()
            store.close()

    calls, batches = server.sync_calls, len(server.batches)
    agent, judged = asyncio.run(main())
    assert (agent.sent, agent.batched, server.sync_calls - calls) == (1, 0, 1)
    assert (judged.sent, judged.batched, len(server.batches) - batches) == (1, 1, 1)


def test_an_openai_compatible_server_with_batch_endpoints(provider_env: BatchProviderServer, tmp_path: Path) -> None:
    model = f"openai-compatible/served-model@{provider_env.url}/v1"
    summary = run(tmp_path / "run", requests_for(model, 3, tag="compat"), batch=True)
    assert summary.complete and summary.batched == 3 and summary.cost_usd is None  # no list price for a server
    assert {response.model for response in stored(tmp_path / "run").values()} == {"served-model"}


def test_a_server_without_batch_endpoints_ends_the_run_with_one_line(
    provider_env: BatchProviderServer, tmp_path: Path
) -> None:
    model = f"openai-compatible/m@{provider_env.url}/no-batches/v1"
    with pytest.raises(ModelConfigError, match=r"batch lx[0-9a-f]{16}: .*404"):
        run(tmp_path / "run", requests_for(model, 2, tag="nobatch"), batch=True)
    (row,) = batch_status(tmp_path / "run")["batches"]
    assert row["state"] == "submitting" and row["provider_id"] is None  # recorded; a rerun looks for it first


def test_an_intent_whose_requests_were_answered_meanwhile_sends_only_the_rest(
    provider_env: BatchProviderServer, tmp_path: Path
) -> None:
    server = provider_env
    requests = requests_for(OPENAI, 3, tag="meanwhile")
    store = RunStore.open(tmp_path / "run")
    store.add_requests(requests)
    _, ids = BatchLedger(store).add_intent("openai", OPENAI, [r.request_id for r in requests], 1)
    store.close()
    run(tmp_path / "run", requests[:1], batch=False)  # a rerun without --batch answered one of them
    before = len(server.submitted)
    summary = run(tmp_path / "run", requests, batch=True)
    assert summary.already_done == 1 and summary.batched == 2
    assert [cid for _, cid, _ in server.submitted[before:]] == ids[1:]
    (row,) = batch_status(tmp_path / "run")["batches"]
    assert row["items"] == {"missing": 1, "succeeded": 2}


def test_help_says_agent_calls_stay_synchronous() -> None:
    from typer.testing import CliRunner

    from lexprobe.cli import app

    for command in (["hallucination", "run"], ["investigation", "qa"], ["investigation", "build"]):
        result = CliRunner().invoke(app, [*command, "--help"])
        assert result.exit_code == 0, result.output
        text = " ".join(re.sub(r"[│╭╮╰╯─]", " ", result.output).split())  # the help's boxes and line breaks
        assert "--batch" in text and "Multi-turn agent calls stay synchronous" in text, text
    assert "--batch" not in CliRunner().invoke(app, ["investigation", "run", "--help"]).output


def test_a_fault_while_reading_results_reads_them_again(provider_env: BatchProviderServer, tmp_path: Path) -> None:
    provider_env.content_errors = 3  # one more than the SDK's own retries: lexprobe reads the results at the next poll
    summary = run(tmp_path / "run", requests_for(OPENAI, 3, tag="outage"), batch=True)
    assert summary.complete and summary.batched == 3 and provider_env.content_errors == 0


def test_the_html_report_names_the_answers_that_came_by_batch(tmp_path: Path) -> None:
    from lexprobe.caselaw.judges import load_roster
    from lexprobe.hallucination.profile.results import Unit
    from lexprobe.hallucination.profile.stats import profile
    from lexprobe.hallucination.report.html import write_html_report

    units = [Unit("m", "existence", "scotus", "zero", label) for label in ("correct", "hallucination")]
    models = [{"model": "m", "run_dir": "runs/m", "judge": "m", "answers": 2, "batched_answers": 2}]
    write_html_report(tmp_path / "r.html", models, profile(units, load_roster()), units)
    assert "2 of 2 answers by batch" in (tmp_path / "r.html").read_text()


def test_investigation_qa_batches_the_judge_and_never_the_agent(
    provider_env: BatchProviderServer, tmp_path: Path
) -> None:
    import json

    from lexprobe.investigation.agent.harness import HarnessSettings
    from lexprobe.investigation.qa.runner import run_qa
    from lexprobe.investigation.sample.build import build_sample_environment

    server = provider_env
    env = build_sample_environment(tmp_path / "env", "merits")
    config = EngineConfig(progress=False, max_retries=0, batch=True, batch_poll_s=0.02)
    # an agent with a batch API under --batch: its turns go one by one (the server's "Yes"/"No" has no ANSWER:)
    calls, batches = server.sync_calls, len(server.batches)
    settings = HarnessSettings(model=OPENAI, tool_budget=2)
    records = asyncio.run(run_qa([env], settings, ANTHROPIC, tmp_path / "agent", None, config))
    assert records and server.sync_calls - calls >= len(records) and len(server.batches) == batches
    # a scripted agent that answers: each question's judge call goes by batch
    agent = tmp_path / "agent.jsonl"
    agent.write_text(json.dumps({"text": "ANSWER: 229 of 600 units failed."}) + "\n")
    settings = HarnessSettings(model=f"scripted:{agent}", tool_budget=2)
    records = asyncio.run(run_qa([env], settings, OPENAI, tmp_path / "judged", None, config))
    assert len(server.batches) - batches == len(records) > 0
    assert all(record.judge_reply in ("Yes", "No") for record in records)
    assert batch_status(tmp_path / "judged")["batched_answers"] == len(records)


def test_the_construction_pipelines_calls_go_by_batch(provider_env: BatchProviderServer, tmp_path: Path) -> None:
    """`investigation build --batch`: a stage's calls (`EngineTextSource.complete`, what every generation and judging
    stage sends) go in one batch each, the answers back in call order."""
    from lexprobe.investigation.pipeline.context import BuildSettings, LLMCall
    from lexprobe.investigation.pipeline.runner import EngineTextSource

    schema = {"type": "object", "properties": {"answer": {"type": "string"}}}
    settings = BuildSettings(generator=OPENAI, judge=ANTHROPIC)
    calls = [LLMCall("generate", f"doc{i}", "generator" if i % 2 else "judge", f"Write document {i}.", schema)
             for i in range(4)]  # fmt: skip
    source = EngineTextSource(settings, tmp_path / "run", None, EngineConfig(progress=False, batch=True,
                                                                             batch_poll_s=0.02))  # fmt: skip
    batches = len(provider_env.batches)
    try:
        answers = source.complete(calls)
    finally:
        source.close()
    assert [answer.text in ("Yes", "No") for answer in answers] == [True] * 4
    assert len(provider_env.batches) - batches == 2  # one per model
    assert batch_status(tmp_path / "run")["batched_answers"] == 4


@pytest.mark.parametrize("model", [OPENAI, ANTHROPIC])
def test_unreadable_wrong_and_duplicate_result_lines_fail_only_their_items(
    provider_env: BatchProviderServer, tmp_path: Path, model: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Issue 44 (3, 4): in a finished batch, a line cut in half, a line of garbage (no custom id), a result that is
    not a chat completion and a second result for one custom id: every answer that parses is stored, each bad line
    fails its item (the garbage line: the item left without a result) with a one-line reason naming the line, those
    items go into a new batch, and the duplicate is warned about, recorded in the batch's note and the first kept."""
    server = provider_env
    requests = requests_for(model, 6, tag="spoiled")
    server.mangle = {0: "garbled", 1: "no_id", 2: "wrong_shape", 3: "duplicate"}
    before = len(server.submitted)
    summary = run(tmp_path / "batch", requests, batch=True)
    assert summary.complete and summary.batched == 6, summary.errors
    resent = Counter(cid.rsplit("-", 1)[0] for _, cid, _ in server.submitted[before:])
    assert sorted(resent.values()) == [3, 6]  # the three failed items went into a second batch
    sync = run(tmp_path / "sync", requests, batch=False, cache=False)
    assert {rid: r.text for rid, r in stored(tmp_path / "batch").items()} == {
        rid: r.text for rid, r in stored(tmp_path / "sync").items()
    }  # the duplicate's first answer kept, not its "Maybe"
    assert sync.sent == 6
    first, second = batch_status(tmp_path / "batch")["batches"]
    assert first["items"] == {"succeeded": 3, "errored": 3} and second["items"] == {"succeeded": 3}
    reasons = " | ".join(first["reasons"])
    what = (
        "a chat completion (choices: not a list)"
        if model == OPENAI
        else "a Messages answer (missing usage; content: not a list)"
    )
    assert f"errored: the result is not {what}, line " in reasons, reasons
    assert reasons.count("errored: unreadable result line ") == 2, reasons
    where = "of file file-" if model == OPENAI else f"of the results of batch {first['provider_id']}"
    assert where in reasons and all(len(reason) < 300 for reason in first["reasons"]), reasons
    assert "duplicate results for 1 custom id(s), the first kept" in first["note"]
    assert "with different answers: the first (line " in first["note"]
    assert any("duplicate result:" in record.getMessage() for record in caplog.records)
