"""Value objects shared by every model backend: what is asked (`Request`) and what comes back (`Response`).

Messages follow the chat convention every provider understands: a role, text content, and for assistant turns
optional structured tool calls; a tool result is a `tool` message naming the call it answers. Backends translate
these into their provider's wire format and back, so the rest of lexprobe never sees a provider type.
"""

from __future__ import annotations

import hashlib
import json
from functools import cached_property
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from lexprobe.models.identity import model_identity

Role = Literal["system", "user", "assistant", "tool"]
# `json.dumps(..., sort_keys=True, separators=(",", ":"), ensure_ascii=False)` without building an encoder per call.
_JSON = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)


class ToolCall(BaseModel):
    """One function call the model asked for."""

    model_config = ConfigDict(frozen=True)

    id: str = Field(description="Provider call id, or a deterministic one when the provider gives none.")
    name: str = Field(description="Name of the tool to call.")
    arguments: dict[str, Any] = Field(default_factory=dict, description="Parsed JSON arguments.")
    raw_arguments: str | None = Field(
        default=None, description="Set only when the model's arguments were not a JSON object: what it sent."
    )


class Message(BaseModel):
    """One chat turn."""

    model_config = ConfigDict(frozen=True)

    role: Role
    content: str = ""
    tool_calls: tuple[ToolCall, ...] = Field(default=(), description="Assistant turns only.")
    tool_call_id: str | None = Field(default=None, description="Tool turns only: the call being answered.")
    name: str | None = Field(default=None, description="Tool turns only: the tool's name.")

    @cached_property
    def canonical_json(self) -> str:
        """The turn as the canonical JSON that request keys hash, encoded once per (immutable) message: the requests
        of one item (a greedy answer and its K samples) share their message, and its text is most of a key's work."""
        return _JSON.encode(self.model_dump(mode="json"))

    def model_copy(self, *, update: dict[str, Any] | None = None, deep: bool = False) -> Message:
        """Copy the message; a copy with changed fields encodes its own `canonical_json`."""
        copy = super().model_copy(update=update, deep=deep)
        if update:
            copy.__dict__.pop("canonical_json", None)
        return copy


class ToolSpec(BaseModel):
    """A function the model may call, described by a JSON schema for its arguments."""

    model_config = ConfigDict(frozen=True)

    name: str
    description: str = ""
    parameters: dict[str, Any] = Field(default_factory=lambda: {"type": "object", "properties": {}})


