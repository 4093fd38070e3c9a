"""The embedded SmolLM2 model through llama.cpp: determinism, seeded sampling, JSON schemas and tool calls."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import jsonschema
import pytest

from lexprobe.engine.cache import ResponseCache
from lexprobe.engine.config import EngineConfig
from lexprobe.engine.executor import Engine
from lexprobe.engine.store import RunStore
from lexprobe.models.base import Model
from lexprobe.models.local import LlamaCppModel
from lexprobe.models.registry import open_model
from lexprobe.models.types import Request, ToolSpec

LEXPROBE = Path(sys.executable).with_name("lexprobe")

GREEDY_PROMPT = "What is a tort? Answer in one sentence."
SAMPLE_PROMPT = "Write a short poem about the law."
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


@pytest.fixture(scope="module")
def local_model() -> Iterator[Model]:
    """One embedded model for the module: the weights load once, on the first call."""
    model = open_model("local")
    yield model
    asyncio.run(model.aclose())


def greedy(prompt: str = GREEDY_PROMPT, **params) -> Request:
    return Request.from_prompt("local", prompt, max_tokens=24, **params)


def sample(**params) -> Request:
    return Request.from_prompt("local", SAMPLE_PROMPT, max_tokens=12, temperature=1.0, **params)


def cli_answer(prompt: str, cache_dir: Path) -> dict:
    """Answer `prompt` in a fresh process through the installed `lexprobe ask` script."""
    env = {**os.environ, "LEXPROBE_CACHE": str(cache_dir)}
    result = subprocess.run(
        [str(LEXPROBE), "ask", "--json", "--no-cache", "--max-tokens", "24", prompt],
        capture_output=True,
        text=True,
        env=env,
        timeout=180,
        check=True,
    )
    return json.loads(result.stdout)


async def test_open_model_local_is_the_embedded_llama_cpp_model(local_model):
    """`local` opens the llama.cpp backend on the embedded GGUF file, free of charge."""
    assert isinstance(local_model, LlamaCppModel)
    assert local_model.model_path.endswith(".gguf")
    assert Path(local_model.model_path).is_file()
    assert local_model.spec.name == "smollm2"


async def test_greedy_answer_has_usage_and_zero_cost(local_model):
    """An answer reports its prompt and completion tokens and costs nothing."""
    response = await local_model.generate(greedy())

    assert response.text.strip()
    assert response.usage.input_tokens > 0
    assert 0 < response.usage.output_tokens <= 24
    assert response.cost_usd == 0.0
    assert response.finish_reason in ("stop", "length")
    assert response.latency_s > 0
    assert response.model == "smollm2"
    assert not response.cached


async def test_temperature_zero_is_identical_across_calls_and_processes(local_model, tmp_path):
    """Temperature 0 gives the same text twice in-process and in two separate `lexprobe ask` processes."""
    first = await local_model.generate(greedy())
    await local_model.generate(greedy("Name one famous court case."))  # other work in between
    second = await local_model.generate(greedy())
    assert first.text == second.text
    assert first.usage == second.usage

    process_a = cli_answer(GREEDY_PROMPT, tmp_path / "cache-a")
    process_b = cli_answer(GREEDY_PROMPT, tmp_path / "cache-b")
    assert process_a["text"] == process_b["text"] == first.text
    assert process_a["cached"] is False and process_b["cached"] is False
    assert process_a["usage"] == first.usage.model_dump()


async def test_seed_reproduces_a_sample_and_different_seeds_differ(local_model):
    """At temperature 1 a seed reproduces its sample exactly; different seeds give different samples."""
    by_seed = {seed: (await local_model.generate(sample(seed=seed))).text for seed in (1, 2, 3)}
    again = await local_model.generate(sample(seed=1))

    assert again.text == by_seed[1]
    assert len(set(by_seed.values())) > 1, by_seed


async def test_sample_index_without_seed_gives_distinct_reproducible_samples(local_model):
    """Without a seed each sample index gets its own derived seed: different samples, each reproducible."""
    samples = [(await local_model.generate(sample(sample_index=index))).text for index in range(3)]
    again = await local_model.generate(sample(sample_index=0))

    assert len(set(samples)) > 1, samples
    assert again.text == samples[0]


async def test_json_schema_answer_validates(local_model):
    """A request with a JSON schema gets an answer that validates against it."""
    request = Request.from_prompt(
        "local",
        "Is Marbury v. Madison a real case, and in what year was it decided? Reply in JSON.",
        max_tokens=32,
        schema=CASE_SCHEMA,
    )
    response = await local_model.generate(request)

    assert response.finish_reason == "stop", response.text
    jsonschema.validate(response.parsed_json(), CASE_SCHEMA)


async def test_tool_call_is_structured_and_validates(local_model):
    """A prompt that needs the tool gets a structured ToolCall whose arguments fit the tool's schema."""
    request = Request.from_prompt("local", "Call get_weather for Paris.", max_tokens=32, tools=(WEATHER_TOOL,))
    response = await local_model.generate(request)

    assert response.finish_reason == "tool_calls"
    assert len(response.tool_calls) == 1
    call = response.tool_calls[0]
    assert call.name == "get_weather"
    assert call.raw_arguments is None
    assert call.arguments == {"city": "Paris"}
    jsonschema.validate(call.arguments, WEATHER_TOOL.parameters)
    assert call.id.startswith("call_")
    assert response.usage.input_tokens > 0 and response.usage.output_tokens > 0
    assert response.cost_usd == 0.0


