"""Benchmark: what the engine costs on top of the model, and how fast it replays cached answers.

1. Overhead. 200 short prompts to the embedded model, each sent twice: directly to llama_cpp (`Llama.reset()` +
   `create_chat_completion`) and through the engine (run store on disk, response cache on but cold, retries
   armed, telemetry written). Blocks of 10 prompts alternate which path goes first (ABBA), and both paths share
   one loaded model, so the ratio engine/direct isolates the engine's own cost: the engine's model keeps no prompt
   prefix between calls (`prefix_reuse=False`; the direct path resets before each call), so both evaluate the same
   prompt tokens (checked), and both paths must give identical answers: the bench fails (exit 1, the differing
   answers printed) unless every answer is the same on both paths. Target: <= 1.03.
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

from lexprobe.engine.cache import ResponseCache
from lexprobe.engine.config import EngineConfig
from lexprobe.engine.executor import Engine
from lexprobe.engine.sqlite_util import transaction
from lexprobe.engine.store import RunStore
from lexprobe.models.registry import open_model
from lexprobe.models.types import Request, Response, Usage

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
    """Send the same prompts both ways, block by block, alternating which path goes first (ABBA)."""
    model = open_model("local")
    # The same prompt evaluation on both paths, so the ratio is the engine's own cost: the direct path resets the
    # model before each prompt, so the engine's model must not keep a shared prompt prefix either (that saving is the
    # model's, measured by bench/embedded_prefix.py).
    model.prefix_reuse = False
    llm = model._load()  # the same loaded weights for both paths
    requests = [Request.from_prompt("local", p, max_tokens=max_tokens) for p in prompts(count)]
    store = RunStore.open(folder / "overhead-run")
    cache = ResponseCache(folder / "overhead-cache")
    engine = Engine(store, cache, EngineConfig(progress=False))
    engine.models["local"] = model
    timings = {"direct": 0.0, "engine": 0.0}
    direct_texts: dict[str, str] = {}

    def run_direct(batch: list[Request]) -> None:
        for request in batch:
            llm.reset()
            out = llm.create_chat_completion(
                messages=[{"role": m.role, "content": m.content} for m in request.messages],
                temperature=0.0,
                seed=request.seed if request.seed is not None else int(request.cache_key()[:8], 16),
                max_tokens=max_tokens,
            )
            direct_texts[request.request_id] = out["choices"][0]["message"]["content"] or ""

    for number, start in enumerate(range(0, count, block)):
        batch = requests[start : start + block]
        order = ("direct", "engine") if number % 2 == 0 else ("engine", "direct")
        for path in order:
            began = time.perf_counter()
            if path == "direct":
                run_direct(batch)
            else:
                summary = await engine.run(batch)
                assert summary.sent == len(batch), summary
            timings[path] += time.perf_counter() - began
    await engine.aclose()
    stored = store.responses()
    differing = [r for r in requests if stored[r.request_id].text != direct_texts[r.request_id]]
    if differing:  # the ratio compares like with like only when both paths did the same work
        shown = "\n".join(
            f"  {r.messages[-1].content!r}: direct {direct_texts[r.request_id]!r}, engine {stored[r.request_id].text!r}"
            for r in differing[:5]
        )
        raise SystemExit(f"{len(differing)} of {count} answers differ between the two paths:\n{shown}")
    same = count
    reused = getattr(model, "reused_prompt_tokens", 0)
    if reused:
        raise SystemExit(
            f"the engine's model reused {reused} prompt tokens: the paths did not evaluate the same prompts"
        )
    return {
        "prompts": count,
        "block": block,
        "max_tokens": max_tokens,
        "direct_s": round(timings["direct"], 3),
        "engine_s": round(timings["engine"], 3),
        "overhead_ratio": round(timings["engine"] / timings["direct"], 4),
        "identical_answers": same,
        "engine_prompt_tokens_evaluated": getattr(model, "prompt_tokens", None),
    }


def fill_cache(cache: ResponseCache, requests: list[Request]) -> None:
    """Store one answer per request in a single transaction (setup, not timed)."""
    response = Response(text="cached answer", usage=Usage(input_tokens=20, output_tokens=5), finish_reason="stop")
    body = response.model_dump_json()
    with transaction(cache.conn) as conn:
        conn.executemany(
            "INSERT OR IGNORE INTO responses VALUES (?, ?, ?, ?)",
            [(r.response_key(), r.model, body, time.time()) for r in requests],
        )


async def measure_replay(count: int, folder: Path) -> dict:
    def replay_requests() -> list[Request]:
        return [Request.from_prompt("local", f"Cached question number {i}?", max_tokens=8) for i in range(count)]

    cache = ResponseCache(folder / "replay-cache")
    fill_cache(cache, replay_requests())  # other objects: the timed run must compute its own (memoized) keys
    requests = replay_requests()
    store = RunStore.open(folder / "replay-run")
    engine = Engine(store, cache, EngineConfig(progress=False))
    began = time.perf_counter()
    summary = await engine.run(requests)
    elapsed = time.perf_counter() - began
    await engine.aclose()
    assert summary.cache_hits == count and summary.sent == 0, summary
    assert store.counts()["completed"] == count
    return {"requests": count, "replay_s": round(elapsed, 3), "per_request_us": round(elapsed / count * 1e6, 1)}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--prompts", type=int, default=200)
    parser.add_argument("--block", type=int, default=10)
    parser.add_argument("--max-tokens", type=int, default=16)
    parser.add_argument("--replay", type=int, default=10_000)
    parser.add_argument("--json", action="store_true", help="print the results as one JSON object")
    args = parser.parse_args(argv)
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
        print(f"engine/direct wall time: {overhead['overhead_ratio']:.4f} (target <= 1.03)")
        print(f"identical answers: {overhead['identical_answers']}/{overhead['prompts']}")
        print(f"replay of {replay['requests']} cached responses: {replay['replay_s']:.3f} s (target < 2 s)")


if __name__ == "__main__":
    main()
