"""Benchmark: scoring one long answer (issue 44, item 7: scoring was quadratic in the answer's length; a 1 MB
answer took 19 s, a 50 MB batch answer stalled a run for minutes, and again on a rerun that sent nothing).

For each size (`--sizes`, in characters; default 10k, 100k, 1M and 10M) an answer is made here, reproducibly
(`--seed`): a first sentence that answers (a court, a year, a disposition...) followed by varied legal prose
(sentences drawn from a pool of clauses, in English, so the language check reads all of it). Every reference-based
task that needs no case database scores it, in a fresh process: the headline is the wall time of scoring that one
answer with all ten tasks (the interpreter's start-up and imports are timed apart and left out).

With `--before DIR` (a folder holding an older `lexprobe` package, e.g. `git archive COMMIT lexprobe | tar -x -C
DIR`) the same scoring runs with that code in a fresh process, killed after `--before-timeout` seconds: the baseline,
in the same run. Where both finish and the answer is within the new bound (`final_answer.MAX_ANSWER_CHARS`), the
two must give the same labels, or the bench fails; above the bound the new code reads less (its detail says so), so
the labels are reported side by side, not compared.

Usage: python bench/scoring_long_answer.py [--sizes 10000,100000,1000000,10000000] [--before DIR]
                                           [--before-timeout 300] [--seed 44] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import subprocess
import sys
import tempfile
from pathlib import Path

DEFAULT_SIZES = (10_000, 100_000, 1_000_000, 10_000_000)
TASKS = [
    ("existence", {}),
    ("fake_existence", {}),
    ("court", {"court_id": "ca9"}),
    ("citation", {"citations": ["347 U.S. 483"]}),
    ("author", {"decided": "1954-05-17", "author": "Earl Warren"}),
    ("disposition", {"disposition": "reverse"}),
    ("overruling_year", {"year": 1954}),
    ("doctrinal_agreement", {"agreement": "disagree", "case2": "scotus:163_U.S._537"}),
    ("false_dissent", {"dissenter": "Earl Warren"}),
    ("false_overruling", {}),
]
OPENERS = (
    "Yes, the case is real and was decided by the Ninth Circuit, which reversed the judgment below in 1954.",
    "The opinion was written by Earl Warren, and the Court reversed; it was decided in 1954.",
    "No, the premise is mistaken: nothing in the opinion supports it, and it was not overruled.",
)
SUBJECTS = ("the court", "the panel", "the district judge", "the agency", "the petitioner", "the respondent")
VERBS = ("considered", "rejected", "weighed", "set aside", "distinguished", "relied on", "questioned")
OBJECTS = (
    "the text of the statute",
    "the structure of the scheme",
    "the settled reading of the clause",
    "the record before the agency",
    "the earlier decisions of the circuit",
    "the argument about the remedy",
)
TAILS = (
    "and the parties disputed what followed from it",
    "although nothing in the briefs addressed the point directly",
    "which left the question for another day",
    "so the judgment could not stand as written",
)

#: Run in a fresh process: scoring the answer in the file argv[1] with every task; seconds and labels as JSON.
CHILD = """
import json, sys, time
began = time.perf_counter()
import lexprobe
from lexprobe.hallucination.labels.scoring import ScoringContext
from lexprobe.hallucination.scorers.by_task import SCORERS
imported = time.perf_counter()
answer = open(sys.argv[1], encoding="utf-8").read()
tasks = json.loads(sys.argv[2])
labels = {}
start = time.perf_counter()
for task, reference in tasks:
    score = SCORERS[task](answer, reference, ScoringContext())
    labels[task] = [score.label, score.detail[-160:]]
done = time.perf_counter()
print(json.dumps({"code": lexprobe.__file__, "import_s": imported - began, "score_s": done - start,
                  "labels": labels}))
