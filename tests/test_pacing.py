"""At one connection, nothing of lexprobe's runs while the model server computes (the pacing cost of issue 17).

Against a real `python -m llama_cpp.server` (the `llama_server` fixture), through the real engine, run store,
response cache and OpenAI backend. An httpx event hook on the backend's own HTTP client sees each request leave and
each reply's headers arrive; it asserts the order the engine guarantees, never a duration:

- request k leaves only once answers 0..k-1 are committed to the run store (the bookkeeping of a reply is done
  before the next request, so it never overlaps the server's work);
- the progress display is not repainted while a request is in flight (it draws when an answer arrives);
- the answers are identical to the same requests sent directly to the server.
"""

from __future__ import annotations

import io
from pathlib import Path

import httpx
import pytest
from rich.console import Console

from lexprobe.engine.cache import ResponseCache
from lexprobe.engine.config import EngineConfig
from lexprobe.engine.executor import Engine
from lexprobe.engine.progress import RunProgress
from lexprobe.engine.store import RunStore
from lexprobe.models.openai_chat import OpenAIModel
from lexprobe.models.spec import parse_model_spec
from lexprobe.models.types import Request

PROMPTS = [
    "Is Marbury v. Madison, 5 U.S. 137 (1803), a real case? Answer, then explain.",
    "Is Gibbons v. Ogden, 22 U.S. 1 (1824), a real case? Answer, then explain.",
    "Is Lochner v. New York, 198 U.S. 45 (1905), a real case? Answer, then explain.",
    "Is Hadley v. Orpington, 401 U.S. 913 (1971), a real case? Answer, then explain.",
]


@pytest.mark.asyncio
async def test_one_connection_sends_after_the_previous_answer_is_committed(llama_server: str, tmp_path: Path) -> None:
    spec = f"openai-compatible/smol@{llama_server}"
    requests = [Request.from_prompt(spec, prompt, max_tokens=24, temperature=0.0) for prompt in PROMPTS]
    store = RunStore.open(tmp_path / "run")
    screen = io.StringIO()
    progress = RunProgress(enabled=True, console=Console(file=screen, force_terminal=True, width=120))
    engine = Engine(store, ResponseCache(tmp_path / "cache"), EngineConfig(concurrency=1), progress=progress)
    events: list[tuple[str, int, int]] = []  # (sent | answered, answers committed, characters drawn)

    async def sent(_: httpx.Request) -> None:
        events.append(("sent", len(store.completed_ids()), len(screen.getvalue())))

    async def answered(_: httpx.Response) -> None:
        events.append(("answered", len(store.completed_ids()), len(screen.getvalue())))

    client = httpx.AsyncClient(event_hooks={"request": [sent], "response": [answered]}, timeout=None)
    engine.models[spec] = OpenAIModel(parse_model_spec(spec), http_client=client)
    try:
        summary = await engine.run(requests)
    finally:
        await engine.aclose()
        await client.aclose()

    assert summary.sent == len(PROMPTS) and summary.failed == 0
    assert [kind for kind, _, _ in events] == ["sent", "answered"] * len(PROMPTS)
    for index in range(len(PROMPTS)):
        (_, committed_before, drawn_before), (_, committed_after, drawn_after) = events[2 * index : 2 * index + 2]
        assert committed_before == index, "a request left before the previous answer was committed"
        assert committed_after == index, "an answer was committed while its request was in flight"
        assert drawn_after == drawn_before, "the progress display was repainted while the server computed"
    assert len(screen.getvalue()) > events[-1][2], "the display draws when answers arrive"

    answers = store.responses()
    async with httpx.AsyncClient(timeout=None) as direct:
        for request in requests:
            body = {
                "model": "smol",
                "messages": [{"role": "user", "content": request.messages[0].content}],
                "max_tokens": 24,
                "temperature": 0.0,
            }
            reply = (await direct.post(llama_server + "/chat/completions", json=body)).json()
            assert answers[request.request_id].text == reply["choices"][0]["message"]["content"]
            assert answers[request.request_id].usage.output_tokens == reply["usage"]["completion_tokens"]
