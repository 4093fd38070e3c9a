"""Measurement: `lexprobe check` on brief excerpts with injected errors, in the taxonomy of Liu, Stammbach & Henderson
(2026), "Who Checks the Citations?" (1,300 brief excerpts with injected errors; GPT-5 in an agentic setting: 82.8 %
recall, 60.5 % F1). Their data set is not reachable here: this bench writes its own excerpts from the offline case
database, so the comparison is indicative only.

Excerpts (`injected_excerpts.py`, from the material of `injected_material.py`): `--n` per category (default 60) of
fabricated case, wrong volume/page, wrong year, wrong court, misattributed quotation, altered quotation, dissent
presented as the Court's, wrong pin and overruled case cited as good law, each with exactly one injected error, and
`--controls` clean ones (default 160); drawn with `--seed`. Each is checked with the library calls `lexprobe check`
makes (`extract_citations`, `verify_citations`, `check_quotations`, offline) and its verdicts read as categories
(`injected_scoring.py`, which documents the mapping). Printed: per category recall (all, and on the excerpts the
offline data can decide), precision, F1, unverifiable, and overall figures beside the paper's; `--json` prints the
figures as JSON, `--dump FILE` writes every excerpt with its ground truth and the checker's flags (JSON lines).

The case database is built into a temporary file first (not timed) unless `--db` names one. Run it from the
repository root with that checkout's `lexprobe` importable (in a git worktree: `PYTHONPATH=. python bench/...`).

Usage: python bench/injected_errors.py [--db PATH] [--n 60] [--controls 160] [--seed 46] [--dump FILE] [--json]
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from injected_excerpts import CATEGORIES, CONTROL, Excerpt, generate
from injected_material import load_material
from injected_scoring import Outcome, figures, read_outcome

from lexprobe.caselaw.build import build_database
from lexprobe.caselaw.paths import data_root
from lexprobe.caselaw.query import CaseDatabase
from lexprobe.check.extract import extract_citations
from lexprobe.check.quote_verdicts import check_quotations
from lexprobe.check.verify import case_lookup_for, verify_citations

PAPER = {
    "source": "Liu, Stammbach & Henderson (2026), Who Checks the Citations?",
    "excerpts": 1300,
    "system": "GPT-5, agentic",
    "recall": 82.8,
    "f1": 60.5,
}


def check_all(db: CaseDatabase, excerpts: Sequence[Excerpt]) -> list[Outcome]:
    """Check every excerpt as `lexprobe check` does (offline) and read its verdicts as flags."""
    reference = case_lookup_for(db)
    outcomes = []
    for excerpt in excerpts:
        found = extract_citations(excerpt.text)
        verdicts = verify_citations(found, reference) if found else []
        quotations = check_quotations(excerpt.text, found, verdicts, db) if found else []
        outcomes.append(read_outcome(excerpt, found, verdicts, quotations))
    return outcomes


def measure(db: CaseDatabase, per_category: int, controls: int, seed: int) -> tuple[dict, list[Excerpt], list]:
    """Write the excerpts, check them, and return the figures (with timings and the material's size)."""
    began = time.perf_counter()
    material = load_material(db, case_lookup_for(db))
    excerpts = generate(material, seed, per_category, controls)
    written = time.perf_counter() - began
    began = time.perf_counter()
    outcomes = check_all(db, excerpts)
    checked = time.perf_counter() - began
    result = figures(excerpts, outcomes)
    result["seed"] = seed
    result["distinct_cases"] = len({u.case_id for e in excerpts for u in e.units if u.case_id})
    result["variants"] = sorted({f"{e.category}: {e.variant.split(',')[0]}" for e in excerpts})
    result["material"] = {
        "clean_supreme_court_cases": len(material.clean),
        "cases_with_quotable_court_opinion": len(material.court_passages),
        "separate_opinion_passages": len(material.separate_passages),
        "cases_with_separate_opinion_passages": len({p.case_id for p in material.separate_passages}),
        "overruled_cases": len(material.overruled),
        "court_of_appeals_cases": len(material.appeals),
        "cases_with_passages_left_out_for_other_star_paging": len(material.mispaged),
    }
    result["seconds"] = {"material_and_excerpts": round(written, 1), "checking": round(checked, 1)}
    result["paper"] = PAPER
    return result, excerpts, outcomes


def _cell(value: float | None) -> str:
    return "   -  " if value is None else f"{value:5.1f}%"


def print_table(result: dict) -> None:
    """The per-category table and the comparison with the paper."""
    machine = result.get("machine", {})
    print(
        f"{result['excerpts']} excerpts ({result['errors']} with one injected error, {result['controls']} clean "
        f"controls), {result['distinct_cases']} distinct cases, seed {result['seed']}; checked in "
        f"{result['seconds']['checking']} s (material and excerpts {result['seconds']['material_and_excerpts']} s)"
    )
    if machine:
        total = result["seconds"]["total"]
        print(f"machine: {machine['cpus']} CPUs, load average {machine['load_average']}; the run took {total} s")
    print()
    header = f"{'category':26} {'n':>4} {'dec.':>4} {'recall':>7} {'rec.dec':>7} {'prec.':>7} {'F1':>7} {'unver.':>6}"
    print(header + "  other outcomes")
    for category in CATEGORIES:
        row = result["per_category"][category]
        others = ", ".join(f"{k} {v}" for k, v in row["confusion"].items() if k != category)
        print(
            f"{category:26} {row['injected']:4} {row['decidable']:4} {_cell(row['recall'])} "
            f"{_cell(row['recall_decidable'])} {_cell(row['precision'])} {_cell(row['f1'])} {row['unverifiable']:6}  "
            f"{others}"
        )
    overall = result["overall"]
    print(
        f"{'all categories':26} {result['errors']:4} {'':4} {_cell(overall['recall'])} "
        f"{_cell(overall['recall_decidable'])} {_cell(overall['precision'])} {_cell(overall['f1'])} "
        f"{overall['unverifiable']:6}"
    )
    print(
        f"controls flagged: {result['controls_flagged']} of {result['controls']} "
        f"({_cell(result['controls_flagged_pct'])}) {result['control_flags']}"
    )
    print()
    paper = result["paper"]
    print("beside the paper (a different set of excerpts: theirs is not reachable here; indicative only)")
    print(f"{'':34} {'lexprobe check (offline)':>26} {paper['system'] + ' (paper)':>22}")
    print(f"{'excerpts':34} {result['errors'] + result['controls']:>26} {paper['excerpts']:>22}")
    print(f"{'recall, right category':34} {_cell(overall['recall']):>26} {'':>22}")
    print(f"{'recall, any flag on the error':34} {_cell(overall['recall_any_flag']):>26} {paper['recall']:>21}%")
    print(f"{'precision':34} {_cell(overall['precision']):>26} {'':>22}")
    print(f"{'F1':34} {_cell(overall['f1']):>26} {paper['f1']:>21}%")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", type=Path, help="a built case database (default: build one into a temporary file)")
    parser.add_argument("--n", type=int, default=60, help="excerpts per category")
    parser.add_argument("--controls", type=int, help="clean excerpts (default: 160 for --n 60, in proportion)")
    parser.add_argument("--seed", type=int, default=46)
    parser.add_argument("--dump", type=Path, help="write every excerpt, its truth and the checker's flags here")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    controls = args.controls if args.controls is not None else max(args.n, round(args.n * 8 / 3))
    logging.getLogger("eyecite").setLevel(logging.ERROR)
    with tempfile.TemporaryDirectory() as scratch:
        db_path = args.db
        if db_path is None:
            db_path = Path(scratch) / "caselaw.sqlite"
            print("building the case database (not timed)...", file=sys.stderr)
            build_database(data_root(), db_path)
        started = time.perf_counter()
        db = CaseDatabase(db_path)
        result, excerpts, outcomes = measure(db, args.n, controls, args.seed)
        db.close()
    result["machine"] = {"cpus": os.cpu_count(), "load_average": [round(x, 2) for x in os.getloadavg()]}
    result["seconds"]["total"] = round(time.perf_counter() - started, 1)
    if args.dump:
        with args.dump.open("w", encoding="utf-8") as stream:
            for excerpt, outcome in zip(excerpts, outcomes, strict=True):
                record = excerpt.to_json()
                record["flags"] = {str(unit): sorted(flags) for unit, flags in outcome.flags.items()}
                record["unverifiable"] = outcome.unverifiable
                stream.write(json.dumps(record) + "\n")
    if args.json:
        print(json.dumps(result, indent=1))
    else:
        print_table(result)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())


__all__ = ["CATEGORIES", "CONTROL", "PAPER", "check_all", "main", "measure"]
