"""OpenAI and Anthropic backends, end to end through the official SDKs with a mocked HTTP transport.

The hosted services cannot be reached from tests. Instead each model gets an HTTP client whose transport is
an in-process handler: it records the request the SDK really sends and answers with a body built from the
SDK's own pydantic response types. So these tests cover our request building, the SDK's serialization, its
response parsing and its error mapping, and our normalization of all of it, without touching the network.

The `openai` client accepts an `httpx.AsyncClient`; the `anthropic` client is built on `httpx2` and rejects
`httpx` objects, so its tests use `httpx2.AsyncClient` (a dependency of both SDKs).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from types import ModuleType
from typing import Any

import httpx
import httpx2
import pytest
from anthropic.types import Message as AnthropicMessage
from anthropic.types import TextBlock, ToolUseBlock
from anthropic.types import Usage as AnthropicUsage
from openai.types.chat import ChatCompletion, ChatCompletionMessage, ChatCompletionMessageFunctionToolCall
from openai.types.chat.chat_completion import Choice
from openai.types.chat.chat_completion_message_function_tool_call import Function
from openai.types.completion_usage import CompletionUsage, PromptTokensDetails

from lexprobe.models.anthropic_messages import AnthropicModel
from lexprobe.models.errors import ModelError, TransientModelError
from lexprobe.models.openai_chat import OpenAIModel
from lexprobe.models.pricing import PRICES
from lexprobe.models.spec import parse_model_spec
from lexprobe.models.types import Message, Request, ToolCall, ToolSpec, Usage

SEARCH = ToolSpec(
    name="search",
    description="Search the case file.",
    parameters={"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]},
)
VERDICT_SCHEMA = {
    "type": "object",
    "properties": {"verdict": {"type": "string"}},
    "required": ["verdict"],
}
#: A conversation that has already made one tool call and received its result.
TOOL_CONVERSATION = (
    Message(role="system", content="You are a careful paralegal."),
    Message(role="user", content="Find the contract."),
    Message(role="assistant", tool_calls=(ToolCall(id="call_a", name="search", arguments={"q": "contract"}),)),
    Message(role="tool", tool_call_id="call_a", name="search", content="exhibit 4"),
)


@pytest.fixture(autouse=True)
def _api_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fake keys, and no ambient settings that would redirect the clients."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-openai")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test-anthropic")
    for var in ("OPENAI_BASE_URL", "OPENAI_ORG_ID", "OPENAI_PROJECT_ID", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)


class FakeServer:
    """A transport handler that records every request and answers with a fixed reply (or raises)."""

    def __init__(self, lib: ModuleType, reply: Callable[[Any], Any]) -> None:
        self.lib = lib
        self.reply = reply
        self.requests: list[Any] = []

    def __call__(self, request: Any) -> Any:
        self.requests.append(request)
        return self.reply(request)

    @property
    def body(self) -> dict[str, Any]:
        """The JSON body of the only request sent."""
        assert len(self.requests) == 1, f"expected exactly one request, got {len(self.requests)}"
        return json.loads(self.requests[0].content)

    def client(self) -> Any:
        return self.lib.AsyncClient(transport=self.lib.MockTransport(self))


def json_reply(lib: ModuleType, payload: dict[str, Any], status: int = 200, **headers: str):
    return lambda request: lib.Response(status, json=payload, headers=headers)


@pytest.fixture
async def open_backend():
    """Return `open(spec, reply) -> (model, server)`; every model opened is closed after the test."""
    models: list[Any] = []

    def _open(spec: str, reply: Callable[[ModuleType], Callable[[Any], Any]] | dict[str, Any]):
        parsed = parse_model_spec(spec)
        lib = httpx2 if parsed.backend == "anthropic" else httpx
        server = FakeServer(lib, json_reply(lib, reply) if isinstance(reply, dict) else reply(lib))
        cls = AnthropicModel if parsed.backend == "anthropic" else OpenAIModel
        model = cls(parsed, http_client=server.client())
        models.append(model)
        return model, server

    yield _open
    for model in models:
        await model.aclose()


# --------------------------------------------------------------------------------------------------- OpenAI


def chat_completion(
    *,
    content: str | None = None,
    tool_calls: list[tuple[str, str, str]] = (),
    finish_reason: str = "stop",
    prompt_tokens: int = 20,
    completion_tokens: int = 5,
    cached_tokens: int | None = None,
    model: str = "gpt-4o-mini-2024-07-18",
) -> dict[str, Any]:
    """A Chat Completions response body; `tool_calls` are (id, name, JSON arguments text)."""
    calls = [
        ChatCompletionMessageFunctionToolCall(
            id=call_id, type="function", function=Function(name=name, arguments=arguments)
        )
        for call_id, name, arguments in tool_calls
    ]
    details = PromptTokensDetails(cached_tokens=cached_tokens) if cached_tokens is not None else None
    return ChatCompletion(
        id="chatcmpl-test",
        object="chat.completion",
        created=1_700_000_000,
        model=model,
        choices=[
            Choice(
                index=0,
                finish_reason=finish_reason,
                message=ChatCompletionMessage(role="assistant", content=content, tool_calls=calls or None),
            )
        ],
        usage=CompletionUsage(
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            total_tokens=prompt_tokens + completion_tokens,
            prompt_tokens_details=details,
        ),
    ).model_dump(mode="json")


async def test_openai_plain_text_answer(open_backend):
    """A plain answer comes back as text with finish 'stop', the reported model and a latency."""
    model, server = open_backend("openai/gpt-4o-mini", chat_completion(content="Yes, it is binding."))
    response = await model.generate(Request.from_prompt("openai/gpt-4o-mini", "Is it binding?"))

    assert response.text == "Yes, it is binding."
    assert response.tool_calls == ()
    assert response.finish_reason == "stop"
    assert response.model == "gpt-4o-mini-2024-07-18"
    assert response.latency_s >= 0
    request = server.requests[0]
    assert str(request.url) == "https://api.openai.com/v1/chat/completions"
    assert request.headers["authorization"] == "Bearer sk-test-openai"
    assert server.body["messages"] == [{"role": "user", "content": "Is it binding?"}]


async def test_openai_request_body_carries_every_parameter(open_backend):
    """Messages (tool calls and results), tools, schema, seed, stop and temperature all reach the wire."""
    model, server = open_backend("openai/gpt-4o", chat_completion(content='{"verdict": "liable"}'))
    request = Request(
        model="openai/gpt-4o",
        messages=TOOL_CONVERSATION,
        temperature=0.7,
        seed=42,
        max_tokens=300,
        stop=("END", "STOP"),
        tools=(SEARCH,),
        schema=VERDICT_SCHEMA,
    )
    await model.generate(request)
    body = server.body

    assert body["model"] == "gpt-4o"
    assert body["temperature"] == 0.7
    assert body["seed"] == 42
    assert body["stop"] == ["END", "STOP"]
    assert body["max_completion_tokens"] == 300
    assert "max_tokens" not in body
    assert body["tool_choice"] == "auto"  # explicit, since some compatible servers ignore tools otherwise
    system, user, assistant, tool = body["messages"]
    assert system == {"role": "system", "content": "You are a careful paralegal."}
    assert user == {"role": "user", "content": "Find the contract."}
    assert assistant["role"] == "assistant"
    assert assistant["content"] is None
    [wire_call] = assistant["tool_calls"]
    assert wire_call["id"] == "call_a"
    assert wire_call["type"] == "function"
    assert wire_call["function"]["name"] == "search"
    assert json.loads(wire_call["function"]["arguments"]) == {"q": "contract"}
    assert tool == {"role": "tool", "tool_call_id": "call_a", "content": "exhibit 4"}
    assert body["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "search",
                "description": "Search the case file.",
                "parameters": SEARCH.parameters,
            },
        }
    ]
    assert body["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "answer", "schema": VERDICT_SCHEMA},
    }


#: Requests of every shape the backend builds: plain, tool conversation with tools and schema, json_object schema
#: (the compatible-server fallback), a reasoning model (no temperature, max_completion_tokens), a compatible server.
SHAPES = [
    ("openai/gpt-4o", Request.from_prompt("openai/gpt-4o", "Is Miranda v. Arizona binding?"), "json_schema"),
    ("openai/gpt-4o", Request(model="openai/gpt-4o", messages=TOOL_CONVERSATION, temperature=0.7, seed=42,
                              max_tokens=300, stop=("END", "STOP"), tools=(SEARCH,), schema=VERDICT_SCHEMA),
     "json_schema"),
    ("openai-compatible/smol@http://127.0.0.1:9/v1",
     Request(model="smol", messages=TOOL_CONVERSATION, schema=VERDICT_SCHEMA, max_tokens=20), "json_object"),
    ("openai/o3", Request(model="openai/o3", messages=TOOL_CONVERSATION[:2], temperature=0.0, max_tokens=50),
     "json_schema"),
    ("openai-compatible/smol@http://127.0.0.1:9/v1",
     Request(model="smol", messages=TOOL_CONVERSATION[:2], temperature=0.0, max_tokens=12, seed=0, stop=("\n",)),
     "json_schema"),
]  # fmt: skip


@pytest.mark.parametrize(("spec", "request_", "style"), SHAPES)
async def test_openai_sends_exactly_what_the_sdk_create_sends(open_backend, spec, request_, style):
    """The backend posts its params without the SDK's TypedDict walk (`OpenAIModel._create`): the walk leaves them
    unchanged, and the request on the wire (method, URL, headers, JSON body) and the parsed answer are the ones of
    `chat.completions.create`."""
    from openai._utils import async_maybe_transform
    from openai.types.chat.completion_create_params import CompletionCreateParamsNonStreaming

    from lexprobe.models.openai_chat import build_openai_params

    model, server = open_backend(spec, lambda lib: json_reply(lib, chat_completion(content="ok")))
    params = build_openai_params(request_, model.spec.name, hosted=model.hosted, schema_style=style)
    assert await async_maybe_transform(params, CompletionCreateParamsNonStreaming) == params
    ours = await model._create(request_, style)
    reference = await model.client.chat.completions.create(**params)
    assert ours == reference
    sent, expected = server.requests
    assert (sent.method, str(sent.url)) == (expected.method, str(expected.url))
    assert json.loads(sent.content) == json.loads(expected.content)  # the same JSON (`create` orders keys its own way)
    differing = {
        name for name in {*sent.headers, *expected.headers} if sent.headers.get(name) != expected.headers.get(name)
    }
    assert differing <= {"x-stainless-retry-count", "x-stainless-read-timeout"}, differing
    assert sent.headers["authorization"] == expected.headers["authorization"]


async def test_openai_optional_parameters_are_omitted(open_backend):
    """No seed, stop, tools or schema in the request means none in the body."""
    model, server = open_backend("openai/gpt-4o", chat_completion(content="ok"))
    await model.generate(Request.from_prompt("openai/gpt-4o", "hi"))

    assert server.body.keys() == {"model", "messages", "temperature", "max_completion_tokens"}
    assert server.body["temperature"] == 0.0


async def test_openai_compatible_server_gets_max_tokens_at_its_base_url(open_backend, monkeypatch):
    """OpenAI-compatible servers get `max_tokens` at their own URL, with a placeholder key if none is set."""
    monkeypatch.delenv("OPENAI_API_KEY")
    spec = "openai-compatible/qwen2.5-7b@http://127.0.0.1:8000/v1"
    model, server = open_backend(spec, chat_completion(content="ok", model="qwen2.5-7b"))
    response = await model.generate(Request.from_prompt(spec, "hi", max_tokens=64))

    request = server.requests[0]
    assert str(request.url) == "http://127.0.0.1:8000/v1/chat/completions"
    assert request.headers["authorization"] == "Bearer not-needed"
    assert server.body["model"] == "qwen2.5-7b"
    assert server.body["max_tokens"] == 64
    assert "max_completion_tokens" not in server.body
    assert response.cost_usd is None  # a self-hosted server has no list price


async def test_openai_base_url_env_redirects_hosted_backend(open_backend, monkeypatch):
    """OPENAI_BASE_URL (a proxy or gateway) is honoured by the hosted backend."""
    monkeypatch.setenv("OPENAI_BASE_URL", "http://gateway.test/openai/v1")
    model, server = open_backend("openai/gpt-4o", chat_completion(content="ok"))
    await model.generate(Request.from_prompt("openai/gpt-4o", "hi"))

    assert str(server.requests[0].url) == "http://gateway.test/openai/v1/chat/completions"


async def test_openai_tool_call_is_returned_structurally(open_backend):
    """A tool call comes back as a `ToolCall` with its id, name and parsed arguments."""
    reply = chat_completion(tool_calls=[("call_9", "search", '{"q": "lease", "limit": 3}')], finish_reason="tool_calls")
    model, _ = open_backend("openai/gpt-4o", reply)
    response = await model.generate(Request.from_prompt("openai/gpt-4o", "look", tools=(SEARCH,)))

    assert response.finish_reason == "tool_calls"
    assert response.text == ""
    assert response.tool_calls == (ToolCall(id="call_9", name="search", arguments={"q": "lease", "limit": 3}),)


@pytest.mark.parametrize("arguments", ['{"q": "lease"', "not json", '["a", "b"]', '"just a string"'])
async def test_openai_malformed_tool_arguments_are_kept_raw(open_backend, arguments):
    """Non-object arguments leave `arguments` empty; the model's text is kept in `raw_arguments`."""
    reply = chat_completion(tool_calls=[("call_1", "search", arguments)], finish_reason="tool_calls")
    model, _ = open_backend("openai/gpt-4o", reply)
    response = await model.generate(Request.from_prompt("openai/gpt-4o", "look", tools=(SEARCH,)))

    [call] = response.tool_calls
    assert call.name == "search"
    assert call.arguments == {}
    assert call.raw_arguments == arguments


