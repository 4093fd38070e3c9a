"""Benchmark: the embedded model's prompt-prefix reuse, and the demo's throughput against llama.cpp's own.

1. Few-shot run. `--fewshot` (40) distinct few-shot Supreme Court prompts of three tasks (existence, citation,
   court), rendered from the hallucination templates for cases sampled from the real case database, in the order a
   hallucination run sends them (task by task), greedy, each task's own max_tokens. Two sides, each with its own
   loaded embedded model: lexprobe's `LlamaCppModel` with prefix reuse (the default) and the same model reset
   before every call (`prefix_reuse=False`, what lexprobe did before). Blocks of `--block` prompts alternate which
   side goes first (ABBA); each side's model keeps its cache across blocks, as in one run. Loading the weights is
   not timed (one untimed call per side first). Both sides must give identical answers (text, finish reason, token
   counts), else the bench fails. Goal: reuse >= 2x.
2. Demo throughput. The requests the demo sends for its hallucination profile (every task, Supreme Court,
   `--demo-cases` cases, `--demo-styles`, K = 3 calibration samples; the contradiction judge's requests depend on the
   answers and are left out) through lexprobe's engine (cold response cache, run store on disk) with the embedded
   model, against "llama.cpp's own": llama-cpp-python called directly, `Llama.reset()` + `create_chat_completion`
   with the same parameters (temperature, seed, max_tokens, stop), one plain `Llama` with llama-cpp-python's defaults
   (n_batch 512) and the same context size and threads. Blocks alternate as above. Throughput = generated tokens per
   wall-clock second; the answers must be identical. Goal: lexprobe >= 0.9x llama.cpp's own.
   `--auto-reuse` adds, for information, llama-cpp-python without reset (its own longest-prefix reuse, which cuts
   the prefix at any token and so does not promise answers identical to a fresh call).

0. Chunk size. Prompt evaluation (prefill) throughput of the few-shot prompts, each evaluated from an empty cache in
   chunks of each `--chunks` size (rounds alternate the sizes' order): the chunk is also the granularity of the
   reused prefix, so a smaller one reuses more of a shared prefix, but may evaluate prompts more slowly.

Usage: python bench/embedded_prefix.py [--chunks 16,32,64,128] [--fewshot 40] [--tasks existence,citation,court]
           [--block 10] [--demo-cases 4] [--demo-styles zero] [--auto-reuse] [--skip-fewshot] [--skip-demo]
           [--db PATH] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from lexprobe.caselaw.build import build_database
from lexprobe.caselaw.paths import data_root
from lexprobe.caselaw.query import CaseDatabase
from lexprobe.demo import demo_settings
from lexprobe.engine.cache import ResponseCache
from lexprobe.engine.config import EngineConfig
from lexprobe.engine.executor import Engine
from lexprobe.engine.store import RunStore
from lexprobe.hallucination.run.items import plan_items
from lexprobe.hallucination.tasks import TASKS
from lexprobe.models.local import DEFAULT_CONTEXT, PREFILL_CHUNK, LlamaCppModel, derived_seed
from lexprobe.models.spec import parse_model_spec
from lexprobe.models.types import Request

FEWSHOT_TASKS = ("existence", "citation", "court")
Answer = tuple[str, int, int]  # text, prompt tokens, generated tokens


def fewshot_requests(db: CaseDatabase, count: int, tasks: tuple[str, ...] = FEWSHOT_TASKS) -> list[Request]:
    """Return `count` distinct greedy few-shot requests of `tasks`, task by task as a run sends them."""
    per_task = -(-count // len(tasks))
    plan = plan_items(db, [TASKS[t] for t in tasks], ["scotus"], ["few"], per_task, 47)
    by_task = {task: [i for i in plan.items if i.task == task][:per_task] for task in tasks}
    requests = [r for task in tasks for item in by_task[task] for r in item.requests("local")][:count]
    if len({r.messages for r in requests}) != count:
        raise SystemExit(f"only {len({r.messages for r in requests})} distinct few-shot prompts; the database is small")
    return requests


def demo_requests(db: CaseDatabase, cases: int, styles: tuple[str, ...]) -> list[Request]:
    """Return the hallucination requests of the demo (before the judge's), in the order it sends them."""
    settings = demo_settings("local", cases, styles)
    plan = plan_items(db, settings.tasks, settings.levels, settings.styles, settings.n, settings.seed, settings.samples)
    return [r for item in plan.items for r in item.requests("local")]


Side = Callable[[list[Request]], Awaitable[None]]


async def alternate(requests: list[Request], block: int, sides: dict[str, Side]) -> dict[str, float]:
    """Run every block of `requests` on every side, rotating which side goes first; return seconds per side."""
    seconds = dict.fromkeys(sides, 0.0)
    names = list(sides)
    for number, start in enumerate(range(0, len(requests), block)):
        batch = requests[start : start + block]
        shift = number % len(names)
        for name in names[shift:] + names[:shift]:
            began = time.perf_counter()
            await sides[name](batch)
            seconds[name] += time.perf_counter() - began
    return seconds


def check_identical(requests: list[Request], answers: dict[str, dict[str, Answer]], reference: str) -> int:
    """Exit unless every side gave `reference`'s answer to every request; return the number of answers compared."""
    for side, got in answers.items():
        differing = [r for r in requests if got[r.request_id] != answers[reference][r.request_id]]
        if differing:
            shown = "\n".join(
                f"  {r.request_id}: {reference} {answers[reference][r.request_id]!r}, {side} {got[r.request_id]!r}"
                for r in differing[:5]
            )
            raise SystemExit(f"{len(differing)} of {len(requests)} answers differ ({side} vs {reference}):\n{shown}")
    return len(requests)


def model_side(model: LlamaCppModel, answers: dict[str, Answer], timings: dict[str, tuple[float, int]]) -> Side:
    """Return a side that answers a block through `model.generate`, recording the answers and, per request, the
    seconds it took and the prompt tokens it reused."""

    async def run(batch: list[Request]) -> None:
        for request in batch:
            began = time.perf_counter()
            response = await model.generate(request)
            timings[request.request_id] = (time.perf_counter() - began, model.last_reused_prompt_tokens)
            answers[request.request_id] = (response.text, response.usage.input_tokens, response.usage.output_tokens)

    return run


def prompt_tokens(llm: Any, request: Request) -> list[int]:
    """Return the tokens llama-cpp-python's chat completion evaluates for `request` (template applied)."""
    captured: list[int] = []

    class Captured(Exception):
        """Raised once the prompt tokens are captured, before anything is evaluated."""

    def capture(tokens: list[int], *args: Any, **kwargs: Any) -> Any:
        captured.extend(tokens)
        raise Captured

    generate = llm.generate
    llm.generate = capture
    try:
        llm.create_chat_completion(messages=[{"role": m.role, "content": m.content} for m in request.messages])
    except Captured:
        pass
    finally:
        llm.generate = generate
    return captured


def measure_chunks(db: CaseDatabase, count: int, tasks: tuple[str, ...], chunks: list[int], rounds: int = 3) -> dict:
    """Prefill throughput (prompt tokens per second) of the few-shot prompts per chunk size, each prompt evaluated
    from an empty cache; `rounds` rounds, each with the sizes in a rotated order."""
    from llama_cpp import Llama

    model = LlamaCppModel(parse_model_spec("local"))
    llm = Llama(model_path=model.model_path, n_ctx=DEFAULT_CONTEXT, n_threads=model.n_threads,
                n_threads_batch=model.n_threads, verbose=False)  # fmt: skip
    prompts = [prompt_tokens(llm, request) for request in fewshot_requests(db, count, tasks)]
    seconds = dict.fromkeys(chunks, 0.0)
    for number in range(rounds):
        shift = number % len(chunks)
        for chunk in chunks[shift:] + chunks[:shift]:
            began = time.perf_counter()
            for tokens in prompts:
                llm.reset()
                for start in range(0, len(tokens), chunk):
                    llm.eval(tokens[start : start + chunk])
            seconds[chunk] += time.perf_counter() - began
    llm.close()
    total = sum(len(tokens) for tokens in prompts) * rounds
    return {"prompts": len(prompts), "rounds": rounds, "prompt_tokens": total} | {
        f"chunk {chunk} tokens/s": round(total / spent, 1) for chunk, spent in seconds.items()
    }


async def measure_fewshot(db: CaseDatabase, count: int, block: int, tasks: tuple[str, ...]) -> dict:
    """Few-shot prompts with prefix reuse vs reset before every call."""
    requests = fewshot_requests(db, count, tasks)
    spec = parse_model_spec("local")
    models = {"reuse": LlamaCppModel(spec), "reset": LlamaCppModel(spec, prefix_reuse=False)}
    warm = Request.from_prompt("local", "Say hello.", max_tokens=1)
    for model in models.values():  # load the weights, untimed
        await model.generate(warm)
    answers: dict[str, dict[str, Answer]] = {name: {} for name in models}
    timings: dict[str, dict[str, tuple[float, int]]] = {name: {} for name in models}
    sides = {name: model_side(m, answers[name], timings[name]) for name, m in models.items()}
    seconds = await alternate(requests, block, sides)
    same = check_identical(requests, answers, "reset")
    reuse = models["reuse"]
    prompt_tokens = sum(a[1] for a in answers["reuse"].values())
    reused = reuse.reused_prompt_tokens
    for model in models.values():
        await model.aclose()
    per_task = {}
    for task in tasks:
        ids = [r.request_id for r in requests if r.request_id.split("|")[0] == task]
        spent = {name: sum(timings[name][i][0] for i in ids) for name in models}
        per_task[task] = {
            "prompts": len(ids),
            "mean_prompt_tokens": round(sum(answers["reuse"][i][1] for i in ids) / len(ids)),
            "mean_output_tokens": round(sum(answers["reuse"][i][2] for i in ids) / len(ids), 1),
            "reused_share": round(
                sum(timings["reuse"][i][1] for i in ids) / sum(answers["reuse"][i][1] for i in ids), 3
            ),
            "speedup": round(spent["reset"] / spent["reuse"], 2),
        }
    return {
        "prompts": len(requests),
        "distinct_prompts": len({r.messages for r in requests}),
        "tasks": list(tasks),
        "block": block,
        "chunk": PREFILL_CHUNK,
        "prompt_tokens": prompt_tokens,
        "output_tokens": sum(a[2] for a in answers["reuse"].values()),
        "reused_prompt_tokens": reused,
        "reused_share": round(reused / prompt_tokens, 3),
        "reuse_s": round(seconds["reuse"], 2),
        "reset_s": round(seconds["reset"], 2),
        "speedup": round(seconds["reset"] / seconds["reuse"], 2),
        "identical_answers": same,
        "per_task": per_task,
    }


def direct_side(llm: Any, answers: dict[str, Answer], reset: bool) -> Side:
    """Return a side that calls llama-cpp-python directly (blocking, as a plain loop would) with the parameters
    lexprobe's backend sends."""

    async def run(batch: list[Request]) -> None:
        for request in batch:
            if reset:
                llm.reset()
            out = llm.create_chat_completion(
                messages=[{"role": m.role, "content": m.content} for m in request.messages],
                temperature=0.0 if request.temperature is None else request.temperature,
                seed=derived_seed(request),
                max_tokens=request.max_tokens,
                stop=list(request.stop) or None,
            )
            usage = out["usage"]
            text = out["choices"][0]["message"].get("content") or ""
            answers[request.request_id] = (text, usage["prompt_tokens"], usage["completion_tokens"])

    return run


def engine_side(engine: Engine, store: RunStore, answers: dict[str, Answer]) -> Side:
    """Return a side that sends a block through lexprobe's engine (as the demo does) and records the answers."""

    async def run(batch: list[Request]) -> None:
        summary = await engine.run(batch)
        assert summary.sent == len(batch), summary
        stored = store.responses()
        for request in batch:
            response = stored[request.request_id]
            answers[request.request_id] = (response.text, response.usage.input_tokens, response.usage.output_tokens)

    return run


async def measure_demo(
    db: CaseDatabase, cases: int, styles: tuple[str, ...], block: int, auto: bool, folder: Path
) -> dict:
    """The demo's requests through lexprobe's engine vs llama-cpp-python directly with reset (and without)."""
    from llama_cpp import Llama

    requests = demo_requests(db, cases, styles)
    model = LlamaCppModel(parse_model_spec("local"))
    warm = Request.from_prompt("local", "Say hello.", max_tokens=1)
    await model.generate(warm)  # load the weights, untimed
    store = RunStore.open(folder / "demo-run")
    engine = Engine(store, ResponseCache(folder / "demo-cache"), EngineConfig(progress=False))
    engine.models["local"] = model
    loaded = {"lexprobe": model}
    answers: dict[str, dict[str, Answer]] = {"lexprobe": {}, "llama.cpp": {}}
    sides = {"lexprobe": engine_side(engine, store, answers["lexprobe"])}
    direct_modes = {"llama.cpp": True} | ({"llama.cpp auto-reuse": False} if auto else {})
    for name, reset in direct_modes.items():
        llm = Llama(model_path=model.model_path, n_ctx=DEFAULT_CONTEXT, n_threads=model.n_threads,
                    n_threads_batch=model.n_threads, verbose=False)  # fmt: skip
        llm.create_chat_completion(messages=[{"role": "user", "content": "Say hello."}], max_tokens=1)
        loaded[name] = llm
        answers[name] = {}
        sides[name] = direct_side(llm, answers[name], reset)
    seconds = await alternate(requests, block, sides)
    same = check_identical(requests, {k: v for k, v in answers.items() if k != "llama.cpp auto-reuse"}, "llama.cpp")
    output_tokens = sum(a[2] for a in answers["lexprobe"].values())
    await engine.aclose()
    for name, llm in loaded.items():
        if name != "lexprobe":
            llm.close()
    result: dict[str, Any] = {
        "requests": len(requests),
        "distinct_prompts": len({r.messages for r in requests}),
        "cases": cases,
        "styles": list(styles),
        "block": block,
        "prompt_tokens": sum(a[1] for a in answers["lexprobe"].values()),
        "output_tokens": output_tokens,
        "reused_prompt_tokens": model.reused_prompt_tokens,
        "identical_answers": same,
    }
    for name, spent in seconds.items():
        result[f"{name} s"] = round(spent, 2)
        result[f"{name} tokens/s"] = round(sum(a[2] for a in answers[name].values()) / spent, 2)
    result["lexprobe / llama.cpp throughput"] = round(seconds["llama.cpp"] / seconds["lexprobe"], 3)
    if auto:
        auto_answers = answers["llama.cpp auto-reuse"]
        result["auto-reuse answers identical"] = sum(
            auto_answers[r.request_id] == answers["llama.cpp"][r.request_id] for r in requests
        )
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--chunks", default="16,32,64,128", help="prefill chunk sizes compared (part 0; '' skips)")
    parser.add_argument("--fewshot", type=int, default=40, help="distinct few-shot prompts (part 1)")
    parser.add_argument("--tasks", default=",".join(FEWSHOT_TASKS), help="few-shot tasks of part 1 (comma list)")
    parser.add_argument("--block", type=int, default=10, help="requests per block; blocks alternate the sides")
    parser.add_argument("--demo-cases", type=int, default=4, help="the demo's --n (part 2)")
    parser.add_argument("--demo-styles", default="zero", help="the demo's --prompt-styles (part 2)")
    parser.add_argument("--auto-reuse", action="store_true", help="add llama-cpp-python without reset (part 2)")
    parser.add_argument("--skip-fewshot", action="store_true")
    parser.add_argument("--skip-demo", action="store_true")
    parser.add_argument("--db", type=Path, help="an existing case database (default: built from the public data)")
    parser.add_argument("--json", action="store_true", help="print the results as one JSON object")
    args = parser.parse_args()
    result: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="lexprobe-bench-") as tmp:
        folder = Path(tmp)
        db_path = args.db or folder / "caselaw.sqlite"
        if args.db is None:
            build_database(data_root(), db_path)
        db = CaseDatabase(db_path)
        try:
            chunks = [int(c) for c in args.chunks.split(",") if c.strip()]
            if chunks:
                result["chunks"] = measure_chunks(db, args.fewshot, tuple(args.tasks.split(",")), chunks)
                print(f"chunks: {result['chunks']}", file=sys.stderr)
            if not args.skip_fewshot:
                result["fewshot"] = asyncio.run(
                    measure_fewshot(db, args.fewshot, args.block, tuple(args.tasks.split(",")))
                )
                print(f"few-shot: {result['fewshot']}", file=sys.stderr)
            if not args.skip_demo:
                styles = tuple(s.strip() for s in args.demo_styles.split(",") if s.strip())
                result["demo"] = asyncio.run(
                    measure_demo(db, args.demo_cases, styles, args.block, args.auto_reuse, folder)
                )
                print(f"demo: {result['demo']}", file=sys.stderr)
        finally:
            db.close()
    if args.json:
        print(json.dumps(result))
        return
    if "chunks" in result:
        print("prefill tokens/s by chunk: " + ", ".join(f"{k.split()[1]}: {v}" for k, v in result["chunks"].items()
                                                        if k.endswith("tokens/s")))  # fmt: skip
    if "fewshot" in result:
        few = result["fewshot"]
        print(f"few-shot, {few['prompts']} distinct prompts: reuse {few['reuse_s']} s, reset {few['reset_s']} s, "
              f"{few['speedup']}x (goal >= 2x); {few['reused_share']:.0%} of prompt tokens reused; "
              f"identical answers {few['identical_answers']}/{few['prompts']}")  # fmt: skip
    if "demo" in result:
        demo = result["demo"]
        print(f"demo, {demo['requests']} requests: lexprobe {demo['lexprobe tokens/s']} tokens/s, llama.cpp's own "
              f"{demo['llama.cpp tokens/s']} tokens/s: {demo['lexprobe / llama.cpp throughput']}x (goal >= 0.9x); "
              f"identical answers {demo['identical_answers']}/{demo['requests']}")  # fmt: skip


if __name__ == "__main__":
    main()
