"""Benchmark: the CourtListener bulk loader on a synthetic bulk set of 1,000,000 clusters (issue 30).

Generated (SYNTHETIC, deterministic, into a temporary folder, never the repository): `courts-`, `dockets-`,
`opinion-clusters-`, `citations-`, `opinions-` and `citation-map-2025-06-30.csv.bz2`, with the export's exact
columns and quoting (`COPY ... (FORMAT csv, HEADER, ESCAPE '\\', FORCE_QUOTE *)`, see
`lexprobe/caselaw/sources/courtlistener_bulk_export.py`). Per cluster: one docket (plus one docket without a
cluster for every two clusters, as real dockets outnumber clusters), an official citation (U.S., F.2d/F.3d or
F. Supp./F. Supp. 2d by court and year) and, for some, a Lexis and a Westlaw cite; a short opinion (~500
characters, with quotes, commas, newlines and now and then a backslash; 5% as HTML only) and for 10% a dissent;
three citation-map rows. 57 courts (the Supreme Court, the 13 courts of appeals, 43 district courts), years
1950–2020, names drawn from 200 × 200 party names (the count of distinct names is printed).

Measured, each in a fresh child process (time, CPU, and the child's own peak RSS from `os.wait4`):
- baseline: one `csv.reader` pass (same dialect) over every file, bz2 decompression included: the floor;
- loader: `courtlistener_bulk.load_files` on the folder, every bundle iterated (staging under a fresh work folder);
- build (with --build): `lexprobe data build --courtlistener <dir>` end to end into a fresh database.
Both sides' row counts are compared (the loader's `rows_read` against the baseline's rows).

Usage: python bench/courtlistener_bulk.py [--clusters N] [--dir DIR] [--keep] [--build] [--json]
The issue's goal: the loader's peak RSS under 1 GB at 1,000,000 clusters.
"""

from __future__ import annotations

import argparse
import bz2
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from multiprocessing import Pool
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from lexprobe.caselaw.sources.courtlistener_bulk_export import COLUMNS, quote_value  # noqa: E402

DATE = "2025-06-30"
COA = ["ca1", "ca2", "ca3", "ca4", "ca5", "ca6", "ca7", "ca8", "ca9", "ca10", "ca11", "cadc", "cafc"]
DISTRICTS = (  # noqa: SIM905 - a list of ids is easier to read as one string
    "nysd nyed cand cacd txsd ilnd flsd paed njd mad dcd mdd vaed gand ohsd mied wawd azd cod mnd mowd laed tnmd "
    "kyed nvd utd ord okwd ksd ned ctd rid nhd med vtd prd wiwd iasd arwd msnd alnd scd innd"
).split()
COURTS = ["scotus", *COA, *DISTRICTS]
SURNAMES = [
    f"{a}{b}" for a in ("Ab", "Bar", "Cor", "Dun", "El", "Fair", "Gar", "Hol", "Ing", "Jar") for b in (
        "bott", "ker", "ley", "ton", "mann", "son", "field", "worth", "ford", "ridge", "wood", "well", "stone",
        "brook", "dale", "hart", "ham", "by", "croft", "well-Smith",
    )
]  # fmt: skip  # 200 party names
TEXT = (
    '{judge}, Circuit Judge.\nThe appellant, {a}, argues that the "rule of lenity" applies; we disagree, '
    "for the reasons below.\nThe district court's order of {year} is {outcome}. See {cite}, at 12 "
    '(quoting the "plain meaning" of the statute), and the record, vol. 2, p. 14.\n'
)


def _mix(i: int, salt: int) -> int:
    """A cheap deterministic hash of a row number (each table is generated on its own, in parallel)."""
    return ((i * 2654435761) ^ (salt * 40503)) * 2246822519 % 4294967291


def _court(i: int) -> str:
    pick = _mix(i, 1) % 100
    if pick < 5:
        return "scotus"
    if pick < 50:
        return COA[_mix(i, 2) % len(COA)]
    return DISTRICTS[_mix(i, 3) % len(DISTRICTS)]


def _year(i: int) -> int:
    return 1950 + _mix(i, 4) % 71


