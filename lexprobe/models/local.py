"""Embedded llama.cpp backend (llama-cpp-python): the default SmolLM2-135M-Instruct or any GGUF file.

Determinism and prefix reuse: a call keeps the KV cache of the prompt prefix it shares with the previous call (a
few-shot run's prompts share most of their tokens), but only a prefix that ends on a `PREFILL_CHUNK` boundary and
that the previous call evaluated in whole prompt chunks. The prompt is always fed in `PREFILL_CHUNK`-token chunks
from position 0, so the chunks evaluated after such a prefix are exactly the chunks a fresh call evaluates, at the
same positions, on the same cache contents: the logits, and so temperature-0 answers, are bit-identical to a fresh
call's (tests/test_embedded_prefix.py checks it). Models whose memory cannot drop a suffix (recurrent, hybrid,
sliding-window attention) are reset before every call instead, as every model is with `prefix_reuse=False`.

A request that leaves temperature or the token cap unset (None) gets this backend's own defaults: temperature 0
(deterministic) and no cap beyond the context window (llama.cpp then generates at most the context size less the
prompt). A sampled request (temperature > 0) without a seed gets one derived from its cache
key, so each sample index is a distinct but reproducible sample. Calls run one at a time in a worker thread.

Stopping (Ctrl-C): `interrupt()` makes a call in flight stop between two generated tokens or two prompt chunks - in
Python, between two llama.cpp calls, never inside one - and raise `CallInterrupted`. The weights are freed only under
the call lock, so `aclose` waits for a call in flight instead of freeing memory a worker thread still uses (which
crashed the process).
A file that llama.cpp cannot load raises `ModelConfigError`: no request can be answered, so the run ends.
"""

from __future__ import annotations

import asyncio
import json
import os
import threading
import time
from collections.abc import Sequence
from typing import Any

from lexprobe.models.base import Model, finished_response
from lexprobe.models.errors import CallInterrupted, ModelConfigError, ModelError
from lexprobe.models.identity import embedded_model_path
from lexprobe.models.local_tools import parse_tool_answer, render_tool_conversation, tool_choice_schema
from lexprobe.models.spec import ModelSpec
from lexprobe.models.types import FinishReason, Request, Response, Usage

DEFAULT_CONTEXT = 4096
#: Temperature of a request that sets none (None): deterministic answers.
LOCAL_DEFAULT_TEMPERATURE = 0.0

#: Prompt tokens evaluated per llama.cpp call, from position 0: between two chunks a call checks for a stop (Ctrl-C),
#: and a reused prefix ends on a chunk boundary (see the module docstring). The chunking is the same on every call, so
#: answers stay bit-identical across calls and processes (on the CPU build they even match llama-cpp-python's own
#: 512-token batches: bench/embedded_prefix.py checks it). 16 keeps prompt throughput (within noise of 32 and 64 on
#: two cores; 8 is slower: BENCHMARKS.md) while a few-shot prompt reuses all but at most 15 tokens of its shared prefix.
PREFILL_CHUNK = 16


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


def shared_prefix(cached: Sequence[int], tokens: Sequence[int]) -> int:
    """Return the number of leading tokens `cached` and `tokens` have in common."""
    import numpy as np  # loaded with llama_cpp anyway; not at lexprobe's start-up

    length = min(len(cached), len(tokens))
    differ = np.flatnonzero(np.asarray(cached[:length], dtype=np.intc) != np.asarray(tokens[:length], dtype=np.intc))
    return int(differ[0]) if differ.size else length


def reusable_prefix(cached: Sequence[int], trusted: int, tokens: Sequence[int], chunk: int = PREFILL_CHUNK) -> int:
    """Return how many leading prompt tokens a call may keep from the cache: the prefix `tokens` shares with the
    `trusted` tokens of `cached` that were evaluated in whole chunks, rounded down to a multiple of `chunk`, and
    never the whole prompt (the last prompt token is always evaluated, so that its logits are fresh)."""
    limit = min(trusted, len(tokens) - 1)
    if limit < chunk:
        return 0
    return shared_prefix(cached[:limit], tokens[:limit]) // chunk * chunk


