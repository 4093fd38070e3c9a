"""A real `python -m llama_cpp.server` with the embedded SmolLM2 GGUF on 127.0.0.1, for the peer benchmarks.

The server prints llama.cpp's own timings after every completion (`llama_perf_context_print: eval time = ...`);
`ServerTimings.read_new()` parses the lines written since the last call, so a caller that sends one request at a
time attributes each block to its request, and one that sends many sums them.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

from lexprobe.models.identity import embedded_model_path

_PROMPT = re.compile(r"prompt eval time =\s*([\d.]+) ms /\s*(\d+) tokens")
_EVAL = re.compile(r"\beval time =\s*([\d.]+) ms /\s*(\d+) runs")
_TOTAL = re.compile(r"total time =\s*([\d.]+) ms")
TIMED_SERVER = Path(__file__).resolve().parent / "peers_server_timed.py"


def free_port() -> int:
    """Return a TCP port on 127.0.0.1 that is free right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class Timings:
    """llama.cpp's timings summed over some completions: generation (eval) and prompt time in ms."""

    completions: int = 0
    eval_ms: float = 0.0
    eval_runs: int = 0
    prompt_ms: float = 0.0
    total_ms: float = 0.0

    @property
    def ms_per_token(self) -> float:
        """Generation time per generated token (the server's own figure), in ms."""
        return self.eval_ms / self.eval_runs if self.eval_runs else float("nan")

    def to_dict(self) -> dict[str, float]:
        """Return the timings as a JSON-ready dict."""
        return {
            "completions": self.completions,
            "eval_ms": round(self.eval_ms, 1),
            "eval_runs": self.eval_runs,
            "prompt_ms": round(self.prompt_ms, 1),
            "total_ms": round(self.total_ms, 1),
            "ms_per_token": round(self.ms_per_token, 3),
        }


@dataclass(frozen=True)
class Exchange:
    """One HTTP request as the server saw it: arrival and last response byte, monotonic seconds."""

    arrived: float
    done: float


def client_gaps(exchanges: list[Exchange]) -> list[float]:
    """Seconds between each reply and the next request's arrival (one connection: the client's own time per
    request)."""
    return [later.arrived - earlier.done for earlier, later in itertools.pairwise(exchanges)]


def busy_seconds(exchanges: list[Exchange]) -> float:
    """Seconds during which at least one request was inside the server (the union of the exchanges' intervals: with
    several connections, requests overlap and wait their turn in the server)."""
    total, end = 0.0, float("-inf")
    for exchange in sorted(exchanges, key=lambda e: e.arrived):
        start = max(exchange.arrived, end)
        if exchange.done > start:
            total += exchange.done - start
            end = exchange.done
    return total


class LlamaServer:
    """Start the server on a free port (`with LlamaServer() as server:`); `server.base_url` ends in /v1."""

    def __init__(
        self,
        log_path: Path,
        *,
        n_threads: int | None = None,
        n_threads_batch: int | None = None,
        extra: tuple[str, ...] = (),
    ) -> None:
        self.log_path = log_path
        self.port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self.n_threads = n_threads or max(1, (os.cpu_count() or 2) // 2)
        # The server's own default for prompt processing is every core; its spin-waiting threads then fight any
        # other busy process (the client included) for the cores. Default here: the same count as generation.
        self.n_threads_batch = n_threads_batch or self.n_threads
        self.extra = extra
        self.process: subprocess.Popen | None = None
        self._offset = 0
        self.request_log = log_path.with_name(log_path.stem + ".requests.jsonl")
        self.request_log.write_text("")
        self._request_offset = 0

    def __enter__(self) -> LlamaServer:
        command = [
            sys.executable, str(TIMED_SERVER), str(self.request_log), "--model", str(embedded_model_path()),
            "--host", "127.0.0.1", "--port", str(self.port), "--n_ctx", "2048",
            "--n_threads", str(self.n_threads), "--n_threads_batch", str(self.n_threads_batch), *self.extra,
        ]  # fmt: skip
        with self.log_path.open("w") as sink:
            self.process = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"llama server exited:\n{self.log_path.read_text()[-3000:]}")
            try:
                if httpx.get(self.base_url + "/models", timeout=1.0).status_code == 200:
                    self.read_new()
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        raise RuntimeError("llama server did not start within 120 s")

    def __exit__(self, *exc: object) -> None:
        if self.process is not None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()

    @property
    def model_name(self) -> str:
        """The name the server answers to (any name works; this is the GGUF path it reports)."""
        return str(embedded_model_path())

    def exchanges_new(self) -> list[Exchange]:
        """The chat-completion requests completed since the last call, in order of arrival (see
        `peers_server_timed.py`: arrival and completion on the machine's monotonic clock)."""
        with self.request_log.open("rb") as log:
            log.seek(self._request_offset)
            data = log.read()
        cut = data.rfind(b"\n") + 1
        self._request_offset += cut
        rows = [json.loads(line) for line in data[:cut].decode().splitlines() if line.strip()]
        found = [Exchange(r["arrived"], r["done"]) for r in rows if r["path"].endswith("/chat/completions")]
        return sorted(found, key=lambda e: e.arrived)

    def read_new(self) -> list[Timings]:
        """Parse the timing blocks the server logged since the last call: one `Timings` per completion, in order."""
        with self.log_path.open("rb") as log:
            log.seek(self._offset)
            data = log.read()
        cut = data.rfind(b"\n") + 1  # a line still being written waits for the next call
        self._offset += cut
        blocks: list[Timings] = []
        current = Timings()
        for line in data[:cut].decode("utf-8", "replace").splitlines():
            if m := _PROMPT.search(line):
                current.prompt_ms += float(m.group(1))
            elif m := _EVAL.search(line):
                current.eval_ms += float(m.group(1))
                current.eval_runs += int(m.group(2))
                current.completions = 1
            elif (m := _TOTAL.search(line)) and current.completions:
                current.total_ms += float(m.group(1))
                blocks.append(current)
                current = Timings()
        return blocks


def summed(blocks: list[Timings]) -> Timings:
    """Return the sum of per-completion timings."""
    total = Timings()
    for block in blocks:
        total.completions += block.completions
        total.eval_ms += block.eval_ms
        total.eval_runs += block.eval_runs
        total.prompt_ms += block.prompt_ms
        total.total_ms += block.total_ms
    return total