async def test_openai_cached_prompt_tokens_move_to_cache_read_and_are_priced(open_backend):
    """Cached prompt tokens are subtracted from input, counted as cache reads, and priced from the table."""
    reply = chat_completion(content="ok", prompt_tokens=1000, completion_tokens=200, cached_tokens=400)
    model, _ = open_backend("openai/gpt-4o-mini", reply)
    response = await model.generate(Request.from_prompt("openai/gpt-4o-mini", "hi"))

    assert response.usage == Usage(input_tokens=600, output_tokens=200, cache_read_tokens=400)
    price = PRICES[("openai", "gpt-4o-mini")]
    expected = (600 * price.input + 200 * price.output + 400 * price.cache_read) / 1_000_000
    assert response.cost_usd == pytest.approx(expected)
    assert response.cost_usd == pytest.approx(0.00024)


async def test_openai_usage_without_cache_details(open_backend):
    """Without prompt-token details, every prompt token is uncached input."""
    model, _ = open_backend("openai/gpt-4o-mini", chat_completion(content="ok", prompt_tokens=30))
    response = await model.generate(Request.from_prompt("openai/gpt-4o-mini", "hi"))

    assert response.usage == Usage(input_tokens=30, output_tokens=5)


async def test_openai_unknown_model_has_no_cost(open_backend):
    """A model missing from the price table has cost None, not zero."""
    model, _ = open_backend("openai/ft:my-legal-model", chat_completion(content="ok", model="ft:my-legal-model"))
    response = await model.generate(Request.from_prompt("openai/ft:my-legal-model", "hi"))

    assert response.usage.input_tokens == 20
    assert response.cost_usd is None


