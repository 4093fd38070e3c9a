"""Benchmark: `lexprobe view` over a hallucination run store at paper size (issue 32, "at any size").

The stores are SYNTHETIC, written by `bench/run_store_scale.py`'s writer (the paper's real plan, every request,
answer and score as a run writes them): `--responses` answers (default 1,000,000) and a `--baseline` store (default
10,000). Of a store's answers, the viewer's rows are its greedy questions and reference-free pairs (the calibration
samples, ~90% of the answers, are shown inside their question's detail), so the table gives both counts.

A third store, `--rows N` (default 1,000,000), holds N greedy answers and nothing else (no calibration samples):
one viewer row per answer, so the list itself has a million rows (15,000 cases, each asked ~66 times). It is
written here, in the store's schema (`RunStore`), each request tagged as `hallucination run` tags it (task, level,
prompt style, case id, year), each answer from the same vocabulary (25-100 % of 400 characters, its row number
first) and a `reference` score (labels drawn as run_store_scale.py draws them).

Measured per store, each step in a fresh process, with real HTTP requests (urllib) to a real `lexprobe view`
server process (uvicorn) on 127.0.0.1:
- index build: `view-index.sqlite` written next to the store (the units table, its indexes, the FTS5 table), once;
- open: from starting `lexprobe view RUN --port 0` (index built) to the first page of rows answered;
- filter + page: distinct filters (task, level, label, style, year range, case text, several at once), sorts and
  pages (deep ones included), each request timed; median and worst;
- full-text search: distinct words of the answers' vocabulary and a rare token, each alone and with a filter;
- the server's peak RSS (VmHWM of /proc/PID/status) after all of the above.

Usage: python bench/view_scale.py [--responses N] [--baseline N] [--rows N] [--dir DIR] [--db CASES] [--keep-stores]
       [--json]
Goals (issue 32): open < 2 s, filter + page < 200 ms, full-text search < 500 ms, server memory < 500 MB.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
LEXPROBE = str(Path(sys.executable).with_name("lexprobe"))
WORDS = ("court", "dissent", "jurisdiction", "precedent", "injunction", "verdict", "remanded", "doctrine")

_BUILD = """
import json, sys, time
from pathlib import Path
from lexprobe.view.hallucination.index import ensure_index
start = time.perf_counter()
index = ensure_index(Path(sys.argv[1]), None)
print(json.dumps({"build_s": round(time.perf_counter() - start, 2), "units": index.units,
                  "index_mib": round(index.path.stat().st_size / 2**20, 1)}))
"""


def _env() -> dict[str, str]:
    env = os.environ.copy()
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH", "")]))
    return env


def write_stores(targets: dict[str, int], folder: Path, db: Path) -> None:
    """Write the synthetic stores that are missing with `bench/run_store_scale.py`'s writer."""
    missing = {name: count for name, count in targets.items() if not (folder / name / "run.sqlite").is_file()}
    if not missing:
        return
    if not db.is_file():
        subprocess.run([LEXPROBE, "data", "build", "--db", str(db)], check=True, env=_env())
    folder.mkdir(parents=True, exist_ok=True)
    writer = [sys.executable, str(REPO / "bench" / "run_store_scale.py"), "--write", json.dumps(missing),
              "--dir", str(folder), "--db", str(db)]  # fmt: skip
    subprocess.run(writer, check=True, env=_env(), stdout=subprocess.DEVNULL)


