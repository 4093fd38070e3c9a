"""The `lexprobe` console script (`cli.console_main`): the command's exit code and output, every file closed and
every database connection's write-ahead log folded back at exit."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ENTRY = "import sys; sys.argv[0] = 'lexprobe'; from lexprobe.cli import console_main; sys.exit(console_main())"


def lexprobe(args: list[str], env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """Run `lexprobe ARGS` in a fresh interpreter, as the console script does."""
    return subprocess.run([sys.executable, "-c", ENTRY, *args], env=os.environ | (env or {}) | {"COLUMNS": "200"},
                          capture_output=True, text=True, timeout=600)  # fmt: skip


def test_the_console_script_is_console_main() -> None:
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts["lexprobe"] == "lexprobe.cli:console_main"


def test_a_run_exits_with_its_output_and_leaves_no_open_database_behind(case_db_path: Path, tmp_path: Path) -> None:
    script = tmp_path / "answers.jsonl"
    script.write_text('{"text": "Yes, that case exists."}\n')
    cache = tmp_path / "cache"
    args = ["hallucination", "run", "--model", f"scripted:{script}", "--tasks", "existence", "--levels", "scotus",
            "--prompt-styles", "zero", "--samples", "0", "--n", "5", "--db", str(case_db_path)]  # fmt: skip
    first = lexprobe([*args, "--run-dir", str(tmp_path / "fill")], {"LEXPROBE_CACHE": str(cache)})
    assert first.returncode == 0, first.stderr
    assert "existence" in first.stdout and "5 requests: 0 done before, 0 from cache, 5 sent" in first.stderr
    replay = lexprobe([*args, "--run-dir", str(tmp_path / "replay")], {"LEXPROBE_CACHE": str(cache)})
    assert replay.returncode == 0, replay.stderr
    assert replay.stdout == first.stdout and "5 from cache" in replay.stderr
    for folder in (cache, tmp_path / "fill", tmp_path / "replay"):
        names = sorted(path.name for path in folder.iterdir())
        # each SQLite file was closed (its -wal and -shm removed when the last connection closed) and the run lock
        # released: what the command had open was finalized before the exit
        assert not [name for name in names if name.endswith(("-wal", "-shm", "-journal")) or name == "run.lock"], names
    stored = subprocess.run([sys.executable, "-c", ENTRY, "hallucination", "report",
                             str(tmp_path / "replay")], capture_output=True, text=True, timeout=600,
                            env=os.environ | {"COLUMNS": "200"})  # fmt: skip
    assert stored.returncode == 0, stored.stderr
    assert stored.stdout.splitlines()[:6] == first.stdout.splitlines()[:6]  # every answer was stored and committed


def test_an_error_exit_closes_the_databases_the_command_had_open(case_db_path: Path, tmp_path: Path) -> None:
    # the error's exception chain holds the command's frames, and with them the open response cache: the exit must
    # let go of it before collecting, or the cache's write-ahead log is never folded back into its file
    script = tmp_path / "answers.jsonl"
    script.write_text('{"text": "Yes."}\n')
    cache, run_dir = tmp_path / "cache", tmp_path / "run"
    common = ["hallucination", "run", "--tasks", "existence", "--levels", "scotus", "--prompt-styles", "zero",
              "--samples", "0", "--n", "3", "--db", str(case_db_path), "--run-dir", str(run_dir)]  # fmt: skip
    first = lexprobe([*common, "--model", f"scripted:{script}"], {"LEXPROBE_CACHE": str(cache)})
    assert first.returncode == 0, first.stderr
    other = tmp_path / "other.jsonl"
    other.write_text('{"text": "No."}\n')
    conflict = lexprobe([*common, "--model", f"scripted:{other}"], {"LEXPROBE_CACHE": str(cache)})
    assert conflict.returncode == 2 and "use a new --run-dir" in conflict.stderr
    for folder in (cache, run_dir):
        names = sorted(path.name for path in folder.iterdir())
        assert not [name for name in names if name.endswith(("-wal", "-shm", "-journal")) or name == "run.lock"], names


def test_bad_input_and_a_bug_keep_their_exit_codes(tmp_path: Path) -> None:
    bad = lexprobe(["check", str(tmp_path / "no-such-brief.pdf")])
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1
    usage = lexprobe(["halucination"])
    assert usage.returncode == 2 and "No such command" in usage.stderr
    script = ("import sys, lexprobe.cli.toplevel as t\n"
              "def bug():\n    raise ValueError('a library bug')\n"
              "t.model_status = bug\nsys.argv = ['lexprobe', 'models']\n"
              "from lexprobe.cli import console_main\nconsole_main()\n")  # fmt: skip
    crash = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert crash.returncode == 1
    assert "Traceback (most recent call last)" in crash.stderr and "ValueError: a library bug" in crash.stderr
    shown = lexprobe(["--version"])
    assert shown.returncode == 0 and shown.stdout.startswith("lexprobe ")