@pytest.mark.parametrize(
    ("finish_reason", "expected"),
    [("stop", "stop"), ("length", "length"), ("content_filter", "content_filter")],
)
async def test_openai_finish_reasons(open_backend, finish_reason, expected):
    """Provider finish reasons map onto lexprobe's."""
    model, _ = open_backend("openai/gpt-4o", chat_completion(content="x", finish_reason=finish_reason))
    response = await model.generate(Request.from_prompt("openai/gpt-4o", "hi"))

    assert response.finish_reason == expected


async def test_openai_completion_without_choices_is_a_model_error(open_backend):
    """A completion with no choices is a final error, not a crash."""
    reply = chat_completion(content="x")
    reply["choices"] = []
    model, _ = open_backend("openai/gpt-4o", reply)

    with pytest.raises(ModelError, match="no choices") as caught:
        await model.generate(Request.from_prompt("openai/gpt-4o", "hi"))
    assert not isinstance(caught.value, TransientModelError)


COMPATIBLE = "openai-compatible/qwen2.5-7b@http://127.0.0.1:8000/v1"


def rejects_json_schema(lib: ModuleType, hosted_reply: dict[str, Any] | None = None):
    """A server that refuses `response_format: json_schema` with a 400 but accepts `json_object`."""

    def handler(request: Any) -> Any:
        if json.loads(request.content).get("response_format", {}).get("type") == "json_schema":
            error = {"error": {"message": "response_format type 'json_schema' is not supported", "code": 400}}
            return lib.Response(400, json=error)
        return lib.Response(200, json=chat_completion(content='{"verdict": "liable"}', model="qwen2.5-7b"))

    return handler


