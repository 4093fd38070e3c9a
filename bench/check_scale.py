"""Benchmark: how `lexprobe check` scales with the number of citations in one document (issue 44: it was quadratic,
1,783 citations 2.7 s, 22,449 52 s, 100k not done in 600 s).

The document is a synthetic brief made here, reproducibly (`--seed`), from real cases of the case database (U.S.
Reports and the Federal Reporters, a pool of one distinct case per 20 citations): paragraphs of full citations with
pin cites and years, "Id.", "See also" and "cf." citations, short forms ("Name, 436 U.S. at 690"), "supra", the
"Name, at 690" references eyecite reads after a full citation, a statute, and a quotation of invented words, each
joined by filler prose without digits. For each size (`--sizes`, in citations; default 1.7k, 7k, 22k and 100k):

1. Headline: `lexprobe check BRIEF --db DB --json` in a fresh process (cold: new interpreter, empty LEXPROBE_CACHE),
   wall time of the whole command; and seconds per 1,000 citations (flat when the check is linear).
2. With `--stages`, a fresh process times the steps apart: extraction (eyecite, names and years, resolution),
   verification against the database, quotations.
3. With `--before DIR` (a folder holding an older `lexprobe` package, e.g. `git archive COMMIT lexprobe | tar -x -C
   DIR`), the same library steps with that code in a fresh process, killed after `--before-timeout` seconds: the
   baseline, in the same run. Where it finishes, the two must resolve every citation identically (kind, span,
   the citation a short form, "Id." or "supra" refers to, its group, its verdict), or the bench fails.

`--identity` instead compares the resolutions of the two codes (`--before` required) on real documents: the 357
citing Supreme Court opinions of LEXPROBE_DATA and the Marshall v. Northrop filings, one fresh process each.

The case database is built into a temporary folder first (not timed) unless `--db` names one.

Usage: python bench/check_scale.py [--sizes 1700,7000,22000,100000] [--stages] [--before DIR]
                                   [--before-timeout 600] [--identity] [--db PATH] [--seed 44] [--json]
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import platform
import random
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from lexprobe.caselaw.build import build_database
from lexprobe.caselaw.case_names import display_name
from lexprobe.caselaw.paths import data_root

ENTRY = "import sys; sys.argv[0] = 'lexprobe'; from lexprobe.cli import console_main; sys.exit(console_main())"
DEFAULT_SIZES = (1_700, 7_000, 22_000, 100_000)
FILLER = (
    "the question turns on the text of the statute and on the structure of the scheme Congress enacted",
    "the parties dispute whether the rule reaches conduct of this kind at all",
    "that reading keeps faith with the settled meaning of the words when they were written",
    "nothing in the record suggests that the agency considered the alternative",
    "the argument proves too much and would leave the limit without content",
)
QUOTED = "the rule of decision must rest on reasons that can be stated and tested by others"

#: Run in a fresh process: the library steps timed apart, and what each citation resolved to.
CHILD = """
import json, logging, sys, time
import lexprobe
from lexprobe.caselaw.query import CaseDatabase
from lexprobe.check.extract import extract_citations
from lexprobe.check.quote_verdicts import check_quotations
from lexprobe.check.verify import case_lookup_for, verify_citations
from lexprobe.documents.extract import extract_text
logging.getLogger("eyecite").setLevel(logging.ERROR)
text = extract_text(sys.argv[1])
db = CaseDatabase(sys.argv[2])
began = time.perf_counter()
found = extract_citations(text)
extracted = time.perf_counter()
verdicts = verify_citations(found, case_lookup_for(db)) if found else []
verified = time.perf_counter()
quotations = check_quotations(text, found, verdicts, db) if sys.argv[3] == "all" else []
done = time.perf_counter()
print(json.dumps({
    "code": lexprobe.__file__,
    "extract_s": extracted - began, "verify_s": verified - extracted, "quotations_s": done - verified,
    "quotations": len(quotations),
    "resolved": [[c.kind, c.span[0], c.span[1], c.refers_to, c.group, v.verdict] for c, v in zip(found, verdicts)],
}))
"""

#: Run in a fresh process by `--identity`: every document's resolutions, one JSON line each.
CHILD_MANY = """
import json, logging, sys
import lexprobe
print(json.dumps({"path": "", "code": lexprobe.__file__, "resolved": []}))
from lexprobe.caselaw.query import CaseDatabase
from lexprobe.check.extract import extract_citations
from lexprobe.check.verify import case_lookup_for, verify_citations
from lexprobe.documents.extract import extract_text
logging.getLogger("eyecite").setLevel(logging.ERROR)
db = CaseDatabase(sys.argv[1])
for path in sys.argv[2:]:
    text = extract_text(path)
    found = extract_citations(text)
    verdicts = verify_citations(found, case_lookup_for(db)) if found else []
    resolved = [[c.kind, c.span[0], c.span[1], c.refers_to, c.group, v.verdict] for c, v in zip(found, verdicts)]
    print(json.dumps({"path": path, "resolved": resolved}))
