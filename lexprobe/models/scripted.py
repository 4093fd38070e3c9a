"""Scripted replay model: answers from a JSONL file, one assistant turn per line.

A request whose messages already hold n assistant turns gets line n+1, so each conversation replays exactly and
independently of every other one. Lines look like
`{"text": "...", "tool_calls": [{"name": "search", "arguments": {"q": "x"}}]}`; either key may be absent.
A line may also carry `"when": "some text"`: it answers any request whose last user message contains that text
(the first such line wins) and is left out of the positional count - how a script answers a second conversation,
such as the verdict turn of an investigation, that starts afresh.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from lexprobe.models.base import Model
from lexprobe.models.errors import ModelConfigError, ModelError
from lexprobe.models.spec import ModelSpec
from lexprobe.models.types import Request, Response, ToolCall, Usage


def _is_text(value: Any) -> bool:
    """Return whether `value` (a string, or JSON-like data of strings) encodes as UTF-8: a lone surrogate such as
    the JSON escape "\\ud800" does not, and could never be stored or sent."""
    try:
        (value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _parse_turn(raw: Any, where: str, turn: int) -> tuple[str, tuple[ToolCall, ...]]:
    if not isinstance(raw, dict):
        raise ModelConfigError(f"{where}: expected a JSON object, got {type(raw).__name__}")
    unknown = set(raw) - {"text", "tool_calls", "when"}
    if unknown:
        raise ModelConfigError(f"{where}: unknown key(s) {sorted(unknown)}; allowed: text, tool_calls, when")
    if "when" in raw and (not isinstance(raw["when"], str) or not raw["when"]):
        raise ModelConfigError(f"{where}: 'when' must be a non-empty string")
    text = raw.get("text", "")
    if not isinstance(text, str):
        raise ModelConfigError(f"{where}: 'text' must be a string")
    if not _is_text(raw):
        raise ModelConfigError(f"{where}: holds a lone surrogate escape (such as \\ud800), which is not text")
    calls = []
    for index, call in enumerate(raw.get("tool_calls", []) or []):
        if not isinstance(call, dict) or not isinstance(call.get("name"), str):
            raise ModelConfigError(f"{where}: tool_calls[{index}] needs a string 'name'")
        arguments = call.get("arguments", {})
        if not isinstance(arguments, dict):
            raise ModelConfigError(f"{where}: tool_calls[{index}].arguments must be an object")
        calls.append(ToolCall(id=f"call_{turn}_{index}", name=call["name"], arguments=arguments))
    return text, tuple(calls)


def load_script_lines(path: Path) -> list[tuple[str, tuple[ToolCall, ...], str | None]]:
    """Read and validate a script file; returns (text, tool calls, when) per line, in order.

    Raises `ModelConfigError` naming the file and line of the first malformed line.
    """
    turns = []
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ModelConfigError(f"cannot read script {path}: {exc.strerror or exc}") from None
    for number, raw_line in enumerate(data.split(b"\n"), start=1):
        where = f"{path}:{number}"
        try:
            line = raw_line.decode("utf-8")
        except UnicodeDecodeError as exc:
            byte = raw_line[exc.start]
            raise ModelConfigError(f"{where}: not valid UTF-8 text (byte 0x{byte:02x}); is it a binary file?") from None
        if not line.strip():
            continue
        try:
            raw = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ModelConfigError(f"{where}: not valid JSON ({exc.msg})") from None
        except RecursionError:
            raise ModelConfigError(f"{where}: not valid JSON (nested too deep)") from None
        text, calls = _parse_turn(raw, where, len(turns) + 1)
        turns.append((text, calls, raw.get("when") if isinstance(raw, dict) else None))
    return turns


class ScriptedModel(Model):
    """Replays a script; deterministic, free and instant."""

    default_concurrency = 64
    default_timeout_s = None

    def __init__(self, spec: ModelSpec) -> None:
        super().__init__(spec)
        assert spec.path is not None
        self.path = Path(spec.path)
        lines = load_script_lines(self.path)
        self.turns = [(text, calls) for text, calls, when in lines if when is None]
        self.keyed = [(when, text, calls) for text, calls, when in lines if when is not None]

    async def generate(self, request: Request) -> Response:
        """Return the script line after the assistant turns already in `request.messages`."""
        last_user = next((m.content for m in reversed(request.messages) if m.role == "user"), "")
        keyed = next(((text, calls) for when, text, calls in self.keyed if when in last_user), None)
        position = sum(1 for message in request.messages if message.role == "assistant")
        if keyed is None and position >= len(self.turns):
            raise ModelError(
                f"script {self.path} has {len(self.turns)} turn(s); the conversation asks for turn {position + 1}"
            )
        text, calls = keyed if keyed is not None else self.turns[position]
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
