"""Benchmark: what telling an answer's language costs (`labels/language.py`, lingua), in high- and low-accuracy mode.

For each mode, in a fresh process (so the memory is the mode's own): the time to import lingua, to build the
detector for `language.LANGUAGES`, and to detect the first Latin-script answer (lingua loads a language's models on
first use); the resident memory before any model is loaded and at its peak, after every model the answers need; and
the time per answer of `detect_language` and of `to_english` (their memos bypassed) over 1,000 distinct answers,
once cold (models loading; `to_english` includes detection) and once warm (`to_english`'s detection then comes from
the memo of `detect_language`, as it does in a run, so it is the translation alone). The answers are the labelled
corpus's (`tests/data/answers`), each whole and each of its sentences alone (short answers are the hard case), up to
1,000.

Accuracy on the same corpus: of its "other_language" rows, how many are told foreign; of its English rows, how many
are wrongly told foreign.

Usage: python bench/language.py [--modes high,low] [--answers 1000] [--json]
"""

from __future__ import annotations

import argparse
import json
import re
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "data" / "answers"


def corpus_rows() -> list[dict]:
    """Return the labelled corpus's rows."""
    rows = []
    for path in sorted(CORPUS.glob("*.jsonl")):
        rows.extend(json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip())
    return rows


def answers(rows: list[dict], count: int) -> list[str]:
    """Return up to `count` distinct answers: each corpus answer whole, then each of its sentences alone."""
    seen: dict[str, None] = dict.fromkeys(row["answer"] for row in rows)
    for row in rows:
        for sentence in re.split(r"(?<=[.!?。])\s*", row["answer"]):
            if sentence.strip():
                seen.setdefault(sentence.strip(), None)
    return list(seen)[:count]


def measure(mode: str, count: int) -> dict:
    """Measure one mode in this process (run it in a fresh one)."""
    started = time.perf_counter()
    import lingua  # noqa: F401

    imported = time.perf_counter()
    from lexprobe.hallucination.labels import language

    language.LOW_ACCURACY = mode == "low"
    language._detector()
    built = time.perf_counter()
    rss_built = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    language.detect_language.__wrapped__("No estoy seguro, pero creo que el caso existe.")
    first = time.perf_counter()
    rows = corpus_rows()
    texts = answers(rows, count)
    timings = {}
    for label in ("cold", "warm"):
        start = time.perf_counter()
        for text in texts:
            language.detect_language.__wrapped__(text)
        middle = time.perf_counter()
        for text in texts:
            language.to_english.__wrapped__(text)
        end = time.perf_counter()
        timings[label] = {
            "detect_ms": (middle - start) / len(texts) * 1e3,
            "to_english_ms": (end - middle) / len(texts) * 1e3,
        }
    foreign = [row for row in rows if row["style"] == "other_language"]
    english = [row for row in rows if row["style"] != "other_language"]
    return {
        "mode": mode,
        "import_s": imported - started,
        "build_s": built - imported,
        "first_latin_answer_s": first - built,
        "rss_before_models_mb": rss_built,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "answers": len(texts),
        **{f"{label}_{key}": value for label, values in timings.items() for key, value in values.items()},
        "foreign_told": sum(language.detect_language(row["answer"]) is not None for row in foreign),
        "foreign_rows": len(foreign),
        "english_told_foreign": [row["id"] for row in english if language.detect_language(row["answer"]) is not None],
        "english_rows": len(english),
    }


def main(argv: list[str] | None = None) -> None:
    """Run each mode in a fresh process and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--modes", default="high,low")
    parser.add_argument("--answers", type=int, default=1000)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(measure(args.child, args.answers)))
        return
    results = []
    for mode in args.modes.split(","):
        done = subprocess.run(
            [sys.executable, __file__, "--child", mode, "--answers", str(args.answers)],
            capture_output=True, text=True, check=True, cwd=ROOT,
        )  # fmt: skip
        results.append(json.loads(done.stdout))
    if args.json:
        print(json.dumps(results, indent=1))
        return
    print("| mode | import lingua | build | first Latin answer | RSS before models, peak "
          "| detect / answer (cold, warm) | to_english / answer (cold, warm) | other_language told foreign "
          "| English told foreign |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|---|")
    for r in results:
        print(
            f"| {r['mode']} | {r['import_s'] * 1e3:.0f} ms | {r['build_s'] * 1e3:.1f} ms "
            f"| {r['first_latin_answer_s']:.2f} s "
            f"| {r['rss_before_models_mb']:.0f}, {r['peak_rss_mb']:.0f} MB "
            f"| {r['cold_detect_ms']:.2f}, {r['warm_detect_ms']:.2f} ms "
            f"| {r['cold_to_english_ms']:.2f}, {r['warm_to_english_ms']:.2f} ms "
            f"| {r['foreign_told']} / {r['foreign_rows']} | {len(r['english_told_foreign'])} / {r['english_rows']} "
            f"{' '.join(r['english_told_foreign'])} |"
        )
    print(f"\n{results[0]['answers']} distinct answers per pass")


if __name__ == "__main__":
    main()
