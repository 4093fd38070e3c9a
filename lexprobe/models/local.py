"""Embedded llama.cpp backend (llama-cpp-python): the default SmolLM2-135M-Instruct or any GGUF file.

Determinism: the model's state is reset before every call, so temperature 0 gives bit-identical answers across
calls and processes. A sampled request (temperature > 0) without a seed gets one derived from its cache key, so
each sample index is a distinct but reproducible sample. Calls run one at a time in a worker thread.
"""

from __future__ import annotations

import asyncio
import json
import os
import threading
import time
from typing import Any

from lexprobe.models.base import Model
from lexprobe.models.embedded import embedded_model_path
from lexprobe.models.errors import ModelError
from lexprobe.models.local_tools import parse_tool_answer, render_tool_conversation, tool_choice_schema
from lexprobe.models.spec import ModelSpec
from lexprobe.models.types import FinishReason, Request, Response, Usage

DEFAULT_CONTEXT = 4096


#: Largest length / item bounds kept in a schema handed to llama.cpp: its grammar converter unrolls each bound into
#: nested optional rules, and very large bounds overflow llama.cpp's grammar parser, which aborts the whole process.
GRAMMAR_BOUND_LIMIT = 64
_BOUND_KEYS = ("maxLength", "minLength", "maxItems", "minItems")


def grammar_safe_schema(schema: Any) -> Any:
    """Return a copy of a JSON schema without length / item bounds above `GRAMMAR_BOUND_LIMIT` (the shape is still
    enforced by the grammar; callers validate bounds afterwards, as they must for every backend)."""
    if isinstance(schema, dict):
        return {
            key: grammar_safe_schema(value)
            for key, value in schema.items()
            if not (key in _BOUND_KEYS and isinstance(value, int) and value > GRAMMAR_BOUND_LIMIT)
        }
    if isinstance(schema, list):
        return [grammar_safe_schema(value) for value in schema]
    return schema


def derived_seed(request: Request) -> int:
    """Return the request's seed, or a reproducible one derived from its cache key."""
    if request.seed is not None:
        return request.seed
    return int(request.cache_key()[:8], 16)


class LlamaCppModel(Model):
    """`local`, `local/smollm2` and `local:PATH.gguf`. Weights load on the first call, not on construction."""

    default_concurrency = 1
    default_timeout_s = None

    def __init__(self, spec: ModelSpec, *, n_ctx: int = DEFAULT_CONTEXT, n_threads: int | None = None) -> None:
        super().__init__(spec)
        self.model_path = str(spec.path) if spec.path else str(embedded_model_path())
        self.n_ctx = n_ctx
        # Half the cores, as llama.cpp itself defaults to: its threads spin-wait on each other, so taking every
        # core makes each call tens of times slower as soon as any other process is busy.
        self.n_threads = n_threads or max(1, min(4, (os.cpu_count() or 2) // 2))
        self._llm: Any = None
        self._lock = threading.Lock()

    def _load(self) -> Any:
        if self._llm is None:
            from llama_cpp import Llama

            try:
                self._llm = Llama(
                    model_path=self.model_path,
                    n_ctx=self.n_ctx,
                    n_threads=self.n_threads,
                    n_threads_batch=self.n_threads,
                    verbose=False,
                )
            except Exception as exc:  # llama.cpp raises ValueError with little detail
                raise ModelError(f"could not load GGUF model {self.model_path}: {exc}") from exc
        return self._llm

    async def generate(self, request: Request) -> Response:
        """Answer in a worker thread, one call at a time."""
        return await asyncio.to_thread(self._generate_blocking, request)

    def _generate_blocking(self, request: Request) -> Response:
        from llama_cpp import LlamaGrammar

        with self._lock:
            llm = self._load()
            started = time.perf_counter()
            params: dict[str, Any] = {
                "temperature": request.temperature,
                "seed": derived_seed(request),
                "max_tokens": request.max_tokens,
                "stop": list(request.stop) or None,
            }
            if request.tools:
                messages = render_tool_conversation(request.messages, request.tools)
                schema = grammar_safe_schema(tool_choice_schema(request.tools))
                params["grammar"] = LlamaGrammar.from_json_schema(json.dumps(schema), verbose=False)
            else:
                messages = [{"role": m.role, "content": m.content} for m in request.messages]
                if request.schema_ is not None:
                    params["response_format"] = {"type": "json_object", "schema": grammar_safe_schema(request.schema_)}
            llm.reset()
            try:
                out = llm.create_chat_completion(messages=messages, **params)
            except ValueError as exc:  # prompt longer than the context window, bad grammar
                raise ModelError(f"llama.cpp rejected the request: {exc}") from exc
            latency = time.perf_counter() - started
        choice = out["choices"][0]
        text = choice["message"].get("content") or ""
        calls: tuple = ()
        if request.tools:
            text, calls = parse_tool_answer(text, call_id=f"call_{request.cache_key()[:12]}")
        finish: FinishReason = "tool_calls" if calls else ("length" if choice["finish_reason"] == "length" else "stop")
        usage = Usage(input_tokens=out["usage"]["prompt_tokens"], output_tokens=out["usage"]["completion_tokens"])
        return Response(
            text=text,
            tool_calls=calls,
            finish_reason=finish,
            usage=usage,
            latency_s=latency,
            cost_usd=self.cost(usage),
            model=self.spec.name,
        )

    async def aclose(self) -> None:
        """Free the weights."""
        if self._llm is not None:
            self._llm.close()
            self._llm = None
