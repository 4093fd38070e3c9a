"""lexprobe's investigating agent asking an Inspect model, its tools run as Inspect tools.

`InspectAgent` is lexprobe's own tool-using turn (`investigation.agent.harness.Agent`: the same loop, prompts, tool
specs, budgets, denials, budget notice, Turn 2 and verdict parsing, the same `Episode` record) with two things
changed: each model call goes to the Inspect model of the running sample (`get_model()`, so `--model` picks it and
Inspect logs every call as a model event), and each tool call the budget allows runs through Inspect's
`execute_tools` over `investigation_tool_defs` (so Inspect logs it as a tool event, approval policies apply), whose
bodies are lexprobe's `Toolbox` in the agent's confinement (corpus paths only, RE2 grep, the bubblewrap shell).

What the model is told is always lexprobe's: a call Inspect refuses before running it (arguments that do not match
the schema) is answered by lexprobe's toolbox, as lexprobe's harness would, and Inspect's output limit is off for
these tools (lexprobe cuts every output at `tools.MAX_OUTPUT_CHARS` itself).

Messages and tool calls are translated by `interop.messages` (the translation the model API and the export share);
here are the tools (`inspect_tool_info`) and Inspect's output read back as a lexprobe `Response` (`lexprobe_response`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from inspect_ai.model import (
    ChatMessageAssistant,
    ModelOutput,
    execute_tools,
    get_model,
)
from inspect_ai.tool import ToolDef, ToolInfo, ToolParams

from lexprobe.interop.inspect_model import SAMPLE_INDEX
from lexprobe.interop.messages import chat_messages, inspect_tool_call, lexprobe_tool_call
from lexprobe.investigation.agent.harness import Agent
from lexprobe.models.types import Message, Response, ToolCall, ToolSpec, Usage

__all__ = ["InspectAgent", "inspect_tool_info", "investigation_tool_defs", "lexprobe_response"]

_FINISH_REASONS = {"stop": "stop", "max_tokens": "length", "model_length": "length", "tool_calls": "tool_calls",
                   "content_filter": "content_filter"}  # fmt: skip


def inspect_tool_params(spec: ToolSpec) -> ToolParams:
    """lexprobe's JSON schema of a tool's arguments as Inspect's `ToolParams`, unchanged: no `additionalProperties`
    is added (lexprobe's toolbox ignores an argument it does not know), so the schema a model is sent is lexprobe's."""
    return ToolParams.model_validate({"additionalProperties": None, **spec.parameters})


def inspect_tool_info(spec: ToolSpec) -> ToolInfo:
    """One lexprobe tool spec as the `ToolInfo` an Inspect model is offered."""
    return ToolInfo(name=spec.name, description=spec.description, parameters=inspect_tool_params(spec))


def investigation_tool_defs(
    specs: Sequence[ToolSpec], run: Callable[[str, dict[str, Any]], Awaitable[str]]
) -> list[ToolDef]:
    """lexprobe's investigation tools (`investigation.agent.tools.tool_specs`: read, glob, grep and, where bubblewrap
    is installed, shell) as Inspect tool definitions: name, description and argument schema are lexprobe's, and a
    call runs `run(name, arguments)`. Inspect's output limit is off (lexprobe cuts its outputs itself)."""

    def define(spec: ToolSpec) -> ToolDef:
        async def body(**kwargs: Any) -> str:  # `kwargs: Any`: Inspect passes the arguments through as they came
            return await run(spec.name, kwargs)

        return ToolDef(body, name=spec.name, description=spec.description, parameters=inspect_tool_params(spec),
                       max_output=0)  # fmt: skip

    return [define(spec) for spec in specs]


def lexprobe_response(output: ModelOutput) -> Response:
    """An Inspect model output as a lexprobe `Response`: text, tool calls (a parse error as raw arguments), finish
    reason and tokens (Inspect's cost when it reports one)."""
    message = output.message
    calls = tuple(lexprobe_tool_call(call) for call in message.tool_calls or ())
    usage = output.usage
    return Response(
        text=message.text,
        tool_calls=calls,
        finish_reason=_FINISH_REASONS.get(output.stop_reason, "unknown"),  # type: ignore[arg-type]
        usage=Usage(input_tokens=usage.input_tokens, output_tokens=usage.output_tokens) if usage else Usage(),
        cost_usd=usage.total_cost if usage else None,
        model=output.model,
    )


class InspectAgent(Agent):
    """lexprobe's agent (`Agent`) whose model is the Inspect sample's and whose tools run as Inspect tools (see the
    module docstring). Built by `EpisodeRunner(..., agent_type=InspectAgent)`; it needs no engine."""

    last_output: ModelOutput | None = None  # the Inspect output of the last model call (the Turn-2 reply at the end)

    async def ask(self, request_id: str, messages: list[Message], tools: tuple[ToolSpec, ...] = (),
                  model: str | None = None) -> Response:  # fmt: skip
        """Ask the sample's Inspect model; a lexprobe model is asked the very request lexprobe's harness sends (the
        epoch as its sample index). Inspect's errors propagate (Inspect retries and records them)."""
        token = SAMPLE_INDEX.set(self.episode.epoch)
        try:
            output = await get_model().generate(chat_messages(messages), tools=[inspect_tool_info(t) for t in tools])
        finally:
            SAMPLE_INDEX.reset(token)
        self.last_output = output
        response = lexprobe_response(output)
        self.count_usage(request_id, response)
        return response

    async def execute(self, call: ToolCall, step: int) -> str:
        """Run the call through Inspect's `execute_tools` over lexprobe's tools; lexprobe's toolbox answers a call it
        cannot take (malformed arguments, a tool it does not offer) or refuses before running it."""
        names = set(self.toolbox.names)
        if call.raw_arguments is not None or call.name not in names:
            return await super().execute(call, step)
        ran: list[str] = []

        async def run(name: str, arguments: dict[str, Any]) -> str:
            ran.append(name)
            return await Agent.execute(self, call.model_copy(update={"arguments": arguments}), step)

        specs = [spec for spec in self.protocol.specs if spec.name in names]
        assistant = ChatMessageAssistant(content="", tool_calls=[inspect_tool_call(call)])
        result = await execute_tools([assistant], investigation_tool_defs(specs, run))
        if not ran:  # Inspect refused the arguments: lexprobe's toolbox says what is wrong, as in lexprobe's harness
            return await super().execute(call, step)
        return result.messages[0].text
