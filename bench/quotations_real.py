"""Measurement: the quotation check of `lexprobe check` over the 357 real citing Supreme Court opinions
(`opinions/scotus/text/*.txt.gz` in LEXPROBE_DATA), their quotations of other cases checked against the case
database's opinion texts (docs/check.md, "Measured on real opinions").

Each opinion file is read as `lexprobe check` reads a text file (the loader's plain-text cleaning), its citations
extracted and verified, and its quotations judged by `check_quotations`. A quotation counts under "cases lexprobe
has" when the case its citation resolves to has at least one opinion text in the database, else under "cases
lexprobe lacks". A quotation attributed to the citing opinion's own case (a "Id." or "supra" back to itself) is
counted too: it is a real attribution the checker made.

Printed (stdout, JSON with --json): the opinions and quotations read, counts and shares per verdict in each group,
the share of quotations with page marks found and how many pin cites were on the page. `--dump FILE` writes every
`not_found` quotation (as JSON lines: file, quotation, citation text, its case, the closest passage, similarity,
reason), and `--sample N` picks N of those of cases lexprobe has with a fixed seed (`--seed`) for inspection by
hand, printed to stderr and written to `--sample-file`.

The case database is built into a temporary file first (not part of the figures) unless `--db` names one.

Usage: python bench/quotations_real.py [--db PATH] [--dump FILE] [--sample 30] [--seed 34] [--sample-file FILE]
                                       [--json]
"""

from __future__ import annotations

import argparse
import gzip
import json
import logging
import random
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from lexprobe.caselaw.build import build_database
from lexprobe.caselaw.paths import data_root
from lexprobe.caselaw.query import CaseDatabase
from lexprobe.caselaw.sources.markup import plain_text
from lexprobe.check.extract import extract_citations
from lexprobe.check.quote_verdicts import Q_NOT_FOUND, QUOTE_VERDICTS, check_quotations
from lexprobe.check.verify import case_lookup_for, verify_citations

HAS, LACKS = "cases lexprobe has", "cases lexprobe lacks"


def _cases_with_text(db: CaseDatabase) -> set[str]:
    rows = db.conn.execute("SELECT DISTINCT case_id FROM opinions WHERE text != ''").fetchall()
    return {row[0] for row in rows}


def measure(db: CaseDatabase, folder: Path) -> tuple[dict, list[dict]]:
    """Check every citing opinion under `folder`; return the figures and the not_found records."""
    with_text = _cases_with_text(db)
    reference = case_lookup_for(db)
    counts: dict[str, Counter] = {HAS: Counter(), LACKS: Counter()}
    pages = Counter()
    not_found: list[dict] = []
    files = sorted(folder.glob("*.txt.gz"))
    started = time.perf_counter()
    for number, path in enumerate(files, 1):
        text = plain_text(gzip.decompress(path.read_bytes()).decode("utf-8", errors="replace"))
        found = extract_citations(text)
        if not found:
            continue
        verdicts = verify_citations(found, reference)
        for quotation in check_quotations(text, found, verdicts, db):
            case = verdicts[quotation.citation].case
            group = HAS if case is not None and case.case_id in with_text else LACKS
            counts[group][quotation.verdict] += 1
            if group == HAS and quotation.verdict in ("verified", "altered", "separate_opinion"):
                pages["found"] += 1
                pages["with_page"] += quotation.page is not None
                if quotation.pin_ok is not None:
                    pages["pin_checked"] += 1
                    pages["pin_ok"] += bool(quotation.pin_ok)
            if quotation.verdict == Q_NOT_FOUND:
                evidence = quotation.evidence or {}
                not_found.append(
                    {
                        "file": path.name,
                        "group": group,
                        "quotation": quotation.text[:2000],
                        "span": list(quotation.span),
                        "citation": found[quotation.citation].text,
                        "case_id": case.case_id if case else None,
                        "closest": evidence.get("passage"),
                        "closest_opinion": evidence.get("opinion_id"),
                        "similarity": evidence.get("similarity"),
                        "context": text[max(0, quotation.span[0] - 200) : quotation.span[1] + 200],
                    }
                )
        if number % 50 == 0:
            print(f"{number}/{len(files)} opinions, {time.perf_counter() - started:.0f} s", file=sys.stderr)
    figures = {
        "opinions": len(files),
        "seconds": round(time.perf_counter() - started, 1),
        "groups": {group: _shares(counter) for group, counter in counts.items()},
        "pages": dict(pages),
    }
    return figures, not_found


def _shares(counter: Counter) -> dict:
    total = sum(counter.values())
    return {
        "quotations": total,
        "counts": {verdict: counter[verdict] for verdict in QUOTE_VERDICTS},
        "shares_pct": {
            verdict: round(100 * counter[verdict] / total, 2) if total else 0.0 for verdict in QUOTE_VERDICTS
        },
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", type=Path, help="a built case database (default: build one into a temporary file)")
    parser.add_argument("--dump", type=Path, help="write every not_found quotation here (JSON lines)")
    parser.add_argument("--sample", type=int, default=0, help="sample this many not_found quotations of cases we have")
    parser.add_argument("--seed", type=int, default=34)
    parser.add_argument("--sample-file", type=Path, help="write the sample here (JSON lines)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    logging.getLogger("eyecite").setLevel(logging.ERROR)
    root = data_root()
    with tempfile.TemporaryDirectory() as scratch:
        db_path = args.db
        if db_path is None:
            db_path = Path(scratch) / "caselaw.sqlite"
            print("building the case database (not timed)...", file=sys.stderr)
            build_database(root, db_path)
        figures, not_found = measure(CaseDatabase(db_path), root / "opinions" / "scotus" / "text")
    if args.dump:
        args.dump.write_text("".join(json.dumps(record) + "\n" for record in not_found), encoding="utf-8")
    if args.sample:
        ours = [record for record in not_found if record["group"] == HAS]
        sample = random.Random(args.seed).sample(ours, min(args.sample, len(ours)))
        figures["sample"] = {"seed": args.seed, "of": len(ours), "size": len(sample)}
        if args.sample_file:
            args.sample_file.write_text("".join(json.dumps(record) + "\n" for record in sample), encoding="utf-8")
    if args.json:
        print(json.dumps(figures, indent=1))
    else:
        print(f"{figures['opinions']} citing opinions checked in {figures['seconds']} s")
        for group, data in figures["groups"].items():
            print(f"{group}: {data['quotations']} quotations")
            for verdict in QUOTE_VERDICTS:
                print(f"  {verdict:17} {data['counts'][verdict]:6} {data['shares_pct'][verdict]:6.2f} %")
        print(f"pages: {figures['pages']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
