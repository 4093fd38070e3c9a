"""Benchmark: a hallucination run store at paper size (issue 31, section 4): bytes, report, resume, dry run.

The store is SYNTHETIC but built from the real plan: the bench plans the paper's design (`--design paper`, all
tasks, the same code path as `lexprobe hallucination run`) on the case database, writes every planned request
exactly as `RunStore.add_requests` does (same id, seq, cache key, body and tags), one judge request per
reference-free pair (`judge_request`), and, to reach `--responses N` when the plan is smaller, copies of the plan
with prefixed ids (`r1:...`, tags `of`/`pair` prefixed alike). Every request gets a response body in the form
`Response.model_dump_json` writes, one `ok` telemetry row, and every greedy question and reference-free pair a
`reference` score (labels drawn 45% correct, 35% hallucination, 10% abstain, 10% unscored), and every calibrated
greedy question a `confidence` score. Answer lengths: uniform between 25% and 100% of the request's
`max_tokens` x 4 characters (a distinct text per response: its row number, then words from a fixed vocabulary).
Meta: the run's real settings, skipped list, coverage and samples, so the rerun of the same command resumes.

Measured, each in a fresh child process (wall time, and the child's own peak RSS from `os.wait4`):
- `SELECT COUNT(*), SUM(LENGTH(body)) FROM responses`: a full scan, the floor of anything that reads every answer;
- `lexprobe hallucination report RUN --json` (run under an address-space limit, `--report-limit-gb`);
- resume: the rerun of the same `hallucination run --design paper` command with `--missing` planned requests
  left without a response; timed to the first new response (its `completed_at`), then stopped (SIGINT, and
  killed if still running 30 s later);
- `--dry-run` of the paper's design against an empty run directory (with the scripted model and with a hosted
  model's spec, `openai/gpt-4o`: no key needed) and against the big store.
A baseline store of `--baseline` responses (default 10,000) gets the same scan and report. Last, `--breakdown`
(a child) times the steps inside the report, the resume and the dry run one after another on the big store
(nothing is written: every planned request is stored already) and gives each table's size (`dbstat`).

Usage: python bench/run_store_scale.py [--responses N] [--baseline N] [--dir DIR] [--keep] [--json]
Goals (issue 31): report < 30 s and < 2 GB; resume < 10 s before the first new request; dry run < 5 s.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

LEXPROBE = str(Path(sys.executable).with_name("lexprobe"))
VOCABULARY = (
    "the court held that plaintiff defendant appeal reversed affirmed remanded statute constitutional question "
    "majority opinion dissent justice circuit district jurisdiction evidence motion summary judgment trial jury "
    "verdict damages injunction precedent overruled doctrine due process equal protection first amendment"
)
WORDS = VOCABULARY.split()
LABELS = (("correct", 45), ("hallucination", 35), ("abstain", 10), ("unscored", 10))
SKIPPED_ROLES = ("sample1", "judge", "calibration")
HOSTED = "openai/gpt-4o"  # a dry run needs no API key


def run_command(cmd: list[str], out: Path, timeout: float, limit_gb: float | None = None) -> dict:
    """Run `cmd` in a fresh process (stdout to `out`); return wall seconds, peak RSS (MiB) and exit status."""

    def limit() -> None:
        if limit_gb:
            size = int(limit_gb * 2**30)
            resource.setrlimit(resource.RLIMIT_AS, (size, size))

    with out.open("w") as handle, out.with_suffix(".err").open("w") as errors:
        start = time.perf_counter()
        child = subprocess.Popen(cmd, stdout=handle, stderr=errors, preexec_fn=limit)
        timer = threading.Timer(timeout, child.kill)
        timer.start()
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
        timer.cancel()
    child.returncode = os.waitstatus_to_exitcode(status)
    return {"wall_s": round(wall, 2), "peak_rss_mib": round(usage.ru_maxrss / 1024), "rc": child.returncode,
            "cpu_s": round(usage.ru_utime + usage.ru_stime, 2)}  # fmt: skip


def answer_text(rng: random.Random, row: int, max_tokens: int) -> str:
    """Return a distinct answer of 25-100% of `max_tokens` x 4 characters."""
    cap = max(4, max_tokens * 4)
    length = rng.randint(max(1, cap // 4), cap)
    text = f"{row} " + " ".join(rng.choices(WORDS, k=length // 5 + 2))
    return text[:length]


def response_body(text: str, max_tokens: int, rng: random.Random) -> str:
    """Return a `responses.body` in the form `Response.model_dump_json` writes."""
    usage = {"input_tokens": rng.randint(20, 900), "output_tokens": min(max_tokens, max(1, len(text) // 4)),
             "cache_read_tokens": 0, "cache_write_tokens": 0}  # fmt: skip
    return json.dumps(
        {"text": text, "tool_calls": [], "finish_reason": "stop", "usage": usage, "latency_s": rng.random(),
         "cost_usd": 0.0, "cached": False, "model": "answers.jsonl"},
        separators=(",", ":"),
    )  # fmt: skip


def plan_paper(db_path: Path, model: str):
    """Return the paper design's settings and plan, as `lexprobe hallucination run --design paper` makes them."""
    from lexprobe.caselaw.query import CaseDatabase
    from lexprobe.caselaw.sampling import parse_year_windows
    from lexprobe.hallucination.run.items import plan_items
    from lexprobe.hallucination.run.runner import ProfileSettings, design_settings
    from lexprobe.hallucination.tasks import resolve_tasks

    levels, styles, n, k, task_n = design_settings("paper", None, None, None, None)
    settings = ProfileSettings(model=model, tasks=resolve_tasks("all"), levels=levels, styles=styles, n=n, seed=47,
                               samples=k, years=parse_year_windows("paper", levels), task_n=task_n,
                               design="paper")  # fmt: skip
    db = CaseDatabase(db_path)
    plan = plan_items(
        db, settings.tasks, settings.levels, settings.styles, settings.n, settings.seed, settings.samples,
        years=settings.windows, complete_cases=False, task_n=settings.task_n,
    )  # fmt: skip
    return settings, plan


