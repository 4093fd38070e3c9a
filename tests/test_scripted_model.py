"""The scripted replay model: each conversation gets the script line after its assistant turns."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from lexprobe.models.errors import ModelConfigError, ModelError, TransientModelError
from lexprobe.models.registry import open_model
from lexprobe.models.scripted import ScriptedModel
from lexprobe.models.types import Message, Request, ToolCall


def write_script(tmp_path: Path, *lines: object, name: str = "turns.jsonl") -> Path:
    """Write `lines` (dicts are JSON-encoded, strings written as they are) as a script file."""
    path = tmp_path / name
    path.write_text("".join((json.dumps(line) if isinstance(line, dict) else line) + "\n" for line in lines))
    return path


def conversation(spec: str, assistant_turns: int, topic: str = "contract") -> Request:
    """A request whose history holds `assistant_turns` assistant replies."""
    messages = [
        Message(role="system", content="Answer briefly."),
        Message(role="user", content=f"About {topic}?"),
    ]
    for turn in range(assistant_turns):
        messages.append(Message(role="assistant", content=f"reply {turn}"))
        messages.append(Message(role="user", content=f"And then ({topic})?"))
    return Request(model=spec, messages=tuple(messages))


LINES = [{"text": "first"}, {"text": "second"}, {"text": "third"}, {"text": "fourth"}]


async def test_open_model_returns_a_scripted_model(tmp_path):
    """`scripted:PATH` opens a ScriptedModel that is free, named after its file."""
    spec = "scripted:" + str(write_script(tmp_path, *LINES))
    model = open_model(spec)

    assert isinstance(model, ScriptedModel)
    response = await model.generate(conversation(spec, 0))
    assert response.cost_usd == 0.0
    assert response.model == "turns.jsonl"
    assert response.finish_reason == "stop"
    assert response.usage.output_tokens == 2  # ~4 characters a token: "first"


@pytest.mark.parametrize(("assistant_turns", "expected"), [(0, "first"), (1, "second"), (2, "third"), (3, "fourth")])
async def test_replays_line_after_assistant_turns(tmp_path, assistant_turns, expected):
    """A conversation holding n assistant turns gets line n + 1."""
    spec = "scripted:" + str(write_script(tmp_path, *LINES))
    model = open_model(spec)

    response = await model.generate(conversation(spec, assistant_turns))
    assert response.text == expected


async def test_replay_ignores_tool_and_user_turns(tmp_path):
    """Only assistant turns advance the script; tool results and user turns do not."""
    spec = "scripted:" + str(write_script(tmp_path, *LINES))
    model = open_model(spec)
    call = ToolCall(id="call_0", name="search", arguments={"q": "x"})
    request = Request(
        model=spec,
        messages=(
            Message(role="user", content="go"),
            Message(role="assistant", tool_calls=(call,)),
            Message(role="tool", tool_call_id="call_0", name="search", content="a"),
            Message(role="tool", tool_call_id="call_0", name="search", content="b"),
            Message(role="user", content="more"),
        ),
    )

    assert (await model.generate(request)).text == "second"


async def test_interleaved_conversations_replay_independently(tmp_path):
    """Two conversations sharing one model, taking turns, each get their own next line."""
    spec = "scripted:" + str(write_script(tmp_path, *LINES))
    model = open_model(spec)
    order = [("a", 0), ("b", 0), ("b", 1), ("a", 1), ("a", 2), ("b", 2)]

    answers = [(await model.generate(conversation(spec, turns, topic=name))).text for name, turns in order]
    assert answers == ["first", "first", "second", "second", "third", "third"]

    concurrent = await asyncio.gather(*(model.generate(conversation(spec, n, topic=t)) for t, n in order))
    assert [response.text for response in concurrent] == answers


async def test_tool_calls_are_returned_structurally(tmp_path):
    """A line's tool_calls become ToolCalls with parsed arguments and finish reason 'tool_calls'."""
    path = write_script(
        tmp_path,
        {
            "text": "Let me check.",
            "tool_calls": [
                {"name": "search", "arguments": {"q": "lease", "limit": 2}},
                {"name": "list_exhibits"},
            ],
        },
        {"text": "Done."},
    )
    model = open_model(f"scripted:{path}")

    response = await model.generate(conversation(f"scripted:{path}", 0))
    assert response.text == "Let me check."
    assert response.finish_reason == "tool_calls"
    assert [(call.name, call.arguments) for call in response.tool_calls] == [
        ("search", {"q": "lease", "limit": 2}),
        ("list_exhibits", {}),
    ]
    assert len({call.id for call in response.tool_calls}) == 2  # ids are distinct within a turn
    assert all(call.raw_arguments is None for call in response.tool_calls)


