"""Anthropic Messages backend through the official `anthropic` client.

An answer that is not a Messages answer (HTTP 200 with another body) is a transient `MalformedAnswerError`
(`answer_shape.py`), retried like a 5xx.

Structured output uses tool use: the schema becomes the input schema of a single forced `answer` tool, and the
tool's input is returned as the answer text (JSON). Anthropic has no sampling seed; a request's seed is ignored.

Sampling settings: a temperature left at None is not sent (the provider's default applies). The API requires a
token cap on every request, so a cap left at None becomes `anthropic_default_max_tokens(model)`: the family's
documented output limit where that is small (Claude 3: 4,096; Claude 3.5: 8,192; Claude Opus 4 / 4.1: 8,192, the
most the SDK allows without streaming), else 16,384 - generous for any reply lexprobe asks for, and below the
non-streaming limit of the SDK (about 21,000 tokens).
"""

from __future__ import annotations

import json
import time
from typing import Any

import anthropic
from anthropic.types import Message as AnthropicMessage

from lexprobe.models.answer_shape import anthropic_message, decode_json
from lexprobe.models.base import Model, finished_response
from lexprobe.models.errors import ModelError, classify_sdk_error
from lexprobe.models.spec import ModelSpec
from lexprobe.models.types import FinishReason, Message, Request, Response, ToolCall, Usage

ANSWER_TOOL = "answer"
_FINISH: dict[str, FinishReason] = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
    "tool_use": "tool_calls",
    "refusal": "content_filter",
}
_CONNECTION_ERRORS = (anthropic.APITimeoutError, anthropic.APIConnectionError)
_RETRYABLE_STATUS = frozenset({408, 409, 429, 529})
#: Token caps sent when a request sets none, by model-name prefix (first match wins); see the module docstring.
DEFAULT_MAX_TOKENS: tuple[tuple[str, int], ...] = (
    ("claude-3-5", 8_192),
    ("claude-3-7", 16_384),
    ("claude-3", 4_096),
    ("claude-opus-4-0", 8_192),
    ("claude-opus-4-1", 8_192),
    ("claude-opus-4-2025", 8_192),
    ("claude-4-opus", 8_192),
)
FALLBACK_MAX_TOKENS = 16_384


def anthropic_default_max_tokens(model_name: str) -> int:
    """Return the token cap sent to `model_name` when a request sets none (the API requires one)."""
    name = model_name.lower()
    return next((cap for prefix, cap in DEFAULT_MAX_TOKENS if name.startswith(prefix)), FALLBACK_MAX_TOKENS)


def to_anthropic_messages(messages: tuple[Message, ...]) -> tuple[str | None, list[dict[str, Any]]]:
    """Return (system prompt, messages) in the Messages wire format.

    System turns are joined into the system prompt; consecutive tool results become one user turn of
    `tool_result` blocks, as the API requires.
    """
    system_parts = [m.content for m in messages if m.role == "system"]
    wire: list[dict[str, Any]] = []
    for message in messages:
        if message.role == "system":
            continue
        if message.role == "tool":
            block = {"type": "tool_result", "tool_use_id": message.tool_call_id or "", "content": message.content}
            if wire and wire[-1]["role"] == "user" and isinstance(wire[-1]["content"], list):
                wire[-1]["content"].append(block)
            else:
                wire.append({"role": "user", "content": [block]})
            continue
        if message.role == "assistant" and message.tool_calls:
            blocks: list[dict[str, Any]] = []
            if message.content:
                blocks.append({"type": "text", "text": message.content})
            blocks.extend(
                {"type": "tool_use", "id": c.id, "name": c.name, "input": c.arguments} for c in message.tool_calls
            )
            wire.append({"role": "assistant", "content": blocks})
            continue
        wire.append({"role": message.role, "content": message.content})
    return ("\n\n".join(system_parts) or None), wire


def build_anthropic_params(request: Request, model_name: str) -> dict[str, Any]:
    """Return the keyword arguments for `client.messages.create` that express `request`.

    Temperature travels in the request body (`extra_body`), since the client no longer lists it as a parameter;
    it is left out when None. A cap left at None becomes `anthropic_default_max_tokens`.
    """
    system, wire = to_anthropic_messages(request.messages)
    cap = request.max_tokens if request.max_tokens is not None else anthropic_default_max_tokens(model_name)
    params: dict[str, Any] = {"model": model_name, "messages": wire, "max_tokens": cap}
    if system:
        params["system"] = system
    if request.stop:
        params["stop_sequences"] = list(request.stop)
    tools = [{"name": t.name, "description": t.description, "input_schema": t.parameters} for t in request.tools]
    if request.schema_ is not None:
        tools.append({"name": ANSWER_TOOL, "description": "Give the final answer.", "input_schema": request.schema_})
        params["tool_choice"] = {"type": "tool", "name": ANSWER_TOOL}
    if tools:
        params["tools"] = tools
    if request.temperature is not None:
        params["extra_body"] = {"temperature": request.temperature}
    return params


def parse_anthropic_message(
    message: AnthropicMessage, *, structured: bool
) -> tuple[str, tuple[ToolCall, ...], FinishReason, Usage]:
    """Return (text, tool calls, finish reason, usage) from a Messages response.

    With `structured`, the forced `answer` tool's input is the answer text, as JSON.
    """
    texts: list[str] = []
    calls: list[ToolCall] = []
    for block in message.content:
        if block.type == "text":
            texts.append(block.text)
        elif block.type == "tool_use":
            if structured and block.name == ANSWER_TOOL:
                texts = [json.dumps(block.input)]
            else:
                arguments = block.input if isinstance(block.input, dict) else {}
                calls.append(ToolCall(id=block.id, name=block.name, arguments=arguments))
    finish = _FINISH.get(message.stop_reason or "", "unknown")
    if structured and finish == "tool_calls" and not calls:
        finish = "stop"
    usage = Usage(
        input_tokens=message.usage.input_tokens,
        output_tokens=message.usage.output_tokens,
        cache_read_tokens=message.usage.cache_read_input_tokens or 0,
        cache_write_tokens=message.usage.cache_creation_input_tokens or 0,
    )
    return "".join(texts), tuple(calls), finish, usage


def classify_anthropic_error(exc: Exception) -> ModelError:
    """Map an `anthropic` exception onto a retryable or a final lexprobe error."""
    return classify_sdk_error(exc, _CONNECTION_ERRORS, anthropic.APIStatusError, _RETRYABLE_STATUS)


class AnthropicModel(Model):
    """`anthropic/MODEL`."""

    default_concurrency = 8

    def __init__(self, spec: ModelSpec, *, http_client: Any = None) -> None:
        super().__init__(spec)
        self.client = anthropic.AsyncAnthropic(max_retries=0, timeout=None, http_client=http_client)

    async def generate(self, request: Request) -> Response:
        """Send one Messages request and normalize the answer."""
        params = build_anthropic_params(request, self.spec.name)
        started = time.perf_counter()
        try:  # the body as it came, checked before it becomes a `Message` (the SDK builds one from whatever it gets)
            raw = await self.client.messages.with_raw_response.create(**params)
            body = decode_json(await raw.read())
        except anthropic.AnthropicError as exc:
            raise classify_anthropic_error(exc) from exc
        message = anthropic_message(body)
        latency = time.perf_counter() - started
        text, calls, finish, usage = parse_anthropic_message(message, structured=request.schema_ is not None)
        return finished_response(
            self, text=text, calls=calls, finish=finish, usage=usage, latency_s=latency, served_by=message.model
        )

    async def aclose(self) -> None:
        """Close the HTTP client."""
        await self.client.close()
