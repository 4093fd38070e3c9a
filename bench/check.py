"""Benchmark: `lexprobe.check_text` on a ~300-page document (300 pages x 3,000 characters) made of real Supreme Court
opinions (`opinions/scotus/text/*.txt.gz` in LEXPROBE_DATA, concatenated in file-name order with their citations).

The case database is built first into a temporary file (not timed). Then `check_text` runs `--runs` times on the
same document: the first run pays for the database-side caches (U.S. Reports coverage, case facts), the others
show the steady state; citation extraction (eyecite) and verification are also timed apart.

With --baseline, also one eyecite `get_citations` call on the whole document (what `check_text`'s chunking saves).

Usage: python bench/check.py [--pages 300] [--runs 3] [--baseline] [--json]
"""

from __future__ import annotations

import argparse
import gzip
import json
import logging
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

from eyecite import get_citations

from lexprobe.caselaw.build import build_database
from lexprobe.caselaw.paths import data_root
from lexprobe.caselaw.query import CaseDatabase
from lexprobe.check import check_text, extract_citations
from lexprobe.check.verify import Reference, verify_citations

PAGE_CHARS = 3_000


def document(pages: int) -> str:
    """Real opinions, concatenated until `pages` x 3,000 characters, cut at a line break."""
    wanted = pages * PAGE_CHARS
    parts: list[str] = []
    size = 0
    for path in sorted((data_root() / "opinions" / "scotus" / "text").glob("*.txt.gz")):
        with gzip.open(path, "rt", encoding="utf-8", errors="replace") as stream:
            text = stream.read()
        parts.append(text)
        size += len(text) + 2
        if size >= wanted:
            break
    joined = "\n\n".join(parts)
    cut = joined.rfind("\n", 0, wanted)
    return joined[: cut if cut > wanted // 2 else wanted]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pages", type=int, default=300)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--baseline", action="store_true", help="Also time one eyecite call on the whole text.")
    args = parser.parse_args()
    text = document(args.pages)
    with tempfile.TemporaryDirectory(prefix="lexprobe-bench-") as tmp:
        db_path = Path(tmp) / "caselaw.sqlite"
        build_database(data_root(), db_path)
        db = CaseDatabase(db_path)
        runs = []
        citations = 0
        for _ in range(args.runs):
            began = time.perf_counter()
            verdicts = check_text(text, db)
            runs.append(time.perf_counter() - began)
            citations = len(verdicts)
        began = time.perf_counter()
        found = extract_citations(text)
        extract_s = time.perf_counter() - began
        began = time.perf_counter()
        verify_citations(found, Reference(db))  # a fresh Reference: cold database-side caches
        verify_cold_s = time.perf_counter() - began
        db.close()
    baseline_s = None
    if args.baseline:  # what chunking saves: eyecite's get_citations on the whole document at once
        logging.getLogger("eyecite").setLevel(logging.ERROR)
        began = time.perf_counter()
        get_citations(text)
        baseline_s = round(time.perf_counter() - began, 2)
    steady = statistics.median(runs[1:]) if len(runs) > 1 else runs[0]
    result = {
        "machine": f"{platform.machine()}, {platform.system()}, Python {platform.python_version()}",
        "characters": len(text),
        "pages": round(len(text) / PAGE_CHARS),
        "citations": citations,
        "first_run_s": round(runs[0], 2),
        "steady_s": round(steady, 2),
        "runs_s": [round(r, 2) for r in runs],
        "extract_s": round(extract_s, 2),
        "verify_cold_s": round(verify_cold_s, 2),
        "citations_per_s": round(citations / steady),
        "s_per_300_pages": round(steady * 300 * PAGE_CHARS / len(text), 2),
        "eyecite_whole_text_s": baseline_s,
    }
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key}: {value}")
    print("target: under 10 s per 300 pages", file=sys.stderr)


if __name__ == "__main__":
    main()
