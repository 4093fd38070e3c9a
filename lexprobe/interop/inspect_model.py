"""lexprobe's models inside Inspect: `--model lexprobe/SPEC` for any lexprobe model spec (`lexprobe/local`,
`lexprobe/scripted:FILE.jsonl`, `lexprobe/openai-compatible/MODEL@URL`, ...).

Each `generate` call becomes one lexprobe `Request` sent through lexprobe's engine (`engine.executor.Engine`, as
`lexprobe ask` sends one): the shared response cache, the engine's retries with backoff, the backend's own
concurrency. Inspect's messages and tool calls are translated by `interop.messages`, tools and outputs
here (`lexprobe_tools`, `inspect_output`); usage comes from lexprobe's `Usage` (nothing counts tokens with tiktoken, so
nothing is fetched from the network). A request Inspect sends twice at a temperature above 0 (epochs) is asked as
distinct samples (`sample_index` 0, 1, ...), as lexprobe asks K samples; a lexprobe solver may name the sample index
itself (`SAMPLE_INDEX`), so that its requests are the very requests `lexprobe hallucination run` sends (same cache
keys).

Model args (`-M`): `cache=false` (skip the response cache), `retries=N` (the engine's retries; Inspect's own are not
used: the engine retries transient errors itself), `timeout=S` (per request).
"""

from __future__ import annotations

import asyncio
from collections import Counter
from contextvars import ContextVar
from typing import Any

from inspect_ai.model import (
    ChatCompletionChoice,
    ChatMessage,
    ChatMessageAssistant,
    GenerateConfig,
    ModelAPI,
    ModelCall,
    ModelOutput,
    ModelUsage,
    modelapi,
)
from inspect_ai.tool import ToolChoice, ToolInfo

from lexprobe.engine.cache import ResponseCache
from lexprobe.engine.config import EngineConfig
from lexprobe.engine.executor import Engine
from lexprobe.engine.store import RunStore
from lexprobe.errors import LexprobeError
from lexprobe.interop.messages import inspect_tool_call, lexprobe_messages
from lexprobe.models.registry import check_model
from lexprobe.models.types import Request, Response, ToolSpec

__all__ = ["SAMPLE_INDEX", "LexprobeModelAPI", "inspect_output", "lexprobe_tools"]

#: The sample index of the requests a solver sends while it is set (None: counted per identical sampled request).
SAMPLE_INDEX: ContextVar[int | None] = ContextVar("lexprobe_sample_index", default=None)

_STOP_REASONS = {"stop": "stop", "length": "max_tokens", "tool_calls": "tool_calls", "content_filter": "content_filter"}


