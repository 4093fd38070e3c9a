"""Issue 15, model settings: investigation and QA requests send no temperature and no token cap unless the user sets
one; reasoning models get their provider's defaults; a summary cut by the token cap is recorded as such; the
hallucination requests still send temperature 0.

Hosted backends run through the official clients over in-process mock transports (`openai` takes an
`httpx.AsyncClient`, `anthropic` an `httpx2.AsyncClient`), inside a real engine, run store and sample environment.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import httpx
import httpx2
import pytest
from anthropic.types import Message as AnthropicMessage
from anthropic.types import TextBlock
from anthropic.types import Usage as AnthropicUsage
from openai.types.chat import ChatCompletion, ChatCompletionMessage
from openai.types.chat.chat_completion import Choice
from openai.types.completion_usage import CompletionUsage
from typer.testing import CliRunner

from lexprobe.engine.config import EngineConfig
from lexprobe.engine.executor import Engine
from lexprobe.engine.store import RunStore
from lexprobe.hallucination.run.items import Item
from lexprobe.hallucination.scorers.judge import judge_request
from lexprobe.investigation.agent.corpus_view import CorpusView
from lexprobe.investigation.agent.episode import Episode, load_episodes
from lexprobe.investigation.agent.harness import EpisodeRunner, HarnessSettings
from lexprobe.investigation.sample.build import build_sample_environment
from lexprobe.models.anthropic_messages import AnthropicModel, anthropic_default_max_tokens
from lexprobe.models.openai_chat import OpenAIModel, is_reasoning_model
from lexprobe.models.spec import parse_model_spec
from lexprobe.models.types import Request

VERDICTS = '[{"label": "H1", "verdict": "A"}, {"label": "H2", "verdict": "B"}, {"label": "H3", "verdict": "B"}]'


@pytest.fixture(autouse=True)
def _api_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-openai")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test-anthropic")
    for var in ("OPENAI_BASE_URL", "OPENAI_ORG_ID", "OPENAI_PROJECT_ID", "ANTHROPIC_BASE_URL", "ANTHROPIC_AUTH_TOKEN"):
        monkeypatch.delenv(var, raising=False)


@pytest.fixture(scope="module")
def sample_env(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_sample_environment(tmp_path_factory.mktemp("env") / "harlow", "merits")


def is_turn_two(body: dict[str, Any]) -> bool:
    """The verdict turn is a fresh one-message conversation listing the hypotheses."""
    return len(body["messages"]) == 1 and "H1" in json.dumps(body["messages"])


class Server:
    """Records every JSON body sent and answers Turn 1 with a summary (finish reason `summary_finish`) and Turn 2
    with verdicts, in the provider's own response format."""

    def __init__(self, provider: str, summary_finish: str = "stop") -> None:
        self.provider, self.summary_finish = provider, summary_finish
        self.bodies: list[dict[str, Any]] = []

    def __call__(self, request: Any) -> Any:
        body = json.loads(request.content)
        self.bodies.append(body)
        turn_two = is_turn_two(body)
        text = VERDICTS if turn_two else "Summary: the capacitor was unapproved [DOC-0001]."
        if self.provider == "anthropic":
            stop = "end_turn" if turn_two or self.summary_finish == "stop" else "max_tokens"
            return httpx2.Response(200, json=anthropic_body(text, stop, body["model"]))
        finish = "stop" if turn_two else self.summary_finish
        return httpx.Response(200, json=openai_body(text, finish, body["model"]))

    def client(self) -> Any:
        lib = httpx2 if self.provider == "anthropic" else httpx
        return lib.AsyncClient(transport=lib.MockTransport(self))


def openai_body(text: str, finish: str, model: str) -> dict[str, Any]:
    return ChatCompletion(
        id="chatcmpl-test", object="chat.completion", created=1_700_000_000, model=model,
        choices=[Choice(index=0, finish_reason=finish, message=ChatCompletionMessage(role="assistant", content=text))],
        usage=CompletionUsage(prompt_tokens=20, completion_tokens=5, total_tokens=25),
    ).model_dump(mode="json")  # fmt: skip