async def test_blank_lines_are_not_turns(tmp_path):
    """Blank lines are skipped, so they never shift the replay."""
    path = write_script(tmp_path, {"text": "first"}, "", "   ", {"text": "second"})
    model = open_model(f"scripted:{path}")

    assert (await model.generate(conversation(f"scripted:{path}", 1))).text == "second"


async def test_running_out_of_lines_is_a_clear_model_error(tmp_path):
    """Asking for a turn past the end fails with a final error naming the file and the turn."""
    path = write_script(tmp_path, {"text": "only"})
    model = open_model(f"scripted:{path}")

    with pytest.raises(ModelError) as caught:
        await model.generate(conversation(f"scripted:{path}", 1))
    assert not isinstance(caught.value, TransientModelError)  # retrying cannot add lines
    message = str(caught.value)
    assert str(path) in message
    assert "1 turn(s)" in message
    assert "turn 2" in message


@pytest.mark.parametrize(
    ("lines", "bad_line", "why"),
    [
        (['{"text": "ok"}', '{"text": "unterminated'], 2, "not valid JSON"),
        (['["a", "list"]'], 1, "expected a JSON object"),
        (['"just text"'], 1, "expected a JSON object"),
        (['{"text": "ok"}', '{"text": "x", "reply": "y"}'], 2, "unknown key"),
        (['{"text": 42}'], 1, "'text' must be a string"),
        (['{"tool_calls": [{"arguments": {"q": "x"}}]}'], 1, "needs a string 'name'"),
        (['{"tool_calls": ["search"]}'], 1, "needs a string 'name'"),
        (['{"tool_calls": [{"name": "search", "arguments": "q=x"}]}'], 1, "arguments must be an object"),
        (['{"text": "ok"}', "", '{"text": "ok", "oops": 1}'], 3, "unknown key"),  # blank lines still count
    ],
)
def test_malformed_script_names_file_and_line(tmp_path, lines, bad_line, why):
    """A malformed line is a config error that points at file:line and says what is wrong."""
    path = write_script(tmp_path, *lines)

    with pytest.raises(ModelConfigError) as caught:
        open_model(f"scripted:{path}")
    message = str(caught.value)
    assert f"{path}:{bad_line}:" in message
    assert why in message


def test_missing_script_file_is_a_config_error(tmp_path):
    """open_model refuses a script file that does not exist, naming it."""
    missing = tmp_path / "absent.jsonl"

    with pytest.raises(ModelConfigError, match="script file not found") as caught:
        open_model(f"scripted:{missing}")
    assert str(missing) in str(caught.value)


async def test_when_lines_answer_matching_conversations_and_leave_the_positions_alone(tmp_path) -> None:
    script = tmp_path / "s.jsonl"
    script.write_text('{"text": "first"}\n{"when": "VERDICT", "text": "keyed"}\n{"text": "second"}\n')
    model = open_model(f"scripted:{script}")
    fresh = Request(model=f"scripted:{script}", messages=(Message(role="user", content="hello"),))
    assert (await model.generate(fresh)).text == "first"
    later = fresh.model_copy(update={"messages": (*fresh.messages, Message(role="assistant", content="first"),
                                                  Message(role="user", content="go on"))})  # fmt: skip
    assert (await model.generate(later)).text == "second"
    keyed = Request(model=f"scripted:{script}", messages=(Message(role="user", content="the VERDICT turn"),))
    assert (await model.generate(keyed)).text == "keyed"
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"when": "", "text": "x"}\n')
    with pytest.raises(ModelConfigError, match="'when' must be a non-empty string"):
        open_model(f"scripted:{bad}")
