"""Benchmark: checking the citations of a ~300-page document (300 pages x 3,000 characters) made of real Supreme Court
opinions (`opinions/scotus/text/*.txt.gz` in LEXPROBE_DATA, concatenated in file-name order with their citations).

The case database is built first into a temporary file (not timed; `--db` reuses a built one) and the document is
written to a text file. Then, in this order:

1. Headline, what a user pays: `lexprobe check DOC --db DB --json` in a fresh process (`--fresh` runs, one after
   another; the first is the cold first run: new process, empty memo caches, database-side tables not yet computed).
   Wall time of the whole command, start-up included.
2. The library call alone, cold, in a fresh process: `check_text(text, db)` timed inside a new Python process that
   has imported lexprobe and opened the database (what the command costs less start-up, reading and printing).
3. Warm figures, in this process: `check_text` `--runs` times on the same text (the first run here is cold too, the
   rest show the steady state), then extraction and verification timed apart (verification with a fresh `CaseLookup`).

All three must find the same citations with the same verdicts (checked; the bench fails otherwise).

With --baseline, the text eyecite reads (line numbers masked, whitespace flattened, as `extract_citations` does) is
parsed twice: in chunks (`lexprobe.check.extract.chunk_bounds`, what the checker does) and by one eyecite
`get_citations` call on the whole text. Both must find exactly the same case citations (full, short form, Id.,
supra: kind, text, span, end of the pin cite and of eyecite's full span) or the bench fails (exit 1, the differences
printed) after printing its figures; differences in what the checker does not read (other citation kinds, where
eyecite's case-name guess starts) are listed under `other_differences`. The ratio of the two times is what chunking
saves.

Usage: python bench/check.py [--pages 300] [--runs 3] [--fresh 3] [--baseline] [--db PATH] [--json]
"""

from __future__ import annotations

import argparse
import gzip
import json
import logging
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from eyecite.models import FullCaseCitation, IdCitation, ShortCaseCitation, SupraCitation

from lexprobe.caches import clear_all
from lexprobe.caselaw.build import build_database
from lexprobe.caselaw.citations import eyecite_citations
from lexprobe.caselaw.paths import data_root
from lexprobe.caselaw.query import CaseDatabase
from lexprobe.check import check_text
from lexprobe.check.extract import chunk_bounds, extract_citations, flatten, mask_line_numbers
from lexprobe.check.resolve import Parsed
from lexprobe.check.verify import CaseLookup, verify_citations
from lexprobe.documents.extract import extract_text

PAGE_CHARS = 3_000
LEXPROBE = Path(sys.executable).with_name("lexprobe")

#: Run in a fresh process by `library_cold`: import, open the database, then time one `check_text` call.
CHILD = """
import json, sys, time
from lexprobe.caselaw.query import CaseDatabase
from lexprobe.check import check_text
from lexprobe.documents.extract import extract_text
text = extract_text(sys.argv[1])
db = CaseDatabase(sys.argv[2])
began = time.perf_counter()
verdicts = check_text(text, db)
elapsed = time.perf_counter() - began
print(json.dumps({"seconds": elapsed, "verdicts": [[v.span[0], v.span[1], v.verdict] for v in verdicts]}))
"""


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


def cli_fresh(doc: Path, db_path: Path) -> tuple[float, list[list]]:
    """Run `lexprobe check DOC --db DB --json` in a new process; return its wall time and its (start, end, verdict)s.
    Exit code 1 (a mismatch or not_found was found) is expected on real text; anything else fails the bench."""
    began = time.perf_counter()
    done = subprocess.run(
        [str(LEXPROBE), "check", str(doc), "--db", str(db_path), "--json"], capture_output=True, text=True
    )
    elapsed = time.perf_counter() - began
    if done.returncode not in (0, 1):
        raise SystemExit(f"lexprobe check failed (exit {done.returncode}):\n{done.stderr[-2000:]}")
    citations = json.loads(done.stdout)["citations"]
    return elapsed, [[c["span"][0], c["span"][1], c["verdict"]] for c in citations]


