"""Wall time of `lexprobe demo`, this checkout against another (e.g. main before a change), alternating.

Each run is a fresh process (`python -c "from lexprobe.cli import console_main ..."` with PYTHONPATH set to the
source tree), with `--no-cache` (no response read from or written to the shared cache) and a temporary run folder,
against one case database built before the first run (so no run pays for the build). The trees alternate
(baseline, this, baseline, this ...), so a change in the machine's load hits both sides alike; the load average
is recorded beside each time.

    python bench/demo_time.py --baseline /work/main --rounds 2

Prints one JSON line per run and a summary (median per tree, and the ratio this / baseline).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
DEMO = "import sys; from lexprobe.cli import console_main; sys.argv = ['lexprobe', 'demo', *sys.argv[1:]]; "
DEMO += "console_main()"


def build_database(cache: Path, tree: Path) -> None:
    """Build the case database into `cache` (the demo's default location there) with `tree`'s code."""
    code = "from lexprobe.demo import ensure_case_database; from lexprobe.caselaw.paths import default_db_path; "
    code += "ensure_case_database(default_db_path())"
    env = os.environ | {"LEXPROBE_CACHE": str(cache), "PYTHONPATH": str(tree)}
    subprocess.run([sys.executable, "-c", code], check=True, env=env, cwd=tree)


def time_demo(tree: Path, cache: Path, html: Path) -> dict:
    """Run the demo once from `tree`; return its wall time, exit status, the load average and the engine's line."""
    env = os.environ | {"LEXPROBE_CACHE": str(cache), "PYTHONPATH": str(tree)}
    load = os.getloadavg()[0]
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", DEMO, "--no-cache", "--html", str(html)], capture_output=True,
                          text=True, env=env, cwd=tree)  # fmt: skip
    wall = time.perf_counter() - start
    engine = next((line for line in done.stdout.splitlines() if " requests: " in line), "")
    return {"tree": str(tree), "rc": done.returncode, "wall_s": round(wall, 1), "load_before": round(load, 2),
            "load_after": round(os.getloadavg()[0], 2), "engine": engine.strip()}  # fmt: skip


def main() -> None:
    """Alternate the baseline tree and this checkout for `--rounds` rounds; print each run and the medians."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", type=Path, required=True, help="source tree to compare with (e.g. main)")
    parser.add_argument("--rounds", type=int, default=2, help="runs per tree (default 2)")
    args = parser.parse_args()
    trees = [args.baseline.resolve(), HERE]
    with tempfile.TemporaryDirectory(prefix="demo-time-") as folder:
        cache = Path(folder) / "cache"
        build_database(cache, HERE)
        times: dict[str, list[float]] = {str(tree): [] for tree in trees}
        for round_ in range(args.rounds):
            for tree in trees:
                result = time_demo(tree, cache, Path(folder) / f"report-{round_}.html")
                print(json.dumps(result), flush=True)
                if result["rc"] == 0:
                    times[str(tree)].append(result["wall_s"])
        medians = {tree: statistics.median(values) if values else None for tree, values in times.items()}
        base, this = medians[str(trees[0])], medians[str(trees[1])]
        ratio = round(this / base, 3) if base and this else None
        print(json.dumps({"median_wall_s": medians, "ratio_this_over_baseline": ratio}))


if __name__ == "__main__":
    main()
