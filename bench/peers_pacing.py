"""Measure how the moment and the connection of the next request change llama.cpp server's generation speed.

The same prompts go to a real `python -m llama_cpp.server` (embedded SmolLM2) one at a time; each request gets one
of the modes below for the gap before it, rotating mode per request (so load drift on a shared machine hits every
mode alike). The figure per mode is the server's own generation time per token (llama.cpp's `eval time / runs`,
read from its log), plus its time besides generation (prompt processing, sampling set-up) and the wall time.

Modes:
- `keepalive-0ms`: the next request on the same keep-alive connection as soon as the reply is read (lexprobe at one
  connection);
- `keepalive-10ms`: the same after a 10 ms idle gap (about inspect-ai's client overhead);
- `newconn-0ms`: a fresh TCP connection per request, sent at once;
- `keepalive-0ms-busy`: sent at once, then the client burns CPU for `--busy-ms` while the server works (what a
  client doing its bookkeeping after sending the next request would cost a 2-core machine).

Every mode parses the reply and commits it to SQLite before the next request, as lexprobe does. The server runs with
`--n_threads_batch` = `--n_threads` unless `--threads-batch` says otherwise (2 on 2 cores = the server's own default).
Results and what they mean: BENCHMARKS.md, "The pacing cost".

Usage: python bench/peers_pacing.py [--rounds 30] [--max-tokens 32] [--busy-ms 20] [--threads-batch N] [--json]
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from peers_server import LlamaServer

MODES = ("keepalive-0ms", "keepalive-10ms", "newconn-0ms", "keepalive-0ms-busy")
CASES = (
    "Marbury v. Madison", "Brown v. Board of Education", "Miranda v. Arizona", "Gideon v. Wainwright",
    "Mapp v. Ohio", "Roe v. Wade", "Katz v. United States", "Terry v. Ohio", "Gibbons v. Ogden",
    "McCulloch v. Maryland", "Lochner v. New York", "Plessy v. Ferguson",
)  # fmt: skip


def prompt(index: int) -> str:
    """Return the index-th existence question (12 cases, numbered rounds keep them distinct)."""
    case = CASES[index % len(CASES)]
    return f"({index}) Is the following case a real case decided by the Supreme Court? {case}. Answer, then explain."


def burn(ms: float) -> None:
    """Busy-loop on the CPU for `ms` milliseconds."""
    end = time.perf_counter() + ms / 1000
    while time.perf_counter() < end:
        pass


def send_while_busy(client: httpx.Client, base_url: str, body: dict, busy_ms: float) -> httpx.Response:
    """Send `body` from a thread while this thread burns CPU for `busy_ms` (client work overlapping the server's)."""
    result: list[httpx.Response] = []
    sender = threading.Thread(target=lambda: result.append(client.post(base_url + "/chat/completions", json=body)))
    sender.start()
    time.sleep(0.002)
    burn(busy_ms)
    sender.join()
    return result[0]


def main(argv: list[str] | None = None) -> int:
    """Run the rounds and print a table (or JSON)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=30, help="requests per mode")
    parser.add_argument("--max-tokens", type=int, default=32)
    parser.add_argument("--busy-ms", type=float, default=20.0)
    parser.add_argument("--modes", default=",".join(MODES))
    parser.add_argument("--threads-batch", type=int, help="server --n_threads_batch (default: as --n_threads)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    modes = args.modes.split(",")
    with (
        tempfile.TemporaryDirectory() as tmp,
        LlamaServer(Path(tmp) / "server.log", n_threads_batch=args.threads_batch) as server,
    ):
        db = sqlite3.connect(Path(tmp) / "book.sqlite")
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("CREATE TABLE t (i INTEGER, body TEXT)")
        keep = httpx.Client(timeout=None)
        rows: list[tuple[str, float]] = []
        warm = {"model": "smollm2", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 4}
        keep.post(server.base_url + "/chat/completions", json=warm).raise_for_status()
        time.sleep(0.3)
        server.read_new()  # the warm-up request (model load) is not counted
        for index in range(args.rounds * len(modes)):
            mode = modes[index % len(modes)]
            body = {
                "model": "smollm2",
                "messages": [{"role": "user", "content": prompt(index)}],
                "max_tokens": args.max_tokens,
                "temperature": 0,
            }
            if mode == "keepalive-10ms":
                time.sleep(0.010)
            client = httpx.Client(timeout=None) if mode == "newconn-0ms" else keep
            started = time.perf_counter()
            if mode == "keepalive-0ms-busy":
                reply = send_while_busy(keep, server.base_url, body, args.busy_ms)
            else:
                reply = client.post(server.base_url + "/chat/completions", json=body)
            wall = time.perf_counter() - started
            reply.raise_for_status()
            db.execute("INSERT INTO t VALUES (?, ?)", (index, reply.text))
            db.commit()
            if client is not keep:
                client.close()
            rows.append((mode, wall))
        keep.close()
        time.sleep(0.5)
        blocks = server.read_new()
    if len(blocks) != len(rows):
        raise SystemExit(f"{len(blocks)} timing blocks for {len(rows)} requests: cannot attribute them")
    report = {}
    for mode in modes:
        mine = [(block, wall) for block, (m, wall) in zip(blocks, rows, strict=True) if m == mode]
        per_token = [b.eval_ms / b.eval_runs for b, _ in mine if b.eval_runs]
        report[mode] = {
            "requests": len(mine),
            "eval_ms_per_token_median": round(statistics.median(per_token), 2),
            "eval_ms_per_token_mean": round(statistics.fmean(per_token), 2),
            "other_server_ms_median": round(statistics.median(b.total_ms - b.eval_ms for b, _ in mine), 1),
            "wall_ms_median": round(1000 * statistics.median(w for _, w in mine), 1),
            "tokens": sum(b.eval_runs for b, _ in mine),
        }
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    base = report[modes[0]]["eval_ms_per_token_median"]
    print(f"| mode ({args.rounds} requests each, rotating) | server ms/token median | mean | vs {modes[0]} | "
          "server ms besides generation | wall ms | tokens |")  # fmt: skip
    print("|---|---|---|---|---|---|---|")
    for mode, r in report.items():
        ratio = r["eval_ms_per_token_median"] / base
        print(f"| {mode} | {r['eval_ms_per_token_median']} | {r['eval_ms_per_token_mean']} | {ratio:.3f} | "
              f"{r['other_server_ms_median']} | {r['wall_ms_median']} | {r['tokens']} |")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
