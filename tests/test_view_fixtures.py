"""Shared fixtures of the viewer tests (issue 32, part A): two real scripted hallucination runs made by the real
CLI (one a yes-man, one answering with HTML, script, ANSI and bidi text), and a real `lexprobe view` server on a
free loopback port. Imported by the tests/test_view_*.py modules; holds no test of its own."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

LEXPROBE = str(Path(sys.executable).with_name("lexprobe"))

#: What the hostile model says to the existence question: markup, a script breakout, ANSI colour, a bidi override.
HOSTILE_ANSWER = (
    "Yes <img src=x onerror=alert(1)> </script><script>alert(2)</script> \x1b[31mred\x1b[0m \u202eevil zebra\x07"
)
HOSTILE_SAMPLE = "The court held the statute void. <b>bold</b> </textarea><svg onload=alert(3)> quagga"


@dataclass(frozen=True)
class Runs:
    """The run directories the viewer tests read, and the case database they were sampled from."""

    yes: Path
    hostile: Path
    case_db: Path
    yes_model: str
    hostile_model: str


def cli(*args: str, timeout: int = 600) -> subprocess.CompletedProcess:
    """Run the real `lexprobe` CLI (this checkout: PYTHONPATH reaches the child) and return what it did."""
    return subprocess.run([LEXPROBE, *args], capture_output=True, text=True, env=os.environ.copy(), timeout=timeout)


def _script(path: Path, lines: list[dict]) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def _run(model: str, run_dir: Path, case_db: Path) -> None:
    result = cli(
        "hallucination", "run", "--model", model, "--tasks", "existence,factual_background", "--levels", "scotus",
        "--n", "4", "--samples", "2", "--run-dir", str(run_dir), "--db", str(case_db), "--json",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr


@pytest.fixture(scope="module")
def hallucination_runs(case_db_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Runs:
    """Two runs of the same plan (same seed, same cases) by two scripted models."""
    folder = tmp_path_factory.mktemp("view-runs")
    yes = _script(folder / "yes.jsonl", [{"when": "Analyze pairs", "text": "So, the answer is no."}, {"text": "Yes"}])
    hostile = _script(
        folder / "hostile.jsonl",
        [
            {"when": "a real case", "text": HOSTILE_ANSWER},
            {"when": "Analyze pairs", "text": "They agree. So, the answer is yes."},
            {"text": HOSTILE_SAMPLE},
        ],
    )
    runs = Runs(folder / "yes-run", folder / "hostile-run", case_db_path, f"scripted:{yes}", f"scripted:{hostile}")
    _run(runs.yes_model, runs.yes, case_db_path)
    _run(runs.hostile_model, runs.hostile, case_db_path)
    return runs


@dataclass
class Viewer:
    """A running `lexprobe view` process and its URL."""

    url: str
    process: subprocess.Popen


def start_viewer(*args: str) -> Viewer:
    """Start the real `lexprobe view ARGS --port 0 --json` and return it once it printed its URL."""
    process = subprocess.Popen(
        [LEXPROBE, "view", *args, "--port", "0", "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=os.environ.copy(),
    )
    line = process.stdout.readline()
    if not line:
        process.kill()
        raise RuntimeError(f"lexprobe view did not start: {process.stderr.read()[-2000:]}")
    url = json.loads(line)["url"]
    assert httpx.get(url, timeout=10).status_code == 200
    return Viewer(url, process)


def stop_viewer(viewer: Viewer) -> int:
    """Stop the viewer as Ctrl-C does and return its exit code."""
    viewer.process.send_signal(signal.SIGINT)
    try:
        return viewer.process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        viewer.process.kill()
        raise


@pytest.fixture(scope="module")
def viewer(hallucination_runs: Runs) -> Iterator[Viewer]:
    """`lexprobe view` over both runs, with the case database for the case names."""
    started = start_viewer(str(hallucination_runs.yes), str(hallucination_runs.hostile), "--db",
                           str(hallucination_runs.case_db))  # fmt: skip
    try:
        yield started
    finally:
        stop_viewer(started)