async def test_openai_compatible_falls_back_to_json_object_schema(open_backend):
    """A compatible server that rejects json_schema gets the schema as json_object, then for good."""
    model, server = open_backend(COMPATIBLE, rejects_json_schema)
    request = Request.from_prompt(COMPATIBLE, "Decide.", schema=VERDICT_SCHEMA)

    response = await model.generate(request)
    assert response.parsed_json() == {"verdict": "liable"}
    formats = [json.loads(r.content)["response_format"] for r in server.requests]
    assert formats == [
        {"type": "json_schema", "json_schema": {"name": "answer", "schema": VERDICT_SCHEMA}},
        {"type": "json_object", "schema": VERDICT_SCHEMA},
    ]

    await model.generate(request)  # the next request goes straight to json_object
    assert len(server.requests) == 3
    assert json.loads(server.requests[2].content)["response_format"]["type"] == "json_object"


async def test_openai_compatible_fallback_under_concurrency(open_backend):
    """Requests already sent with json_schema when the first rejection arrives fall back too."""

    def factory(lib: ModuleType):
        plain = rejects_json_schema(lib)
        held: list[Any] = []

        async def handler(request: Any) -> Any:
            # Hold the first three json_schema requests until all three have been sent.
            if json.loads(request.content)["response_format"]["type"] == "json_schema" and len(held) < 3:
                held.append(request)
                while len(held) < 3:
                    await asyncio.sleep(0)
            return plain(request)

        return handler

    model, server = open_backend(COMPATIBLE, factory)
    request = Request.from_prompt(COMPATIBLE, "Decide.", schema=VERDICT_SCHEMA)

    responses = await asyncio.gather(*(model.generate(request) for _ in range(3)))
    assert [r.parsed_json() for r in responses] == [{"verdict": "liable"}] * 3
    assert len(server.requests) == 6


