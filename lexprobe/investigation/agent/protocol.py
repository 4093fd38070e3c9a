"""The two tool protocols of `HarnessSettings.protocol`: how the agent's tools travel between lexprobe and the model
(`native`: the backend's tool calling, every backend of lexprobe has it; `text`: `TOOL: {"name": ..., "arguments":
{...}}` lines). The harness's loop is the same for both; only these steps differ."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from lexprobe.investigation.agent.prompts import PromptSet
from lexprobe.models.types import Message, Response, ToolCall, ToolSpec

_TEXT_CALL = re.compile(r"^\s*TOOL:\s*(.+?)\s*$", re.MULTILINE)


def parse_text_calls(text: str, step: int) -> tuple[ToolCall, ...]:
    """Return the `TOOL: {...}` calls of a text-protocol reply (malformed ones as calls with raw arguments)."""
    calls = []
    for index, match in enumerate(_TEXT_CALL.finditer(text or "")):
        try:
            payload = json.loads(match.group(1))
            name, arguments = str(payload.get("name", "")), payload.get("arguments", {})
            if not isinstance(arguments, dict):
                raise ValueError("arguments is not an object")
            calls.append(ToolCall(id=f"text_{step}_{index}", name=name, arguments=arguments))
        except (ValueError, AttributeError):
            calls.append(ToolCall(id=f"text_{step}_{index}", name="?", raw_arguments=match.group(1)))
    return tuple(calls)


@dataclass(frozen=True)
class NativeTools:
    """The backend's own tool calling: the request offers the tools, the reply's tool calls are the calls, and each
    result goes back as a `tool` message."""

    specs: tuple[ToolSpec, ...]

    def opening(self, prompt: str) -> list[Message]:
        """The messages a tool-using turn starts with."""
        return [Message(role="user", content=prompt)]

    def offered(self) -> tuple[ToolSpec, ...]:
        """The tools a request offers while the budget lasts."""
        return self.specs

    def calls(self, response: Response, step: int) -> tuple[ToolCall, ...]:
        """The tool calls of the model's reply at `step`."""
        return response.tool_calls

    def assistant(self, response: Response, calls: tuple[ToolCall, ...]) -> Message:
        """The model's reply as the conversation holds it."""
        return Message(role="assistant", content=response.text, tool_calls=calls)

    def result(self, call: ToolCall, output: str) -> Message:
        """What the model is told a call returned."""
        return Message(role="tool", content=output, tool_call_id=call.id, name=call.name)


@dataclass(frozen=True)
class TextTools(NativeTools):
    """For models served without tool calling: a system message describes the tools (`text_protocol.j2`), the request
    offers none, the calls are the reply's `TOOL:` lines, and each result goes back as a user message."""

    prompts: PromptSet

    def opening(self, prompt: str) -> list[Message]:
        protocol = self.prompts.render("text_protocol.j2", tools=list(self.specs))
        return [Message(role="system", content=protocol), *super().opening(prompt)]

    def offered(self) -> tuple[ToolSpec, ...]:
        return ()

    def calls(self, response: Response, step: int) -> tuple[ToolCall, ...]:
        return parse_text_calls(response.text, step)

    def assistant(self, response: Response, calls: tuple[ToolCall, ...]) -> Message:
        return Message(role="assistant", content=response.text)  # its calls are in its text

    def result(self, call: ToolCall, output: str) -> Message:
        return Message(role="user", content=f"Result of {call.name}:\n{output}")


def tool_protocol(name: str, specs: list[ToolSpec], prompts: PromptSet) -> NativeTools:
    """The protocol `name` (`native` or `text`) over the tools `specs`."""
    return TextTools(tuple(specs), prompts) if name == "text" else NativeTools(tuple(specs))


__all__ = ["NativeTools", "TextTools", "parse_text_calls", "tool_protocol"]