async def test_engine_runs_the_embedded_model_and_caches_it(tmp_path):
    """Through the engine: answers are stored with usage and zero cost, and a second run is served from cache."""
    requests = [
        greedy(id="plain"),
        Request.from_prompt(
            "local",
            "Is Brown v. Board of Education a real case? Reply in JSON.",
            max_tokens=32,
            schema=CASE_SCHEMA,
            id="schema",
        ),
        Request.from_prompt("local", "Call get_weather for Rome.", max_tokens=32, tools=(WEATHER_TOOL,), id="tool"),
    ]
    cache = ResponseCache(tmp_path / "cache")
    store = RunStore.open(tmp_path / "run")
    engine = Engine(store, cache, EngineConfig(progress=False))
    try:
        summary = await engine.run(requests)
    finally:
        await engine.aclose()

    assert (summary.sent, summary.failed) == (3, 0), summary.errors
    assert summary.cost_usd == 0.0
    assert summary.usage.input_tokens > 0 and summary.usage.output_tokens > 0
    stored = store.responses()
    assert stored["plain"].text.strip()
    jsonschema.validate(stored["schema"].parsed_json(), CASE_SCHEMA)
    assert [call.name for call in stored["tool"].tool_calls] == ["get_weather"]
    jsonschema.validate(stored["tool"].tool_calls[0].arguments, WEATHER_TOOL.parameters)

    second_store = RunStore.open(tmp_path / "run-again")
    engine = Engine(second_store, cache, EngineConfig(progress=False))
    try:
        again = await engine.run(requests)
    finally:
        await engine.aclose()
    assert (again.cache_hits, again.sent) == (3, 0)
    replayed = second_store.responses()
    assert all(response.cached and response.cost_usd == 0.0 for response in replayed.values())
    assert {rid: r.text for rid, r in replayed.items()} == {rid: r.text for rid, r in stored.items()}
    assert replayed["tool"].tool_calls == stored["tool"].tool_calls


def test_grammar_safe_schema_drops_only_large_bounds():
    from lexprobe.models.local import GRAMMAR_BOUND_LIMIT, grammar_safe_schema

    schema = {"type": "object", "properties": {
        "a": {"type": "string", "maxLength": 5000, "minLength": 1},
        "b": {"type": "array", "items": {"type": "string", "maxLength": 10}, "maxItems": 1000},
        "c": {"anyOf": [{"type": "string", "maxLength": GRAMMAR_BOUND_LIMIT + 1}]},
    }}  # fmt: skip
    safe = grammar_safe_schema(schema)
    assert safe["properties"]["a"] == {"type": "string", "minLength": 1}
    assert safe["properties"]["b"] == {"type": "array", "items": {"type": "string", "maxLength": 10}}
    assert safe["properties"]["c"] == {"anyOf": [{"type": "string"}]}
    assert schema["properties"]["a"]["maxLength"] == 5000  # the caller's schema is untouched


async def test_large_schema_bounds_do_not_abort_llama_cpp(local_model):
    """llama.cpp aborts the process on grammars unrolled from huge bounds; the backend drops such bounds."""
    properties = {
        "name": {"type": "string", "maxLength": 5000},
        "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 3000},
    }
    schema = {"type": "object", "properties": properties, "required": ["name"]}
    request = Request.from_prompt("local", "A JSON object with a name.", max_tokens=24, schema=schema)
    response = await local_model.generate(request)
    assert response.text.lstrip().startswith("{")  # grammar-constrained (possibly cut at max_tokens), no abort