async def test_hosted_openai_does_not_fall_back(open_backend):
    """The hosted API supports json_schema, so a rejection there is a final error, sent once."""
    model, server = open_backend("openai/gpt-4o", rejects_json_schema)

    with pytest.raises(ModelError, match="HTTP 400") as caught:
        await model.generate(Request.from_prompt("openai/gpt-4o", "Decide.", schema=VERDICT_SCHEMA))
    assert not isinstance(caught.value, TransientModelError)
    assert len(server.requests) == 1


async def test_openai_compatible_unrelated_400_does_not_fall_back(open_backend):
    """A 400 that is not about json_schema is a final error, sent once."""
    body = {"error": {"message": "context length exceeded", "code": 400}}
    model, server = open_backend(COMPATIBLE, lambda lib: json_reply(lib, body, 400))

    with pytest.raises(ModelError, match="context length"):
        await model.generate(Request.from_prompt(COMPATIBLE, "Decide.", schema=VERDICT_SCHEMA))
    assert len(server.requests) == 1


# ------------------------------------------------------------------------------------------------ Anthropic


def anthropic_message(
    content: list[Any],
    *,
    stop_reason: str = "end_turn",
    input_tokens: int = 20,
    output_tokens: int = 5,
    cache_read: int | None = None,
    cache_write: int | None = None,
    model: str = "claude-3-5-haiku-20241022",
) -> dict[str, Any]:
    """A Messages API response body."""
    return AnthropicMessage(
        id="msg_test",
        type="message",
        role="assistant",
        model=model,
        content=content,
        stop_reason=stop_reason,
        stop_sequence=None,
        usage=AnthropicUsage(
            input_tokens=input_tokens,
            output_tokens=output_tokens,
            cache_read_input_tokens=cache_read,
            cache_creation_input_tokens=cache_write,
        ),
    ).model_dump(mode="json")


