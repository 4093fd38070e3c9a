"""The OpenAI-compatible backend against a real `python -m llama_cpp.server` serving the embedded model."""

from __future__ import annotations

import socket

import jsonschema
import openai
import pytest

from lexprobe.engine.cache import ResponseCache
from lexprobe.engine.config import EngineConfig
from lexprobe.engine.executor import Engine
from lexprobe.engine.store import RunStore
from lexprobe.models.errors import ModelConfigError
from lexprobe.models.openai_chat import OpenAIModel, build_openai_params, parse_openai_completion
from lexprobe.models.registry import open_model
from lexprobe.models.types import Request, ToolSpec

pytestmark = pytest.mark.slow

CASE_SCHEMA = {
    "type": "object",
    "properties": {"real": {"type": "boolean"}, "year": {"type": "integer"}},
    "required": ["real", "year"],
}
WEATHER_TOOL = ToolSpec(
    name="get_weather",
    description="Get the current weather for a city.",
    parameters={"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)
PROMPT = "What is the capital of France?"


@pytest.fixture
def spec(llama_server: str) -> str:
    return f"openai-compatible/smol@{llama_server}"


@pytest.fixture
async def model(spec: str):
    opened = open_model(spec)
    yield opened
    await opened.aclose()


async def run_engine(tmp_path, requests, name: str = "run"):
    """Run `requests` through the engine in tmp_path/name; return (summary, store)."""
    store = RunStore.open(tmp_path / name)
    engine = Engine(store, ResponseCache(tmp_path / "cache"), EngineConfig(progress=False, max_retries=1))
    try:
        return await engine.run(requests), store
    finally:
        await engine.aclose()


async def test_plain_answer_through_the_engine(tmp_path, spec):
    """A plain question is answered through the engine, with usage counted and an unknown (None) cost."""
    request = Request.from_prompt(spec, PROMPT, max_tokens=16, id="capital")

    summary, store = await run_engine(tmp_path, [request])

    assert (summary.sent, summary.failed) == (1, 0), summary.errors
    assert summary.cost_usd is None
    response = store.response("capital")
    assert response is not None
    assert "Paris" in response.text
    assert response.cost_usd is None
    assert response.usage.input_tokens > 0 and response.usage.output_tokens > 0
    assert summary.usage == response.usage
    assert response.finish_reason in ("stop", "length")
    assert response.latency_s > 0
    assert response.model == "smol"
    assert not response.cached

    again, second_store = await run_engine(tmp_path, [request], name="run-again")
    assert (again.cache_hits, again.sent) == (1, 0)
    assert second_store.response("capital").text == response.text


async def test_temperature_zero_repeats(model, spec):
    """Temperature 0 gives the same answer twice."""
    request = Request.from_prompt(spec, "Name one famous court case.", max_tokens=16)
    first = await model.generate(request)
    second = await model.generate(request)

    assert first.text
    assert first.text == second.text
    assert first.usage == second.usage


async def test_tool_call_is_returned_structurally(model, spec):
    """The server's tool call comes back as a ToolCall with the tool's name and parsed dict arguments."""
    request = Request.from_prompt(spec, "What is the weather in Paris?", max_tokens=32, tools=(WEATHER_TOOL,))
    response = await model.generate(request)

    assert response.finish_reason == "tool_calls"
    assert len(response.tool_calls) == 1
    call = response.tool_calls[0]
    assert call.name == "get_weather"
    assert isinstance(call.arguments, dict)
    assert call.raw_arguments is None
    jsonschema.validate(call.arguments, WEATHER_TOOL.parameters)
    assert call.arguments == {"city": "Paris"}
    assert call.id
    assert response.cost_usd is None
    assert response.usage.input_tokens > 0


async def test_schema_answer_validates_after_falling_back_to_json_object(model, spec):
    """llama-cpp-python's server rejects `json_schema`; the backend retries with `json_object` + schema."""
    assert isinstance(model, OpenAIModel)
    assert model.schema_style == "json_schema"
    request = Request.from_prompt(
        spec,
        "Is Marbury v. Madison a real case, and in what year was it decided? Reply in JSON.",
        max_tokens=32,
        schema=CASE_SCHEMA,
    )

    response = await model.generate(request)

    assert model.schema_style == "json_object"
    assert response.finish_reason == "stop", response.text
    jsonschema.validate(response.parsed_json(), CASE_SCHEMA)
    assert response.cost_usd is None
    assert response.usage.output_tokens > 0

    # Later schema requests go straight to json_object.
    follow_up = Request.from_prompt(
        spec, "Is Brown v. Board of Education a real case? Reply in JSON.", max_tokens=32, schema=CASE_SCHEMA
    )
    jsonschema.validate((await model.generate(follow_up)).parsed_json(), CASE_SCHEMA)


async def test_schema_and_tool_requests_through_the_engine(tmp_path, spec):
    """Schema and tool requests in one engine run come back validated and structured."""
    requests = [
        Request.from_prompt(
            spec, "Is Gideon v. Wainwright a real case? Reply in JSON.", max_tokens=32, schema=CASE_SCHEMA, id="json"
        ),
        Request.from_prompt(spec, "What is the weather in Paris?", max_tokens=32, tools=(WEATHER_TOOL,), id="tool"),
    ]

    summary, store = await run_engine(tmp_path, requests)

    assert (summary.sent, summary.failed, summary.retries) == (2, 0, 0), summary.errors
    assert summary.cost_usd is None
    jsonschema.validate(store.response("json").parsed_json(), CASE_SCHEMA)
    calls = store.response("tool").tool_calls
    assert [call.name for call in calls] == ["get_weather"]
    jsonschema.validate(calls[0].arguments, WEATHER_TOOL.parameters)


async def test_official_openai_client_end_to_end(llama_server, model, spec):
    """The backend's wire format works with the official client used directly, and matches the backend's answer."""
    assert isinstance(model.client, openai.AsyncOpenAI)
    request = Request.from_prompt(spec, PROMPT, system="Answer briefly.", max_tokens=16)
    params = build_openai_params(request, "smol", hosted=False)
    assert "max_tokens" in params and "max_completion_tokens" not in params

    client = openai.OpenAI(base_url=llama_server, api_key="not-needed", max_retries=0)
    try:
        listed = [entry.id for entry in client.models.list()]
        completion = client.chat.completions.create(**params)
    finally:
        client.close()
    assert listed
    text, calls, finish, usage = parse_openai_completion(completion)

    via_backend = await model.generate(request)
    assert text == via_backend.text
    assert calls == ()
    assert finish == via_backend.finish_reason
    assert usage == via_backend.usage
    assert usage.input_tokens > 0 and usage.output_tokens > 0


async def test_unreachable_server_that_never_answered_ends_the_run(tmp_path):
    """A server that refuses connections before it ever answered is a wrong URL or a server not started: the
    engine raises `ModelConfigError` naming the URL at once, without retrying (a refusal after an answer is
    retried as transient: tests/test_damaged_inputs.py)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    spec = f"openai-compatible/smol@http://127.0.0.1:{port}/v1"
    store = RunStore.open(tmp_path / "run")
    config = EngineConfig(progress=False, max_retries=3, backoff_initial_s=0, jitter_s=0)
    engine = Engine(store, None, config)
    try:
        with pytest.raises(ModelConfigError, match=rf"127\.0\.0\.1:{port}.*connection refused"):
            await engine.run([Request.from_prompt(spec, PROMPT, max_tokens=4, id="down")])
    finally:
        await engine.aclose()

    assert [row.event for row in store.telemetry("down")] == ["failed_permanent"]  # recorded, not retried
