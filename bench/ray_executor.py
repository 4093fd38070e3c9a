"""Benchmark: what `--ray` costs the driver per request, and what two Ray workers give the embedded model.

1. Driver cost. `--scripted` requests to the scripted model (instant answers, so only the path is timed), through
   the engine into a fresh run store (cache off): in this process, then through one local Ray instance with one
   and with two workers. Reported: requests per second and milliseconds per request. Every path must store the same
   answers (checked).
2. Embedded model. `--prompts` short prompts (`--max-tokens` each) to the embedded SmolLM2: in this process (one
   model; llama.cpp's default threads, half the cores), then through two Ray workers (one CPU and one thread
   each). Reported: wall seconds and the speed-up. The answers must be identical (checked: greedy decoding).

The Ray instance is started once (`ray.init(num_cpus=N)`, N = this machine's CPUs) and its start is not timed;
each Ray path does include starting its workers (and, for the embedded model, loading it in each), as a command
does. Usage: python bench/ray_executor.py [--scripted 2000] [--prompts 24] [--max-tokens 16] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import sys
import tempfile
import time
from pathlib import Path

from lexprobe.engine.config import EngineConfig
from lexprobe.engine.executor import Engine
from lexprobe.engine.store import RunStore
from lexprobe.models.types import Request

SUBJECTS = ("contract formation", "adverse possession", "hearsay", "qualified immunity", "summary judgment",
            "personal jurisdiction", "promissory estoppel", "res judicata")  # fmt: skip


async def timed_run(requests: list[Request], config: EngineConfig, run_dir: Path) -> tuple[float, dict[str, str]]:
    """Run `requests` into a fresh store at `run_dir`; return (wall seconds, request id -> answer text)."""
    engine = Engine(RunStore.open(run_dir), None, config)
    started = time.perf_counter()
    try:
        summary = await engine.run(requests)
    finally:
        await engine.aclose()
    wall = time.perf_counter() - started
    if summary.sent != len(requests):
        raise SystemExit(f"only {summary.sent} of {len(requests)} answered: {summary.errors[:3]}")
    return wall, {request_id: response.text for request_id, response in engine.store.responses().items()}


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scripted", type=int, default=2000)
    parser.add_argument("--prompts", type=int, default=24)
    parser.add_argument("--max-tokens", type=int, default=16)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    import ray

    cpus = os.cpu_count() or 2
    ray.init(num_cpus=cpus, include_dashboard=False, log_to_driver=False, logging_level=logging.WARNING)
    address = ray.get_runtime_context().gcs_address
    results: dict = {"cpus": cpus}
    base = dict(progress=False, use_cache=False)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        script = root / "s.jsonl"
        script.write_text('{"text": "Yes"}\n')
        spec = f"scripted:{script}"
        requests = [Request.from_prompt(spec, f"q{i}", id=f"s{i}") for i in range(args.scripted)]
        paths = {"in process": EngineConfig(**base), "ray, 1 worker": EngineConfig(**base, ray=address, ray_workers=1),
                 "ray, 2 workers": EngineConfig(**base, ray=address, ray_workers=2)}  # fmt: skip
        reference = None
        for name, config in paths.items():
            wall, answers = await timed_run(requests, config, root / f"s-{len(results)}")
            reference = reference or answers
            if answers != reference:
                raise SystemExit(f"{name}: other answers than in process")
            results[f"scripted: {name}"] = {"wall_s": round(wall, 2), "requests_per_s": round(len(requests) / wall),
                                            "ms_per_request": round(1000 * wall / len(requests), 3)}  # fmt: skip

        prompts = [f"({i // len(SUBJECTS)}) Define {SUBJECTS[i % len(SUBJECTS)]} in one sentence."
                   for i in range(args.prompts)]  # fmt: skip
        embedded = [Request.from_prompt("local", p, max_tokens=args.max_tokens, temperature=0, id=f"e{i}")
                    for i, p in enumerate(prompts)]  # fmt: skip
        local_wall, local_answers = await timed_run(embedded, EngineConfig(**base), root / "e-local")
        ray_wall, ray_answers = await timed_run(
            embedded, EngineConfig(**base, ray=address, ray_workers=2), root / "e-ray"
        )
        if ray_answers != local_answers:
            raise SystemExit("embedded: the Ray workers answered otherwise than in process")
        results["embedded: in process"] = {"wall_s": round(local_wall, 2)}
        results["embedded: ray, 2 workers"] = {"wall_s": round(ray_wall, 2),
                                               "speedup": round(local_wall / ray_wall, 2)}  # fmt: skip
    ray.shutdown()
    if args.json:
        print(json.dumps(results))
        return
    for name, row in results.items():
        print(f"{name}: {row}")


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