HAIKU = "anthropic/claude-3-5-haiku-latest"


async def test_anthropic_plain_text_answer(open_backend):
    """Text blocks are joined into the answer; the request goes to the Messages endpoint with the key."""
    reply = anthropic_message([TextBlock(type="text", text="Yes, "), TextBlock(type="text", text="it is binding.")])
    model, server = open_backend(HAIKU, reply)
    response = await model.generate(Request.from_prompt(HAIKU, "Is it binding?"))

    assert response.text == "Yes, it is binding."
    assert response.tool_calls == ()
    assert response.finish_reason == "stop"
    assert response.model == "claude-3-5-haiku-20241022"
    request = server.requests[0]
    assert str(request.url) == "https://api.anthropic.com/v1/messages"
    assert request.headers["authorization"] == "Bearer sk-test-anthropic"  # this SDK sends the key as a bearer
    assert server.body["messages"] == [{"role": "user", "content": "Is it binding?"}]


async def test_anthropic_request_body_carries_every_parameter(open_backend):
    """System prompt, tool_use / tool_result blocks, tools, stop sequences, max_tokens and temperature."""
    model, server = open_backend(HAIKU, anthropic_message([TextBlock(type="text", text="done")]))
    messages = (
        Message(role="system", content="Be careful."),
        Message(role="system", content="Cite exhibits."),
        Message(role="user", content="Find the contract and the invoice."),
        Message(
            role="assistant",
            content="Searching both.",
            tool_calls=(
                ToolCall(id="toolu_1", name="search", arguments={"q": "contract"}),
                ToolCall(id="toolu_2", name="search", arguments={"q": "invoice"}),
            ),
        ),
        Message(role="tool", tool_call_id="toolu_1", name="search", content="exhibit 4"),
        Message(role="tool", tool_call_id="toolu_2", name="search", content="exhibit 7"),
    )
    request = Request(
        model=HAIKU,
        messages=messages,
        temperature=0.3,
        seed=7,
        max_tokens=500,
        stop=("END",),
        tools=(SEARCH,),
    )
    await model.generate(request)
    body = server.body

    assert body["model"] == "claude-3-5-haiku-latest"
    assert body["max_tokens"] == 500
    assert body["temperature"] == 0.3
    assert body["stop_sequences"] == ["END"]
    assert "seed" not in body  # Anthropic has no sampling seed
    assert "tool_choice" not in body
    assert body["system"] == "Be careful.\n\nCite exhibits."
    assert body["messages"] == [
        {"role": "user", "content": "Find the contract and the invoice."},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Searching both."},
                {"type": "tool_use", "id": "toolu_1", "name": "search", "input": {"q": "contract"}},
                {"type": "tool_use", "id": "toolu_2", "name": "search", "input": {"q": "invoice"}},
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": "exhibit 4"},
                {"type": "tool_result", "tool_use_id": "toolu_2", "content": "exhibit 7"},
            ],
        },
    ]
    assert body["tools"] == [
        {"name": "search", "description": "Search the case file.", "input_schema": SEARCH.parameters}
    ]


