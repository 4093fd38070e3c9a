"""lexprobe's messages as Inspect's `ChatMessage`s: a request's prompt, an answer, an agent's transcript."""

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

from lexprobe.models.types import Message

__all__ = ["assistant_message", "chat_message", "chat_messages", "transcript_messages"]


def assistant_message(text: str, model: str, tool_calls: Iterable[Any] = ()) -> ChatMessageAssistant:
    """Return an assistant turn: its text and the tool calls it asked for (lexprobe `ToolCall`s)."""
    calls = [InspectToolCall(id=call.id, function=call.name, arguments=dict(call.arguments)) for call in tool_calls]
    return ChatMessageAssistant(content=text, tool_calls=calls or None, model=model, source="generate")


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


def transcript_messages(transcript: Iterable[dict[str, Any]], model: str) -> list[ChatMessage]:
    """Return an episode's stored transcript (`Episode.transcript`, messages as JSON) as Inspect messages."""
    return chat_messages((Message.model_validate(entry) for entry in transcript), model)
