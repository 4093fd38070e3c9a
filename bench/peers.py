"""Benchmark: lexprobe against inspect-ai on the same model server, each run as its users run it (a fresh process).

A real `python -m llama_cpp.server` with the embedded SmolLM2 GGUF listens on 127.0.0.1. lexprobe runs its real CLI
(`lexprobe hallucination run --tasks existence --levels scotus --prompt-styles zero --samples 0` against
`openai-compatible/smollm2@URL`); inspect-ai runs `inspect eval bench/peers_inspect_task.py`, a task built from the
exact requests lexprobe stored in its run store (same messages, max_tokens, temperature), against the same server
(`llama-cpp-python/smollm2`). Rows, each tool alternately first, median [range]:

- start-up: `--help` (5 runs), and a run that sends nothing (lexprobe `--dry-run`, inspect `--limit 0`);
- cache replay of every answer (lexprobe's response cache; inspect's own cache, `generate(cache=True)`), and a check
  that the server saw no request;
- cold end to end at each `--connections` (empty lexprobe cache; inspect's cache off), with the client CPU (user +
  sys of the process), the server's own generation time per token (llama.cpp's timings), and what the server saw
  of each request (`peers_server_timed.py`: arrival and last reply byte): the server's busy time, the time from the
  process's start to its first request and from the last reply to its exit, and at one connection the median time
  from a reply to the next request (the client's own time per request plus the server's turnaround);
- beside the two tools on every cold row, the floor: the same requests from a bare httpx loop in a fresh process
  (`peers_floor.py`). Its reply-to-next-request time is the server's turnaround alone; a tool's time beyond it is
  the tool's own per-request cost. inspect / floor is the most any client could lead inspect by on this server;
- on each cold row with more than one round, every round's wall time and server speed in the order run, and
  inspect / lexprobe within each round with their median (rounds are minutes apart; the machine's speed drifts
  across a row, which the medians alone hide);
- on each cold row, every side at equal server time: the row's median server busy time over every run of every side
  (they sent the same requests) plus the side's own median wall - busy, and inspect / lexprobe of that (the server's
  speed drifts by several per cent between runs; this comparison keeps all that each client did and none of that);
- the cost of the integration: lexprobe's own task under Inspect (`inspect eval lexprobe/hallucination --model
  lexprobe/openai-compatible/smollm2@URL`, from lexprobe's virtualenv with its `inspect` extra, through lexprobe's
  engine) against `lexprobe hallucination run` on the same questions, cold, one connection; its "inspect-ai" column
  is that Inspect run. Skipped (with a note) when lexprobe's virtualenv has no `inspect`;
- with `--long`: the same at 600 prompts and one connection (two runs each; inspect's task is written from the
  requests of lexprobe's first run, which goes first).

After every cold run both sides and the floor must have sent the same messages with the same settings, and received
the same input and output token counts per prompt; otherwise the bench fails.

Each tool runs from its own install, as its users have it: lexprobe from the virtualenv running this script,
inspect-ai from a virtualenv of its own (`--inspect-venv`, default `.venv-peers`, which `make bench-peers` builds from
`bench/requirements-peers.txt`), so neither pays at start-up for what the other installs (inspect-ai brings aiohttp,
which `import openai` loads when it is present). inspect-ai is only ever imported in its own subprocesses.

Usage: python bench/peers.py [--prompts 60] [--runs 3] [--help-runs 5] [--connections 1,4] [--long] [--quick]
       [--offline-only] [--inspect-venv DIR] [--json] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from peers_server import LlamaServer, busy_seconds, client_gaps, summed

BENCH = Path(__file__).resolve().parent
BIN = Path(sys.executable).parent  # lexprobe's virtualenv: the one running the bench
INSPECT_VENV = BENCH.parent / ".venv-peers"  # inspect-ai's own (`make bench-peers`)
TASK_FILE = BENCH / "peers_inspect_task.py"
LOG_READER = BENCH / "peers_inspect_log.py"
MODEL_NAME = "smollm2"
TOOLS = ("lexprobe", "inspect")
SIDES = (*TOOLS, "floor")  # the floor: the same requests from a bare httpx loop (bench/peers_floor.py)
FLOOR = BENCH / "peers_floor.py"


class BenchError(RuntimeError):
    """The two sides did not do the same work (or a run failed): the figures would mean nothing."""


@dataclass
class Run:
    """One process: wall seconds, client CPU seconds, the server's timings while it ran, and what the server saw of
    its requests (arrivals and replies on the machine's monotonic clock)."""

    wall_s: float
    cpu_s: float
    completions: int = 0
    eval_ms: float = 0.0
    eval_tokens: int = 0
    server_ms: float = 0.0
    http_s: float = 0.0  # time with a request inside the server (arrival to last reply byte; overlaps once)
    first_s: float = 0.0  # process start to the first request's arrival
    last_s: float = 0.0  # the last reply to the process's exit
    gaps: list[float] = field(default_factory=list)  # a reply to the next request's arrival, in order
    stdout: str = ""

    @property
    def ms_per_token(self) -> float:
        """The server's own generation time per generated token in this run, in ms (llama.cpp's timings)."""
        return self.eval_ms / self.eval_tokens if self.eval_tokens else float("nan")

    @property
    def gap_ms(self) -> float:
        """The median time from a reply to the client's next request, in ms (one connection: the client's own time
        per request, plus the server's own turnaround that the floor measures)."""
        return 1000 * statistics.median(self.gaps) if self.gaps else float("nan")


@dataclass
class Row:
    """One table row: the runs of each tool (and of the floor, on the cold rows)."""

    name: str
    runs: dict[str, list[Run]] = field(default_factory=lambda: {tool: [] for tool in SIDES})


def timed(command: list[str], env: dict[str, str], server: LlamaServer | None = None) -> Run:
    """Run `command` in a fresh process; return its wall time, CPU time and the server's timings meanwhile."""
    if server is not None:
        server.read_new()
        server.exchanges_new()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    start_clock = time.monotonic()
    done = subprocess.run(command, env=env, capture_output=True, text=True, cwd=BENCH)  # inspect: a relative task
    end_clock = time.monotonic()
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise BenchError(f"{' '.join(command)} exited {done.returncode}:\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    run = Run(wall_s=wall, cpu_s=cpu, stdout=done.stdout)
    if server is not None:
        time.sleep(0.2)  # the last timing lines reach the logs
        timings = summed(server.read_new())
        run.completions, run.eval_ms, run.eval_tokens, run.server_ms = (
            timings.completions, timings.eval_ms, timings.eval_runs, timings.total_ms,
        )  # fmt: skip
        exchanges = server.exchanges_new()
        if exchanges:
            run.http_s = busy_seconds(exchanges)
            run.first_s = exchanges[0].arrived - start_clock
            run.last_s = end_clock - max(e.done for e in exchanges)
            run.gaps = client_gaps(exchanges)
    return run


class Sides:
    """Builds each tool's command lines for one benchmark directory."""

    def __init__(self, work: Path, server: LlamaServer, db: Path, prompts: int, inspect_bin: Path) -> None:
        self.work = work
        self.inspect_bin = inspect_bin  # the bin folder of inspect-ai's virtualenv
        self.server = server
        self.db = db
        self.prompts = prompts
        self.counter = 0
        self.base_env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "INSPECT_"))}
        # Both tools run from compiled bytecode, as installed packages do (pip compiles at install; an editable
        # install writes __pycache__ on first run): a shell that forbids writing it would make every run of a tool
        # whose source changed recompile it.
        self.base_env.pop("PYTHONDONTWRITEBYTECODE", None)
        self.base_env["LLAMA_CPP_PYTHON_BASE_URL"] = server.base_url
        self.base_env["INSPECT_DISPLAY"] = "plain"
        self.base_env.pop("LEXPROBE_CACHE", None)

    def fresh(self, name: str) -> Path:
        """Return a new empty folder under the work directory."""
        self.counter += 1
        path = self.work / f"{self.counter:03d}-{name}"
        path.mkdir()
        return path

    def lexprobe(self, *, connections: int, cache: Path, run_dir: Path, dry: bool = False) -> tuple[list[str], dict]:
        """`lexprobe hallucination run` on the existence questions, against the server."""
        command = [
            str(BIN / "lexprobe"), "hallucination", "run",
            "--model", f"openai-compatible/{MODEL_NAME}@{self.server.base_url}",
            "--tasks", "existence", "--levels", "scotus", "--prompt-styles", "zero", "--samples", "0",
            "--n", str(self.prompts), "--db", str(self.db), "--run-dir", str(run_dir),
            "--concurrency", str(connections),
        ]  # fmt: skip
        if dry:
            command.append("--dry-run")
        return command, {**self.base_env, "LEXPROBE_CACHE": str(cache)}

    def inspect(
        self, prompts: Path, *, connections: int, log_dir: Path, cache_dir: Path | None = None, limit: int | None = None
    ) -> tuple[list[str], dict]:
        """`inspect eval` of the task built from lexprobe's requests, against the server."""
        command = [
            str(self.inspect_bin / "inspect"), "eval", TASK_FILE.name, "-T", f"prompts={prompts}",
            "--model", f"llama-cpp-python/{MODEL_NAME}", "--max-connections", str(connections),
            "--log-dir", str(log_dir), "--display", "plain",
        ]  # fmt: skip
        env = dict(self.base_env)
        if cache_dir is not None:
            command += ["-T", "cache=true"]
            env["INSPECT_CACHE_DIR"] = str(cache_dir)
        else:
            env["INSPECT_CACHE_DIR"] = str(self.fresh("inspect-unused-cache"))
        if limit is not None:
            command += ["--limit", str(limit)]
        return command, env

    def inspect_lexprobe(self, *, log_dir: Path, cache: Path) -> tuple[list[str], dict]:
        """`inspect eval lexprobe/hallucination` (lexprobe's task and model API under Inspect, from lexprobe's own
        virtualenv) on the questions `lexprobe` asks, against the server, one connection."""
        command = [
            str(BIN / "inspect"), "eval", "lexprobe/hallucination",
            "--model", f"lexprobe/openai-compatible/{MODEL_NAME}@{self.server.base_url}",
            "-T", "tasks=existence", "-T", "level=scotus", "-T", "style=zero", "-T", "samples=0",
            "-T", f"n={self.prompts}", "-T", f"db={self.db}",
            "--max-connections", "1", "--log-dir", str(log_dir), "--display", "plain",
        ]  # fmt: skip
        return command, {**self.base_env, "LEXPROBE_CACHE": str(cache)}

    def floor(self, prompts: Path, *, connections: int) -> tuple[list[str], dict]:
        """The bare httpx loop over the same prompts (bench/peers_floor.py)."""
        return [sys.executable, str(FLOOR), self.server.base_url, str(prompts), str(connections)], dict(self.base_env)