def library_cold(doc: Path, db_path: Path) -> tuple[float, list[list]]:
    """Time one `check_text` call in a new Python process (imports and database opening not timed)."""
    done = subprocess.run([sys.executable, "-c", CHILD, str(doc), str(db_path)], capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"the library child failed (exit {done.returncode}):\n{done.stderr[-2000:]}")
    result = json.loads(done.stdout.strip().splitlines()[-1])
    return result["seconds"], result["verdicts"]


_CASE_KINDS = (FullCaseCitation, ShortCaseCitation, IdCitation, SupraCitation)


def _case_signature(parsed: Parsed) -> tuple:
    """What the checker reads of a case citation: its kind, text, span, the end of its pin cite and of eyecite's full
    span (the start of eyecite's full span, its case-name guess, is not read: `name_before` reads the name)."""
    citation = parsed.citation
    return (type(citation).__name__, citation.matched_text(), *parsed.core, parsed.tail, parsed.full[1])


def _strict_signature(parsed: Parsed) -> tuple:
    """Everything eyecite reports of any citation: kind, text, span and full span."""
    return (type(parsed.citation).__name__, parsed.citation.matched_text(), *parsed.core, *parsed.full)


def _differences(chunked: list[tuple], whole: list[tuple]) -> tuple[list[tuple], list[tuple]]:
    only_chunked = sorted(set(chunked) - set(whole), key=lambda s: s[2])
    only_whole = sorted(set(whole) - set(chunked), key=lambda s: s[2])
    return only_chunked, only_whole


def chunked_vs_whole(text: str) -> dict:
    """Parse the text the checker reads (`flatten(mask_line_numbers(text))`) in chunks, as the checker does, and in
    one eyecite call; return both times, the counts and every difference. `identical` is True when both find exactly
    the same case citations (full, short form, Id., supra) with the same spans: what the checker verifies and
    reports; differences in anything else eyecite reports (other citation kinds, where its case-name guess starts)
    are listed under `other_differences`."""
    masked, _ = flatten(mask_line_numbers(text))
    logging.getLogger("eyecite").setLevel(logging.ERROR)
    clear_all()
    began = time.perf_counter()
    bounds = chunk_bounds(masked)
    chunked = [Parsed(citation, start) for start, end in bounds for citation in eyecite_citations(masked[start:end])]
    chunked_s = time.perf_counter() - began
    began = time.perf_counter()
    whole = [Parsed(citation, 0) for citation in eyecite_citations(masked)]
    whole_s = time.perf_counter() - began
    case_chunked = [_case_signature(p) for p in chunked if isinstance(p.citation, _CASE_KINDS)]
    case_whole = [_case_signature(p) for p in whole if isinstance(p.citation, _CASE_KINDS)]
    only_chunked, only_whole = _differences(case_chunked, case_whole)
    other_chunked, other_whole = _differences(
        [_strict_signature(p) for p in chunked], [_strict_signature(p) for p in whole]
    )
    return {
        "case_citations": len(case_whole),
        "eyecite_citations_chunked": len(chunked),
        "eyecite_citations_whole": len(whole),
        "chunks": len(bounds),
        "chunked_s": round(chunked_s, 2),
        "whole_text_s": round(whole_s, 2),
        "chunking_speedup": round(whole_s / chunked_s, 1) if chunked_s else None,
        "identical": case_chunked == case_whole,
        "case_only_chunked": only_chunked,
        "case_only_whole": only_whole,
        "other_differences": {"only_chunked": other_chunked, "only_whole": other_whole},
    }


