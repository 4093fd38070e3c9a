"""Issue #34: the quotation benchmarks work, run small (behaviour only, never timing; the figures are in
BENCHMARKS.md): bench/quotations_real.py measures real citing opinions, bench/check_quotations.py builds a brief
whose quotations get the verdicts their kinds expect."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import Any

from lexprobe.caselaw.paths import data_root
from lexprobe.caselaw.query import CaseDatabase
from lexprobe.check.extract import extract_citations
from lexprobe.check.quote_verdicts import check_quotations
from lexprobe.check.verify import case_lookup_for, verify_citations

BENCH = Path(__file__).resolve().parents[1] / "bench"


def bench_module(name: str) -> Any:
    if str(BENCH) not in sys.path:
        sys.path.insert(0, str(BENCH))
    return __import__(name)


def test_quotations_real_counts_and_dumps(tmp_path: Path, case_db_path: Path) -> None:
    module = bench_module("quotations_real")
    source = data_root() / "opinions" / "scotus" / "text"
    for name in ("118386_010combined.txt.gz", "112608_020lead.txt.gz"):  # Mitchell v. Helms, California v. Acevedo
        shutil.copy(source / name, tmp_path / name)
    figures, not_found = module.measure(CaseDatabase(case_db_path), tmp_path)
    has = figures["groups"][module.HAS]
    assert figures["opinions"] == 2 and has["quotations"] > 20
    assert sum(has["counts"].values()) == has["quotations"] and has["counts"]["verified"] > has["quotations"] // 2
    assert figures["pages"]["with_page"] > 0
    assert all(record["quotation"] and record["file"].endswith(".txt.gz") for record in not_found)
    assert len(not_found) == has["counts"]["not_found"] + figures["groups"][module.LACKS]["counts"]["not_found"]


def test_check_quotations_brief_kinds(case_db_path: Path) -> None:
    module = bench_module("check_quotations")
    text, kinds = module.make_brief(case_db_path, quotations=12, pages=4, distinct_cases=6, seed=3)
    assert len(kinds) == 12 and set(kinds.values()) == set(module.KINDS)
    db = CaseDatabase(case_db_path)
    found = extract_citations(text)
    verdicts = check_quotations(text, found, verify_citations(found, case_lookup_for(db)), db)
    matched = [(kinds[q.text], q.verdict) for q in verdicts if q.text in kinds]
    assert len(matched) >= 10
    expected = sum(module.EXPECTED.get(kind, kind) == verdict for kind, verdict in matched)
    assert expected >= len(matched) - 1, matched
