"""How the agent's tools travel between lexprobe and the model: the two tool protocols of `HarnessSettings.protocol`.

`native` passes the tools to the backend's own tool calling (every backend of lexprobe has it): the request offers
the tool specs, the reply's tool calls are the calls, and each result goes back as a `tool` message. `text`
describes the tools in a system message (`text_protocol.j2`) for models served without tool calling: the request
offers no tools, the calls are the reply's `TOOL: {"name": ..., "arguments": {...}}` lines, and each result goes
back as a user message. The harness's loop is the same for both; only these four steps differ.
"""

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
    """The backend's own tool calling."""

    specs: tuple[ToolSpec, ...]

    def opening(self, prompt: str) -> list[Message]:
        """The messages a tool-using turn starts with: the task prompt."""
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
class TextTools:
    """Tools described in the prompt and called with `TOOL:` lines."""

    specs: tuple[ToolSpec, ...]
    prompts: PromptSet

    def opening(self, prompt: str) -> list[Message]:
        """The protocol's description as a system message, then the task prompt."""
        protocol = self.prompts.render("text_protocol.j2", tools=list(self.specs))
        return [Message(role="system", content=protocol), Message(role="user", content=prompt)]

    def offered(self) -> tuple[ToolSpec, ...]:
        """No tools through the backend: the prompt describes them."""
        return ()

    def calls(self, response: Response, step: int) -> tuple[ToolCall, ...]:
        """The `TOOL:` lines of the reply (`parse_text_calls`)."""
        return parse_text_calls(response.text, step)

    def assistant(self, response: Response, calls: tuple[ToolCall, ...]) -> Message:
        """The reply's text alone: its calls are in it."""
        return Message(role="assistant", content=response.text)

    def result(self, call: ToolCall, output: str) -> Message:
        """A user message naming the tool."""
        return Message(role="user", content=f"Result of {call.name}:\n{output}")


ToolProtocol = NativeTools | TextTools


def tool_protocol(name: str, specs: list[ToolSpec], prompts: PromptSet) -> ToolProtocol:
    """The protocol `name` (`native` or `text`) over the tools `specs`."""
    return TextTools(tuple(specs), prompts) if name == "text" else NativeTools(tuple(specs))


__all__ = ["NativeTools", "TextTools", "ToolProtocol", "parse_text_calls", "tool_protocol"]
