"""Benchmark: full case-database build from the public data, and citation lookups per second.

- Build: `build_database` from `LEXPROBE_DATA` into a temporary file (target: under 60 s on a 2-core machine).
- Lookups: every U.S. Reports citation in the database looked up through `CaseDatabase.find_by_citation`
  (citation parsing + the `case_citations` index), against a baseline of the same number of plain primary-key
  lookups of `cases` by case id in the same run, so the ratio says what parsing and the index cost.

Usage: python bench/caselaw.py [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from lexprobe.caselaw.build import build_database
from lexprobe.caselaw.citations import citation_key
from lexprobe.caselaw.paths import data_root
from lexprobe.caselaw.query import CaseDatabase


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="lexprobe-bench-") as tmp:
        db_path = Path(tmp) / "caselaw.sqlite"
        began = time.perf_counter()
        report = build_database(data_root(), db_path)
        build_s = time.perf_counter() - began
        print(f"build: {build_s:.1f}s; per source: {report.source_seconds}", file=sys.stderr)
        db = CaseDatabase(db_path)
        rows = db.conn.execute("SELECT case_id, citation FROM cases WHERE citation LIKE '% U.S. %'").fetchall()
        citations = [row[1] for row in rows]
        ids = [row[0] for row in rows]
        citation_key.cache_clear()  # measure parsing, not the memo
        began = time.perf_counter()
        found = sum(1 for text in citations if db.find_by_citation(text))
        lookup_s = time.perf_counter() - began
        began = time.perf_counter()
        for case_id in ids:
            db.conn.execute("SELECT case_id FROM cases WHERE case_id = ?", (case_id,)).fetchall()
        baseline_s = time.perf_counter() - began
        db.close()
    result = {
        "build_s": round(build_s, 2),
        "source_seconds": report.source_seconds,
        "lookups": len(citations),
        "found": found,
        "lookups_per_s": round(len(citations) / lookup_s),
        "primary_key_lookups_per_s": round(len(ids) / baseline_s),
        "lookup_cost_ratio": round(lookup_s / baseline_s, 2),
    }
    if args.json:
        print(json.dumps(result))
    else:
        print(f"full build: {result['build_s']} s (target < 60 s)")
        print(
            f"citation lookups: {result['lookups_per_s']:,}/s over {result['lookups']:,} U.S. citations "
            f"({result['found']:,} found); plain id lookups {result['primary_key_lookups_per_s']:,}/s; "
            f"ratio {result['lookup_cost_ratio']}"
        )


if __name__ == "__main__":
    main()
