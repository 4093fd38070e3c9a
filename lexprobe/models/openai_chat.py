"""OpenAI Chat Completions backend, for the OpenAI API and any OpenAI-compatible server (vLLM, Ollama,
`python -m llama_cpp.server`, Together, ...), through the official `openai` client.

The client's own retries are switched off: the engine retries, so every attempt is visible in telemetry. An answer
that is not a chat completion (HTTP 200 with another body) is a transient `MalformedAnswerError`
(`answer_shape.py`): retried like a 5xx, and a replica's fault for the replica router.

Sampling settings: a request's temperature or token cap left at None is not sent (the provider's default applies).
Reasoning models - the o-series (o1, o3, o4-mini, ...) and the GPT-5 family - never get a temperature (they reject
one; a temperature set anyway is dropped with a warning, once per model) and get their cap as
`max_completion_tokens`, which counts hidden reasoning tokens too.
"""

from __future__ import annotations

import json
import logging
import os
import re
import time
from typing import Any

import openai
from openai.types.chat import ChatCompletion

from lexprobe.models.answer_shape import MalformedAnswerError, chat_completion
from lexprobe.models.base import Model, finished_response
from lexprobe.models.errors import ModelError, classify_sdk_error
from lexprobe.models.spec import ModelSpec
from lexprobe.models.types import FinishReason, Message, Request, Response, ToolCall, ToolSpec, Usage

_CONNECTION_ERRORS = (openai.APITimeoutError, openai.APIConnectionError)
_RETRYABLE_STATUS = frozenset({408, 409, 425, 429})
_FINISH: dict[str, FinishReason] = {
    "stop": "stop",
    "length": "length",
    "tool_calls": "tool_calls",
    "function_call": "tool_calls",
    "content_filter": "content_filter",
}
_REASONING = re.compile(r"^(o\d+(?:$|[-.@:])|gpt-5)", re.IGNORECASE)
_WARNED_TEMPERATURE: set[str] = set()
logger = logging.getLogger(__name__)


def is_reasoning_model(model_name: str) -> bool:
    """True for OpenAI reasoning models: the o-series (o1, o1-mini, o3, o4-mini, ...) and the GPT-5 family
    (gpt-5, gpt-5-mini, gpt-5.4-mini, ...). A name with a path (`openai/o3` on a proxy) is judged by its last part."""
    return bool(_REASONING.match(model_name.rsplit("/", 1)[-1]))


def _warn_dropped_temperature(model_name: str, temperature: float) -> None:
    if model_name not in _WARNED_TEMPERATURE:
        _WARNED_TEMPERATURE.add(model_name)
        logger.warning("%s is a reasoning model and takes no temperature: %s is not sent (the provider's default "
                       "applies)", model_name, temperature)  # fmt: skip


def to_openai_message(message: Message) -> dict[str, Any]:
    """Return `message` in the Chat Completions wire format."""
    if message.role == "tool":
        return {"role": "tool", "tool_call_id": message.tool_call_id or "", "content": message.content}
    wire: dict[str, Any] = {"role": message.role, "content": message.content}
    if message.tool_calls:
        wire["content"] = message.content or None
        wire["tool_calls"] = [
            {
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": json.dumps(call.arguments)},
            }
            for call in message.tool_calls
        ]
    return wire


def to_openai_tool(tool: ToolSpec) -> dict[str, Any]:
    """Return `tool` as a Chat Completions function tool."""
    return {
        "type": "function",
        "function": {"name": tool.name, "description": tool.description, "parameters": tool.parameters},
    }


def build_openai_params(
    request: Request, model_name: str, *, hosted: bool, schema_style: str = "json_schema"
) -> dict[str, Any]:
    """Return the keyword arguments for `client.chat.completions.create` that express `request`.

    The hosted API takes `max_completion_tokens` (required by its reasoning models); compatible servers
    mostly only know `max_tokens` (a reasoning model's name gets `max_completion_tokens` there too). A temperature
    or cap left at None is not sent; a reasoning model never gets a temperature (see `is_reasoning_model`).
    `tool_choice` is sent as "auto" explicitly because some servers (llama-cpp-python) ignore the tools otherwise.
    `schema_style` "json_object" sends the schema the way llama-cpp-python's server expects
    (`{"type": "json_object", "schema": ...}`).
    """
    reasoning = is_reasoning_model(model_name)
    params: dict[str, Any] = {"model": model_name, "messages": [to_openai_message(m) for m in request.messages]}
    if request.temperature is not None and reasoning:
        _warn_dropped_temperature(model_name, request.temperature)
    elif request.temperature is not None:
        params["temperature"] = request.temperature
    if request.max_tokens is not None:
        params["max_completion_tokens" if hosted or reasoning else "max_tokens"] = request.max_tokens
    if request.seed is not None:
        params["seed"] = request.seed
    if request.stop:
        params["stop"] = list(request.stop)
    if request.tools:
        params["tools"] = [to_openai_tool(t) for t in request.tools]
        params["tool_choice"] = "auto"
    if request.schema_ is not None and schema_style == "json_object":
        params["response_format"] = {"type": "json_object", "schema": request.schema_}
    elif request.schema_ is not None:
        params["response_format"] = {
            "type": "json_schema",
            "json_schema": {"name": "answer", "schema": request.schema_},
        }
    return params


