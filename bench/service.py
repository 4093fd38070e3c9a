"""Benchmark: `lexprobe check` warm (issue #49) against the cold CLI, in one run.

The document is a 10-page brief: the two hand-checked brief excerpts of the tests (tests/data/briefs: every
citation and quotation verdict, 13,079 characters) followed by the opening of a real Supreme Court opinion with its
citations (`opinions/scotus/text` in LEXPROBE_DATA, the first file in name order) up to 30,000 characters, about 10
pages of 3,000 characters; written as a text file and as a 10-page PDF with a text layer (tests/service_support.py
`write_pdf`). The case database is built first into a temporary folder (not timed; `--db` reuses a built one).

Measured, in this order:

1. Cold: `lexprobe check BRIEF.pdf --db DB --json` in a fresh process, `--fresh` times (start-up, reading the PDF,
   loading the database and eyecite, printing: what a user pays at a terminal).
2. Warm, in this process: a `CheckService` (its start timed), then `check_text` of the brief's text and
   `check_document` of the PDF's bytes `--runs` times each: the median of all but the first.
3. Warm over HTTP: `lexprobe serve --port 0 --concurrency 20` in its own process; `POST /api/check` with the text as
   JSON and with the PDF as a multipart upload, `--runs` times each (median of all but the first), on loopback.
4. 20 concurrent clients: 20 threads, each with its own connection, each sending `--per-client` requests of the brief
   (the text, as JSON) at once; every answer must be 200 and the brief's result.
5. Memory: `--requests` requests (default 1,000) one after another, cycling through the brief's text, the PDF and a
   one-citation text naming another case each time (so the caches see new cases); the server's resident memory
   (VmRSS, and its reading processes') sampled every 100 requests. Flat: the last sample within 10% of the one
   after the first 100 requests.

The four interfaces must give the same result (the CLI's with the upload's name for its path; checked, the bench
exits 1 otherwise). The load average is printed before and after: the figures of a shared machine are read as ratios.

Usage: python bench/service.py [--db PATH] [--runs 11] [--fresh 3] [--per-client 5] [--requests 1000] [--json]
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from service_support import BRIEFS, same_but_path, write_pdf  # noqa: E402

from lexprobe.caselaw.paths import data_root  # noqa: E402
from lexprobe.service.check_service import CheckService  # noqa: E402

BRIEF_CHARS = 30_000
CLI = "import sys; from lexprobe.cli import console_main; sys.argv[0] = 'lexprobe'; console_main()"
#: Real Supreme Court citations the memory loop names one after another (a new case most requests).
OTHER_CASES = ["347 U.S. 483", "163 U.S. 537", "392 U.S. 1", "384 U.S. 436", "410 U.S. 113", "376 U.S. 254",
               "5 U.S. 137", "198 U.S. 45", "323 U.S. 214", "395 U.S. 444", "372 U.S. 335", "367 U.S. 643"]  # fmt: skip


def brief_text() -> str:
    """The 10-page brief: both hand-checked briefs, then a real opinion's opening, cut at a paragraph break."""
    briefs = "\n\n".join((BRIEFS / f"{name}.txt").read_text(encoding="utf-8")
                         for name in ("suppression_memo", "first_amendment_brief"))  # fmt: skip
    opinion_file = sorted((data_root() / "opinions" / "scotus" / "text").glob("*.txt.gz"))[0]
    opinion = gzip.decompress(opinion_file.read_bytes()).decode("utf-8")
    room = BRIEF_CHARS - len(briefs) - 2
    cut = opinion.rfind("\n\n", 0, room)
    return briefs + "\n\n" + opinion[: cut if cut > room // 2 else room]


def http_client() -> httpx.Client:
    """An HTTP client that sends a request at once, as curl, browsers and urllib3 do (TCP_NODELAY): httpx's default
    socket lets Nagle's algorithm hold a POST's body behind its headers until the server's delayed ACK, tens of
    milliseconds that are the client's, not the server's (curl's time on the same POST is the library's)."""
    nodelay = [(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)]
    return httpx.Client(timeout=300, transport=httpx.HTTPTransport(socket_options=nodelay))


def median_after_first(seconds: list[float]) -> float:
    """The steady state: the median of every run but the first."""
    return statistics.median(seconds[1:] if len(seconds) > 1 else seconds)


def timed(job) -> tuple[float, Any]:
    """Seconds `job()` took, and its result."""
    start = time.perf_counter()
    result = job()
    return time.perf_counter() - start, result


def cold_cli(path: Path, db: Path, runs: int) -> tuple[list[float], dict]:
    """`lexprobe check PATH --json` in fresh processes: the seconds of each, and the last result."""
    seconds, result = [], {}
    for _ in range(runs):
        command = [sys.executable, "-c", CLI, "check", str(path), "--db", str(db), "--json"]
        took, done = timed(lambda c=command: subprocess.run(c, capture_output=True, text=True, check=False))
        if done.returncode not in (0, 1):
            sys.exit(f"lexprobe check failed: {done.stderr[-2000:]}")
        seconds.append(took)
        result = json.loads(done.stdout)
    return seconds, result


def start_server(db: Path) -> tuple[subprocess.Popen, str]:
    """`lexprobe serve --port 0 --concurrency 20 --json` in its own process, and its URL once it listens."""
    command = [sys.executable, "-c", CLI, "serve", "--port", "0", "--db", str(db), "--concurrency", "20", "--json"]
    server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert server.stdout is not None
    line = server.stdout.readline()
    if not line:
        sys.exit("lexprobe serve did not start")
    return server, json.loads(line)["url"].rstrip("/")


def rss_kib(pid: int) -> int:
    """Resident memory of a process (VmRSS, KiB); 0 when it is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        return 0
    return 0


def children_rss_kib(pid: int) -> int:
    """Resident memory of a process's children together (the reading processes of the server)."""
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return 0
    return sum(rss_kib(int(child)) for child in children)


def http_runs(client: httpx.Client, url: str, runs: int, text: str, pdf: bytes) -> dict[str, Any]:
    """POST /api/check with the text (JSON) and the PDF (multipart), `runs` times each."""
    figures: dict[str, Any] = {}
    for kind, send in (
        ("text", lambda: client.post(f"{url}/api/check", json={"text": text})),
        ("pdf", lambda: client.post(f"{url}/api/check", files={"file": ("brief.pdf", pdf, "application/pdf")})),
    ):
        seconds = []
        for _ in range(runs):
            took, answer = timed(send)
            answer.raise_for_status()
            seconds.append(took)
        figures[kind] = {"runs": seconds, "median": median_after_first(seconds), "result": answer.json()}
    return figures


def concurrent_clients(url: str, text: str, expected: dict, clients: int, each: int) -> dict[str, Any]:
    """`clients` threads at once, each with its own connection sending `each` requests: errors and latencies."""
    latencies: list[float] = []
    errors: list[str] = []
    start = threading.Barrier(clients)

    def client() -> None:
        with http_client() as http:
            start.wait()
            for _ in range(each):
                took, answer = timed(lambda: http.post(f"{url}/api/check", json={"text": text}))
                latencies.append(took)
                if answer.status_code != 200:
                    errors.append(f"{answer.status_code} {answer.text[:200]}")
                elif answer.json() != expected:
                    errors.append("a different result")

    threads = [threading.Thread(target=client) for _ in range(clients)]
    wall, _ = timed(lambda: [t.start() for t in threads] and [t.join() for t in threads])
    latencies.sort()
    return {"clients": clients, "requests": len(latencies), "errors": len(errors), "first_errors": errors[:3],
            "wall_s": wall, "median_s": statistics.median(latencies),
            "p95_s": latencies[int(0.95 * (len(latencies) - 1))]}  # fmt: skip


def memory_loop(client: httpx.Client, url: str, server: int, requests: int, text: str, pdf: bytes) -> dict:
    """`requests` requests cycling through the brief, the PDF and a new one-citation text; RSS every 100."""
    samples = []
    started = time.perf_counter()
    for number in range(1, requests + 1):
        kind = number % 3
        if kind == 0:
            answer = client.post(f"{url}/api/check", json={"text": text})
        elif kind == 1:
            answer = client.post(f"{url}/api/check", files={"file": ("brief.pdf", pdf, "application/pdf")})
        else:
            cited = OTHER_CASES[number % len(OTHER_CASES)]
            answer = client.post(f"{url}/api/check", json={"text": f"Request {number}: see {cited} (a case)."})
        if answer.status_code != 200:
            sys.exit(f"request {number} failed: {answer.status_code} {answer.text[:300]}")
        if number % 100 == 0:
            samples.append({"requests": number, "server_mib": rss_kib(server) / 1024,
                            "readers_mib": children_rss_kib(server) / 1024})  # fmt: skip
    base, last = samples[0]["server_mib"], samples[-1]["server_mib"]
    return {"requests": requests, "seconds": time.perf_counter() - started, "samples": samples,
            "growth_after_100": (last - base) / base, "flat": last <= base * 1.10}  # fmt: skip


def build_db(folder: Path) -> Path:
    """A case database built from LEXPROBE_DATA into `folder` (not timed)."""
    from lexprobe.caselaw.build import build_database

    path = folder / "caselaw.sqlite"
    build_database(data_root(), path)
    return path


def measure(args: argparse.Namespace, folder: Path) -> dict[str, Any]:
    """Every figure of the module docstring."""
    db = Path(args.db) if args.db else build_db(folder)
    text = brief_text()
    text_path = folder / "brief.txt"
    text_path.write_text(text, encoding="utf-8")
    pdf_path = write_pdf(text, folder / "brief.pdf", lines_per_page=44, width=80)
    pdf = pdf_path.read_bytes()
    figures: dict[str, Any] = {"load_before": os.getloadavg(), "characters": len(text)}
    cold, cli_result = cold_cli(pdf_path, db, args.fresh)
    figures["cold_cli_pdf"] = cold
    start, service = timed(lambda: CheckService(db))
    try:
        pages = service.reader.read("brief.pdf", pdf).page_count
        warm_text = [timed(lambda: service.check_text(text, "brief.txt"))[0] for _ in range(args.runs)]
        warm_pdf = [timed(lambda: service.check_document("brief.pdf", pdf))[0] for _ in range(args.runs)]
        library_pdf = service.check_document("brief.pdf", pdf)
    finally:
        service.close()
    figures |= {"pages": pages, "service_start_s": start, "warm_text": warm_text, "warm_pdf": warm_pdf}
    server, url = start_server(db)
    try:
        with http_client() as client:
            http = http_runs(client, url, args.runs, text, pdf)
            expected = http["text"]["result"]
            figures["concurrent"] = concurrent_clients(url, text, expected, 20, args.per_client)
            figures["memory"] = memory_loop(client, url, server.pid, args.requests, text, pdf)
    finally:
        server.terminate()
        server.wait(timeout=30)
    figures["http"] = {kind: {k: v for k, v in entry.items() if k != "result"} for kind, entry in http.items()}
    same = same_but_path(cli_result, "brief.pdf") == library_pdf == http["pdf"]["result"]
    figures["same_result"] = same and figures["concurrent"]["errors"] == 0
    figures["citations"], figures["quotations"] = len(cli_result["citations"]), len(cli_result["quotations"])
    figures["load_after"] = os.getloadavg()
    return figures


def report(figures: dict[str, Any]) -> None:
    """The figures as lines for BENCHMARKS.md."""
    load = " / ".join(f"{a:.1f}" for a in figures["load_before"]), " / ".join(f"{a:.1f}" for a in figures["load_after"])
    warm_text, warm_pdf = median_after_first(figures["warm_text"]), median_after_first(figures["warm_pdf"])
    http, con, mem = figures["http"], figures["concurrent"], figures["memory"]
    print(
        f"brief: {figures['characters']:,} characters, {figures['pages']} PDF pages, {figures['citations']} "
        f"citations, {figures['quotations']} quotations; load average before {load[0]}, after {load[1]}"
    )
    print(f"cold CLI on the PDF, fresh process: {', '.join(f'{s:.2f}' for s in figures['cold_cli_pdf'])} s")
    print(
        f"CheckService start: {figures['service_start_s']:.2f} s; warm median text {warm_text * 1000:.0f} ms, "
        f"PDF {warm_pdf * 1000:.0f} ms"
    )
    print(f"HTTP median text {http['text']['median'] * 1000:.0f} ms, PDF {http['pdf']['median'] * 1000:.0f} ms")
    print(
        f"20 clients x {con['requests'] // con['clients']}: {con['errors']} errors, wall {con['wall_s']:.1f} s, "
        f"median {con['median_s'] * 1000:.0f} ms, p95 {con['p95_s'] * 1000:.0f} ms"
    )
    rows = ", ".join(f"{s['requests']}: {s['server_mib']:.0f}+{s['readers_mib']:.0f}" for s in mem["samples"])
    print(
        f"memory over {mem['requests']} requests ({mem['seconds']:.0f} s), server+readers MiB: {rows}; growth "
        f"after the first 100: {mem['growth_after_100']:+.1%} ({'flat' if mem['flat'] else 'GROWS'})"
    )
    print(f"same result from the CLI, the service and HTTP: {figures['same_result']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", help="a built case database (default: build one into a temporary folder)")
    parser.add_argument("--runs", type=int, default=11)
    parser.add_argument("--fresh", type=int, default=3)
    parser.add_argument("--per-client", type=int, default=5)
    parser.add_argument("--requests", type=int, default=1000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="lexprobe-bench-service-") as folder:
        figures = measure(args, Path(folder))
    if args.json:
        print(json.dumps(figures, indent=1))
    else:
        report(figures)
    if not figures["same_result"] or not figures["memory"]["flat"]:
        sys.exit(1)


if __name__ == "__main__":
    main()
