"""Shared fixtures: an isolated response cache per test, and a real `python -m llama_cpp.server` on loopback."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from lexprobe.models.identity import embedded_model_path

#: needs_chromium / needs_bwrap / needs_tesseract: skip without the tool here, fail under CI=true; `ray_address`:
#: one local Ray instance per module for the Ray tests.
pytest_plugins = ("tool_requirements", "ray_support")


def missing_data() -> str | None:
    """Say where the public data was looked for when it is not there (None when it is)."""
    from lexprobe.caselaw.paths import data_root

    root = data_root()
    if root.is_dir() and any(root.iterdir()):
        return None
    return (f"the public case-law data is not at {root.resolve()}: set LEXPROBE_DATA to the shared data folder "
            "(default ../shared/data beside the checkout)")  # fmt: skip


def pytest_sessionstart(session: pytest.Session) -> None:
    """Without the data most tests would error one by one: under CI=true, where it must be there, stop the session
    at once with one line saying where it looked."""
    problem = missing_data()
    if problem and os.environ.get("CI") == "true":
        pytest.exit(problem, returncode=4)


def pytest_report_header(config: pytest.Config) -> str:
    """Name the data the suite reads (or warn that the tests reading it will error)."""
    from lexprobe.caselaw.paths import data_root

    problem = missing_data()
    return f"WARNING: {problem}; the tests that read it will error" if problem else f"LEXPROBE_DATA: {data_root()}"


@pytest.fixture(autouse=True)
def isolated_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point LEXPROBE_CACHE at a fresh folder so tests never read or fill the user's cache."""
    folder = tmp_path / "cache"
    monkeypatch.setenv("LEXPROBE_CACHE", str(folder))
    return folder


def free_port() -> int:
    """Return a TCP port on 127.0.0.1 that is free right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for_http(url: str, process: subprocess.Popen, log: Path, timeout_s: float = 180.0) -> None:
    """Poll `url` until it answers 200; fail with the server's log if it dies or takes too long."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server exited with {process.returncode}:\n{log.read_text()[-4000:]}")
        try:
            if httpx.get(url, timeout=1.0).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"server at {url} did not answer within {timeout_s}s")


def llama_server_command(port: int, n_threads: int, n_threads_batch: int | None = None) -> list[str]:
    """Return the command line of `python -m llama_cpp.server` serving the embedded model on 127.0.0.1:`port`
    (prompt processing on every core unless `n_threads_batch` says otherwise: several servers on one machine each
    need it, or their spinning threads fight over the cores)."""
    batch = ["--n_threads_batch", str(n_threads_batch)] if n_threads_batch else []
    return [
        sys.executable,
        "-m",
        "llama_cpp.server",
        "--model",
        str(embedded_model_path()),
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--chat_format",
        "chatml-function-calling",
        "--n_ctx",
        "2048",
        "--n_threads",
        str(n_threads),
        *batch,
    ]


@pytest.fixture(scope="session")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Start `python -m llama_cpp.server` with the embedded model on a free loopback port; yield its /v1 URL.

    The chatml-function-calling chat format gives the server OpenAI-style tool calls.
    """
    port = free_port()
    command = llama_server_command(port, max(1, (os.cpu_count() or 2) // 2))
    log = tmp_path_factory.mktemp("llama-server") / "server.log"
    with log.open("w") as sink:
        process = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT)
    base_url = f"http://127.0.0.1:{port}/v1"
    try:
        wait_for_http(base_url + "/models", process, log)
        yield base_url
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()


@pytest.fixture(scope="session")
def case_db_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Build the case database once per test session from the real public data (LEXPROBE_DATA)."""
    from lexprobe.caselaw.build import build_database
    from lexprobe.caselaw.paths import data_root

    path = tmp_path_factory.mktemp("caselaw") / "caselaw.sqlite"
    build_database(data_root(), path)
    return path
