"""Turn a model's tool-call argument string into a dict without losing what it sent when that fails."""

from __future__ import annotations

import json

from lexprobe.models.types import ToolCall


def tool_call_from_json(call_id: str, name: str, arguments: str | None) -> ToolCall:
    """Build a `ToolCall` from JSON-encoded arguments.

    When the arguments are not a JSON object, the call keeps empty `arguments` and the model's text in
    `raw_arguments`, so a harness can tell the model what went wrong instead of crashing.
    """
    text = arguments or "{}"
    try:
        parsed = json.loads(text)
    except json.JSONDecodeError:
        return ToolCall(id=call_id, name=name, arguments={}, raw_arguments=text)
    if not isinstance(parsed, dict):
        return ToolCall(id=call_id, name=name, arguments={}, raw_arguments=text)
    return ToolCall(id=call_id, name=name, arguments=parsed)