async def test_anthropic_optional_parameters_are_omitted(open_backend):
    """No system prompt, stop sequences or tools in the request means none in the body."""
    model, server = open_backend(HAIKU, anthropic_message([TextBlock(type="text", text="ok")]))
    await model.generate(Request.from_prompt(HAIKU, "hi"))

    assert server.body.keys() == {"model", "messages", "max_tokens", "temperature"}


async def test_anthropic_tool_call_is_returned_structurally(open_backend):
    """A tool_use block comes back as a `ToolCall`; any text beside it stays the answer text."""
    reply = anthropic_message(
        [
            TextBlock(type="text", text="Let me look."),
            ToolUseBlock(type="tool_use", id="toolu_9", name="search", input={"q": "lease"}),
        ],
        stop_reason="tool_use",
    )
    model, _ = open_backend(HAIKU, reply)
    response = await model.generate(Request.from_prompt(HAIKU, "look", tools=(SEARCH,)))

    assert response.finish_reason == "tool_calls"
    assert response.text == "Let me look."
    assert response.tool_calls == (ToolCall(id="toolu_9", name="search", arguments={"q": "lease"}),)


async def test_anthropic_structured_output_uses_forced_answer_tool(open_backend):
    """A schema becomes a forced `answer` tool whose input comes back as JSON answer text, not a tool call."""
    reply = anthropic_message(
        [ToolUseBlock(type="tool_use", id="toolu_a", name="answer", input={"verdict": "liable"})],
        stop_reason="tool_use",
    )
    model, server = open_backend(HAIKU, reply)
    response = await model.generate(Request.from_prompt(HAIKU, "Decide.", schema=VERDICT_SCHEMA))

    assert server.body["tools"] == [
        {"name": "answer", "description": "Give the final answer.", "input_schema": VERDICT_SCHEMA}
    ]
    assert server.body["tool_choice"] == {"type": "tool", "name": "answer"}
    assert response.tool_calls == ()
    assert response.finish_reason == "stop"
    assert response.parsed_json() == {"verdict": "liable"}


async def test_anthropic_answer_tool_is_an_ordinary_tool_without_schema(open_backend):
    """Without a schema, a tool that happens to be named `answer` is returned as a tool call."""
    reply = anthropic_message(
        [ToolUseBlock(type="tool_use", id="toolu_b", name="answer", input={"x": 1})], stop_reason="tool_use"
    )
    model, _ = open_backend(HAIKU, reply)
    response = await model.generate(Request.from_prompt(HAIKU, "go", tools=(ToolSpec(name="answer"),)))

    assert response.text == ""
    assert response.tool_calls == (ToolCall(id="toolu_b", name="answer", arguments={"x": 1}),)


async def test_anthropic_usage_maps_cache_read_and_write_and_is_priced(open_backend):
    """Cache reads and cache creation tokens are reported separately and priced at their own rates."""
    reply = anthropic_message(
        [TextBlock(type="text", text="ok")],
        input_tokens=1000,
        output_tokens=200,
        cache_read=3000,
        cache_write=500,
    )
    model, _ = open_backend(HAIKU, reply)
    response = await model.generate(Request.from_prompt(HAIKU, "hi"))

    assert response.usage == Usage(input_tokens=1000, output_tokens=200, cache_read_tokens=3000, cache_write_tokens=500)
    price = PRICES[("anthropic", "claude-3-5-haiku")]
    expected = (1000 * price.input + 200 * price.output + 3000 * price.cache_read + 500 * price.cache_write) / 1e6
    assert response.cost_usd == pytest.approx(expected)
    assert response.cost_usd == pytest.approx(0.00234)