"""


def make_answer(size: int, seed: int) -> str:
    """Return an answer of `size` characters: an answering first sentence, then varied prose (reproducible)."""
    parts = [random.Random(seed).choice(OPENERS)]  # the same first sentence at every size: only the length varies
    rng = random.Random(f"{seed}:{size}")
    length = len(parts[0])
    while length < size:
        sentence = (
            f" {rng.choice(SUBJECTS).capitalize()} {rng.choice(VERBS)} {rng.choice(OBJECTS)}, {rng.choice(TAILS)}."
        )
        parts.append(sentence)
        length += len(sentence)
    return "".join(parts)[:size]


def score_in_fresh_process(answer_file: Path, code_dir: Path | None, timeout: float) -> dict:
    """Score the answer in `answer_file` in a new interpreter (with `code_dir` first on the path when given)."""
    env = dict(os.environ)
    if code_dir is not None:
        env["PYTHONPATH"] = str(code_dir) + os.pathsep + env.get("PYTHONPATH", "")
    try:
        done = subprocess.run(
            [sys.executable, "-c", CHILD, str(answer_file), json.dumps(TASKS)],
            capture_output=True,
            text=True,
            env=env,
            cwd=answer_file.parent,  # not the checkout: `-c` puts the working folder first on the path
            timeout=timeout,
            check=True,
        )
    except subprocess.TimeoutExpired:
        return {"timed_out": timeout}
    return json.loads(done.stdout)


def main(argv: list[str] | None = None) -> None:
    """Score long answers of each size with this checkout and, with `--before`, the older code."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default=",".join(str(size) for size in DEFAULT_SIZES))
    parser.add_argument("--before", type=Path, help="a folder holding an older lexprobe package: the baseline")
    parser.add_argument("--before-timeout", type=float, default=300.0)
    parser.add_argument("--timeout", type=float, default=600.0, help="the limit for this checkout's code")
    parser.add_argument("--seed", type=int, default=44)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    from lexprobe.hallucination.labels.final_answer import MAX_ANSWER_CHARS

    here = Path(__file__).resolve().parent.parent
    rows = []
    with tempfile.TemporaryDirectory(prefix="lexprobe-bench-long-") as tmp:
        for size in (int(value) for value in args.sizes.split(",")):
            answer = make_answer(size, args.seed)
            answer_file = Path(tmp) / f"answer-{size}.txt"
            answer_file.write_text(answer, encoding="utf-8")
            distinct = len(set(answer.split(". ")))
            row = {"size": size, "distinct_sentences": distinct}
            row["now"] = score_in_fresh_process(answer_file, here, args.timeout)
            assert Path(row["now"]["code"]).resolve().is_relative_to(here), row["now"]["code"]
            if args.before is not None:
                row["before"] = score_in_fresh_process(answer_file, args.before.resolve(), args.before_timeout)
                before = row["before"]
                if "labels" in before:
                    assert Path(before["code"]).resolve().is_relative_to(args.before.resolve()), before["code"]
                    if size <= MAX_ANSWER_CHARS:
                        now_labels = {task: label for task, (label, _) in row["now"]["labels"].items()}
                        old_labels = {task: label for task, (label, _) in before["labels"].items()}
                        if now_labels != old_labels:
                            sys.exit(f"labels differ at {size:,} characters: {now_labels} against {old_labels}")
            rows.append(row)
            if not args.json:
                _print_row(row)
    if args.json:
        print(json.dumps({"machine": platform.platform(), "load": os.getloadavg(), "rows": rows}, indent=1))


def _print_row(row: dict) -> None:
    """Print one size's figures."""
    now = row["now"]
    line = f"{row['size']:>12,} chars ({row['distinct_sentences']:,} distinct sentences): now {now['score_s']:.3f} s"
    before = row.get("before")
    if before is not None:
        if "timed_out" in before:
            line += f"; before: not done in {before['timed_out']:.0f} s"
        else:
            ratio = before["score_s"] / max(now["score_s"], 1e-9)
            line += f"; before {before['score_s']:.3f} s ({ratio:,.1f}x)"
    print(line, flush=True)
    cut = [task for task, (_, detail) in now["labels"].items() if "read the first" in detail]
    if cut:
        print(f"{'':>12} cut (detail says so) for {len(cut)} of {len(now['labels'])} tasks", flush=True)


if __name__ == "__main__":
    main()