def anthropic_body(text: str, stop: str, model: str) -> dict[str, Any]:
    return AnthropicMessage(
        id="msg_test", type="message", role="assistant", model=model, content=[TextBlock(type="text", text=text)],
        stop_reason=stop, stop_sequence=None, usage=AnthropicUsage(input_tokens=20, output_tokens=5),
    ).model_dump(mode="json")  # fmt: skip


async def run_episode(env: Path, run_dir: Path, spec: str, server: Server, **settings: Any) -> Episode:
    """One real episode (engine, run store, sample environment) whose model is the hosted backend over `server`."""
    parsed = parse_model_spec(spec)
    backend = AnthropicModel if parsed.backend == "anthropic" else OpenAIModel
    store = RunStore.open(run_dir)
    engine = Engine(store, None, EngineConfig(progress=False, max_retries=0, use_cache=False))
    engine.models[spec] = backend(parsed, http_client=server.client())  # the real backend, the wire mocked
    try:
        runner = EpisodeRunner(engine, CorpusView.open(env), HarnessSettings(model=spec, **settings), 0, run_dir)
        return await runner.run()
    finally:
        await engine.aclose()
        store.close()


# ------------------------------------------------------------------------------------------- no settings: none sent


async def test_openai_harness_requests_without_settings_send_no_temperature_or_cap(sample_env, tmp_path) -> None:
    server = Server("openai")
    episode = await run_episode(sample_env, tmp_path / "run", "openai/gpt-4o-mini", server)
    assert episode.status == "complete", episode.error
    assert len(server.bodies) == 2  # Turn 1 (summary) and Turn 2 (verdicts)
    for body in server.bodies:
        assert not {"temperature", "max_tokens", "max_completion_tokens"} & body.keys(), body.keys()
    assert not episode.summary_truncated


async def test_openai_harness_sends_the_users_temperature_and_cap(sample_env, tmp_path) -> None:
    server = Server("openai")
    await run_episode(sample_env, tmp_path / "run", "openai/gpt-4o-mini", server, temperature=0.3, max_tokens=500)
    for body in server.bodies:
        assert body["temperature"] == 0.3 and body["max_completion_tokens"] == 500 and "max_tokens" not in body


async def test_compatible_server_gets_max_tokens_only_when_set(sample_env, tmp_path) -> None:
    spec = "openai-compatible/qwen3@http://localhost:8000/v1"
    unset, capped = Server("openai"), Server("openai")
    await run_episode(sample_env, tmp_path / "a", spec, unset)
    await run_episode(sample_env, tmp_path / "b", spec, capped, max_tokens=64)
    assert all("max_tokens" not in body and "temperature" not in body for body in unset.bodies)
    assert all(body["max_tokens"] == 64 and "max_completion_tokens" not in body for body in capped.bodies)


# -------------------------------------------------------------------------------------------------- reasoning models


@pytest.mark.parametrize("name", ["o1", "o3", "o3-mini", "o4-mini", "o4-mini-2025-04-16", "gpt-5", "gpt-5.4-mini",
                                  "GPT-5-nano", "openai/o3"])  # fmt: skip
def test_reasoning_models_are_recognised(name: str) -> None:
    assert is_reasoning_model(name)


@pytest.mark.parametrize("name", ["gpt-4o", "gpt-4.1-mini", "omni-moderation-latest", "qwen3", "gpt-4o-mini"])
def test_other_models_are_not_reasoning_models(name: str) -> None:
    assert not is_reasoning_model(name)


@pytest.mark.parametrize("spec", ["openai/o4-mini", "openai/gpt-5.4-mini", "openai-compatible/o3@http://proxy:1/v1"])
async def test_reasoning_models_never_get_a_temperature(spec, sample_env, tmp_path, caplog) -> None:
    server = Server("openai")
    with caplog.at_level(logging.WARNING, logger="lexprobe.models.openai_chat"):
        episode = await run_episode(sample_env, tmp_path / "run", spec, server, temperature=0.7, max_tokens=4000)
    assert episode.status == "complete", episode.error
    for body in server.bodies:
        assert "temperature" not in body
        assert body["max_completion_tokens"] == 4000 and "max_tokens" not in body
    warnings = [r for r in caplog.records if "takes no temperature" in r.getMessage()]
    assert len(warnings) <= 1  # once per model (a test run earlier in the process may already have warned)


