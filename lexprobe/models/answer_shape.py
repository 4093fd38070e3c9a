"""Check a server's answer before it is read: a Chat Completions body (`openai/`, `openai-compatible/`, their batch
results) or an Anthropic Messages body (`anthropic/`, its batch results).

The SDKs build their response objects without validating them, so an answer of the wrong shape (HTTP 200 with
`{"choices": "nope"}`, a body that is not JSON) used to fail later with an `AttributeError` deep in the parsing, or
with a pydantic dump of a hundred lines. Here every field lexprobe reads is checked first (only those: a server's
extra or missing optional fields are no fault), and a wrong answer raises `MalformedAnswerError`, a transient
model error whose one-line reason names the fields: "the server's answer is not a chat completion (missing
choices)". The engine retries it like a 5xx; the replica router counts it against the replica and fails over.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

from lexprobe.models.errors import TransientModelError

#: How many wrong fields a reason names before "and N more".
NAMED_PROBLEMS = 3
#: How much of a body that is not JSON a reason quotes.
QUOTED_CHARS = 60


class MalformedAnswerError(TransientModelError):
    """An answer (HTTP 200, or a batch result) that is not the object it should be; retried like a server error."""


class _Lenient(BaseModel):
    model_config = ConfigDict(extra="allow", strict=True)


class _Function(_Lenient):
    name: str
    arguments: str | None = None


class _ToolCall(_Lenient):
    id: str | None = None
    function: _Function | None = None


class _ChatMessage(_Lenient):
    content: str | None = None
    tool_calls: list[_ToolCall] | None = None


class _Choice(_Lenient):
    message: _ChatMessage
    finish_reason: str | None = None


class _PromptDetails(_Lenient):
    cached_tokens: int | None = None


class _ChatUsage(_Lenient):
    prompt_tokens: int
    completion_tokens: int
    prompt_tokens_details: _PromptDetails | None = None


class _ChatCompletion(_Lenient):
    """The fields `openai_chat.parse_openai_completion` reads."""

    choices: list[_Choice]
    usage: _ChatUsage | None = None
    model: str | None = None


class _Block(_Lenient):
    type: str
    text: str | None = None
    id: str | None = None
    name: str | None = None

    @model_validator(mode="after")
    def _fields_of_its_type(self) -> _Block:
        if self.type == "text" and self.text is None:
            raise ValueError("a text block without text")
        if self.type == "tool_use" and (self.id is None or self.name is None):
            raise ValueError("a tool_use block without id or name")
        return self


class _MessageUsage(_Lenient):
    input_tokens: int
    output_tokens: int
    cache_read_input_tokens: int | None = None
    cache_creation_input_tokens: int | None = None


class _Message(_Lenient):
    """The fields `anthropic_messages.parse_anthropic_message` reads."""

    content: list[_Block]
    stop_reason: str | None = None
    usage: _MessageUsage
    model: str | None = None


def chat_completion(data: Any, what: str = "the server's answer") -> Any:
    """Return `data` (a decoded JSON body, or its text) as the SDK's `ChatCompletion`; raise `MalformedAnswerError`
    ("`what` is not a chat completion (...)") when a field lexprobe reads is missing or of the wrong type."""
    from openai.types.chat import ChatCompletion

    _check(_ChatCompletion, data, f"{what} is not a chat completion")
    return ChatCompletion.construct(**data)


def anthropic_message(data: Any, what: str = "the server's answer") -> Any:
    """Return `data` as the SDK's Anthropic `Message`; raise `MalformedAnswerError` as `chat_completion` does."""
    from anthropic.types import Message

    _check(_Message, data, f"{what} is not a Messages answer")
    return Message.construct(**data)


def decode_json(body: bytes | str) -> Any:
    """Return the decoded JSON of an answer's body, or the text itself when it is not JSON (the checks above then
    name it)."""
    try:
        return json.loads(body)
    except (ValueError, UnicodeDecodeError):
        return body.decode("utf-8", "replace") if isinstance(body, bytes) else body


def _check(shape: type[BaseModel], data: Any, prefix: str) -> None:
    """Raise `MalformedAnswerError(f"{prefix} ({problems})")` unless `data` has `shape`."""
    if not isinstance(data, dict):
        raise MalformedAnswerError(f"{prefix} ({_not_an_object(data)})")
    try:
        shape.model_validate(data)
    except ValidationError as exc:
        raise MalformedAnswerError(f"{prefix} ({problems(exc)})") from None


def _not_an_object(data: Any) -> str:
    if isinstance(data, str):
        text = " ".join(data.split())
        quoted = text[:QUOTED_CHARS] + ("..." if len(text) > QUOTED_CHARS else "")
        return f"not JSON: {quoted!r}" if text else "an empty body"
    return f"a JSON {type(data).__name__}, not an object"


def problems(exc: ValidationError) -> str:
    """The fields a validation error names, briefly: "missing id, choices; choices.0.message: not an object"."""
    missing: list[str] = []
    wrong: dict[str, str] = {}
    for error in exc.errors(include_url=False):
        where = ".".join(str(part) for part in error["loc"]) or "the object"
        if error["type"] == "missing":
            missing.append(where)
        else:
            wrong.setdefault(where, _brief(error))
    parts = ([f"missing {', '.join(missing)}"] if missing else []) + [f"{where}: {why}" for where, why in wrong.items()]
    more = len(parts) - NAMED_PROBLEMS
    return "; ".join(parts[:NAMED_PROBLEMS]) + (f"; and {more} more" if more > 0 else "")


def _brief(error: Any) -> str:
    """A validation error's message in a few words ("not a list", "not an object", or pydantic's own)."""
    kind = error["type"]
    names = {"list_type": "not a list", "model_type": "not an object", "dict_type": "not an object",
             "string_type": "not a string", "int_type": "not an integer"}  # fmt: skip
    if kind in names:
        return names[kind]
    message = str(error.get("msg", kind))
    return message.removeprefix("Value error, ")