class Request(BaseModel):
    """Everything that determines a model's answer, plus bookkeeping that does not.

    `id` and `tags` are bookkeeping: they name the request inside a run and never change the cache key.
    Everything else does.

    `temperature` and `max_tokens` may be None: "not set", so the backend sends neither and the provider's own
    default applies (what the investigation harness sends unless the user sets them). Hosted backends then omit the
    parameter (Anthropic, which requires a token cap, gets `anthropic_default_max_tokens`); the embedded model, which
    needs concrete values, uses temperature 0 and its context-bounded maximum. A request with temperature None
    counts as sampled for the cache key (the provider's default temperature is usually above 0).
    """

    model: str = Field(description="Model spec string, e.g. 'local' or 'openai/gpt-4o-mini'.")
    messages: tuple[Message, ...]
    temperature: float | None = Field(
        default=0.0, ge=0.0, le=2.0, description="Sampling temperature; None: not sent (the provider's default)."
    )
    seed: int | None = Field(default=None, description="Sampling seed, where the backend supports one.")
    max_tokens: int | None = Field(
        default=256, ge=1, description="Output token cap; None: not sent (the provider's default, see above)."
    )
    stop: tuple[str, ...] = ()
    tools: tuple[ToolSpec, ...] = ()
    schema_: dict[str, Any] | None = Field(
        default=None, alias="schema", description="JSON schema the answer must validate against."
    )
    sample_index: int = Field(default=0, ge=0, description="Which of K samples this is (sampled requests).")
    id: str | None = Field(default=None, description="Stable id inside a run; defaults to the cache key.")
    tags: dict[str, str] = Field(default_factory=dict, description="Free labels carried into the run store.")

    model_config = ConfigDict(frozen=True, populate_by_name=True)

    @classmethod
    def from_prompt(cls, model: str, prompt: str, *, system: str | None = None, **params: Any) -> Request:
        """Build a single-turn request from a user prompt and an optional system prompt."""
        messages = [Message(role="system", content=system)] if system else []
        messages.append(Message(role="user", content=prompt))
        return cls(model=model, messages=tuple(messages), **params)

    def cache_key(self) -> str:
        """Return the SHA-256 hex digest of everything that determines the answer, the model named by its spec.

        A deterministic request (temperature 0) ignores `seed` and `sample_index`; a sampled one (temperature above
        0, or None: the provider's default) keeps both, so K samples stay K distinct cache entries. This key names the
        request (its default id; the run store refuses an id reused for other content). Computed once per (immutable)
        request. The response cache uses `response_key`, which names the model by what it is.
        """
        return self._cache_key

    def response_key(self) -> str:
        """Return the key of this request's answer in the shared response cache: `cache_key` with the model named
        by `model_identity` - a content hash for `scripted:FILE` and `local:PATH.gguf` (so an edited file never
        returns its old answers), the embedded model's fingerprint for `local`, the spec itself (so the very same
        key as `cache_key`) for hosted models. Computed once per request and model identity."""
        identity = model_identity(self.model)
        if identity == self.model:
            return self._cache_key
        # Memoized per identity, not once: an edited scripted / GGUF file is another identity, hence another key.
        digests = self._response_digests
        if identity not in digests:
            digests[identity] = self._digest(identity)
        return digests[identity]

    @cached_property
    def _cache_key(self) -> str:
        return self._digest(self.model)

    @cached_property
    def _response_digests(self) -> dict[str, str]:
        """Model identity -> this request's response key under it (filled by `response_key`)."""
        return {}

    def _digest(self, model: str) -> str:
        """Return the SHA-256 of the canonical JSON of what decides the answer, the model named `model`."""
        sampled = self.sampled
        payload = {
            "model": model,
            "tools": [t.model_dump(mode="json") for t in self.tools],
            "schema": self.schema_,
            "temperature": self.temperature,
            "stop": list(self.stop),
            "seed": self.seed if sampled else None,
            "sample_index": self.sample_index if sampled else 0,
        }
        # The canonical JSON (sorted keys) of the payload with "max_tokens" and "messages", the two keys that sort
        # before all of the above, written in front of it; each message's JSON is encoded once (`canonical_json`).
        messages = ",".join(m.canonical_json for m in self.messages)
        max_tokens = "null" if self.max_tokens is None else str(self.max_tokens)  # an int's JSON is its str()
        head = f'{{"max_tokens":{max_tokens},"messages":[{messages}],'
        return hashlib.sha256((head + _JSON.encode(payload)[1:]).encode()).hexdigest()

    @property
    def sampled(self) -> bool:
        """True when the answer is a sample: temperature above 0, or None (the provider's default, usually 1)."""
        return self.temperature is None or self.temperature > 0

    def model_copy(self, *, update: dict[str, Any] | None = None, deep: bool = False) -> Request:
        """Copy the request; a copy with changed fields computes its own cache key."""
        copy = super().model_copy(update=update, deep=deep)
        if update:
            copy.__dict__.pop("_cache_key", None)
            copy.__dict__.pop("_response_digests", None)
        elif "_response_digests" in copy.__dict__:
            copy.__dict__["_response_digests"] = {}  # a copy must not share (and fill) the original's dict
        return copy

    @property
    def request_id(self) -> str:
        """The id this request has inside a run: its own `id`, or its cache key."""
        return self.id or self.cache_key()


class Usage(BaseModel):
    """Token counts of one call. Cache fields are zero where the provider has no prompt cache."""

    model_config = ConfigDict(frozen=True)

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cache_read_tokens=self.cache_read_tokens + other.cache_read_tokens,
            cache_write_tokens=self.cache_write_tokens + other.cache_write_tokens,
        )


FinishReason = Literal["stop", "length", "tool_calls", "content_filter", "error", "unknown"]


class Response(BaseModel):
    """What a model answered, how much it used and what it cost."""

    model_config = ConfigDict(frozen=True)

    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    finish_reason: FinishReason = "unknown"
    usage: Usage = Field(default_factory=Usage)
    latency_s: float = 0.0
    cost_usd: float | None = Field(default=None, description="None when the model's price is unknown.")
    cached: bool = Field(default=False, description="True when served from the response cache.")
    model: str = Field(default="", description="The model name the provider reports, where it reports one.")

    def parsed_json(self) -> Any:
        """Return the answer text parsed as JSON; raises ValueError when it is not JSON."""
        return json.loads(self.text)