async def test_anthropic_missing_cache_fields_count_as_zero(open_backend):
    """A usage block without cache fields maps to zero cache tokens."""
    model, _ = open_backend(HAIKU, anthropic_message([TextBlock(type="text", text="ok")]))
    response = await model.generate(Request.from_prompt(HAIKU, "hi"))

    assert response.usage == Usage(input_tokens=20, output_tokens=5)


async def test_anthropic_unknown_model_has_no_cost(open_backend):
    """A model missing from the price table has cost None."""
    reply = anthropic_message([TextBlock(type="text", text="ok")], model="claude-imaginary-9")
    model, _ = open_backend("anthropic/claude-imaginary-9", reply)
    response = await model.generate(Request.from_prompt("anthropic/claude-imaginary-9", "hi"))

    assert response.cost_usd is None


@pytest.mark.parametrize(
    ("stop_reason", "expected"),
    [
        ("end_turn", "stop"),
        ("stop_sequence", "stop"),
        ("max_tokens", "length"),
        ("refusal", "content_filter"),
    ],
)
async def test_anthropic_finish_reasons(open_backend, stop_reason, expected):
    """Anthropic stop reasons map onto lexprobe's finish reasons."""
    reply = anthropic_message([TextBlock(type="text", text="x")], stop_reason=stop_reason)
    model, _ = open_backend(HAIKU, reply)
    response = await model.generate(Request.from_prompt(HAIKU, "hi"))

    assert response.finish_reason == expected


# ------------------------------------------------------------------------------------------ error handling

OPENAI_ERROR_BODY = {"error": {"message": "simulated failure", "type": "server_error", "code": None}}
ANTHROPIC_ERROR_BODY = {"type": "error", "error": {"type": "api_error", "message": "simulated failure"}}

#: (HTTP status, headers, retried by the engine?, retry_after_s)
STATUS_CASES = [
    (429, {"retry-after": "7"}, True, 7.0),
    (500, {}, True, None),
    (503, {"retry-after": "1.5"}, True, 1.5),
    (529, {}, True, None),
    (400, {}, False, None),
    (401, {}, False, None),
    (404, {}, False, None),
]


@pytest.mark.parametrize(("spec", "body"), [("openai/gpt-4o", OPENAI_ERROR_BODY), (HAIKU, ANTHROPIC_ERROR_BODY)])
@pytest.mark.parametrize(("status", "headers", "transient", "retry_after"), STATUS_CASES)
async def test_http_errors_are_classified(open_backend, spec, body, status, headers, transient, retry_after):
    """429 and 5xx are transient (with Retry-After); other 4xx are final. The SDK itself never retries."""
    model, server = open_backend(spec, lambda lib: json_reply(lib, body, status, **headers))

    with pytest.raises(ModelError) as caught:
        await model.generate(Request.from_prompt(spec, "hi"))

    error = caught.value
    assert isinstance(error, TransientModelError) is transient
    assert f"HTTP {status}" in str(error)
    if transient:
        assert error.retry_after_s == retry_after
    assert len(server.requests) == 1  # retries belong to the engine, not the client


def raise_transport_error(name: str):
    """A reply factory whose handler raises `lib.<name>` as a real transport would."""

    def factory(lib: ModuleType):
        def handler(request: Any) -> Any:
            raise getattr(lib, name)("simulated", request=request)

        return handler

    return factory


@pytest.mark.parametrize("spec", ["openai/gpt-4o", HAIKU])
@pytest.mark.parametrize("error", ["ConnectError", "ReadTimeout"])
async def test_connection_failures_are_transient(open_backend, spec, error):
    """Refused connections and timeouts are worth retrying."""
    model, server = open_backend(spec, raise_transport_error(error))

    with pytest.raises(TransientModelError):
        await model.generate(Request.from_prompt(spec, "hi"))
    assert len(server.requests) == 1