"""


def case_pool(db_path: Path, size: int, rng: random.Random) -> list[tuple[str, str, int]]:
    """`size` real cases of the database (name as written in a brief, citation, year), U.S. Reports and F.2d/F.3d."""
    conn = sqlite3.connect(db_path)
    rows = conn.execute(
        "SELECT c.name, MIN(cc.citation), c.year FROM cases c JOIN case_citations cc ON cc.case_id = c.case_id "
        "WHERE c.name LIKE '% v. %' AND c.year IS NOT NULL AND cc.citation NOT LIKE '%LEXIS%' "
        "AND (cc.citation LIKE '% U.S. %' OR cc.citation LIKE '% F.2d %' OR cc.citation LIKE '% F.3d %') "
        "GROUP BY c.case_id ORDER BY c.case_id"
    ).fetchall()
    conn.close()
    cases = [(display_name(name), citation, year) for name, citation, year in rows if citation.split()[-1].isdigit()]
    rng.shuffle(cases)
    return cases[:size]


def _short_name(name: str) -> str:
    first = name.split(" v. ")[0].split(",")[0].split()
    skipped = ("in", "re", "ex", "parte", "the")
    words = [w for w in first if w[:1].isupper() and w.isalpha() and w.lower() not in skipped]
    return (words[0] if words else first[-1]).strip(".,")


def _full(case: tuple[str, str, int], pin_offset: int) -> str:
    name, citation, year = case
    return f"{name}, {citation}, {int(citation.split()[-1]) + pin_offset} ({year})"


def _short(case: tuple[str, str, int], pin_offset: int) -> str:
    volume, reporter, page = case[1].split(" ", 1)[0], " ".join(case[1].split()[1:-1]), int(case[1].split()[-1])
    return f"{_short_name(case[0])}, {volume} {reporter} at {page + pin_offset}"


def make_brief(db_path: Path, citations: int, seed: int = 44) -> str:
    """A brief of about `citations` citations the checker lists (8 a paragraph, and a reference and a statute it
    reads but does not list) over real cases of the database."""
    rng = random.Random(seed)
    pool = case_pool(db_path, max(50, citations // 20), rng)
    cited: list[tuple[str, str, int]] = []
    paragraphs = []
    for number in range(max(1, citations // 8)):
        a, b, c = (pool[(3 * number + k) % len(pool)] for k in range(3))
        cited.extend((a, b, c))
        earlier = cited[rng.randrange(len(cited))]
        again = cited[rng.randrange(len(cited))]
        filler = [FILLER[(number + k) % len(FILLER)] for k in range(4)]
        paragraphs.append(
            f"In {_full(a, 2)}, the court explained that {filler[0]}. Id. at {int(a[1].split()[-1]) + 3}. "
            f"See also {_full(b, 1)}; cf. {_full(c, 4)}. {_short_name(a[0])}, at {int(a[1].split()[-1]) + 5}. "
            f"Here {filler[1]}. {_short(earlier, 2)}. Accordingly {filler[2]}; {_short_name(again[0])}, supra, at "
            f"{int(again[1].split()[-1]) + 1}. The statute, 42 U.S.C. § 1983, is not to the contrary. "
            f"As the court put it, “{QUOTED}.” {_short(a, 6)}. Finally {filler[3]}. {_short(b, 1)}."
        )
    return "\n\n".join(paragraphs) + "\n"


def run_cli(doc: Path, db_path: Path, cache: Path) -> tuple[float, int]:
    """`lexprobe check DOC --db DB --json` in a fresh process: wall seconds and citations found."""
    env = {**os.environ, "LEXPROBE_CACHE": str(cache)}
    began = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", ENTRY, "check", str(doc), "--db", str(db_path), "--json"],
        capture_output=True,
        text=True,
        env=env,
    )
    elapsed = time.perf_counter() - began
    if done.returncode not in (0, 1):
        raise SystemExit(f"lexprobe check failed (exit {done.returncode}):\n{done.stderr[-2000:]}")
    return elapsed, len(json.loads(done.stdout)["citations"])


def run_child(doc: Path, db_path: Path, code: Path | None, steps: str, timeout: float | None) -> dict | None:
    """The library steps in a fresh process, with the `lexprobe` of `code` (default: this one); None when it is
    killed after `timeout` seconds."""
    env = dict(os.environ)
    if code is not None:
        env["PYTHONPATH"] = str(code)
    began = time.perf_counter()
    try:
        done = subprocess.run(
            [sys.executable, "-c", CHILD, str(doc), str(db_path), steps],
            capture_output=True,
            text=True,
            env=env,
            timeout=timeout,
            cwd=doc.parent,  # not this checkout: `python -c` puts the working folder first on the path
        )
    except subprocess.TimeoutExpired:
        return None
    if done.returncode != 0:
        raise SystemExit(f"the library child failed (exit {done.returncode}):\n{done.stderr[-2000:]}")
    result = json.loads(done.stdout.strip().splitlines()[-1])
    _check_code(result["code"], code)
    result["wall_s"] = time.perf_counter() - began
    return result


def _differences(ours: list, theirs: list) -> str | None:
    if ours == theirs:
        return None
    for index, (a, b) in enumerate(zip(ours, theirs, strict=False)):
        if a != b:
            return f"citation {index}: now {a}, before {b}"
    return f"{len(ours)} citations now, {len(theirs)} before"


def scale(args: argparse.Namespace, db_path: Path, tmp: Path) -> list[dict]:
    rows = []
    for size in args.sizes:
        doc = tmp / f"brief-{size}.txt"
        doc.write_text(make_brief(db_path, size, args.seed), encoding="utf-8")
        seconds, found = run_cli(doc, db_path, tmp / f"cache-{size}")
        row: dict = {"size": size, "characters": doc.stat().st_size, "citations": found, "cli_s": round(seconds, 2)}
        row["s_per_1k_citations"] = round(1000 * seconds / max(found, 1), 3)
        now = run_child(doc, db_path, None, "all", None) if args.stages or args.before else None
        if now is not None:
            row.update({k: round(now[k], 2) for k in ("extract_s", "verify_s", "quotations_s")})
        if args.before:
            before = run_child(doc, db_path, args.before, "all", args.before_timeout)
            steps = ("extract_s", "verify_s", "quotations_s")
            row["before_s"] = round(sum(before[k] for k in steps), 2) if before else None
            row["before_killed_after_s"] = None if before else args.before_timeout
            if before is not None and now is not None:
                difference = _differences(now["resolved"], before["resolved"])
                row["identical"] = difference is None
                if difference:
                    raise SystemExit(f"size {size}: resolutions differ from the code in {args.before}: {difference}")
        rows.append(row)
        print(json.dumps(row), file=sys.stderr)
    return rows


def real_documents(tmp: Path) -> list[Path]:
    """The 357 citing opinions (as text files) and the summary-judgment filings of LEXPROBE_DATA."""
    paths = []
    for path in sorted((data_root() / "opinions" / "scotus" / "text").glob("*.txt.gz")):
        target = tmp / path.name.removesuffix(".gz")
        with gzip.open(path, "rt", encoding="utf-8", errors="replace") as stream:
            target.write_text(stream.read(), encoding="utf-8")
        paths.append(target)
    return paths + sorted((data_root() / "sj_records").glob("*/*.pdf"))


def _resolve_all(documents: list[Path], db_path: Path, code: Path | None) -> dict[str, list]:
    env = dict(os.environ)
    if code is not None:
        env["PYTHONPATH"] = str(code)
    done = subprocess.run(
        [sys.executable, "-c", CHILD_MANY, str(db_path), *map(str, documents)],
        capture_output=True,
        text=True,
        env=env,
        cwd=db_path.parent,  # not this checkout: `python -c` puts the working folder first on the path
    )
    if done.returncode != 0:
        raise SystemExit(f"the library child failed (exit {done.returncode}):\n{done.stderr[-2000:]}")
    rows = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    _check_code(rows[0]["code"], code)
    return {row["path"]: row["resolved"] for row in rows[1:]}


def _check_code(imported: str, code: Path | None) -> None:
    """Fail unless the child imported the `lexprobe` asked for (`code`, else not one under `--before`)."""
    if code is not None and not Path(imported).resolve().is_relative_to(code.resolve()):
        raise SystemExit(f"the baseline child imported {imported}, not the lexprobe in {code}")


def identity(args: argparse.Namespace, db_path: Path, tmp: Path) -> dict:
    """Resolve every real document with this code and with `--before` (one fresh process each); fail on the first
    difference."""
    documents = real_documents(tmp)
    now = _resolve_all(documents, db_path, None)
    before = _resolve_all(documents, db_path, args.before)
    for doc in documents:
        difference = _differences(now[str(doc)], before[str(doc)])
        if difference:
            raise SystemExit(f"{doc.name}: resolutions differ from the code in {args.before}: {difference}")
    resolved = [c for rows in now.values() for c in rows]
    return {
        "documents": len(documents),
        "citations": len(resolved),
        "references": sum(1 for c in resolved if c[0] != "full"),
        "identical": True,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=lambda s: [int(x) for x in s.split(",")], default=list(DEFAULT_SIZES))
    parser.add_argument("--stages", action="store_true", help="also time extraction, verification, quotations")
    parser.add_argument("--before", type=Path, help="a folder with an older lexprobe package: the baseline")
    parser.add_argument("--before-timeout", type=float, default=600.0)
    parser.add_argument("--identity", action="store_true", help="compare resolutions on the real documents")
    parser.add_argument("--db", type=Path, help="an already built case database (default: build one, not timed)")
    parser.add_argument("--seed", type=int, default=44)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.identity and not args.before:
        parser.error("--identity needs --before DIR")
    with tempfile.TemporaryDirectory(prefix="lexprobe-bench-") as folder:
        tmp = Path(folder)
        db_path = args.db
        if db_path is None:
            db_path = tmp / "caselaw.sqlite"
            build_database(data_root(), db_path)
        result = {
            "machine": f"{platform.machine()}, {platform.system()}, Python {platform.python_version()}, "
            f"{os.cpu_count()} cores",
            **({"identity": identity(args, db_path, tmp)} if args.identity else {"sizes": scale(args, db_path, tmp)}),
        }
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key}: {value}")


if __name__ == "__main__":
    main()