@modelapi(name="lexprobe")
class LexprobeModelAPI(ModelAPI):
    """An Inspect model API whose model name is a lexprobe model spec, answered through lexprobe's engine."""

    def __init__(
        self,
        model_name: str,
        base_url: str | None = None,
        api_key: str | None = None,
        config: GenerateConfig = GenerateConfig(),  # noqa: B008 - Inspect's own signature
        **model_args: Any,
    ) -> None:
        super().__init__(model_name, base_url, api_key, [], config)
        check_model(model_name)  # ModelConfigError (one line) for a spec lexprobe cannot use now
        self.spec = model_name
        unknown = set(model_args) - {"cache", "retries", "timeout"}
        if unknown:
            raise LexprobeError(f"unknown model arg(s) {sorted(unknown)} for lexprobe/; valid: cache, retries, timeout")
        self.use_cache = str(model_args.get("cache", True)).lower() not in ("false", "0", "no")
        engine_config = EngineConfig(progress=False, use_cache=self.use_cache)
        if "retries" in model_args:
            engine_config = engine_config.model_copy(update={"max_retries": int(model_args["retries"])})
        timeout = model_args.get("timeout", config.timeout)
        if timeout is not None:
            engine_config = engine_config.model_copy(update={"timeout_s": float(timeout)})
        self.engine_config = engine_config
        self.engine: Engine | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self.asked: Counter[str] = Counter()  # cache key -> sampled requests sent so far (the next sample index)
        self.concurrency = self._engine().model(self.spec).concurrency_for(None)

    def _engine(self) -> Engine:
        """The engine of the running event loop: one per loop, since a hosted backend's client belongs to the loop
        it was first used in (each `inspect_ai.eval` call runs its own loop)."""
        try:
            loop: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        if self.engine is None or (loop is not None and self.loop is not None and loop is not self.loop):
            cache = ResponseCache() if self.use_cache else None
            self.engine = Engine(RunStore.in_memory(), cache, self.engine_config)
        if loop is not None:
            self.loop = loop
        return self.engine

    async def generate(
        self, input: list[ChatMessage], tools: list[ToolInfo], tool_choice: ToolChoice, config: GenerateConfig
    ) -> tuple[ModelOutput, ModelCall]:
        """Answer through lexprobe's engine; raises `LexprobeError` when the request stays unanswered. The model call
        Inspect logs is lexprobe's request and response, as the engine stored them."""
        request = self._request(input, [] if tool_choice == "none" else tools, config)
        engine = self._engine()
        await engine.run([request], synchronous=True)
        response = engine.store.response(request.request_id)
        if response is None:
            why = engine.permanent_failures.get(request.request_id, "no answer after the engine's retries")
            raise LexprobeError(f"lexprobe/{self.spec}: {why}")
        call = ModelCall.create(request.model_dump(mode="json", by_alias=True), response.model_dump(mode="json"))
        return inspect_output(response, self.spec), call

    def _request(self, input: list[ChatMessage], tools: list[ToolInfo], config: GenerateConfig) -> Request:
        """The lexprobe request of one generate call (its sample index counted for a repeated sampled request)."""
        schema = config.response_schema.json_schema.model_dump(exclude_none=True) if config.response_schema else None
        request = Request(
            model=self.spec,
            messages=lexprobe_messages(input),
            temperature=config.temperature,
            seed=config.seed,
            max_tokens=config.max_tokens,
            stop=tuple(config.stop_seqs or ()),
            tools=lexprobe_tools(tools),
            schema=schema,
        )
        index = SAMPLE_INDEX.get()
        if index is None and request.sampled:
            key = request.cache_key()
            index, self.asked[key] = self.asked[key], self.asked[key] + 1
        return request.model_copy(update={"sample_index": index}) if index else request

    def max_connections(self) -> int:
        """The backend's own concurrency (1 for the embedded model, 4 for an OpenAI-compatible server, ...)."""
        return self.concurrency

    def should_retry(self, ex: Exception) -> bool:
        """Never: lexprobe's engine has already retried what was worth retrying."""
        return False

    async def aclose(self) -> None:
        """Close the models the engine opened."""
        if self.engine is not None:
            await self.engine.aclose()


def lexprobe_tools(tools: list[ToolInfo]) -> tuple[ToolSpec, ...]:
    """Inspect's tool descriptions as lexprobe tool specs (the parameters' JSON schema as it is)."""
    return tuple(
        ToolSpec(name=tool.name, description=tool.description, parameters=tool.parameters.model_dump(exclude_none=True))
        for tool in tools
    )


def inspect_output(response: Response, spec: str) -> ModelOutput:
    """A lexprobe response as Inspect's model output: text, tool calls (arguments that were not a JSON object as a
    parse error), stop reason, usage and cost; `metadata.lexprobe_cached` says it came from the response cache."""
    calls = [inspect_tool_call(call) for call in response.tool_calls]
    usage = response.usage
    stop = _STOP_REASONS.get(response.finish_reason, "unknown")
    message = ChatMessageAssistant(content=response.text, tool_calls=calls or None, model=response.model or spec,
                                   source="generate")  # fmt: skip
    return ModelOutput(
        model=response.model or spec,
        choices=[ChatCompletionChoice(message=message, stop_reason=stop)],  # type: ignore[arg-type]
        usage=ModelUsage(
            input_tokens=usage.input_tokens,
            output_tokens=usage.output_tokens,
            total_tokens=usage.input_tokens + usage.output_tokens + usage.cache_read_tokens + usage.cache_write_tokens,
            input_tokens_cache_read=usage.cache_read_tokens or None,
            input_tokens_cache_write=usage.cache_write_tokens or None,
            total_cost=response.cost_usd,
        ),
        time=response.latency_s,
        metadata={"lexprobe_cached": response.cached},
    )