class LlamaCppModel(Model):
    """`local`, `local/smollm2` and `local:PATH.gguf`. Weights load on the first call, not on construction."""

    default_concurrency = 1
    default_timeout_s = None

    def __init__(
        self, spec: ModelSpec, *, n_ctx: int = DEFAULT_CONTEXT, n_threads: int | None = None, prefix_reuse: bool = True
    ) -> None:
        super().__init__(spec)
        #: Keep a chunk-aligned shared prompt prefix between calls (answers stay bit-identical); False resets.
        self.prefix_reuse = prefix_reuse
        #: Prompt tokens of every call so far, and how many of them came from the KV cache instead of being evaluated.
        #: (`last_reused_prompt_tokens`: of the last call.)
        self.prompt_tokens = 0
        self.reused_prompt_tokens = 0
        self.last_reused_prompt_tokens = 0
        self.model_path = str(spec.path) if spec.path else str(embedded_model_path())
        self.n_ctx = n_ctx
        # Half the cores, as llama.cpp itself defaults to: its threads spin-wait on each other, so taking every
        # core makes each call tens of times slower as soon as any other process is busy.
        self.n_threads = n_threads or max(1, min(4, (os.cpu_count() or 2) // 2))
        self._llm: Any = None
        self._lock = threading.Lock()  # held by the one call in flight, and by `aclose` while it frees the weights
        self._stops: set[threading.Event] = set()  # one per call queued or running in a worker thread

    def _load(self) -> Any:
        if self._llm is None:
            try:  # llama-cpp-python is optional: imported on first load, a missing one is this model's error
                from lexprobe.models.stoppable_llama import StoppableLlama

                self._llm = StoppableLlama(
                    model_path=self.model_path,
                    n_ctx=self.n_ctx,
                    n_threads=self.n_threads,
                    n_threads_batch=self.n_threads,
                    verbose=False,
                )
            except Exception as exc:  # llama.cpp raises ValueError with little detail
                raise ModelConfigError(
                    f"model {self.spec.raw!r} cannot be used: llama.cpp could not load {self.model_path} ({exc}); "
                    "is it a complete GGUF file?"
                ) from exc
        return self._llm

    async def generate(self, request: Request) -> Response:
        """Answer in a worker thread, one call at a time; `interrupt()` stops it between two tokens."""
        stop = threading.Event()
        self._stops.add(stop)
        return await asyncio.to_thread(self._generate_blocking, request, stop)

    def interrupt(self) -> None:
        """Make every call queued or in flight stop at its next token or prompt chunk (raising `CallInterrupted`)."""
        for stop in list(self._stops):
            stop.set()

    def _generate_blocking(self, request: Request, stop: threading.Event) -> Response:
        try:
            with self._lock:
                if stop.is_set():
                    raise CallInterrupted("stopped before the call started")
                return self._answer(self._load(), request, stop)
        finally:
            self._stops.discard(stop)

    def _answer(self, llm: Any, request: Request, stop: threading.Event) -> Response:
        """Run one call on the loaded model (the caller holds the lock)."""
        from llama_cpp import LlamaGrammar

        started = time.perf_counter()
        params: dict[str, Any] = {
            "temperature": LOCAL_DEFAULT_TEMPERATURE if request.temperature is None else request.temperature,
            "seed": derived_seed(request),
            "max_tokens": request.max_tokens,  # None: up to the end of the context window
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
        if not self.prefix_reuse:
            llm.reset()
        llm.stop_event = stop
        try:
            out = llm.create_chat_completion(messages=messages, **params)
        except ValueError as exc:  # prompt longer than the context window, bad grammar: permanent
            raise ModelError(f"llama.cpp rejected the request: {exc}") from exc
        finally:
            llm.stop_event = None
        self.last_reused_prompt_tokens = getattr(llm, "last_reused_tokens", 0)
        self.prompt_tokens += getattr(llm, "last_prompt_tokens", 0)
        self.reused_prompt_tokens += self.last_reused_prompt_tokens
        latency = time.perf_counter() - started
        choice = out["choices"][0]
        text = choice["message"].get("content") or ""
        calls: tuple = ()
        if request.tools:
            text, calls = parse_tool_answer(text, call_id=f"call_{request.cache_key()[:12]}")
        finish: FinishReason = "tool_calls" if calls else ("length" if choice["finish_reason"] == "length" else "stop")
        usage = Usage(input_tokens=out["usage"]["prompt_tokens"], output_tokens=out["usage"]["completion_tokens"])
        return finished_response(
            self, text=text, calls=calls, finish=finish, usage=usage, latency_s=latency, served_by=None
        )

    async def aclose(self) -> None:
        """Stop any call in flight, wait for it to end, then free the weights (never under a running call)."""
        self.interrupt()
        await asyncio.to_thread(self._close_blocking)

    def _close_blocking(self) -> None:
        with self._lock:
            if self._llm is not None:
                self._llm.close()
                self._llm = None
