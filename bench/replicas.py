"""Load test: lexprobe against one and against two replicas of the embedded model, side by side in one run.

Two real `python -m llama_cpp.server` processes (bench/peers_server.py: the embedded SmolLM2 GGUF on 127.0.0.1,
`--n_threads 1 --n_threads_batch 1` each, so the two share a 2-core machine without fighting over its cores) serve
the same model. Each round runs `lexprobe hallucination run` twice as its users run it, a fresh process each time,
with `--no-cache` and a fresh run directory, so both sides send every request:

- one replica: `--model openai-compatible/smollm2@URL_A`;
- two replicas: `--model openai-compatible/smollm2@URL_A,URL_B`;

both with the same `--concurrency` (per replica: the two-replica side keeps twice as many requests in flight), on the
same real hallucination prompts (`--tasks existence,court,citation,author --levels scotus --prompt-styles zero
--samples 0 --n N`: up to 4 x N distinct prompts from the case database, fewer where a case lacks what a task
asks about). The sides alternate which goes first.

Per run: the process's wall time, its serving time (the first request's arrival at a server to the last reply, from
what the servers saw: bench/peers_server_timed.py), requests per second, and the servers' own generation time per
token while it ran (llama.cpp's timings). Two replicas can only be faster when the machine has a second core to
spare: if each replica generates twice as slowly while both run, the cores were taken by something else.
The speed-up is two replicas over one, per round and as the median. After every run the answers must equal the
first one-replica run's (temperature 0, same model, same prompts), and on the two-replica side each replica must have
answered some of them (the run summary's per-replica counts, `hallucination run --json`); otherwise the bench
fails.

Then, unless `--no-kill`, one more two-replica run where replica B is killed with SIGKILL once it has answered a
quarter of the prompts: the run must finish with every answer (equal to the reference), B's errors counted, and a
rerun of the same command must send nothing.

The machine's load (/proc/loadavg) is recorded before every run: other processes share the cores, so the figures
are only as steady as the machine was.

Usage: python bench/replicas.py [--n 10] [--rounds 3] [--concurrency 2] [--db PATH] [--no-kill] [--json]
       [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from peers_server import LlamaServer, summed

BENCH = Path(__file__).resolve().parent
ENTRY = "import sys; sys.argv[0] = 'lexprobe'; from lexprobe.cli import console_main; sys.exit(console_main())"
MODEL_NAME = "smollm2"
TASKS = "existence,court,citation,author"
SIDES = ("one replica", "two replicas")


class BenchError(RuntimeError):
    """A run failed, or the sides did not do the same work: the figures would mean nothing."""


@dataclass
class Run:
    """One lexprobe process: wall seconds, serving seconds, the load before it, its summary and its answers."""

    side: str
    wall_s: float
    serving_s: float
    load: str
    ms_per_token: float  # the servers' own generation time per token while the run lasted (llama.cpp's timings)
    summary: dict[str, Any]
    answers: dict[str, str] = field(repr=False)

    def rate(self, seconds: float) -> float:
        """Requests per second over `seconds`."""
        return len(self.answers) / seconds


def load_average() -> str:
    """The 1-, 5- and 15-minute load averages."""
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def stored_answers(run_dir: Path) -> dict[str, str]:
    """Request id -> answer text of every response in a run store."""
    with sqlite3.connect(run_dir / "run.sqlite") as conn:
        rows = conn.execute("SELECT request_id, body FROM responses").fetchall()
    return {request_id: json.loads(body)["text"] for request_id, body in rows}


def distinct_prompts(run_dir: Path) -> int:
    """How many different message lists the run store's requests hold."""
    with sqlite3.connect(run_dir / "run.sqlite") as conn:
        bodies = [json.loads(body)["messages"] for (body,) in conn.execute("SELECT body FROM requests")]
    return len({json.dumps(messages, sort_keys=True) for messages in bodies})


def command(urls: list[str], args: argparse.Namespace, run_dir: Path) -> list[str]:
    """`lexprobe hallucination run --json` against the replicas at `urls`."""
    return [
        sys.executable, "-c", ENTRY, "hallucination", "run",
        "--model", f"openai-compatible/{MODEL_NAME}@{','.join(urls)}",
        "--tasks", TASKS, "--levels", "scotus", "--prompt-styles", "zero", "--samples", "0", "--n", str(args.n),
        "--db", str(args.db), "--run-dir", str(run_dir), "--concurrency", str(args.concurrency),
        "--no-cache", "--json",
    ]  # fmt: skip


def serving_seconds(servers: list[LlamaServer]) -> float:
    """First arrival to last reply over what `servers` saw since the last call."""
    exchanges = [exchange for server in servers for exchange in server.exchanges_new()]
    if not exchanges:
        raise BenchError("the servers saw no request")
    return max(e.done for e in exchanges) - min(e.arrived for e in exchanges)