def tool_call_from_json(call_id: str, name: str, arguments: str | None) -> ToolCall:
    """Build a `ToolCall` from JSON-encoded arguments. When they are not a JSON object, the call keeps empty
    `arguments` and the model's text in `raw_arguments`, so a harness can tell the model what went wrong."""
    text = arguments or "{}"
    try:
        parsed = json.loads(text)
    except json.JSONDecodeError:
        parsed = None
    if not isinstance(parsed, dict):
        return ToolCall(id=call_id, name=name, arguments={}, raw_arguments=text)
    return ToolCall(id=call_id, name=name, arguments=parsed)


def parse_openai_completion(completion: ChatCompletion) -> tuple[str, tuple, FinishReason, Usage]:
    """Return (text, tool calls, finish reason, usage) from a Chat Completions response.

    `Usage.input_tokens` excludes prompt tokens served from OpenAI's prompt cache, which are counted in
    `cache_read_tokens` instead. Raises `ModelError` when the response has no choices.
    """
    if not completion.choices:
        raise ModelError("the server returned a completion with no choices")
    choice = completion.choices[0]
    text = choice.message.content or ""
    calls = tuple(
        tool_call_from_json(call.id or f"call_{index}", call.function.name, call.function.arguments)
        for index, call in enumerate(choice.message.tool_calls or [])
        if getattr(call, "function", None) is not None
    )
    finish = _FINISH.get(choice.finish_reason or "", "unknown")
    usage = Usage()
    if completion.usage is not None:
        details = completion.usage.prompt_tokens_details
        cached = (details.cached_tokens or 0) if details is not None else 0
        usage = Usage(
            input_tokens=completion.usage.prompt_tokens - cached,
            output_tokens=completion.usage.completion_tokens,
            cache_read_tokens=cached,
        )
    return text, calls, finish, usage


def classify_openai_error(exc: Exception) -> ModelError:
    """Map an `openai` exception onto a retryable or a final lexprobe error."""
    return classify_sdk_error(exc, _CONNECTION_ERRORS, openai.APIStatusError, _RETRYABLE_STATUS)


class OpenAIModel(Model):
    """`openai/MODEL` and `openai-compatible/MODEL@BASE_URL`."""

    def __init__(self, spec: ModelSpec, *, http_client: Any = None) -> None:
        super().__init__(spec)
        self.hosted = spec.backend == "openai"
        self.default_concurrency = 16 if self.hosted else 4
        # Compatible servers that reject the standard `json_schema` response format get `json_object`
        # with a schema instead, from the first rejection on.
        self.schema_style = "json_schema"
        base_url = spec.base_url if not self.hosted else os.environ.get("OPENAI_BASE_URL") or None
        api_key = os.environ.get("OPENAI_API_KEY") or ("not-needed" if not self.hosted else None)
        self.client = openai.AsyncOpenAI(
            api_key=api_key, base_url=base_url, max_retries=0, timeout=None, http_client=http_client
        )

    async def generate(self, request: Request) -> Response:
        """Send one Chat Completions request and normalize the answer."""
        started = time.perf_counter()
        style = self.schema_style  # another request may switch it while this one is in flight
        try:
            completion = await self._create(request, style)
        except openai.APIStatusError as exc:
            if not self._rejects_json_schema(request, exc, style):
                raise classify_openai_error(exc) from exc
            self.schema_style = "json_object"
            try:
                completion = await self._create(request, "json_object")
            except openai.OpenAIError as retry_exc:
                raise classify_openai_error(retry_exc) from retry_exc
        except openai.OpenAIError as exc:
            raise classify_openai_error(exc) from exc
        latency = time.perf_counter() - started
        text, calls, finish, usage = parse_openai_completion(completion)
        return finished_response(
            self, text=text, calls=calls, finish=finish, usage=usage, latency_s=latency, served_by=completion.model
        )

    async def _create(self, request: Request, schema_style: str) -> ChatCompletion:
        """Send the request as `client.chat.completions.create(**params)` would, without its first step: that walks
        the params against the SDK's TypedDict annotations to rename and reformat fields (~1.2 ms a request), and
        `build_openai_params` already writes the wire format, which the walk leaves unchanged (checked in
        tests/test_hosted_backends.py). The SDK's public `post` then sends the same path, body, headers and auth, and
        parses the same `ChatCompletion`."""
        params = build_openai_params(request, self.spec.name, hosted=self.hosted, schema_style=schema_style)
        # the one option `create` passes besides the body: send the API key as a bearer token
        options: Any = {"security": {"bearer_auth": True}}
        # the body as it came (`object`: the decoded JSON, or the text of a body that is not JSON), checked before it
        # becomes a `ChatCompletion`: the SDK builds one from whatever it gets, without validating it
        try:
            body = await self.client.post("/chat/completions", body=params, cast_to=object, options=options)
        except ValueError as exc:  # a JSON content type whose body is not JSON
            raise MalformedAnswerError(f"the server's answer is not a chat completion (not JSON: {exc})") from None
        return chat_completion(body)

    def _rejects_json_schema(self, request: Request, exc: openai.APIStatusError, sent_style: str) -> bool:
        """True when a compatible server refused the `json_schema` response format this request was sent with."""
        return (
            not self.hosted
            and request.schema_ is not None
            and sent_style == "json_schema"
            and "json_schema" in str(exc.message) + str(getattr(exc, "body", ""))
        )

    async def aclose(self) -> None:
        """Close the HTTP client."""
        await self.client.close()
