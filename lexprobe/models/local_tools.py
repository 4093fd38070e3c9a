"""Function calling for embedded models that have no native tool format.

The tools are described in the system prompt and the answer is constrained by a llama.cpp grammar (built from a
JSON schema) to exactly one of: `{"tool": NAME, "arguments": {...}}` for each tool, or `{"message": "..."}`.
Because the grammar admits nothing else, every answer parses into either a structured tool call or plain text.
Earlier tool calls and results are written back into the conversation in the same format, so any chat template
(even one that knows no `tool` role) renders them.
"""

from __future__ import annotations

import json
from typing import Any

from lexprobe.models.types import Message, ToolCall, ToolSpec

TOOL_PREAMBLE = (
    "You can call tools. Answer with one JSON object and nothing else: either "
    '{"tool": "<tool name>", "arguments": {...}} to call a tool, or {"message": "<your answer>"} to reply.'
    "\nTools:\n"
)


def tool_choice_schema(tools: tuple[ToolSpec, ...]) -> dict[str, Any]:
    """Return the JSON schema admitting one call of any tool, or a plain message."""
    alternatives: list[dict[str, Any]] = [
        {
            "type": "object",
            "properties": {"tool": {"const": tool.name}, "arguments": tool.parameters},
            "required": ["tool", "arguments"],
        }
        for tool in tools
    ]
    alternatives.append({"type": "object", "properties": {"message": {"type": "string"}}, "required": ["message"]})
    return {"anyOf": alternatives}


def tools_system_text(tools: tuple[ToolSpec, ...]) -> str:
    """Return the system-prompt text that describes `tools` to the model."""
    lines = [
        f"- {tool.name}: {tool.description} Arguments schema: {json.dumps(tool.parameters, sort_keys=True)}"
        for tool in tools
    ]
    return TOOL_PREAMBLE + "\n".join(lines)


def render_tool_conversation(messages: tuple[Message, ...], tools: tuple[ToolSpec, ...]) -> list[dict[str, str]]:
    """Return plain role/content messages with the tool instructions, earlier calls and tool results inlined."""
    rendered: list[dict[str, str]] = []
    instructions = tools_system_text(tools)
    if messages and messages[0].role == "system":
        rendered.append({"role": "system", "content": messages[0].content + "\n\n" + instructions})
        rest = messages[1:]
    else:
        rendered.append({"role": "system", "content": instructions})
        rest = messages
    for message in rest:
        if message.role == "assistant" and message.tool_calls:
            call = message.tool_calls[0]
            content = json.dumps({"tool": call.name, "arguments": call.arguments})
            rendered.append({"role": "assistant", "content": content})
        elif message.role == "assistant":
            rendered.append({"role": "assistant", "content": json.dumps({"message": message.content})})
        elif message.role == "tool":
            label = message.name or "tool"
            rendered.append({"role": "user", "content": f"Result of {label}:\n{message.content}"})
        else:
            rendered.append({"role": message.role, "content": message.content})
    return rendered


def parse_tool_answer(text: str, call_id: str) -> tuple[str, tuple[ToolCall, ...]]:
    """Split a grammar-constrained answer into (message text, tool calls).

    Text that is not the expected JSON (a truncated answer at max_tokens) is returned as plain text.
    """
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        return text, ()
    if isinstance(data, dict) and "tool" in data:
        arguments = data.get("arguments")
        return "", (ToolCall(id=call_id, name=str(data["tool"]), arguments=arguments or {}),)
    if isinstance(data, dict) and "message" in data:
        return str(data["message"]), ()
    return text, ()