def _fail_unless_identical(baseline: dict) -> None:
    if baseline["identical"]:
        return
    lines = [
        f"chunked parsing finds other case citations than one eyecite call on the whole text "
        f"({len(baseline['case_only_chunked'])} only chunked, {len(baseline['case_only_whole'])} only whole):"
    ]
    lines += [f"  only chunked: {s}" for s in baseline["case_only_chunked"][:20]]
    lines += [f"  only whole:   {s}" for s in baseline["case_only_whole"][:20]]
    if not baseline["case_only_chunked"] and not baseline["case_only_whole"]:
        lines.append("  the same citations, in another order or number")
    raise SystemExit("\n".join(lines))


def _range(values: list[float]) -> dict:
    return {"median_s": round(statistics.median(values), 2), "runs_s": [round(v, 2) for v in values]}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pages", type=int, default=300)
    parser.add_argument("--runs", type=int, default=3, help="check_text runs in this process (warm figures)")
    parser.add_argument("--fresh", type=int, default=3, help="`lexprobe check` runs, each in a new process")
    parser.add_argument("--db", type=Path, help="an already built case database (default: build one, not timed)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--baseline", action="store_true", help="Also check chunked parsing against one eyecite call.")
    args = parser.parse_args(argv)
    text = document(args.pages)
    with tempfile.TemporaryDirectory(prefix="lexprobe-bench-") as tmp:
        db_path = args.db
        if db_path is None:
            db_path = Path(tmp) / "caselaw.sqlite"
            build_database(data_root(), db_path)
        doc = Path(tmp) / "document.txt"
        doc.write_text(text, encoding="utf-8")
        text = extract_text(doc)  # the text `lexprobe check` reads (trailing spaces dropped), so all do the same work
        fresh = [cli_fresh(doc, db_path) for _ in range(args.fresh)]
        library_s, library_verdicts = library_cold(doc, db_path)
        clear_all()
        db = CaseDatabase(db_path)
        runs = []
        verdicts = []
        for _ in range(args.runs):
            began = time.perf_counter()
            verdicts = check_text(text, db)
            runs.append(time.perf_counter() - began)
        began = time.perf_counter()
        found = extract_citations(text)
        extract_s = time.perf_counter() - began
        began = time.perf_counter()
        verify_citations(found, CaseLookup(db))  # a fresh CaseLookup: cold database-side caches
        verify_cold_s = time.perf_counter() - began
        db.close()
    in_process = [[v.span[0], v.span[1], v.verdict] for v in verdicts]
    for label, other in [
        ("library call in a fresh process", library_verdicts),
        *(("lexprobe check", f) for _, f in fresh),
    ]:
        if other != in_process:
            raise SystemExit(
                f"{label} found {len(other)} citations/verdicts, this process {len(in_process)}: not the same work"
            )
    baseline = chunked_vs_whole(text) if args.baseline else None
    steady = statistics.median(runs[1:]) if len(runs) > 1 else runs[0]
    result = {
        "machine": f"{platform.machine()}, {platform.system()}, Python {platform.python_version()}, "
        f"{os.cpu_count()} cores",
        "characters": len(text),
        "pages": round(len(text) / PAGE_CHARS),
        "citations": len(verdicts),
        "cold_cli_first_s": round(fresh[0][0], 2) if fresh else None,
        "cold_cli": _range([s for s, _ in fresh]) if fresh else None,
        "cold_library_call_s": round(library_s, 2),
        "in_process_first_s": round(runs[0], 2),
        "steady_s": round(steady, 2),
        "runs_s": [round(r, 2) for r in runs],
        "extract_s": round(extract_s, 2),
        "verify_cold_s": round(verify_cold_s, 2),
        "steady_s_per_300_pages": round(steady * 300 * PAGE_CHARS / len(text), 2),
        "same_verdicts_everywhere": True,
        "baseline": baseline,
    }
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key}: {value}")
    print("target: under 10 s per 300 pages", file=sys.stderr)
    if baseline is not None:
        _fail_unless_identical(baseline)


if __name__ == "__main__":
    main()
