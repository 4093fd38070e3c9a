"""The floor of the peer benchmark: the same requests sent by the thinnest client there is, no tool at all.

Usage: python bench/peers_floor.py BASE_URL PROMPTS_JSONL CONNECTIONS

Reads the prompts the bench wrote from lexprobe's requests (id, messages, max_tokens, temperature, seed, stop), posts
each to BASE_URL/chat/completions with one `httpx.AsyncClient` and CONNECTIONS requests in flight, reads the JSON
answer, and prints one JSON list: per prompt its id, messages, sent settings, input and output token counts and text.
No cache, no store, no scoring, no progress: what is left of its wall time is Python's start-up, httpx, and the
server. The bench checks that it did the same work as the two tools.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import httpx


async def send_all(base_url: str, prompts: list[dict[str, Any]], connections: int) -> list[dict[str, Any]]:
    """Send every prompt, `connections` at a time; return the answers in prompt order."""
    queue: asyncio.Queue[int] = asyncio.Queue()
    for index in range(len(prompts)):
        queue.put_nowait(index)
    answers: list[dict[str, Any] | None] = [None] * len(prompts)
    limits = httpx.Limits(max_connections=connections, max_keepalive_connections=connections)
    async with httpx.AsyncClient(base_url=base_url, timeout=None, limits=limits) as client:

        async def worker() -> None:
            while not queue.empty():
                index = queue.get_nowait()
                prompt = prompts[index]
                body = {
                    "model": "smollm2",
                    "messages": prompt["messages"],
                    "max_tokens": prompt["max_tokens"],
                    "temperature": prompt["temperature"],
                }
                if prompt.get("seed") is not None:
                    body["seed"] = prompt["seed"]
                if prompt.get("stop"):
                    body["stop"] = prompt["stop"]
                reply = await client.post("/chat/completions", json=body)
                reply.raise_for_status()
                data = reply.json()
                answers[index] = {
                    "id": prompt["id"],
                    "messages": prompt["messages"],
                    "params": {"max_tokens": body["max_tokens"], "temperature": body["temperature"]},
                    "input_tokens": data["usage"]["prompt_tokens"],
                    "output_tokens": data["usage"]["completion_tokens"],
                    "answer": data["choices"][0]["message"]["content"],
                }

        await asyncio.gather(*(worker() for _ in range(connections)))
    return [answer for answer in answers if answer is not None]


def main() -> None:
    """Send the prompts; print the answers as JSON."""
    base_url, prompts_path, connections = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3])
    prompts = [json.loads(line) for line in prompts_path.read_text().splitlines() if line.strip()]
    print(json.dumps(asyncio.run(send_all(base_url, prompts, connections))))


if __name__ == "__main__":
    main()
