"""Benchmark: what a user pays to start `lexprobe`, each time in a fresh process.

Rows (each command run `--runs` times; with `--base`, the two trees alternate run by run, so both see the same load):

1. `lexprobe --help`.
2. A run that sends nothing: `lexprobe hallucination run --model local --tasks existence --levels scotus
   --prompt-styles zero --samples 0 --n 60 --dry-run` (samples 60 Supreme Court cases from the case database, builds
   60 requests, counts tokens; a fresh run directory each time).
3. Cache replay of 60 answers: the same command without `--dry-run`, into a fresh run directory, with every answer
   already in the response cache (filled once before timing by a real run of the embedded model; not timed). The
   replayed run must print the same rate table as the run that filled the cache (checked every time). `--cache`
   reuses a cache folder that already holds them (the fill run then replays too).

For each row: wall time and CPU time (user + system of the child) per run, median [range], and the seconds the
process spent importing `lexprobe.cli` (from `-X importtime`, one extra run per side, not timed). `--base DIR`
times a second source tree (a copy of the `lexprobe` package folder, e.g. the tree before a change) through
`PYTHONPATH`, alternating with this one; both use the same interpreter, case database and cache.

The machine should be quiet: start-up times move with load. Usage:
    python bench/startup.py [--runs 5] [--base /tmp/old-tree] [--no-replay] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
# what the `lexprobe` console script runs (a tree from before `console_main` existed: its `app`, as its script did)
ENTRY = ("import sys; sys.argv[0] = 'lexprobe'; import lexprobe.cli as cli; "
         "sys.exit(getattr(cli, 'console_main', cli.app)())")  # fmt: skip
RUN = ["hallucination", "run", "--model", "local", "--tasks", "existence", "--levels", "scotus",
       "--prompt-styles", "zero", "--samples", "0", "--n", "60"]  # fmt: skip


def command(args: list[str], *, importtime: bool = False) -> list[str]:
    """The `lexprobe ARGS` command line, as the console script runs it (the entry point's one import)."""
    return [sys.executable, *(["-X", "importtime"] if importtime else []), "-c", ENTRY, *args]


def environment(tree: Path | None, cache: Path) -> dict[str, str]:
    """The child's environment: `tree` first on the import path (None: the installed lexprobe), `cache` as the
    response cache, the terminal width fixed so output is comparable."""
    # PYTHONDONTWRITEBYTECODE dropped: a user's lexprobe runs from compiled bytecode (written at install or first run)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "LEXPROBE_CACHE", "PYTHONDONTWRITEBYTECODE")}
    env |= {"LEXPROBE_CACHE": str(cache), "COLUMNS": "200", "TERM": "dumb"}
    if tree is not None:
        env["PYTHONPATH"] = str(tree)
    return env


def timed(args: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float, str]:
    """Run `lexprobe ARGS` once; return (wall s, child CPU s, stdout). Fails on a non-zero exit."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(command(args), env=env, cwd=cwd, capture_output=True, text=True, timeout=600)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"lexprobe {' '.join(args)} exited {proc.returncode}:\n{proc.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, proc.stdout


def import_seconds(args: list[str], env: dict[str, str], cwd: Path) -> float:
    """Seconds spent importing `lexprobe.cli` (cumulative, from `-X importtime`) in one run of `lexprobe ARGS`."""
    proc = subprocess.run(command(args, importtime=True), env=env, cwd=cwd, capture_output=True, text=True,
                          timeout=600)  # fmt: skip
    match = re.search(r"\|\s*(\d+) \| lexprobe\.cli$", proc.stderr, re.MULTILINE)
    return int(match.group(1)) / 1e6 if match else float("nan")


def summary(values: list[float]) -> str:
    """median [min-max], in seconds."""
    return f"{statistics.median(values):.2f} s [{min(values):.2f}-{max(values):.2f}]"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5, help="fresh processes per row and side (default 5)")
    parser.add_argument("--base", type=Path, help="a second source tree (folder holding lexprobe/) to alternate with")
    parser.add_argument("--db", type=Path, help="case database (default: the default one, `lexprobe data build`)")
    parser.add_argument("--cache", type=Path, help="response cache folder to use (default: a new one, filled first)")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("--no-replay", action="store_true", help="leave out the cache replay (and the fill run)")
    options = parser.parse_args()
    from lexprobe.caselaw.paths import default_db_path

    db = options.db or default_db_path()
    if not db.is_file():
        raise SystemExit(f"no case database at {db}: run `lexprobe data build`")
    sides: dict[str, Path | None] = {"this tree": ROOT}  # the tree holding this script, not the installed one
    if options.base is not None:
        sides["base"] = options.base.resolve()
    with tempfile.TemporaryDirectory(prefix="lexprobe-startup-") as folder:
        work = Path(folder)
        cache = options.cache.resolve() if options.cache else work / "cache"
        run_args = [*RUN, "--db", str(db)]
        fill = [*run_args, "--run-dir", str(work / "fill")]
        rows = {
            "`lexprobe --help`": ["--help"],
            "dry run (60 requests, sends nothing)": [*run_args, "--dry-run"],
        }
        expected = None
        if not options.no_replay:  # the embedded model's 60 answers: minutes on a busy machine
            print("filling the response cache (60 answers of the embedded model, unless --cache holds them; not "
                  "timed)...", file=sys.stderr)  # fmt: skip
            _, _, expected = timed(fill, environment(ROOT, cache), work)
            rows["cache replay of 60 answers"] = run_args
        results: dict[str, dict[str, dict]] = {}
        counter = 0
        for row, args in rows.items():
            results[row] = {side: {"wall": [], "cpu": []} for side in sides}
            for _ in range(options.runs):
                for side, tree in sides.items():  # alternate: both sides see the same load
                    counter += 1
                    full = args if args == ["--help"] else [*args, "--run-dir", str(work / f"run-{counter}")]
                    wall, cpu, stdout = timed(full, environment(tree, cache), work)
                    if row.startswith("cache replay") and stdout != expected:
                        raise SystemExit(f"the replay ({side}) printed another table than the run that filled it")
                    results[row][side]["wall"].append(wall)
                    results[row][side]["cpu"].append(cpu)
            for side, tree in sides.items():
                counter += 1
                full = args if args == ["--help"] else [*args, "--run-dir", str(work / f"run-{counter}")]
                results[row][side]["import_s"] = import_seconds(full, environment(tree, cache), work)
    if options.json:
        print(json.dumps(results, indent=1))
        return
    print(f"{options.runs} fresh processes per row and side, alternating; python {sys.version.split()[0]}")
    for row, by_side in results.items():
        for side, values in by_side.items():
            print(f"{row:40s} {side:10s} wall {summary(values['wall'])}  cpu {summary(values['cpu'])}  "
                  f"import lexprobe.cli {values['import_s']:.2f} s")  # fmt: skip


if __name__ == "__main__":
    main()