def timed(side: str, servers: list[LlamaServer], args: argparse.Namespace, run_dir: Path, env: dict) -> Run:
    """Run one side in a fresh process; fail unless it exits 0."""
    for server in servers:
        server.exchanges_new()
        server.read_new()
    load = load_average()
    started = time.perf_counter()
    done = subprocess.run(command([s.base_url for s in servers], args, run_dir), env=env, capture_output=True,
                          text=True, timeout=3600)  # fmt: skip
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise BenchError(f"{side} exited {done.returncode}:\n{done.stderr[-3000:]}")
    time.sleep(0.2)  # the servers' request logs catch up
    summary = json.loads(done.stdout)["summary"]
    timings = summed([block for server in servers for block in server.read_new()])
    return Run(side, wall, serving_seconds(servers), load, timings.ms_per_token, summary, stored_answers(run_dir))


def warm_up(server: LlamaServer) -> None:
    """One short request, so that neither side pays for a cold server."""
    body = {"model": MODEL_NAME, "messages": [{"role": "user", "content": "Hi"}], "max_tokens": 4, "temperature": 0}
    httpx.post(server.base_url + "/chat/completions", json=body, timeout=120).raise_for_status()
    server.exchanges_new()


def check(run: Run, reference: dict[str, str], expected: int, servers: list[str]) -> None:
    """Fail unless `run` answered every prompt as the reference did, and (two replicas) each replica served some."""
    if len(run.answers) != expected or run.answers != reference:
        differ = sum(1 for key in reference if run.answers.get(key) != reference[key])
        raise BenchError(f"{run.side}: {len(run.answers)} answers, {differ} differ from the reference")
    counts = {row["url"]: row for row in run.summary["replicas"]}
    if len(servers) > 1 and not all(counts.get(url, {}).get("answered", 0) > 0 for url in servers):
        raise BenchError(f"{run.side}: a replica answered nothing: {counts}")