async def test_reasoning_model_without_settings_gets_neither(sample_env, tmp_path) -> None:
    server = Server("openai")
    await run_episode(sample_env, tmp_path / "run", "openai/o3", server)
    assert all(not {"temperature", "max_tokens", "max_completion_tokens"} & body.keys() for body in server.bodies)


# ------------------------------------------------------------------------------------------------------- Anthropic


async def test_anthropic_gets_its_required_cap_and_no_temperature(sample_env, tmp_path) -> None:
    server = Server("anthropic")
    episode = await run_episode(sample_env, tmp_path / "run", "anthropic/claude-sonnet-4-6", server)
    assert episode.status == "complete", episode.error
    for body in server.bodies:
        assert body["max_tokens"] == anthropic_default_max_tokens("claude-sonnet-4-6") == 16_384
        assert "temperature" not in body


async def test_anthropic_sends_the_users_settings(sample_env, tmp_path) -> None:
    server = Server("anthropic")
    await run_episode(sample_env, tmp_path / "run", "anthropic/claude-haiku-4-5", server, temperature=0.2,
                      max_tokens=700)  # fmt: skip
    assert all(body["max_tokens"] == 700 and body["temperature"] == 0.2 for body in server.bodies)


@pytest.mark.parametrize(("name", "cap"), [("claude-3-5-haiku-latest", 8_192), ("claude-3-haiku-20240307", 4_096),
                                           ("claude-opus-4-1", 8_192), ("claude-3-7-sonnet-latest", 16_384),
                                           ("claude-haiku-4-5", 16_384)])  # fmt: skip
def test_anthropic_default_cap_by_family(name: str, cap: int) -> None:
    assert anthropic_default_max_tokens(name) == cap


# -------------------------------------------------------------------------------------------------- truncated summary


@pytest.mark.parametrize(("spec", "provider"), [("openai/gpt-4o-mini", "openai"),
                                                ("anthropic/claude-sonnet-4-6", "anthropic")])  # fmt: skip
async def test_summary_cut_by_the_token_cap_is_recorded(spec, provider, sample_env, tmp_path) -> None:
    server = Server(provider, summary_finish="length")
    episode = await run_episode(sample_env, tmp_path / "run", spec, server, max_tokens=32)
    assert episode.summary_truncated
    (saved,) = load_episodes(tmp_path / "run")
    assert saved.summary_truncated  # in the episode file, hence in `show --json` and scoring's inputs


def test_show_reports_a_truncated_summary_and_old_episodes_load(sample_env, tmp_path) -> None:
    from lexprobe.cli.investigation import investigation_app

    base = {"episode_id": "c|m|e0", "environment": "c", "env_dir": str(sample_env), "model": "m", "seed": 0,
            "tool_budget": 30, "turn_budget": 25, "status": "complete"}  # fmt: skip
    folder = tmp_path / "run" / "episodes"
    folder.mkdir(parents=True)
    (folder / "old.json").write_text(json.dumps(base))  # recorded before the field existed
    (folder / "cut.json").write_text(json.dumps(base | {"episode_id": "c|m|e1", "summary_truncated": True}))
    cut, old = load_episodes(tmp_path / "run")  # sorted by file name
    assert old.summary_truncated is False and cut.summary_truncated is True
    result = CliRunner().invoke(investigation_app, ["show", str(tmp_path / "run")])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert "cut by the token cap" in next(line for line in lines if line.startswith("c|m|e1"))
    assert "cut by the token cap" not in next(line for line in lines if line.startswith("c|m|e0"))


# ---------------------------------------------------------------------------------- requests, keys and the run store


