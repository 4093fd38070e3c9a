"""Benchmark: how often lexprobe's answer reading gives the label a careful human reader gives (issue 45).

Reads the project's labelled answer corpus (`tests/data/answers/*.jsonl`: answers written by the project in the
styles of the paper and of today's chat models and legal products, each with its task's reference, the human label
and a style) and scores every answer with the task's scorer (`SCORERS[task]`, the same path as `hallucination run`
and `score-answers`). Prints agreement per task, per human label (class) and per style, and every disagreement
with the scorer's detail (`--misses`). The table-driven test `tests/test_answer_corpus.py` runs the same corpus.

No model and no network; the case database is opened when `--db` names one or the default exists (the quotation
and authority tasks need it; rows of those tasks are skipped without it, and the count says so).

Usage: python bench/reader_agreement.py [--corpus DIR] [--db PATH] [--misses] [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path

from lexprobe.hallucination.labels.scoring import ScoringContext
from lexprobe.hallucination.scorers.by_task import SCORERS

CORPUS = Path(__file__).resolve().parent.parent / "tests" / "data" / "answers"
NEEDS_DB = frozenset({"quotation", "authority"})


def load_corpus(folder: Path) -> list[dict]:
    """Return every labelled answer of the `*.jsonl` files in `folder`, each with its file and line."""
    rows = []
    for path in sorted(folder.glob("*.jsonl")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if line.strip():
                row = json.loads(line)
                row["place"] = f"{path.name}:{number}"
                rows.append(row)
    return rows


def _open_db(db: Path | None):
    """Return the case database at `db` (or the default one when it exists), else None."""
    from lexprobe.caselaw.paths import default_db_path
    from lexprobe.caselaw.query import CaseDatabase

    path = db or default_db_path()
    return CaseDatabase(path) if Path(path).exists() else None


def agreement(rows: list[dict], context: ScoringContext) -> list[dict]:
    """Score every row and return it with the scorer's label and detail beside the human label."""
    scored = []
    for row in rows:
        if row["task"] in NEEDS_DB and context.db is None:
            continue
        score = SCORERS[row["task"]](row["answer"], row["reference"], context)
        scored.append({**row, "scorer_label": score.label, "scorer_detail": score.detail})
    return scored


def _table(scored: list[dict], key: str) -> dict[str, tuple[int, int]]:
    """Return (agreeing, total) per value of `key`."""
    totals: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for row in scored:
        totals[row[key]][1] += 1
        totals[row[key]][0] += row["scorer_label"] == row["label"]
    return {name: (good, total) for name, (good, total) in sorted(totals.items())}


def _write_misreads(path: Path, misses: list[dict]) -> None:
    """Rewrite the list of known misreads (id -> the scorer's label), keeping its "about" text."""
    about = json.loads(path.read_text(encoding="utf-8")).get("about", "") if path.exists() else ""
    listed = {row["id"]: row["scorer_label"] for row in sorted(misses, key=lambda row: row["id"])}
    path.write_text(json.dumps({"about": about, "misreads": listed}, indent=1, ensure_ascii=False) + "\n", "utf-8")
    print(f"{len(listed)} known misreads written to {path}", file=sys.stderr)


def main(argv: list[str] | None = None) -> None:
    """Print the agreement of the scorers with the corpus's human labels."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--db", type=Path)
    parser.add_argument("--misses", action="store_true", help="list every disagreement with the scorer's detail")
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--write-misreads",
        action="store_true",
        help="rewrite the corpus's known_misreads.json with today's misses (the test's strict expected failures)",
    )
    args = parser.parse_args(argv)
    rows = load_corpus(args.corpus)
    scored = agreement(rows, ScoringContext(_open_db(args.db)))
    skipped = len(rows) - len(scored)
    tables = {key: _table(scored, key) for key in ("task", "label", "style")}
    misses = [row for row in scored if row["scorer_label"] != row["label"]]
    if args.write_misreads:
        _write_misreads(args.corpus / "known_misreads.json", misses)
    if args.json:
        print(json.dumps({"answers": len(scored), "skipped_without_db": skipped, "tables": tables, "misses": misses}))
        return
    agreeing = len(scored) - len(misses)
    print(f"{agreeing} of {len(scored)} answers labelled as the human reader did ({agreeing / len(scored):.1%})")
    if skipped:
        print(f"{skipped} answers of the quotation and authority tasks skipped: no case database", file=sys.stderr)
    for key, table in tables.items():
        print(f"\nby {key}:")
        for name, (good, total) in table.items():
            print(f"  {name:<22} {good:>4} / {total:<4} {good / total:6.1%}")
    confusion = Counter((row["label"], row["scorer_label"]) for row in misses)
    if confusion:
        print("\nmisses (human -> scorer): " + ", ".join(f"{a} -> {b}: {n}" for (a, b), n in confusion.most_common()))
    if args.misses:
        for row in misses:
            print(f"\n{row['id']} ({row['place']}, {row['style']}): human {row['label']}, scorer {row['scorer_label']}")
            print(f"  answer: {row['answer'][:300]!r}")
            print(f"  scorer: {row['scorer_detail'][:300]}")


if __name__ == "__main__":
    main()
