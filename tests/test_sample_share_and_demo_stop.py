"""Issue 44, item 18: `data sample` explains its equal share, and `lexprobe demo` stopped by SIGTERM removes its
temporary folder as it says it does (the same clean stop as Ctrl-C, instead of dying with the folder left behind).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler
from pathlib import Path

from http_support import serving

LEXPROBE = str(Path(sys.executable).with_name("lexprobe"))


def test_data_sample_says_what_the_equal_share_is_and_why_it_is_zero(case_db_path: Path, tmp_path: Path) -> None:
    def sample(n: int) -> str:
        done = subprocess.run([LEXPROBE, "data", "sample", "--level", "coa", "--years", "all", "--n", str(n),
                               "--out", str(tmp_path / "s.jsonl"), "--db", str(case_db_path)],
                              capture_output=True, text=True, timeout=300)  # fmt: skip
        assert done.returncode == 0, done.stderr
        return " ".join(done.stderr.split())

    few = sample(5)  # fewer cases than circuit-year strata
    assert "(equal share 0)" not in few
    assert "strata (circuit-year pairs): more strata than the 5 cases asked for, so the equal share" in few
    assert "rounded down) is 0 and 5 strata chosen at random gave one case each" in few
    many = sample(400)
    assert "strata (circuit-year pairs), an equal share of " in many and "(400 / " in many


class _Hanging(BaseHTTPRequestHandler):
    """A model server that takes every request and never answers (until the test releases it)."""

    asked = threading.Event()
    release = threading.Event()

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        type(self).asked.set()
        type(self).release.wait(120)

    def log_message(self, *args: object) -> None:
        pass


def test_the_demo_stopped_by_sigterm_removes_its_temporary_folder(case_db_path: Path, tmp_path: Path) -> None:
    cache, temp = tmp_path / "cache", tmp_path / "tmp"
    cache.mkdir()
    temp.mkdir()
    shutil.copy(case_db_path, cache / "caselaw.sqlite")
    env = os.environ | {"LEXPROBE_CACHE": str(cache), "TMPDIR": str(temp)}
    with serving(_Hanging) as server:
        model = f"openai-compatible/m@http://127.0.0.1:{server.server_address[1]}/v1"
        log = tmp_path / "demo.err"
        with log.open("w") as stderr:
            process = subprocess.Popen([LEXPROBE, "demo", "--model", model, "--samples", "0", "--no-cache",
                                        "--html", str(tmp_path / "demo.html")], stdout=subprocess.DEVNULL,
                                       stderr=stderr, env=env, cwd=tmp_path)  # fmt: skip
        try:
            assert _Hanging.asked.wait(300), log.read_text()  # the demo is asking the model: its folder exists
            (folder,) = temp.glob("lexprobe-demo-*")
            assert folder.is_dir()
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=120)
        finally:
            _Hanging.release.set()
            if process.poll() is None:
                process.kill()
                process.wait()
    stderr_text = log.read_text()
    assert process.returncode == 128 + signal.SIGTERM, stderr_text
    assert not folder.exists(), stderr_text  # removed, as the demo says it is
    assert list(temp.iterdir()) == []
    assert "SIGTERM: stopping at the next safe point" in stderr_text and "Traceback" not in stderr_text