def _name(i: int) -> str:
    return f"{SURNAMES[_mix(i, 5) % 200]} v. {SURNAMES[_mix(i, 6) % 200]}"


def _official(i: int) -> tuple[str, str, str]:
    court, year = _court(i), _year(i)
    if court == "scotus":
        return str(700 + i % 250), "U.S.", str(1 + _mix(i, 7) % 900)  # volumes no real case has
    if court in COA:
        return str(1 + i % 999), "F.3d" if year >= 1993 else "F.2d", str(1 + _mix(i, 7) % 1400)
    return str(1 + i % 999), "F. Supp. 2d" if year >= 1998 else "F. Supp.", str(1 + _mix(i, 7) % 1400)


def _line(kind: str, values: dict[str, object]) -> str:
    return ",".join(quote_value(values.get(name)) for name in COLUMNS[kind]) + "\n"


def _rows(kind: str, n: int):
    """Yield (kind's row dicts) for a set of `n` clusters."""
    if kind == "courts":
        for court in COURTS:
            yield {"id": court, "full_name": f"Court {court}", "jurisdiction": "F", "in_use": True}
    elif kind == "dockets":
        for i in range(1, n + n // 2 + 1):
            yield {
                "id": i,
                "court_id": _court(i),
                "docket_number": f"{_year(i) % 100:02d}-{i}",
                "blocked": False,
                "case_name": _name(i),
                "source": 0,
                "date_created": "2020-01-01 00:00:00+00",
            }
    elif kind == "opinion-clusters":
        outcomes = ("Affirmed", "Reversed", "Reversed and remanded", "Affirmed in part, reversed in part", None)
        for i in range(1, n + 1):
            panel = f"{SURNAMES[i % 200]}, {SURNAMES[(i + 7) % 200]}, {SURNAMES[(i + 13) % 200]}"
            yield {
                "id": i,
                "docket_id": i,
                "date_filed": f"{_year(i)}-{1 + i % 12:02d}-{1 + i % 28:02d}",
                "date_filed_is_approximate": False,
                "case_name": _name(i),
                "judges": panel,
                "disposition": outcomes[_mix(i, 8) % 5],
                "precedential_status": "Published",
                "citation_count": i % 50,
                "blocked": False,
                "source": "C",
            }
    elif kind == "citations":
        row_id = 0
        for i in range(1, n + 1):
            volume, reporter, page = _official(i)
            row_id += 1
            yield {"id": row_id, "volume": volume, "reporter": reporter, "page": page, "type": 1, "cluster_id": i}
            if _mix(i, 9) % 2:
                row_id += 1
                yield {
                    "id": row_id,
                    "volume": _year(i),
                    "reporter": "U.S. App. LEXIS",
                    "page": i,
                    "type": 6,
                    "cluster_id": i,
                }
            if _mix(i, 10) % 5 == 0:
                row_id += 1
                yield {"id": row_id, "volume": _year(i), "reporter": "WL", "page": i, "type": 7, "cluster_id": i}
    elif kind == "opinions":
        for i in range(1, n + 1):
            volume, reporter, page = _official(max(1, i - 17))
            text = TEXT.format(
                judge=SURNAMES[i % 200].upper(),
                a=_name(i),
                year=_year(i),
                outcome="affirmed" if i % 2 else "reversed",
                cite=f"{volume} {reporter} {page}",
            )
            if i % 37 == 0:
                text += 'The path C:\\records\\exhibit.pdf is quoted as \\"filed\\".\n'
            html = _mix(i, 11) % 20 == 0
            yield {
                "id": i,
                "cluster_id": i,
                "type": "020lead",
                "author_str": SURNAMES[i % 200],
                "per_curiam": False,
                "plain_text": None if html else text,
                "html_with_citations": f"<p>{text}</p>" if html else None,
                "extracted_by_ocr": False,
                "sha1": f"{i:040x}",
            }
            if i % 10 == 0:
                yield {
                    "id": n + i,
                    "cluster_id": i,
                    "type": "040dissent",
                    "author_str": SURNAMES[(i + 7) % 200],
                    "per_curiam": False,
                    "plain_text": "I respectfully dissent.\n" + text[:200],
                    "extracted_by_ocr": False,
                }
    elif kind == "citation-map":
        row_id = 0
        for i in range(2, n + 1):
            for k in range(3):
                row_id += 1
                yield {
                    "id": row_id,
                    "depth": 1 + k,
                    "cited_opinion_id": 1 + _mix(i, 12 + k) % (i - 1),
                    "citing_opinion_id": i,
                }


def _write(args: tuple[str, int, str]) -> tuple[str, int, int, float]:
    kind, n, folder = args
    start = time.perf_counter()
    path = Path(folder) / f"{kind}-{DATE}.csv.bz2"
    count = 0
    with bz2.open(path, "wt", encoding="utf-8", newline="") as stream:
        stream.write(",".join(COLUMNS[kind]) + "\n")
        buffer = []
        for values in _rows(kind, n):
            buffer.append(_line(kind, values))
            count += 1
            if len(buffer) >= 10_000:
                stream.write("".join(buffer))
                buffer.clear()
        stream.write("".join(buffer))
    return kind, count, path.stat().st_size, time.perf_counter() - start


def generate(folder: Path, n: int) -> dict:
    """Write the synthetic set (two processes: the machine has two cores); return rows and sizes per file."""
    folder.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    with Pool(2) as pool:
        written = pool.map(_write, [(kind, n, str(folder)) for kind in COLUMNS], chunksize=1)
    names = {_name(i) for i in range(1, n + 1)}
    return {
        "files": {kind: {"rows": rows, "bz2_bytes": size} for kind, rows, size, _ in written},
        "seconds": round(time.perf_counter() - start, 1),
        "distinct_names": len(names),
        "courts": len(COURTS),
    }


# --- the measured children -----------------------------------------------------------------------------------


def child_baseline(folder: Path) -> dict:
    """One csv.reader pass over every file in the export's dialect: rows per file."""
    from lexprobe.caselaw.sources.courtlistener_bulk import DIALECTS, MAX_FIELD_CHARS

    csv.field_size_limit(MAX_FIELD_CHARS)
    rows = {}
    for path in sorted(folder.glob("*.csv.bz2")):
        with bz2.open(path, "rt", encoding="utf-8", newline="") as stream:
            rows[path.name] = sum(1 for _ in csv.reader(stream, DIALECTS["escape"])) - 1
    return {"rows": sum(rows.values()), "per_file": rows}


def child_loader(folder: Path, work: Path) -> dict:
    """Iterate every bundle the loader yields."""
    from lexprobe.caselaw.records import LoadOptions
    from lexprobe.caselaw.sources import courtlistener_bulk

    cases = opinions = edges = with_court = 0
    streamed = courtlistener_bulk.load_files([folder], LoadOptions(work_dir=work))
    for bundle in streamed.bundles:
        cases += 1
        opinions += len(bundle.opinions)
        edges += len(bundle.edges)
        with_court += bundle.case.court_id is not None
    return {
        "cases": cases, "opinions": opinions, "edges": edges, "with_court": with_court,
        "rows": streamed.result.rows_read, "issues": len(streamed.result.issues),
        "staging_bytes": sum(p.stat().st_size for p in work.iterdir()),
    }  # fmt: skip


def _measure(command: list[str], output: Path, errors: Path) -> dict:
    """Run a child; return its wall and CPU seconds, peak RSS (MiB, from wait4) and its JSON (if any)."""
    start = time.perf_counter()
    with open(output, "w") as out, open(errors, "w") as err:
        process = subprocess.Popen(command, stdout=out, stderr=err, cwd=REPO)
        _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    exit_code = os.waitstatus_to_exitcode(status)
    result = {
        "seconds": round(wall, 1),
        "cpu_seconds": round(usage.ru_utime + usage.ru_stime, 1),
        "peak_rss_mib": round(usage.ru_maxrss / 1024, 1),
        "exit": exit_code,
    }
    if exit_code:
        result["stderr"] = errors.read_text(errors="replace")[-2000:]
    try:
        result.update(json.loads(output.read_text()))
    except (json.JSONDecodeError, OSError):
        result["stdout"] = output.read_text(errors="replace")[-1000:]
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clusters", type=int, default=1_000_000)
    parser.add_argument("--dir", type=Path, help="work folder (default: a new temporary folder)")
    parser.add_argument("--keep", action="store_true", help="keep the generated files and staging store")
    parser.add_argument("--build", action="store_true", help="also time `lexprobe data build --courtlistener`")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--child", choices=("baseline", "loader"), help=argparse.SUPPRESS)
    parser.add_argument("--folder", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child == "baseline":
        print(json.dumps(child_baseline(args.folder)))
        return 0
    if args.child == "loader":
        print(json.dumps(child_loader(args.folder, args.dir)))
        return 0

    root = args.dir or Path(tempfile.mkdtemp(prefix="lexprobe-bench-cl-"))
    folder = root / "bulk"
    try:
        print(f"generating {args.clusters:,} clusters into {folder} ...", file=sys.stderr)
        report: dict = {"clusters": args.clusters, "generated": generate(folder, args.clusters)}
        me = [sys.executable, str(Path(__file__).resolve())]
        print("baseline: csv.reader pass ...", file=sys.stderr)
        report["baseline"] = _measure(
            [*me, "--child", "baseline", "--folder", str(folder)], root / "baseline.json", root / "baseline.err"
        )
        print("loader: every bundle ...", file=sys.stderr)
        work = root / "work"
        report["loader"] = _measure(
            [*me, "--child", "loader", "--folder", str(folder), "--dir", str(work)],
            root / "loader.json",
            root / "loader.err",
        )
        if args.build:
            print("build: lexprobe data build --courtlistener ...", file=sys.stderr)
            lexprobe = shutil.which("lexprobe") or str(Path(sys.executable).with_name("lexprobe"))
            db = root / "caselaw.sqlite"
            command = [lexprobe, "data", "build", "--courtlistener", str(folder), "--db", str(db)]
            report["build"] = _measure(command, root / "build.out", root / "build.err")
            if db.exists():
                import sqlite3

                with sqlite3.connect(db) as connection:
                    report["build"]["cases_in_db"] = connection.execute(
                        "SELECT COUNT(*) FROM cases WHERE sources LIKE '%courtlistener%'"
                    ).fetchone()[0]
        base, loader = report["baseline"], report["loader"]
        report["same_rows"] = base.get("rows") == loader.get("rows")
        report["loader_clusters_per_second"] = round(loader.get("cases", 0) / max(loader["seconds"], 1e-9))
        report["under_1_gb"] = loader["peak_rss_mib"] < 1024
    finally:
        if not args.keep and args.dir is None:
            shutil.rmtree(root, ignore_errors=True)
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        _print_table(report)
    return 0 if report["same_rows"] and report["under_1_gb"] and report["loader"]["exit"] == 0 else 1


def _print_table(report: dict) -> None:
    generated = report["generated"]
    print(f"synthetic set: {report['clusters']:,} clusters, {generated['distinct_names']:,} distinct names, "
          f"{generated['courts']} courts, generated in {generated['seconds']} s")  # fmt: skip
    for kind, info in generated["files"].items():
        print(f"  {kind:<17} {info['rows']:>12,} rows  {info['bz2_bytes'] / 2**20:>9.1f} MiB bz2")
    print(f"{'step':<10} {'seconds':>9} {'cpu s':>9} {'peak RSS MiB':>13}  rows / cases")
    for step in ("baseline", "loader", "build"):
        if step in report:
            row = report[step]
            what = f"{row.get('rows', '')} rows" + (f", {row['cases']:,} cases" if "cases" in row else "")
            print(f"{step:<10} {row['seconds']:>9} {row['cpu_seconds']:>9} {row['peak_rss_mib']:>13}  {what}")
    print(f"same rows read: {report['same_rows']}; loader {report['loader_clusters_per_second']:,} clusters/s; "
          f"peak RSS under 1 GB: {report['under_1_gb']}")  # fmt: skip


if __name__ == "__main__":
    sys.exit(main())
