"""lexprobe's models inside Inspect (`--model lexprobe/SPEC`, the real inspect-ai): tool calls pass both ways
through lexprobe's engine, usage is lexprobe's, and a spec lexprobe cannot use is its own one-line error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import Sample
from inspect_ai.model import get_model
from inspect_ai.solver import generate, use_tools
from inspect_ai.tool import Tool, tool

from lexprobe.models.errors import ModelConfigError


@tool
def add() -> Tool:
    async def execute(x: int, y: int) -> int:
        """Add two numbers.

        Args:
            x: The first number.
            y: The second number.
        """
        return x + y

    return execute


def test_tool_calls_pass_both_ways(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("INSPECT_LOG_DIR", str(tmp_path / "logs"))
    script = tmp_path / "tools.jsonl"
    lines = [{"text": "adding", "tool_calls": [{"name": "add", "arguments": {"x": 1, "y": 2}}]}, {"text": "It is 3."}]
    script.write_text("".join(json.dumps(line) + "\n" for line in lines))
    task = Task(dataset=[Sample(input="What is 1 + 2?", target="3")], solver=[use_tools(add()), generate()])
    log = inspect_eval(task, model=f"lexprobe/scripted:{script}", display="none")[0]
    assert log.status == "success", log.error
    messages = log.samples[0].messages
    assert [m.role for m in messages] == ["user", "assistant", "tool", "assistant"]
    call = messages[1].tool_calls[0]
    assert (call.function, call.arguments) == ("add", {"x": 1, "y": 2})  # lexprobe's ToolCall -> Inspect's
    assert messages[2].text == "3" and messages[2].tool_call_id == call.id  # Inspect's result -> lexprobe's turn
    assert log.samples[0].output.completion == "It is 3."
    usage = log.stats.model_usage[f"lexprobe/scripted:{script}"]
    assert usage.input_tokens > 0 and usage.output_tokens > 0


async def test_repeated_sampled_requests_are_distinct_samples(tmp_path: Path) -> None:
    """Two identical requests at temperature 1 (two epochs) are lexprobe's samples 0 and 1, not one cached answer."""
    from inspect_ai.model import GenerateConfig

    script = tmp_path / "count.jsonl"
    script.write_text('{"text": "one"}\n')
    model = get_model(f"lexprobe/scripted:{script}", memoize=False)
    api = model.api
    first = await model.generate("Hi", config=GenerateConfig(temperature=1.0))
    second = await model.generate("Hi", config=GenerateConfig(temperature=1.0))
    assert first.completion == second.completion == "one"
    assert sorted(api.asked.values()) == [2]  # the second was asked as sample 1


def test_a_spec_lexprobe_cannot_use_is_its_error(tmp_path: Path) -> None:
    with pytest.raises(ModelConfigError, match="script file not found"):
        get_model(f"lexprobe/scripted:{tmp_path / 'absent.jsonl'}", memoize=False)
