"""Scripted replay model: answers from a JSONL file, one assistant turn per line.

A request whose messages already hold n assistant turns gets line n+1, so each conversation replays exactly and
independently of every other one. Lines look like
`{"text": "...", "tool_calls": [{"name": "search", "arguments": {"q": "x"}}]}`; either key may be absent.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from lexprobe.models.base import Model
from lexprobe.models.errors import ModelConfigError, ModelError
from lexprobe.models.spec import ModelSpec
from lexprobe.models.types import Request, Response, ToolCall, Usage


def _parse_turn(raw: Any, where: str, turn: int) -> tuple[str, tuple[ToolCall, ...]]:
    if not isinstance(raw, dict):
        raise ModelConfigError(f"{where}: expected a JSON object, got {type(raw).__name__}")
    unknown = set(raw) - {"text", "tool_calls"}
    if unknown:
        raise ModelConfigError(f"{where}: unknown key(s) {sorted(unknown)}; allowed: text, tool_calls")
    text = raw.get("text", "")
    if not isinstance(text, str):
        raise ModelConfigError(f"{where}: 'text' must be a string")
    calls = []
    for index, call in enumerate(raw.get("tool_calls", []) or []):
        if not isinstance(call, dict) or not isinstance(call.get("name"), str):
            raise ModelConfigError(f"{where}: tool_calls[{index}] needs a string 'name'")
        arguments = call.get("arguments", {})
        if not isinstance(arguments, dict):
            raise ModelConfigError(f"{where}: tool_calls[{index}].arguments must be an object")
        calls.append(ToolCall(id=f"call_{turn}_{index}", name=call["name"], arguments=arguments))
    return text, tuple(calls)


def load_script(path: Path) -> list[tuple[str, tuple[ToolCall, ...]]]:
    """Read and validate a script file; returns its turns in order.

    Raises `ModelConfigError` naming the file and line of the first malformed line.
    """
    turns = []
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            where = f"{path}:{number}"
            try:
                raw = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ModelConfigError(f"{where}: not valid JSON ({exc.msg})") from None
            turns.append(_parse_turn(raw, where, len(turns) + 1))
    return turns


class ScriptedModel(Model):
    """Replays a script; deterministic, free and instant."""

    default_concurrency = 64
    default_timeout_s = None

    def __init__(self, spec: ModelSpec) -> None:
        super().__init__(spec)
        assert spec.path is not None
        self.path = Path(spec.path)
        self.turns = load_script(self.path)

    async def generate(self, request: Request) -> Response:
        """Return the script line after the assistant turns already in `request.messages`."""
        position = sum(1 for message in request.messages if message.role == "assistant")
        if position >= len(self.turns):
            raise ModelError(
                f"script {self.path} has {len(self.turns)} turn(s); the conversation asks for turn {position + 1}"
            )
        text, calls = self.turns[position]
        input_chars = sum(len(message.content) for message in request.messages)
        usage = Usage(input_tokens=(input_chars + 3) // 4, output_tokens=(len(text) + 3) // 4)
        return Response(
            text=text,
            tool_calls=calls,
            finish_reason="tool_calls" if calls else "stop",
            usage=usage,
            cost_usd=self.cost(usage),
            model=self.spec.name,
        )