def lexprobe_requests(run_dir: Path) -> list[dict[str, Any]]:
    """Return the requests lexprobe stored (in the order it added them) with the tokens of their answers."""
    with sqlite3.connect(run_dir / "run.sqlite") as conn:
        rows = conn.execute(
            "SELECT q.request_id, q.body, r.input_tokens, r.output_tokens, r.body FROM requests q "
            "LEFT JOIN responses r USING (request_id) ORDER BY q.seq"
        ).fetchall()
    out = []
    for request_id, body, input_tokens, output_tokens, answer in rows:
        request = json.loads(body)
        out.append(
            {
                "id": request_id,
                "messages": [{"role": m["role"], "content": m["content"]} for m in request["messages"]],
                "max_tokens": request["max_tokens"],
                "temperature": request["temperature"],
                "seed": request.get("seed"),
                "stop": request.get("stop") or [],
                "target": "yes",
                "input_tokens": input_tokens,
                "output_tokens": output_tokens,
                "answer": json.loads(answer)["text"] if answer else None,
            }
        )
    return out


def inspect_samples(log_dir: Path, inspect_bin: Path) -> list[dict[str, Any]]:
    """Read inspect's log (in a subprocess of inspect-ai's virtualenv, whose bin folder is `inspect_bin`) into one
    dict per sample."""
    command = [str(inspect_bin / "python"), str(LOG_READER), str(log_dir)]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise BenchError(f"reading the inspect log failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout)


def check_same_work(lexprobe: list[dict[str, Any]], inspect: list[dict[str, Any]], what: str) -> dict[str, int]:
    """Raise `BenchError` unless both sent the same messages and settings and got the same token counts per prompt;
    return the totals."""
    mine = {item["id"]: item for item in lexprobe}
    theirs = {item["id"]: item for item in inspect}
    if set(mine) != set(theirs):
        raise BenchError(f"{what}: lexprobe answered {len(mine)} prompts, inspect {len(theirs)}; the ids differ")
    problems = []
    for request_id, ours in mine.items():
        other = theirs[request_id]
        if ours["input_tokens"] is None:
            problems.append(f"{request_id}: lexprobe has no answer")
            continue
        if other["messages"] != ours["messages"]:
            problems.append(f"{request_id}: different messages sent")
        params = other.get("params") or {}
        sent_cap = params.get("max_tokens", params.get("max_completion_tokens"))
        if params and (sent_cap != ours["max_tokens"] or params.get("temperature") != ours["temperature"]):
            problems.append(f"{request_id}: inspect sent {params}, lexprobe max_tokens={ours['max_tokens']}")
        if (other["input_tokens"], other["output_tokens"]) != (ours["input_tokens"], ours["output_tokens"]):
            problems.append(
                f"{request_id}: tokens lexprobe {ours['input_tokens']}/{ours['output_tokens']}, "
                f"inspect {other['input_tokens']}/{other['output_tokens']}"
            )
    if problems:
        raise BenchError(f"{what}: the two sides did different work:\n" + "\n".join(problems[:20]))
    return {
        "prompts": len(mine),
        "input_tokens": sum(item["input_tokens"] for item in lexprobe),
        "output_tokens": sum(item["output_tokens"] for item in lexprobe),
        "distinct_prompts": len({json.dumps(item["messages"]) for item in lexprobe}),
    }


def write_prompts(requests: list[dict[str, Any]], path: Path) -> None:
    """Write lexprobe's requests as the inspect task's JSONL."""
    keys = ("id", "messages", "max_tokens", "temperature", "seed", "stop", "target")
    path.write_text("".join(json.dumps({k: item[k] for k in keys}) + "\n" for item in requests))


def warm_up(server: LlamaServer) -> None:
    """One request, so that loading the weights is nobody's cost."""
    body = {"model": MODEL_NAME, "messages": [{"role": "user", "content": "Hello"}], "max_tokens": 4}
    httpx.post(server.base_url + "/chat/completions", json=body, timeout=None).raise_for_status()
    time.sleep(0.2)
    server.read_new()


def offline_row(
    name: str, runs: int, command_for: Callable[[str], tuple[list[str], dict]], server: LlamaServer, what: str
) -> Row:
    """Time `runs` rounds of each tool's command (`command_for(tool)`), alternating; fail if any reached the server."""
    row = Row(name)
    for number in range(runs):
        for tool in order(number):
            run = timed(*command_for(tool), server)
            if run.completions:
                raise BenchError(f"the {tool} {what} sent {run.completions} requests to the server")
            row.runs[tool].append(run)
    return row


def save_partial(work: Path, rows: list[Row], checks: dict[str, Any]) -> None:
    """Write the rows finished so far to WORK/partial.json and .md (a long run that fails later keeps them)."""
    (work / "partial.json").write_text(json.dumps({"rows": [row_json(r) for r in rows], "checks": checks}, indent=2))
    (work / "partial.md").write_text(markdown(rows, checks) + "\n")


def order(round_number: int, sides: tuple[str, ...] = TOOLS) -> tuple[str, ...]:
    """Who goes first in this round: they take turns (lexprobe first in round 0)."""
    shift = round_number % len(sides)
    return sides[shift:] + sides[:shift]


def bench(args: argparse.Namespace, work: Path) -> dict[str, Any]:
    """Run every row; return the results (runs per tool per row, and the work check)."""
    from lexprobe.caselaw.paths import default_db_path

    db = Path(args.db) if args.db else default_db_path()
    rows: list[Row] = []
    checks: dict[str, Any] = {}
    with LlamaServer(work / "server.log") as server:
        warm_up(server)
        sides = Sides(work, server, db, args.prompts, args.inspect_venv / "bin")

        # The reference run: lexprobe's requests (and answers) that inspect's task is built from.
        ref_dir = sides.fresh("lexprobe-reference")
        command, env = sides.lexprobe(connections=1, cache=sides.fresh("cache"), run_dir=ref_dir)
        timed(command, env, server)
        reference = lexprobe_requests(ref_dir)
        if len(reference) != args.prompts:
            raise BenchError(f"lexprobe sent {len(reference)} requests, expected {args.prompts}")
        prompts = work / "prompts.jsonl"
        write_prompts(reference, prompts)

        help_row = Row("process start-up, `--help`")
        for number in range(args.help_runs):
            for tool in order(number):
                binary = BIN / "lexprobe" if tool == "lexprobe" else sides.inspect_bin / "inspect"
                help_row.runs[tool].append(timed([str(binary), "--help"], sides.base_env))
        rows.append(help_row)
        save_partial(work, rows, checks)

        def dry_command(tool: str) -> tuple[list[str], dict]:
            if tool == "lexprobe":
                return sides.lexprobe(connections=1, cache=sides.fresh("cache"), run_dir=sides.fresh("dry"), dry=True)
            return sides.inspect(prompts, connections=1, log_dir=sides.fresh("dry"), limit=0)

        rows.append(
            offline_row(
                "start-up of a run that sends nothing (lexprobe `--dry-run` / inspect `--limit 0`)",
                args.help_runs, dry_command, server, "run that sends nothing",
            )
        )  # fmt: skip
        save_partial(work, rows, checks)

        # Cache replay: fill each tool's cache once (not timed), then time runs that must not reach the server.
        lex_cache = sides.fresh("lexprobe-replay-cache")
        command, env = sides.lexprobe(connections=1, cache=lex_cache, run_dir=sides.fresh("fill"))
        timed(command, env, server)
        inspect_cache = sides.fresh("inspect-replay-cache")
        command, env = sides.inspect(prompts, connections=1, log_dir=sides.fresh("fill"), cache_dir=inspect_cache)
        timed(command, env, server)

        def replay_command(tool: str) -> tuple[list[str], dict]:
            if tool == "lexprobe":
                return sides.lexprobe(connections=1, cache=lex_cache, run_dir=sides.fresh("replay"))
            return sides.inspect(prompts, connections=1, log_dir=sides.fresh("replay"), cache_dir=inspect_cache)

        rows.append(
            offline_row(f"cache replay of {args.prompts} answers", args.runs, replay_command, server, "cache replay")
        )
        save_partial(work, rows, checks)

        plans = [] if args.offline_only else [(args.prompts, c, args.runs) for c in args.connections]
        if args.long and not args.offline_only:
            plans.append((args.long_prompts, 1, args.long_runs))
        for count, connections, runs in plans:
            row = Row(f"cold, {count} prompts, {connections} connection{'s' if connections > 1 else ''}")
            sides.prompts = count
            # Another size: inspect's task is written from lexprobe's first cold run of it (round 0 runs it first).
            these_prompts = prompts if count == args.prompts else None
            for number in range(runs):
                for tool in order(number, SIDES):
                    if tool == "lexprobe":
                        run_dir = sides.fresh("cold")
                        command, env = sides.lexprobe(
                            connections=connections, cache=sides.fresh("cache"), run_dir=run_dir
                        )
                        run = timed(command, env, server)
                        lexprobe_side = lexprobe_requests(run_dir)
                        if these_prompts is None:
                            these_prompts = work / f"prompts-{count}.jsonl"
                            write_prompts(lexprobe_side, these_prompts)
                    elif tool == "inspect":
                        assert these_prompts is not None, "lexprobe runs first in round 0"
                        log_dir = sides.fresh("cold")
                        command, env = sides.inspect(these_prompts, connections=connections, log_dir=log_dir)
                        run = timed(command, env, server)
                        inspect_side = inspect_samples(log_dir, sides.inspect_bin)
                    else:
                        assert these_prompts is not None, "lexprobe runs first in round 0"
                        command, env = sides.floor(these_prompts, connections=connections)
                        run = timed(command, env, server)
                        floor_side = json.loads(run.stdout)
                    if run.completions != count:
                        raise BenchError(f"{row.name}: the server logged {run.completions} completions for {tool}")
                    row.runs[tool].append(run)
                checks[f"{row.name}, round {number + 1}"] = check_same_work(lexprobe_side, inspect_side, row.name)
                check_same_work(lexprobe_side, floor_side, f"{row.name} (the floor)")
            sides.prompts = args.prompts
            rows.append(row)
            save_partial(work, rows, checks)
        integration = None if args.offline_only else integration_row(sides, server, args.runs, checks)
        if integration is not None:
            rows.append(integration)
            save_partial(work, rows, checks)
    return {"rows": rows, "checks": checks}


def integration_row(sides: Sides, server: LlamaServer, runs: int, checks: dict[str, Any]) -> Row | None:
    """lexprobe's task under Inspect against lexprobe's own runner (cold, one connection, the same questions; the
    work checked as on the cold rows). None when lexprobe's virtualenv has no inspect-ai (`lexprobe[inspect]`)."""
    if not (BIN / "inspect").is_file():
        print("bench/peers.py: no inspect in lexprobe's virtualenv (pip install 'lexprobe[inspect]'): the row of "
              "lexprobe's tasks under Inspect is skipped", file=sys.stderr)  # fmt: skip
        return None
    row = Row(f"lexprobe's task under Inspect (`inspect eval lexprobe/hallucination`), cold, {sides.prompts} prompts, "
              "1 connection")  # fmt: skip
    for number in range(runs):
        for tool in order(number):
            log_dir = sides.fresh("integration")
            if tool == "lexprobe":
                command, env = sides.lexprobe(connections=1, cache=sides.fresh("cache"), run_dir=log_dir)
            else:
                command, env = sides.inspect_lexprobe(log_dir=log_dir, cache=sides.fresh("cache"))
            run = timed(command, env, server)
            if run.completions != sides.prompts:
                raise BenchError(f"{row.name}: the server logged {run.completions} completions for {tool}")
            row.runs[tool].append(run)
            if tool == "lexprobe":
                native = lexprobe_requests(log_dir)
            else:
                under_inspect = inspect_samples(log_dir, BIN)
        checks[f"{row.name}, round {number + 1}"] = check_same_work(native, under_inspect, row.name)
    return row


def spread(values: list[float], unit: str = "s", digits: int = 2) -> str:
    """Return 'median [min-max]' (or the single value)."""
    if not values:
        return "-"
    med = statistics.median(values)
    if len(values) == 1:
        return f"{med:.{digits}f} {unit}"
    return f"{med:.{digits}f} {unit} [{min(values):.{digits}f}-{max(values):.{digits}f}]"


def median_of(runs: list[Run], value: Any) -> float:
    """The median of `value(run)` over `runs` (nan when there are none)."""
    return statistics.median(value(r) for r in runs) if runs else float("nan")


def row_json(row: Row) -> dict[str, Any]:
    """The row's runs and medians as JSON."""
    out: dict[str, Any] = {"name": row.name}
    equal = equal_server_time(row)  # reported for the sides whose runs reached the server
    for side, runs in row.runs.items():
        if not runs:
            continue
        out[side] = {
            "wall_s": [round(r.wall_s, 3) for r in runs],
            "cpu_s": [round(r.cpu_s, 3) for r in runs],
            "median_wall_s": round(median_of(runs, lambda r: r.wall_s), 3),
            "median_cpu_s": round(median_of(runs, lambda r: r.cpu_s), 3),
        }
        if runs[0].completions:
            out[side] |= {
                "equal_server_time_s": round(equal[side], 3),
                "server_ms_per_token": [round(r.ms_per_token, 2) for r in runs if r.eval_tokens],
                "server_busy_s": [round(r.http_s, 3) for r in runs],
                "before_first_request_s": [round(r.first_s, 3) for r in runs],
                "after_last_reply_s": [round(r.last_s, 3) for r in runs],
                "reply_to_next_request_ms": [round(r.gap_ms, 2) for r in runs],
            }
    out["ratio_inspect_over_lexprobe"] = round(out["inspect"]["median_wall_s"] / out["lexprobe"]["median_wall_s"], 3)
    if "floor" in out:
        out["ratio_inspect_over_floor"] = round(out["inspect"]["median_wall_s"] / out["floor"]["median_wall_s"], 3)
    return out


def per_request(count: int) -> Any:
    """A figure: the ms per request of a run's wall time outside the server."""
    return lambda run: 1000 * (run.wall_s - run.http_s) / count


def beyond(floor_gap_ms: float) -> Any:
    """A figure: a run's median reply-to-next-request time minus the floor's."""
    return lambda run: run.gap_ms - floor_gap_ms


def cells(row: Row, value: Any, unit: str = "s", digits: int = 2) -> str:
    """The table cells of one figure: lexprobe | inspect | floor."""
    return " | ".join(spread([value(r) for r in row.runs[side]], unit, digits) for side in SIDES)


def round_cells(row: Row, value: Any, unit: str = "s", digits: int = 2) -> str:
    """The table cells of one figure run by run, in the order of the rounds: lexprobe | inspect | floor."""
    return " | ".join(
        " / ".join(f"{value(r):.{digits}f}" for r in row.runs[side]) + (f" {unit}" if row.runs[side] else "-")
        for side in SIDES
    )


def equal_server_time(row: Row) -> dict[str, float]:
    """Each side's wall time had the server worked as fast for it as for the others: the median server busy time over
    every run of the row (all sides: they sent the same requests) plus the side's median wall - busy (its own time).
    The server's speed drifts by several per cent between runs minutes apart; this removes that drift from the
    comparison and keeps everything each client did."""
    busy = statistics.median(run.http_s for runs in row.runs.values() for run in runs)
    return {side: busy + median_of(runs, lambda r: r.wall_s - r.http_s) for side, runs in row.runs.items() if runs}


def paired_ratios(row: Row) -> str:
    """inspect / lexprobe by wall time within each round (the two ran minutes apart, so drift of the machine's speed
    over the whole row cancels more than in the ratio of medians), and their median."""
    ratios = [i.wall_s / lex.wall_s for lex, i in zip(row.runs["lexprobe"], row.runs["inspect"], strict=True)]
    return " / ".join(f"{r:.2f}x" for r in ratios) + f" (median {statistics.median(ratios):.2f}x)"


def markdown(rows: list[Row], checks: dict[str, Any]) -> str:
    """The results as a markdown table (ratio = inspect / lexprobe: above 1, lexprobe is faster)."""
    lines = []
    for work in {json.dumps(w, sort_keys=True): w for w in checks.values()}.values():
        rounds = sum(1 for w in checks.values() if w == work)
        lines.append(
            f"Same {work['prompts']} prompts ({work['distinct_prompts']} distinct): {work['input_tokens']:,} input / "
            f"{work['output_tokens']:,} output tokens on both sides and the floor, per prompt (checked in {rounds} "
            "cold round(s))."
        )
    lines += [
        "",
        "| figure | lexprobe | inspect-ai | no tool: bare httpx loop (floor) | ratio (inspect / lexprobe) |",
        "|---|---|---|---|---|",
    ]
    bounds = []
    for row in rows:
        lex, ins, floor = (row.runs[side] for side in SIDES)
        ratio = median_of(ins, lambda r: r.wall_s) / median_of(lex, lambda r: r.wall_s)
        lines.append(f"| {row.name} ({len(lex)} runs each) | {cells(row, lambda r: r.wall_s)} | {ratio:.2f}x |")
        if not (lex and lex[0].completions):
            continue
        cpu_ratio = median_of(ins, lambda r: r.cpu_s) / median_of(lex, lambda r: r.cpu_s)
        count = lex[0].completions
        lines += [
            f"| ... client CPU | {cells(row, lambda r: r.cpu_s)} | {cpu_ratio:.2f}x |",
            f"| ... server busy (a request inside it: from an arrival to the last reply byte) | "
            f"{cells(row, lambda r: r.http_s)} | |",
            f"| ... server ms per generated token (llama.cpp's own) | {cells(row, lambda r: r.ms_per_token, 'ms')} | |",
            f"| ... start to the first request | {cells(row, lambda r: r.first_s)} | |",
            f"| ... the last reply to exit | {cells(row, lambda r: r.last_s)} | |",
            f"| ... wall - server busy, per request | {cells(row, per_request(count), 'ms', 1)} | |",
        ]
        equal = equal_server_time(row)
        lines.append(
            "| ... at equal server time (the row's median server busy, every run of every side, + the side's median "
            "wall - busy) | "
            + " | ".join(f"{equal[side]:.2f} s" if side in equal else "-" for side in SIDES)
            + f" | {equal['inspect'] / equal['lexprobe']:.2f}x |"
        )
        if len(lex) > 1:
            lines += [
                f"| ... wall, round by round | {round_cells(row, lambda r: r.wall_s)} | {paired_ratios(row)} |",
                f"| ... server ms per generated token, round by round | "
                f"{round_cells(row, lambda r: r.ms_per_token, 'ms')} | |",
            ]
        if "1 connection" in row.name and floor:
            floor_gap = median_of(floor, lambda r: r.gap_ms)
            lines += [
                f"| ... a reply to the next request, median | {cells(row, lambda r: r.gap_ms, 'ms')} | |",
                f"| ... the same beyond the floor's (the client's own time per request) | "
                f"{cells(row, beyond(floor_gap), 'ms')} | |",
            ]
        if floor:
            bound = median_of(ins, lambda r: r.wall_s) / median_of(floor, lambda r: r.wall_s)
            bounds.append(f"{row.name}: {bound:.2f}x (at equal server time {equal['inspect'] / equal['floor']:.2f}x)")
    if bounds:
        lines += [
            "",
            "The most any client could lead inspect-ai by on this server (inspect / the floor, which has no start-up "
            "to speak of and no per-request work): " + "; ".join(bounds) + ".",
        ]
    return "\n".join(lines)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """Command-line options."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--prompts", type=int, help="existence questions per run (default 60; 20 with --quick)")
    parser.add_argument("--runs", type=int, help="runs per tool of the replay and cold rows (default 3; 1 --quick)")
    parser.add_argument("--help-runs", type=int, help="runs per tool of the start-up rows (default 5; 2 --quick)")
    parser.add_argument("--connections", default="1,4", help="comma list of connection counts for the cold rows")
    parser.add_argument("--long", action="store_true", help="add 600 prompts at 1 connection (long)")
    parser.add_argument("--long-prompts", type=int, default=600)
    parser.add_argument("--long-runs", type=int, default=2)
    parser.add_argument("--quick", action="store_true", help="20 prompts, 1 run, 2 start-up runs")
    parser.add_argument(
        "--offline-only",
        action="store_true",
        help="only the rows that send nothing to the server (start-up, cache replay): minutes, not an hour",
    )
    parser.add_argument("--db", help="case database (default: lexprobe's)")
    parser.add_argument(
        "--inspect-venv",
        type=Path,
        default=INSPECT_VENV,
        help="inspect-ai's own virtualenv (default .venv-peers, built by `make bench-peers`)",
    )
    parser.add_argument("--keep", help="keep the run folders, logs and server log here")
    parser.add_argument("--json", action="store_true", help="print JSON instead of the table")
    args = parser.parse_args(argv)
    args.inspect_venv = args.inspect_venv.absolute()  # inspect runs with the bench folder as its working directory
    for name, normal, quick in (("prompts", 60, 20), ("runs", 3, 1), ("help_runs", 5, 2)):
        if getattr(args, name) is None:
            setattr(args, name, quick if args.quick else normal)
    try:
        args.connections = [int(c) for c in args.connections.split(",") if c.strip()]
    except ValueError:
        parser.error(f"--connections takes a comma list of whole numbers (e.g. 1,4), not {args.connections!r}")
    if not args.connections or min(args.connections) < 1:
        parser.error("--connections needs at least one count, each 1 or more")
    return args


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; print the table or JSON. Exit 1 when the two sides did different work."""
    args = parse_args(argv)
    inspect_bin = args.inspect_venv / "bin"
    if shutil.which("inspect", path=str(inspect_bin)) is None or not (inspect_bin / "python").is_file():
        print(
            f"inspect-ai is not installed in {args.inspect_venv}: run `make bench-peers` (or create that virtualenv"
            " and `pip install -r bench/requirements-peers.txt` in it)",
            file=sys.stderr,
        )
        return 2
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="lexprobe-peers-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        result = bench(args, work)
    except BenchError as exc:
        print(f"bench/peers.py: {exc}", file=sys.stderr)
        return 1
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    if args.json:
        print(json.dumps({"rows": [row_json(r) for r in result["rows"]], "checks": result["checks"]}, indent=2))
    else:
        print(markdown(result["rows"], result["checks"]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
