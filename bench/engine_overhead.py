"""Benchmark: what the engine costs on top of the model, and how fast it replays cached answers.

1. Overhead. 200 short prompts to the embedded model, in interleaved blocks: a block sent directly to
   llama_cpp (`Llama.reset()` + `create_chat_completion`), then the next block of the same size through the
   engine (run store on disk, response cache on, retries armed, telemetry written). Both paths share one loaded
   model, so the ratio engine/direct isolates the engine's own cost. Target: <= 1.03.
2. Cache replay. 10,000 requests whose answers are already in the response cache, run through the engine into a
   fresh run store. Target: under 2 s.

Usage: python bench/engine_overhead.py [--prompts 200] [--block 10] [--max-tokens 16] [--replay 10000] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path

from lexprobe.engine import Engine, EngineConfig, ResponseCache, RunStore
from lexprobe.engine.sqlite_util import transaction
from lexprobe.models import Request, Response, Usage, open_model

SUBJECTS = (
    "contract formation",
    "adverse possession",
    "hearsay",
    "qualified immunity",
    "summary judgment",
    "personal jurisdiction",
    "promissory estoppel",
    "res judicata",
    "the parol evidence rule",
    "strict liability",
)
TEMPLATES = (
    "Define {} in one sentence.",
    "Give one example of {}.",
    "Which court usually decides questions of {}?",
    "Name a famous case about {}.",
)


def prompts(count: int) -> list[str]:
    """Return `count` distinct short legal prompts."""
    items = [t.format(s) for t in TEMPLATES for s in SUBJECTS]
    out = []
    round_number = 0
    while len(out) < count:
        for item in items:
            out.append(item if round_number == 0 else f"({round_number}) {item}")
            if len(out) == count:
                break
        round_number += 1
    return out


async def measure_overhead(count: int, block: int, max_tokens: int, folder: Path) -> dict:
    model = open_model("local")
    llm = model._load()  # the same loaded weights for both paths
    requests = [Request.from_prompt("local", p, max_tokens=max_tokens) for p in prompts(count)]
    store = RunStore.open(folder / "overhead-run")
    cache = ResponseCache(folder / "overhead-cache")
    engine = Engine(store, cache, EngineConfig(progress=False))
    engine.models["local"] = model
    direct_s = engine_s = 0.0
    direct_tokens = engine_tokens = 0
    for start in range(0, count, 2 * block):
        direct_block = requests[start : start + block]
        engine_block = requests[start + block : start + 2 * block]
        began = time.perf_counter()
        for request in direct_block:
            llm.reset()
            out = llm.create_chat_completion(
                messages=[{"role": m.role, "content": m.content} for m in request.messages],
                temperature=0.0,
                max_tokens=max_tokens,
            )
            direct_tokens += out["usage"]["completion_tokens"]
        direct_s += time.perf_counter() - began
        began = time.perf_counter()
        summary = await engine.run(engine_block)
        engine_s += time.perf_counter() - began
        engine_tokens += summary.usage.output_tokens
    await engine.aclose()
    # Normalize by generated tokens: the two halves are different prompts and may stop at different lengths.
    direct_per_token = direct_s / max(direct_tokens, 1)
    engine_per_token = engine_s / max(engine_tokens, 1)
    return {
        "prompts": count,
        "block": block,
        "direct_s": round(direct_s, 3),
        "engine_s": round(engine_s, 3),
        "direct_output_tokens": direct_tokens,
        "engine_output_tokens": engine_tokens,
        "overhead_ratio_per_token": round(engine_per_token / direct_per_token, 4),
    }


def fill_cache(cache: ResponseCache, requests: list[Request]) -> None:
    """Store one answer per request in a single transaction (setup, not timed)."""
    response = Response(text="cached answer", usage=Usage(input_tokens=20, output_tokens=5), finish_reason="stop")
    body = response.model_dump_json()
    with transaction(cache.conn) as conn:
        conn.executemany(
            "INSERT OR IGNORE INTO responses VALUES (?, ?, ?, ?)",
            [(r.cache_key(), r.model, body, time.time()) for r in requests],
        )


async def measure_replay(count: int, folder: Path) -> dict:
    requests = [Request.from_prompt("local", f"Cached question number {i}?", max_tokens=8) for i in range(count)]
    cache = ResponseCache(folder / "replay-cache")
    fill_cache(cache, requests)
    store = RunStore.open(folder / "replay-run")
    engine = Engine(store, cache, EngineConfig(progress=False))
    began = time.perf_counter()
    summary = await engine.run(requests)
    elapsed = time.perf_counter() - began
    await engine.aclose()
    assert summary.cache_hits == count and summary.sent == 0, summary
    assert store.counts()["completed"] == count
    return {"requests": count, "replay_s": round(elapsed, 3), "per_request_us": round(elapsed / count * 1e6, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--prompts", type=int, default=200)
    parser.add_argument("--block", type=int, default=10)
    parser.add_argument("--max-tokens", type=int, default=16)
    parser.add_argument("--replay", type=int, default=10_000)
    parser.add_argument("--json", action="store_true", help="print the results as one JSON object")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="lexprobe-bench-") as tmp:
        folder = Path(tmp)
        replay = asyncio.run(measure_replay(args.replay, folder))
        print(f"cache replay: {replay}", file=sys.stderr)
        overhead = asyncio.run(measure_overhead(args.prompts, args.block, args.max_tokens, folder))
        print(f"overhead: {overhead}", file=sys.stderr)
    result = {"overhead": overhead, "cache_replay": replay}
    if args.json:
        print(json.dumps(result))
    else:
        print(f"engine/direct time per generated token: {overhead['overhead_ratio_per_token']:.4f} (target <= 1.03)")
        print(f"replay of {replay['requests']} cached responses: {replay['replay_s']:.3f} s (target < 2 s)")


if __name__ == "__main__":
    main()