def write_rows_store(run_dir: Path, rows: int, seed: int = 7) -> None:
    """Write a hallucination store of `rows` greedy answers, each a viewer row (see the module's docstring)."""
    import random

    sys.path.insert(0, str(REPO / "bench"))
    from run_store_scale import LABELS, answer_text, response_body

    from lexprobe.engine.store import RunStore

    if (run_dir / "run.sqlite").is_file():
        return
    run_dir.mkdir(parents=True, exist_ok=True)
    store = RunStore.open(run_dir)
    model = "scripted:rows.jsonl"
    store.claim("hallucination", model)
    store.close()
    rng = random.Random(seed)
    tasks = ("existence", "court", "citation", "author", "disposition", "quotation", "authority", "overruling_year")
    labels = [label for label, weight in LABELS for _ in range(weight)]
    conn = sqlite3.connect(run_dir / "run.sqlite")
    conn.execute("PRAGMA synchronous = OFF")
    with conn:
        for start in range(0, rows, 50_000):
            requests, responses, scores = [], [], []
            for row in range(start, min(rows, start + 50_000)):
                task, level = tasks[row % len(tasks)], ("scotus", "coa", "district")[row % 3]
                style, case = ("zero", "few")[row // 7 % 2], f"{level}:{row // 48 % 5000}_U.S._1"  # 15,000 cases
                request_id = f"r{row}:{task}|{level}|{style}|{case}"  # prefixed, as run_store_scale.py copies
                tags = {"task": task, "level": level, "prompt_style": style, "case_id": case,
                        "year": str(1800 + row % 220), "reference": "{}"}  # fmt: skip
                body = json.dumps({"model": model, "messages": [{"role": "user", "content": f"Question {row}?"}],
                                   "temperature": 0.0, "max_tokens": 100, "id": request_id, "tags": tags})  # fmt: skip
                requests.append((request_id, row, model, request_id, body, json.dumps(tags, sort_keys=True), 0.0))
                responses.append((request_id, response_body(answer_text(rng, row, 100), 100, rng), 0, 20, 20, 0.0, 0.0))
                scores.append((request_id, "reference", rng.choice(labels), json.dumps({"detail": "synthetic"}), 0.0))
            conn.executemany("INSERT INTO requests VALUES (?, ?, ?, ?, ?, ?, ?)", requests)
            conn.executemany("INSERT INTO responses VALUES (?, ?, ?, ?, ?, ?, ?)", responses)
            conn.executemany("INSERT INTO scores VALUES (?, ?, ?, ?, ?)", scores)
    conn.close()


def build_index(run_dir: Path) -> dict:
    """Remove the run's index and build it again in a fresh process; return its time, units and size."""
    (run_dir / "view-index.sqlite").unlink(missing_ok=True)
    start = time.perf_counter()
    found = subprocess.run([sys.executable, "-c", _BUILD, str(run_dir)], capture_output=True, text=True,
                           env=_env(), check=True)  # fmt: skip
    return json.loads(found.stdout) | {"process_s": round(time.perf_counter() - start, 2)}


def get(url: str) -> tuple[float, dict]:
    """GET `url`; return (milliseconds, the JSON body)."""
    start = time.perf_counter()
    with urllib.request.urlopen(url, timeout=60) as response:
        body = json.loads(response.read())
    return (time.perf_counter() - start) * 1000, body


def _queries(facets: dict, years: list) -> list[dict[str, str]]:
    tasks, levels, labels = facets["task"], facets["level"], facets["label"]
    low, high = years
    middle = (low + high) // 2 if low is not None else 1950
    return [
        {},
        {"page": "200"},
        {"task": tasks[0]},
        {"task": tasks[len(tasks) // 2], "page": "5"},
        {"level": levels[-1], "sort": "year", "dir": "desc"},
        {"label": "hallucination", "sort": "confidence"},
        {"label": labels[0], "task": tasks[-1], "style": "few"},
        {"year_from": str(middle), "year_to": str(middle + 10), "sort": "case"},
        {"sort": "case", "page": "1000"},
        {"sort": "year", "dir": "desc", "page": "500", "size": "100"},
        {"case": "v. United"},
        {"task": tasks[1 % len(tasks)], "level": levels[0], "label": "correct", "sort": "year", "page": "3"},
    ]


def start_server(run_dir: Path) -> tuple[subprocess.Popen, str, dict, float]:
    """Start `lexprobe view RUN --port 0`; return it, its list's URL, the first page and seconds to that page."""
    start = time.perf_counter()
    server = subprocess.Popen([LEXPROBE, "view", str(run_dir), "--port", "0", "--json"], stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True, env=_env())  # fmt: skip
    url = json.loads(server.stdout.readline())["url"] + "hallucination/"
    _, first = get(url + "api/units?size=50")
    return server, url, first, time.perf_counter() - start


def serve_and_measure(run_dir: Path, starts: int = 3) -> dict:
    """Start a real viewer over `run_dir` `starts` times (timing each start to its first page), then time filters,
    pages and searches on the last one; return the figures."""
    opens = []
    for _ in range(starts - 1):
        server, _, _, seconds = start_server(run_dir)
        opens.append(seconds)
        server.terminate()
        server.wait(timeout=30)
    server, url, first, seconds = start_server(run_dir)
    opens.append(seconds)
    try:
        _, meta = get(url + "api/facets")
        filters = []
        for params in _queries(meta["facets"], meta["years"]):
            ms, body = get(url + "api/units?" + urllib.parse.urlencode(params))
            filters.append((ms, params, body["total"]))
        searches = []
        first_row = first["rows"][0]["answer"].split()[0]  # the writer starts each answer with its row number
        for word in (*WORDS, first_row):
            for extra in ({}, {"task": meta["facets"]["task"][0]}, {"sort": "year", "page": "3"}):
                ms, body = get(url + "api/units?" + urllib.parse.urlencode({"q": word, **extra}))
                searches.append((ms, {"q": word, **extra}, body["total"]))
        ms_detail, _ = get(url + f"api/unit/0/{first['rows'][0]['uid']}")
        status = Path(f"/proc/{server.pid}/status").read_text()
        peak_kib = int(next(line.split()[1] for line in status.splitlines() if line.startswith("VmHWM")))
    finally:
        server.terminate()
        server.wait(timeout=30)
    return {
        "open_s": round(statistics.median(opens), 2),
        "open_s_max": round(max(opens), 2),
        "units": meta["total"],
        "filter_ms_median": round(statistics.median(ms for ms, _, _ in filters), 1),
        "filter_ms_max": round(max(ms for ms, _, _ in filters), 1),
        "filter_slowest": max(filters, key=lambda item: item[0])[1],
        "search_ms_median": round(statistics.median(ms for ms, _, _ in searches), 1),
        "search_ms_max": round(max(ms for ms, _, _ in searches), 1),
        "search_slowest": max(searches, key=lambda item: item[0])[1],
        "detail_ms": round(ms_detail, 1),
        "server_peak_rss_mib": round(peak_kib / 1024),
        "requests": len(filters) + len(searches) + 3,
    }


def table(results: dict[str, dict]) -> str:
    """Return the figures as a Markdown table, one column per store."""
    rows = [
        ("answers in the store", "responses", "{:,}"),
        ("rows (greedy questions + pairs)", "units", "{:,}"),
        ("index build (once), s", "build_s", "{}"),
        ("index file, MiB", "index_mib", "{}"),
        ("open: start to first page, median of 3 starts, s", "open_s", "{}"),
        ("open: start to first page, worst of 3, s (goal < 2)", "open_s_max", "{}"),
        ("filter + page, median ms", "filter_ms_median", "{}"),
        ("filter + page, worst ms (goal < 200)", "filter_ms_max", "{}"),
        ("full-text search, median ms", "search_ms_median", "{}"),
        ("full-text search, worst ms (goal < 500)", "search_ms_max", "{}"),
        ("one answer's detail, ms", "detail_ms", "{}"),
        ("server peak RSS, MiB (goal < 500)", "server_peak_rss_mib", "{}"),
    ]
    names = list(results)
    lines = ["| | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
    for title, key, form in rows:
        lines.append(f"| {title} | " + " | ".join(form.format(results[n][key]) for n in names) + " |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--responses", type=int, default=1_000_000)
    parser.add_argument("--baseline", type=int, default=10_000)
    parser.add_argument("--rows", type=int, default=1_000_000, help="a store of this many greedy answers (0: none)")
    parser.add_argument("--dir", type=Path, default=Path("/tmp/view-bench"))
    parser.add_argument("--db", type=Path, default=Path("/tmp/view-bench/cases.sqlite"))
    parser.add_argument("--keep-stores", action="store_true", help="leave the stores for a rerun (2 GB at 1M)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    targets = {"base": args.baseline, "big": args.responses}
    write_stores(targets, args.dir, args.db)
    if args.rows:
        write_rows_store(args.dir / "rows", args.rows)
        targets["rows"] = args.rows
    results: dict[str, dict] = {}
    for name in targets:
        run_dir = args.dir / name
        conn = sqlite3.connect(f"file:{run_dir / 'run.sqlite'}?mode=ro", uri=True)
        (responses,) = conn.execute("SELECT COUNT(*) FROM responses").fetchone()
        conn.close()
        results[name] = {"responses": responses} | build_index(run_dir) | serve_and_measure(run_dir)
        print(f"{name}: {json.dumps(results[name])}", file=sys.stderr, flush=True)
    print(json.dumps(results) if args.json else table(results))
    if not args.keep_stores:
        for name in targets:
            for path in (args.dir / name).glob("*"):
                path.unlink()
    return 0


if __name__ == "__main__":
    sys.exit(main())
