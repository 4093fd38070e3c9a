"""The inspect-ai side of `bench/peers.py`: one task whose samples are the exact requests lexprobe sent.

Loaded only by `inspect eval` in its own process (inspect-ai is a bench extra, never a lexprobe dependency):

    inspect eval bench/peers_inspect_task.py -T prompts=PROMPTS.jsonl [-T cache=true] --model llama-cpp-python/NAME

PROMPTS.jsonl holds one request per line as lexprobe stored it (`messages`, `max_tokens`, `temperature`, `seed`,
`stop`); every line must share the same sampling settings, which become the task's `GenerateConfig`. The scorer is
inspect's `includes()` against the expected "yes"/"no" in each line's `target` (cheap, as lexprobe's existence scorer
is).
"""

from __future__ import annotations

import json
from pathlib import Path

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessageAssistant, ChatMessageSystem, ChatMessageUser, GenerateConfig
from inspect_ai.scorer import includes
from inspect_ai.solver import generate

_ROLES = {"system": ChatMessageSystem, "user": ChatMessageUser, "assistant": ChatMessageAssistant}


@task
def peers(prompts: str, cache: bool = False) -> Task:
    """The requests in `prompts` (JSONL), generated once each at lexprobe's settings; `cache` uses inspect's cache."""
    lines = [json.loads(line) for line in Path(prompts).read_text().splitlines() if line.strip()]
    settings = {
        (line["max_tokens"], line["temperature"], line.get("seed"), tuple(line.get("stop") or ())) for line in lines
    }
    if len(settings) != 1:
        raise ValueError(f"the prompts use {len(settings)} different sampling settings; expected one")
    max_tokens, temperature, seed, stop = settings.pop()
    samples = [
        Sample(
            id=line["id"],
            input=[_ROLES[m["role"]](content=m["content"]) for m in line["messages"]],
            target=line.get("target", ""),
        )
        for line in lines
    ]
    return Task(
        dataset=MemoryDataset(samples),
        solver=generate(cache=cache),
        scorer=includes(),
        config=GenerateConfig(max_tokens=max_tokens, temperature=temperature, seed=seed, stop_seqs=list(stop) or None),
    )