def test_unset_temperature_is_sampled_and_keeps_epochs_apart() -> None:
    first = Request.from_prompt("openai/gpt-4o", "q", temperature=None, max_tokens=None)
    second = Request.from_prompt("openai/gpt-4o", "q", temperature=None, max_tokens=None, sample_index=1)
    greedy = Request.from_prompt("openai/gpt-4o", "q", temperature=0.0, max_tokens=None)
    assert first.sampled and not greedy.sampled
    assert first.cache_key() != second.cache_key()  # two epochs: two samples, not one cached answer
    assert first.cache_key() != greedy.cache_key()
    assert greedy.cache_key() == greedy.model_copy(update={"sample_index": 3}).cache_key()


def test_cli_run_records_unset_settings(sample_env, tmp_path) -> None:
    from lexprobe.cli.investigation import investigation_app

    script = tmp_path / "agent.jsonl"
    script.write_text(json.dumps({"text": "Summary."}) + "\n" + json.dumps({"when": "H1", "text": VERDICTS}) + "\n")
    spec = f"scripted:{script}"
    for run_dir, extra in (("plain", []), ("set", ["--temperature", "0.5", "--max-tokens", "300"])):
        args = ["run", str(sample_env), "--model", spec, "--run-dir", str(tmp_path / run_dir), "--no-cache", *extra]
        result = CliRunner().invoke(investigation_app, args)
        assert result.exit_code == 0, result.output
    for run_dir, temperature, cap in (("plain", None, None), ("set", 0.5, 300)):
        store = RunStore.open(tmp_path / run_dir)
        requests, meta = store.requests(), store.get_meta("investigation_settings")
        store.close()
        assert requests and all(r.temperature == temperature and r.max_tokens == cap for r in requests)
        assert meta["temperature"] == temperature and meta["max_tokens"] == cap


# ------------------------------------------------------------------------------- hallucination: still temperature 0


async def test_hallucination_requests_still_send_temperature_zero() -> None:
    item = Item(item_id="existence|x", task="existence", level="scotus", prompt_style="zero_shot", case_id="c1",
                prompt="Does the case exist?", reference={}, max_tokens=16)  # fmt: skip
    (greedy,) = item.requests("openai/gpt-4o-mini")
    judge = judge_request("openai/gpt-4o-mini", "existence|x", "yes", "no", {})
    server = Server("openai")
    model = OpenAIModel(parse_model_spec("openai/gpt-4o-mini"), http_client=server.client())
    try:
        await model.generate(greedy)
        await model.generate(judge)
    finally:
        await model.aclose()
    greedy_body, judge_body = server.bodies
    assert greedy_body["temperature"] == 0.0 and greedy_body["max_completion_tokens"] == 16
    assert judge_body["temperature"] == 0.0 and judge_body["max_completion_tokens"] == judge.max_tokens


# ------------------------------------------------------------------------------------ the embedded model's defaults


def test_local_model_uses_its_own_defaults_when_unset() -> None:
    """llama.cpp gets temperature 0 and no cap (it then stops at the context window); a fake Llama records it."""
    pytest.importorskip("llama_cpp")
    from lexprobe.models.local import LlamaCppModel

    class FakeLlama:
        stop_event = None

        def __init__(self) -> None:
            self.kwargs: dict[str, Any] = {}

        def reset(self) -> None:
            pass

        def create_chat_completion(self, **kwargs: Any) -> dict[str, Any]:
            self.kwargs = kwargs
            return {"choices": [{"message": {"content": "ok"}, "finish_reason": "length"}],
                    "usage": {"prompt_tokens": 3, "completion_tokens": 1}}  # fmt: skip

    import threading

    model = LlamaCppModel(parse_model_spec("local"))
    llm = FakeLlama()
    response = model._answer(llm, Request.from_prompt("local", "q", temperature=None, max_tokens=None),
                             threading.Event())  # fmt: skip
    assert llm.kwargs["temperature"] == 0.0 and llm.kwargs["max_tokens"] is None
    assert response.finish_reason == "length"