def write_store(run_dir: Path, settings, plan, target: int, missing: int, originals=None) -> tuple[dict, list]:
    """Write a synthetic store of `target` responses (see the module docstring); return its counts and the
    planned requests as written (to reuse for the next store)."""
    from lexprobe.engine.store import RunStore
    from lexprobe.hallucination.scorers.judge import judge_request

    rng = random.Random(1)
    model = settings.model
    if originals is None:
        requests = [request for item in plan.items for request in item.requests(model)]
        pairs = [r for r in requests if r.tags.get("role") == "sample0"]
        requests += [judge_request(model, r.tags["pair"], "x", "y", {"pair": r.tags["pair"]}) for r in pairs]
        originals = [(r, r.cache_key(), r.model_dump(mode="json", by_alias=True)) for r in requests]
    requests = [request for request, _, _ in originals]
    calibrated = {r.tags["of"] for r in requests if r.tags.get("role") == "calibration"}
    run_dir.mkdir(parents=True, exist_ok=True)
    store = RunStore.open(run_dir)
    store.claim("hallucination", model)
    store.set_meta("settings", settings.to_meta())
    store.set_meta("skipped", plan.skipped)
    store.set_meta("coverage", [row.to_dict() for row in plan.coverage])
    store.set_meta("samples", plan.samples)
    conn = store.conn
    labels = [label for label, weight in LABELS for _ in range(weight)]
    counts = {"requests": 0, "responses": 0, "scores": 0, "telemetry": 0, "units": 0, "planned": len(requests)}
    # the last `missing` greedy questions of the plan are left unanswered, so a rerun has new requests to send
    greedy = [r.request_id for r in requests if not r.tags.get("role")]
    unanswered = set(greedy[-missing:]) if missing else set()
    copy, seq, now = 0, 0, time.time()
    while counts["responses"] < target:
        prefix = f"r{copy}:" if copy else ""
        store.add_items({prefix + item.item_id: item.record().model_dump_json() for item in plan.items})
        batch_req, batch_resp, batch_tel, batch_score = [], [], [], []
        for request, key, body in originals:
            if counts["responses"] + len(batch_resp) >= target:
                break
            rid = prefix + request.request_id
            tags = dict(body["tags"])
            for tag in ("of", "pair"):
                if tag in tags:
                    tags[tag] = prefix + tags[tag]
            row_body = {**body, "id": rid, "tags": tags}
            batch_req.append((rid, seq, model, key, json.dumps(row_body, separators=(",", ":")),
                              json.dumps(tags, sort_keys=True), now))  # fmt: skip
            seq += 1
            role = tags.get("role", "")
            if role not in SKIPPED_ROLES:
                counts["units"] += 1
            if not copy and request.request_id in unanswered:
                continue
            text = answer_text(rng, seq, request.max_tokens)
            batch_resp.append((rid, response_body(text, request.max_tokens, rng), 0, 100, len(text) // 4, 0.0, now))
            batch_tel.append((rid, model, 1, "ok", None, rng.random(), now))
            if role not in SKIPPED_ROLES:
                label = rng.choice(labels)
                batch_score.append((rid, "reference", label, json.dumps({"detail": f"synthetic {label}"}), now))
                if not role and request.request_id in calibrated:
                    k = settings.samples
                    agree = rng.randint(0, k)
                    detail = {"agree": agree, "confidence": agree / k, "k": k}
                    batch_score.append((rid, "confidence", "measured", json.dumps(detail, sort_keys=True), now))
        with conn:
            conn.executemany("INSERT INTO requests VALUES (?, ?, ?, ?, ?, ?, ?)", batch_req)
            conn.executemany("INSERT INTO responses VALUES (?, ?, ?, ?, ?, ?, ?)", batch_resp)
            conn.executemany(
                "INSERT INTO telemetry (request_id, model, attempt, event, error, latency_s, at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                batch_tel,
            )
            conn.executemany("INSERT INTO scores VALUES (?, ?, ?, ?, ?)", batch_score)
        counts["requests"] += len(batch_req)
        counts["responses"] += len(batch_resp)
        counts["telemetry"] += len(batch_tel)
        counts["scores"] += len(batch_score)
        copy += 1
    counts["copies"] = copy
    counts["unanswered_planned"] = len(unanswered)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    store.close()
    return counts, originals


def write_stores(targets: dict[str, int], folder: Path, db: Path, model: str, missing: int) -> dict:
    """Plan the paper's design once and write one store per target; return each store's counts."""
    start = time.perf_counter()
    settings, plan = plan_paper(db, model)
    planned = time.perf_counter() - start
    originals = None
    stores = {}
    for name, target in targets.items():
        start = time.perf_counter()
        counts, originals = write_store(folder / name, settings, plan, target, missing, originals)
        path = folder / name / "run.sqlite"
        counts |= {"write_s": round(time.perf_counter() - start, 1), "plan_s": round(planned, 1),
                   "file_mib": round(file_mib(path), 1),
                   "bytes_per_response": round(file_mib(path) * 2**20 / counts["responses"])}  # fmt: skip
        stores[name] = counts
    return stores


def breakdown(run_dir: Path, db: Path, model: str) -> dict:
    """Time, in this process, the steps the report, a resume and a dry run take on the store (nothing is written:
    every planned request is already stored): wall seconds and this process's peak RSS (MiB) after each step."""
    from lexprobe.engine.estimate import estimate_run
    from lexprobe.engine.store import RunStore
    from lexprobe.hallucination.profile.results import read_units
    from lexprobe.hallucination.run.runner import estimate_plan, judge_estimates

    steps: dict = {}
    start = time.perf_counter()

    def mark(name: str) -> None:
        nonlocal start
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
        steps[name] = {"s": round(time.perf_counter() - start, 2), "peak_rss_mib": peak}
        start = time.perf_counter()

    store = RunStore.open(run_dir)
    try:
        sizes = store.conn.execute("SELECT name, SUM(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC").fetchall()
        steps["table_mib"] = {name: round(size / 2**20, 1) for name, size in sizes}
    except sqlite3.Error:  # SQLite built without dbstat
        pass
    mark("open")
    units = read_units(store, model)
    mark("read_units (one streamed SQL pass)")
    steps["units"] = len(units)
    del units
    settings, plan = plan_paper(db, model)
    mark("plan_items (paper design)")
    planned = [request for item in plan.items for request in item.requests(model)]
    mark("item.requests() for every item")
    for request in planned:
        request.cache_key()
    mark("request.cache_key() for every planned request")
    added = store.add_requests(planned)  # all stored already: the chunked lookups and the key comparison only
    mark("store.add_requests(planned) (all already stored)")
    done = store.completed_ids()
    mark("store.completed_ids()")
    judges = judge_estimates(plan.items, settings.judge_model)
    estimate_run(planned + judges, store, None)
    mark("estimate_run over every planned request (the dry run with a cache builds them all)")
    estimate_plan(plan.items, model, judges, store, None)
    mark("estimate_plan without a cache (one request built per item)")
    steps["counts"] = {"planned": len(planned), "done": len(done), "added": added}
    store.close()
    return steps


def scan(run_dir: Path, out: Path) -> dict:
    """Time a plain full scan of every response body in a fresh process."""
    code = (
        "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); "
        "print(c.execute('SELECT COUNT(*), SUM(LENGTH(body)) FROM responses').fetchone())"
    )
    result = run_command([sys.executable, "-c", code, str(run_dir / "run.sqlite")], out, 600)
    result["output"] = out.read_text().strip()
    return result


def report(run_dir: Path, out: Path, limit_gb: float, timeout: float) -> dict:
    """Time `lexprobe hallucination report RUN --json`; check the rows cover every unit."""
    result = run_command([LEXPROBE, "hallucination", "report", str(run_dir), "--json"], out, timeout, limit_gb)
    if result["rc"] == 0:
        rows = json.loads(out.read_text())["rows"]
        result["units_reported"] = sum(row["n"] + row["unscored"] + row["pending"] for row in rows)
        result["n"] = sum(row["n"] for row in rows)
    else:
        result["stderr_tail"] = out.with_suffix(".err").read_text()[-400:]
    return result


def run_args(model: str, run_dir: Path, db: Path) -> list[str]:
    return [LEXPROBE, "hallucination", "run", "--design", "paper", "--model", model, "--run-dir", str(run_dir),
            "--db", str(db), "--no-cache", "--json"]  # fmt: skip


def resume(model: str, run_dir: Path, db: Path, out: Path, timeout: float) -> dict:
    """Rerun the same command; time to the first new response, then stop the run with SIGINT."""
    path = run_dir / "run.sqlite"
    with sqlite3.connect(path) as conn:
        (before,) = conn.execute("SELECT COUNT(*) FROM responses").fetchone()
        (top,) = conn.execute("SELECT MAX(rowid) FROM responses").fetchone()
    with out.open("w") as handle, out.with_suffix(".err").open("w") as errors:
        started_at = time.time()
        start = time.perf_counter()
        child = subprocess.Popen(run_args(model, run_dir, db), stdout=handle, stderr=errors)
        first = None
        while child.poll() is None and time.perf_counter() - start < timeout:
            time.sleep(0.25)
            try:
                with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
                    row = conn.execute("SELECT MIN(completed_at) FROM responses WHERE rowid > ?", (top,)).fetchone()
            except sqlite3.Error:
                continue
            if row[0] is not None:
                first = row[0] - started_at
                break
        seen = time.perf_counter() - start
        if child.poll() is None:
            child.send_signal(signal.SIGINT)
            threading.Timer(30, child.kill).start()
        _, status, usage = os.wait4(child.pid, 0)
    with sqlite3.connect(path) as conn:
        (after,) = conn.execute("SELECT COUNT(*) FROM responses").fetchone()
    return {"first_new_response_s": round(first, 2) if first is not None else None, "seen_s": round(seen, 2),
            "peak_rss_mib": round(usage.ru_maxrss / 1024), "rc": os.waitstatus_to_exitcode(status),
            "responses_before": before, "responses_after": after}  # fmt: skip


def dry_run(model: str, run_dir: Path, db: Path, out: Path, timeout: float) -> dict:
    result = run_command([*run_args(model, run_dir, db), "--dry-run"], out, timeout)
    if result["rc"] == 0:
        estimate = json.loads(out.read_text())
        result |= {"requests": estimate["requests"], "already_done": estimate["already_done"]}
    return result


def file_mib(path: Path) -> float:
    return sum(p.stat().st_size for p in path.parent.glob(path.name + "*")) / 2**20


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--responses", type=int, default=1_000_000)
    parser.add_argument("--baseline", type=int, default=10_000)
    parser.add_argument("--missing", type=int, default=5, help="planned questions left unanswered for the resume")
    parser.add_argument("--dir", type=Path, default=Path("/tmp/rs/bench"))
    parser.add_argument("--db", type=Path, default=Path("/tmp/rs/cases.sqlite"))
    parser.add_argument("--report-limit-gb", type=float, default=12.0)
    parser.add_argument("--timeout", type=float, default=900.0)
    parser.add_argument("--keep", action="store_true")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--write", help=argparse.SUPPRESS)  # internal: {"name": responses} stores to write
    parser.add_argument("--breakdown", type=Path, help=argparse.SUPPRESS)  # internal: time the steps on one store
    args = parser.parse_args()
    model = f"scripted:{args.dir / 'answers.jsonl'}"
    if args.write:
        print(json.dumps(write_stores(json.loads(args.write), args.dir, args.db, model, args.missing)))
        return 0
    if args.breakdown:
        print(json.dumps(breakdown(args.breakdown, args.db, model)))
        return 0
    if not args.db.is_file():
        subprocess.run([LEXPROBE, "data", "build", "--db", str(args.db)], check=True)
    if args.dir.exists():
        shutil.rmtree(args.dir)
    args.dir.mkdir(parents=True)
    (args.dir / "answers.jsonl").write_text('{"text": "Yes"}\n')
    results: dict = {"responses_goal": args.responses}

    def log(step: str, value: dict) -> None:
        results[step] = value
        print(f"{time.strftime('%H:%M:%S')} {step}: {json.dumps(value)}", file=sys.stderr, flush=True)

    log("dry_run_empty", dry_run(model, args.dir / "empty", args.db, args.dir / "dry_empty.json", args.timeout))
    # a hosted model's spec is its cache identity: no per-request file hash (`model_identity`) in the estimate
    hosted = dry_run(HOSTED, args.dir / "empty", args.db, args.dir / "dry_hosted.json", args.timeout)
    log("dry_run_empty_hosted", hosted)
    # the stores are written by a child, so this process stays small: a child's ru_maxrss starts from its parent's
    targets = {"baseline": args.baseline, "big": args.responses}
    writer = [sys.executable, __file__, "--write", json.dumps(targets), "--dir", str(args.dir), "--db", str(args.db),
              "--missing", str(args.missing)]  # fmt: skip
    log("write", run_command(writer, args.dir / "write.json", args.timeout * 2))
    for name, counts in json.loads((args.dir / "write.json").read_text()).items():
        log(f"store_{name}", counts)
    stores = {name: args.dir / name for name in targets}
    for name, run_dir in stores.items():
        log(f"scan_{name}", scan(run_dir, args.dir / f"scan_{name}.txt"))
        log(f"report_{name}", report(run_dir, args.dir / f"report_{name}.json", args.report_limit_gb, args.timeout))
    big = stores["big"]
    log("dry_run_big", dry_run(model, big, args.db, args.dir / "dry_big.json", args.timeout))
    log("resume_big", resume(model, big, args.db, args.dir / "resume_big.json", args.timeout))
    child = [sys.executable, __file__, "--breakdown", str(big), "--dir", str(args.dir), "--db", str(args.db)]
    log("breakdown_big", run_command(child, args.dir / "breakdown.json", args.timeout))
    log("breakdown_big_steps", json.loads((args.dir / "breakdown.json").read_text()))
    if args.json:
        print(json.dumps(results))
    if not args.keep:
        shutil.rmtree(args.dir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
