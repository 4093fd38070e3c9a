"""Benchmark: `lexprobe export RUN --format inspect` on synthetic hallucination run stores of growing size.

Each store is SYNTHETIC, written with lexprobe's own `RunStore` API (`add_items`, `add_requests`,
`record_responses`, `record_scores`, `claim`, `set_meta`) as a hallucination run writes it: N existence items at
three levels and two prompt styles, one greedy request each with the rendered-size prompt of a real item, an
answer of 20-60 words, a `reference` label drawn 45% correct, 35% hallucination, 10% abstain, 10% unscored, each
with its reason. Then, in a fresh child process per size, `lexprobe export RUN --format inspect --out X.eval`:
wall time and the child's peak RSS (`os.wait4`). Flat peak RSS against N shows the export streams; what still
grows is Inspect's per-sample summary, which a `.eval` file keeps in memory until its `summaries.json` is written.

`--in-memory N` also measures the way without streaming at N items: every sample built into one `EvalLog` and
written by `inspect_ai.log.write_eval_log` (a child as well), for the per-item memory it needs.

Usage: python bench/export_scale.py [--sizes 5000,20000,100000] [--in-memory 5000] [--dir DIR] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

LEXPROBE = str(Path(sys.executable).with_name("lexprobe"))
LABELS = (("correct", 45), ("hallucination", 35), ("abstain", 10), ("unscored", 10))
WORDS = ("the", "court", "held", "that", "case", "exists", "and", "was", "decided", "by", "in", "yes")
MODEL = "scripted:bench.jsonl"
PROMPT = ("Is the following case a real case? Answer yes or no, then explain.\n\nCase: {name}, {cite} ({year})\n"
          "Answer:")  # fmt: skip
CHUNK = 5000


def _rows(start: int, count: int, rng: random.Random) -> tuple[dict, list, list, list]:
    """The items, requests, responses and scores of items start..start+count."""
    from lexprobe.engine.store import TelemetryRow
    from lexprobe.hallucination.tasks.item import ItemRecord
    from lexprobe.models.types import Message, Request, Response, Usage

    items, requests, responses, scores = {}, [], [], []
    labels, weights = zip(*LABELS, strict=True)
    for n in range(start, start + count):
        level, style = ("scotus", "coa", "district")[n % 3], ("zero", "few")[n // 3 % 2]
        item_id = f"existence|{level}|{style}|case:{n}"
        year = str(1800 + n % 220)
        items[item_id] = ItemRecord(task="existence", level=level, prompt_style=style, case_id=f"case:{n}",
                                    covariates={"year": year, "court_id": level}).model_dump_json()  # fmt: skip
        prompt = PROMPT.format(name=f"Party {n} v. Party {n + 1}", cite=f"{n % 600} U.S. {n % 997}", year=year)
        requests.append(Request(model=MODEL, messages=(Message(role="user", content=prompt),), temperature=0.0,
                                max_tokens=128, id=item_id))  # fmt: skip
        text = f"{n}: " + " ".join(rng.choice(WORDS) for _ in range(rng.randint(20, 60)))
        answer = Response(text=text, usage=Usage(input_tokens=40, output_tokens=len(text) // 4))
        responses.append((item_id, answer, TelemetryRow(item_id, MODEL, 1, "ok", None, 0.1)))
        label = rng.choices(labels, weights)[0]
        scores.append((item_id, "reference", label, {"detail": f"synthetic {label}: answer {n} read as {label}"}))
    return items, requests, responses, scores


def write_store(run_dir: Path, count: int, seed: int = 7) -> float:
    """Write a synthetic hallucination run store of `count` items; return the seconds it took."""
    from lexprobe.engine.store import RunStore

    began = time.monotonic()
    rng = random.Random(seed)
    store = RunStore.open(run_dir)
    try:
        store.claim("hallucination", MODEL)
        store.set_meta("settings", {"model": MODEL, "tasks": ["existence"], "levels": ["scotus", "coa", "district"],
                                    "styles": ["zero", "few"], "n": count, "seed": seed, "samples": 0})  # fmt: skip
        for start in range(0, count, CHUNK):
            items, requests, responses, scores = _rows(start, min(CHUNK, count - start), rng)
            store.add_items(items)
            store.add_requests(requests)
            store.record_responses(responses)
            store.record_scores(scores)
    finally:
        store.close()
    return time.monotonic() - began


def measure(command: list[str]) -> dict:
    """Run `command` as a child; return its wall seconds, peak RSS (MiB) and exit code."""
    began = time.monotonic()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                               env=os.environ | {"INSPECT_LOG_DIR": str(Path(command[-1]).parent)})  # fmt: skip
    _, status, usage = os.wait4(process.pid, 0)
    output = process.stdout.read().decode() if process.stdout else ""
    return {"seconds": round(time.monotonic() - began, 2), "peak_rss_mib": round(usage.ru_maxrss / 1024, 1),
            "exit": os.waitstatus_to_exitcode(status), "summary": output.strip()[-400:]}  # fmt: skip


IN_MEMORY = """
import sys
from pathlib import Path
from inspect_ai.log import EvalLog, write_eval_log
from lexprobe.engine.store import RunStore
from lexprobe.interop.inspect_log import eval_spec
from lexprobe.interop.hallucination_samples import HallucinationSamples
store = RunStore.open_read_only(sys.argv[1])
source = HallucinationSamples(store, "{model}")
samples = list(source)
spec = eval_spec("hallucination", "{model}", Path(sys.argv[1]), len(samples), {{}})
write_eval_log(EvalLog(eval=spec, samples=samples, status="success"), sys.argv[2])
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="5000,20000,100000")
    parser.add_argument("--in-memory", type=int, default=0, help="also write N items without streaming")
    parser.add_argument("--dir", type=Path, default=Path("/tmp/lexprobe-export-scale"))
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    args.dir.mkdir(parents=True, exist_ok=True)
    results = []
    for size in [int(s) for s in args.sizes.split(",") if s]:
        run_dir = args.dir / f"run-{size}"
        if not (run_dir / "run.sqlite").is_file():
            built = write_store(run_dir, size)
            print(f"store {size:,}: built in {built:.1f}s", file=sys.stderr)
        out = args.dir / f"run-{size}.eval"
        row = {"items": size, "store_mib": round((run_dir / "run.sqlite").stat().st_size / 2**20, 1)}
        command = [LEXPROBE, "export", str(run_dir), "--format", "inspect", "--force", "--json", "--out", str(out)]
        row |= measure(command)
        row["eval_mib"] = round(out.stat().st_size / 2**20, 1) if out.is_file() else None
        results.append(row)
        print(json.dumps(row), file=sys.stderr)
    if args.in_memory:
        run_dir = args.dir / f"run-{args.in_memory}"
        if not (run_dir / "run.sqlite").is_file():
            write_store(run_dir, args.in_memory)
        script = IN_MEMORY.format(model=MODEL)
        row = {"items": args.in_memory, "mode": "in-memory write_eval_log"}
        row |= measure([sys.executable, "-c", script, str(run_dir), str(args.dir / "in-memory.eval")])
        results.append(row)
        print(json.dumps(row), file=sys.stderr)
    print(json.dumps(results, indent=None if args.json else 1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
