"""lexprobe's messages and Inspect's `ChatMessage`s, each way: a request's prompt, an answer, an agent's transcript,
and the tool calls in them. The one translation the Inspect model API, the Inspect agent and the log export share.

A tool call whose arguments were not a JSON object (lexprobe keeps the text as `raw_arguments`) is an Inspect
`parse_error` worded `arguments not a JSON object: TEXT`, and that wording is read back into `raw_arguments`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageTool,
    ChatMessageUser,
)
from inspect_ai.tool import ToolCall as InspectToolCall

from lexprobe.models.types import Message, ToolCall

__all__ = [
    "assistant_message",
    "chat_message",
    "chat_messages",
    "inspect_tool_call",
    "lexprobe_messages",
    "lexprobe_tool_call",
    "transcript_messages",
]

#: How a tool call whose arguments were not a JSON object is worded as Inspect's parse error (the raw text follows).
NOT_AN_OBJECT = "arguments not a JSON object: "


def inspect_tool_call(call: ToolCall) -> InspectToolCall:
    """A lexprobe tool call as Inspect's (arguments that were not a JSON object as a parse error)."""
    error = None if call.raw_arguments is None else NOT_AN_OBJECT + call.raw_arguments
    return InspectToolCall(id=call.id, function=call.name, arguments=dict(call.arguments), parse_error=error)


def lexprobe_tool_call(call: InspectToolCall) -> ToolCall:
    """An Inspect tool call as lexprobe's (a parse error as the raw arguments it was made of)."""
    if call.parse_error is None:
        return ToolCall(id=call.id, name=call.function, arguments=dict(call.arguments or {}))
    return ToolCall(id=call.id, name=call.function, raw_arguments=call.parse_error.removeprefix(NOT_AN_OBJECT))


def assistant_message(text: str, model: str = "", tool_calls: Iterable[ToolCall] = ()) -> ChatMessageAssistant:
    """Return an assistant turn: its text and the tool calls it asked for (`model`, when known, names who answered)."""
    calls = [inspect_tool_call(call) for call in tool_calls]
    return ChatMessageAssistant(content=text, tool_calls=calls or None, model=model or None, source="generate")


def chat_message(message: Message, model: str = "") -> ChatMessage:
    """Return one lexprobe message as the Inspect message of the same role."""
    if message.role == "system":
        return ChatMessageSystem(content=message.content)
    if message.role == "user":
        return ChatMessageUser(content=message.content)
    if message.role == "tool":
        return ChatMessageTool(content=message.content, tool_call_id=message.tool_call_id, function=message.name)
    return assistant_message(message.content, model, message.tool_calls)


def chat_messages(messages: Iterable[Message], model: str = "") -> list[ChatMessage]:
    """Return lexprobe messages as Inspect messages, in order."""
    return [chat_message(message, model) for message in messages]


def transcript_messages(transcript: Iterable[dict[str, Any]], model: str = "") -> list[ChatMessage]:
    """Return an episode's stored transcript (`Episode.transcript`, messages as JSON) as Inspect messages."""
    return chat_messages((Message.model_validate(entry) for entry in transcript), model)


def lexprobe_messages(messages: Iterable[ChatMessage]) -> tuple[Message, ...]:
    """Inspect's chat messages as lexprobe messages: text content, assistant tool calls, tool results (a tool's
    error as its text, "Error: ...")."""
    converted = []
    for message in messages:
        if isinstance(message, ChatMessageAssistant):
            calls = tuple(lexprobe_tool_call(call) for call in message.tool_calls or ())
            converted.append(Message(role="assistant", content=message.text, tool_calls=calls))
        elif isinstance(message, ChatMessageTool):
            text = f"Error: {message.error.message}" if message.error is not None else message.text
            converted.append(Message(role="tool", content=text, tool_call_id=message.tool_call_id,
                                     name=message.function))  # fmt: skip
        else:
            converted.append(Message(role=message.role, content=message.text))
    return tuple(converted)