def kill_check(servers: list[LlamaServer], args: argparse.Namespace, work: Path, env: dict, reference: dict) -> dict:
    """A two-replica run in which replica B is SIGKILLed mid-run; then the rerun. Returns what was seen."""
    run_dir = work / "kill"
    victim = servers[1]
    threshold = max(1, len(reference) // 4)
    for server in servers:
        server.exchanges_new()
    process = subprocess.Popen(command([s.base_url for s in servers], args, run_dir), env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip
    killed_after: list[int] = []

    def watch() -> None:
        served = 0
        while process.poll() is None:
            served += len(victim.exchanges_new())
            if served >= threshold:
                os.kill(victim.process.pid, signal.SIGKILL)
                killed_after.append(served)
                return
            time.sleep(0.05)

    watcher = threading.Thread(target=watch)
    watcher.start()
    out, err = process.communicate(timeout=3600)
    watcher.join()
    if process.returncode != 0 or not killed_after:
        raise BenchError(f"kill run: exit {process.returncode}, killed {bool(killed_after)}:\n{err[-3000:]}")
    summary = json.loads(out)["summary"]
    answers = stored_answers(run_dir)
    if answers != reference:
        raise BenchError(f"kill run: {len(answers)} answers, not the reference's {len(reference)}")
    counts = {row["url"]: row for row in summary["replicas"]}
    if counts[victim.base_url]["errors"] < 1:
        raise BenchError(f"kill run: the killed replica has no error counted: {counts}")
    rerun = subprocess.run(command([s.base_url for s in servers], args, run_dir), env=env, capture_output=True,
                           text=True, timeout=3600)  # fmt: skip
    if rerun.returncode != 0:
        raise BenchError(f"rerun after the kill exited {rerun.returncode}:\n{rerun.stderr[-3000:]}")
    again = json.loads(rerun.stdout)["summary"]
    if again["sent"] != 0 or again["already_done"] != len(reference):
        raise BenchError(f"rerun after the kill sent {again['sent']} requests")
    return {
        "killed_after_answers": killed_after[0],
        "answers": len(answers),
        "replicas": summary["replicas"],
        "retries": summary["retries"],
        "rerun_sent": again["sent"],
    }


def bench(args: argparse.Namespace, work: Path) -> dict[str, Any]:
    """Start both servers, run every round and the kill check; return the results."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    env["LEXPROBE_CACHE"] = str(work / "cache")  # unused (--no-cache), kept out of the user's cache all the same
    a = LlamaServer(work / "a.log", n_threads=1, n_threads_batch=1)
    b = LlamaServer(work / "b.log", n_threads=1, n_threads_batch=1)
    with a, b:
        for server in (a, b):
            warm_up(server)
        runs: list[Run] = []
        reference: dict[str, str] | None = None
        expected = distinct = 0
        for number in range(args.rounds):
            order = SIDES if number % 2 == 0 else SIDES[::-1]
            for side in order:
                servers = [a] if side == SIDES[0] else [a, b]
                run = timed(side, servers, args, work / f"round{number}-{side.replace(' ', '-')}", env)
                if reference is None:  # the first run: every later one must give the same answers
                    reference, expected = run.answers, len(run.answers)
                    distinct = distinct_prompts(work / f"round{number}-{side.replace(' ', '-')}")
                check(run, reference, expected, [s.base_url for s in servers])
                runs.append(run)
                print(f"round {number + 1} {side}: {run.wall_s:.1f}s wall, {run.serving_s:.1f}s serving, "
                      f"load {run.load}", file=sys.stderr)  # fmt: skip
        killed = kill_check([a, b], args, work, env, reference or {}) if args.kill else None
    return {"runs": runs, "kill": killed, "prompts": expected, "distinct": distinct, "concurrency": args.concurrency}


def median(values: list[float]) -> float:
    """The median of `values`."""
    return statistics.median(values)


def markdown(result: dict[str, Any]) -> str:
    """The results as the Markdown BENCHMARKS.md records."""
    runs: list[Run] = result["runs"]
    by_side = {side: [run for run in runs if run.side == side] for side in SIDES}
    one, two = by_side[SIDES[0]], by_side[SIDES[1]]
    lines = [
        f"{result['prompts']} requests per run ({result['distinct']} distinct prompts), "
        f"`--concurrency {result['concurrency']}` per replica, "
        f"{len(one)} rounds, sides alternating first.",
        "",
        "| round | one replica: wall / serving | two replicas: wall / serving | speed-up wall | speed-up serving "
        "| server ms/token: one / two | load before (1/5/15 min) |",
        "|---|---|---|---|---|---|---|",
    ]
    for number, (first, second) in enumerate(zip(one, two, strict=True), start=1):
        lines.append(
            f"| {number} | {first.wall_s:.1f} s / {first.serving_s:.1f} s | {second.wall_s:.1f} s / "
            f"{second.serving_s:.1f} s | {first.wall_s / second.wall_s:.2f}x | "
            f"{first.serving_s / second.serving_s:.2f}x | {first.ms_per_token:.1f} / {second.ms_per_token:.1f} | "
            f"{first.load}; {second.load} |"
        )
    wall = median([f.wall_s / s.wall_s for f, s in zip(one, two, strict=True)])
    serving = median([f.serving_s / s.serving_s for f, s in zip(one, two, strict=True)])
    lines += [
        "",
        f"Median speed-up, two replicas over one: {wall:.2f}x by process wall time, {serving:.2f}x by serving time "
        f"(requests/s: one replica {median([r.rate(r.serving_s) for r in one]):.2f}, two replicas "
        f"{median([r.rate(r.serving_s) for r in two]):.2f}, over serving time).",
    ]
    counts = "; ".join(f"{row['url']}: {row['answered']} answered, {row['errors']} errors"
                       for row in two[-1].summary["replicas"])  # fmt: skip
    lines.append(f"Per-replica counts of the last two-replica run: {counts}.")
    if result["kill"]:
        kill = result["kill"]
        counts = "; ".join(f"{row['url']}: {row['requests']} requests, {row['answered']} answered, "
                           f"{row['errors']} errors" for row in kill["replicas"])  # fmt: skip
        lines.append(
            f"Kill check: replica B SIGKILLed after answering {kill['killed_after_answers']}; the run finished with "
            f"all {kill['answers']} answers, equal to the reference ({counts}; {kill['retries']} engine retries); "
            f"the rerun sent {kill['rerun_sent']}."
        )
    return "\n".join(lines)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=10, help="Cases per task (4 tasks: 4 x N distinct prompts).")
    parser.add_argument("--rounds", type=int, default=3, help="Rounds, each running both sides.")
    parser.add_argument("--concurrency", type=int, default=2, help="--concurrency (per replica) of both sides.")
    parser.add_argument("--db", type=Path, default=None, help="Case database (default: lexprobe's default).")
    parser.add_argument("--no-kill", dest="kill", action="store_false", help="Skip the SIGKILL check.")
    parser.add_argument("--json", action="store_true", help="Print the results as JSON instead of Markdown.")
    parser.add_argument("--keep", type=Path, default=None, help="Keep the work folder here (logs, run stores).")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.db is None:
        from lexprobe.caselaw.paths import default_db_path

        args.db = default_db_path()
    work = args.keep or Path(tempfile.mkdtemp(prefix="lexprobe-replicas-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        result = bench(args, work)
    except BenchError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)
    if args.json:
        runs = [{k: v for k, v in run.__dict__.items() if k != "answers"} for run in result["runs"]]
        print(json.dumps(result | {"runs": runs}))
    else:
        print(markdown(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
