"""Start-up stays cheap: `lexprobe --help` and a dry run import none of the heavy packages they do not use, and
`--help` none of the task registry, scorers or calibration.

Each command runs in a fresh interpreter, as the console script runs it, and writes the names in `sys.modules` at
exit to a file; the test asserts which heavy packages are absent. No timing is asserted (bench/startup.py times it).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

#: Packages that cost tens to hundreds of milliseconds to import and that neither command below needs.
HEAVY = ("pandas", "matplotlib", "numpy", "scipy", "eyecite", "pptx", "openpyxl", "pypdf", "reportlab", "docx",
         "openai", "anthropic", "llama_cpp", "datasets", "lxml", "ray", "lingua")  # fmt: skip
#: What `--help` needs none of either: templates, HTTP clients, retry machinery, court data, the event loop (about
#: 20 ms). (Not pydantic: Typer itself imports it to coerce some option types when it builds a command's parameters.)
NOT_FOR_HELP = (*HEAVY, "jinja2", "httpx", "tenacity", "courts_db", "reporters_db", "rapidfuzz", "asyncio")
#: Our own modules `--help` needs none of: the task registry and task modules, the scorers and calibration (help
#: text reads its few facts from `hallucination.help_facts`).
NOT_OURS_FOR_HELP = ("lexprobe.hallucination.tasks", "lexprobe.hallucination.scorers.by_task",
                     "lexprobe.hallucination.labels.scoring", "lexprobe.hallucination.scorers.calibration",
                     "lexprobe.hallucination.labels.abstention", "lexprobe.hallucination.reader")  # fmt: skip

ENTRY = """
import atexit, json, os, sys
atexit.register(lambda: open(os.environ["MODULES_OUT"], "w").write(json.dumps(sorted(sys.modules))))
sys.argv[0] = "lexprobe"
from lexprobe.cli import app
sys.exit(app())
"""


def imported_modules(args: list[str], tmp_path: Path) -> tuple[list[str], subprocess.CompletedProcess]:
    """Run `lexprobe ARGS` in a fresh interpreter; return the modules it had imported at exit."""
    out = tmp_path / "modules.json"
    env = os.environ | {"MODULES_OUT": str(out), "COLUMNS": "200"}
    proc = subprocess.run([sys.executable, "-c", ENTRY, *args], env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    return json.loads(out.read_text()), proc


def modules_after(args: list[str], tmp_path: Path) -> tuple[set[str], subprocess.CompletedProcess]:
    """Run `lexprobe ARGS` in a fresh interpreter; return the top-level packages it had imported at exit."""
    modules, proc = imported_modules(args, tmp_path)
    return {name.split(".")[0] for name in modules}, proc


HELP_COMMANDS = [
    ["--help"],
    ["hallucination", "--help"],
    ["hallucination", "run", "--help"],
    ["investigation", "--help"],
]


@pytest.mark.parametrize("args", HELP_COMMANDS)
def test_help_imports_no_heavy_package(args: list[str], tmp_path: Path) -> None:
    modules, proc = imported_modules(args, tmp_path)
    imported = {name.split(".")[0] for name in modules}
    assert "Usage:" in proc.stdout
    assert "lexprobe.cli" in modules  # the probe saw the real run
    assert sorted(imported & set(NOT_FOR_HELP)) == []
    assert [name for name in modules if name.startswith(NOT_OURS_FOR_HELP)] == []


@pytest.mark.parametrize("model", ["local", "openai-compatible/smol@http://127.0.0.1:9/v1"])
def test_dry_run_imports_no_heavy_package(model: str, case_db_path: Path, tmp_path: Path) -> None:
    args = ["hallucination", "run", "--model", model, "--tasks", "existence", "--levels", "scotus",
            "--prompt-styles", "zero", "--samples", "0", "--n", "20", "--dry-run", "--db", str(case_db_path),
            "--run-dir", str(tmp_path / "run")]  # fmt: skip
    imported, proc = modules_after(args, tmp_path)
    assert proc.stdout.startswith("dry run: 20 requests")  # it did the work: sampled, built and counted requests
    assert "pydantic" in imported  # the request model is needed
    assert "jinja2" not in imported  # zero-shot questions are plain templates (`prompts.PlainTemplate`)
    assert sorted(imported & set(HEAVY)) == []
    assert "tenacity" not in imported  # the executor is not imported by a run that sends nothing


def test_a_few_shot_dry_run_renders_its_examples_with_jinja2(case_db_path: Path, tmp_path: Path) -> None:
    args = ["hallucination", "run", "--model", "local", "--tasks", "existence", "--levels", "scotus",
            "--prompt-styles", "few", "--samples", "0", "--n", "5", "--dry-run", "--db", str(case_db_path),
            "--run-dir", str(tmp_path / "run")]  # fmt: skip
    imported, proc = modules_after(args, tmp_path)
    assert proc.stdout.startswith("dry run: 5 requests")
    assert "jinja2" in imported  # the few-shot templates loop over their examples


#: The command modules of each root command; a command imports its own and none of the others'.
COMMAND_MODULES = {
    "hallucination": ("lexprobe.cli.hallucination", "lexprobe.cli.labels"),
    "investigation": ("lexprobe.cli.investigation", "lexprobe.cli.investigation_build",
                      "lexprobe.cli.investigation_run", "lexprobe.cli.investigation_score",
                      "lexprobe.cli.investigation_qa_score"),
    "data": ("lexprobe.cli.data",),
    "check": ("lexprobe.cli.check",),
    "toplevel": ("lexprobe.cli.toplevel",),
}  # fmt: skip


def test_root_help_still_lists_every_command(tmp_path: Path) -> None:
    modules, proc = imported_modules(["--help"], tmp_path)
    for name in ("check", "models", "ask", "demo", "data", "hallucination", "investigation"):
        assert f" {name} " in proc.stdout
    assert all(name in modules for names in COMMAND_MODULES.values() for name in names)


def test_cache_replay_imports_no_retry_machinery_or_fuzzy_matcher(case_db_path: Path, tmp_path: Path) -> None:
    script = tmp_path / "answers.jsonl"
    script.write_text('{"text": "Yes, that case exists."}\n')
    args = ["hallucination", "run", "--model", f"scripted:{script}", "--tasks", "existence", "--levels", "scotus",
            "--prompt-styles", "zero", "--samples", "0", "--n", "5", "--db", str(case_db_path)]  # fmt: skip
    env_cache = {"LEXPROBE_CACHE": str(tmp_path / "cache")}
    first = subprocess.run([sys.executable, "-c", ENTRY, *args, "--run-dir", str(tmp_path / "fill")],
                           env=os.environ | env_cache | {"MODULES_OUT": str(tmp_path / "fill.json")},
                           capture_output=True, text=True, timeout=600)  # fmt: skip
    assert first.returncode == 0, first.stderr
    assert "tenacity" in {name.split(".")[0] for name in json.loads((tmp_path / "fill.json").read_text())}
    out = tmp_path / "replay.json"
    replay = subprocess.run([sys.executable, "-c", ENTRY, *args, "--run-dir", str(tmp_path / "replay")],
                            env=os.environ | env_cache | {"MODULES_OUT": str(out)},
                            capture_output=True, text=True, timeout=600)  # fmt: skip
    assert replay.returncode == 0, replay.stderr
    assert replay.stdout == first.stdout  # the same rate table, every answer from the cache
    imported = {name.split(".")[0] for name in json.loads(out.read_text())}
    assert "tenacity" not in imported and "rapidfuzz" not in imported
