"""Benchmark: `lexprobe check` on a 100-page brief (100 pages x 3,000 characters) holding 300 quotations built from
real opinion passages of the case database, checked offline in a fresh process with cold caches.

The brief is made here, reproducibly (`--seed`): for each quotation, a case of the database with opinion text of the
Court (U.S. Reports, one of `--cases` distinct cases, cycled), a passage of 15 to 40 words of that text cut at word
boundaries, and one of six kinds in turn: verbatim; altered (one word changed); with an ellipsis (the middle words
left out, ". . ."); with brackets ("[t]he" first letter, "[the Court]" for a word); invented (words of the passage
shuffled, so nowhere in the case); and from a separate opinion (a dissent or concurrence of a case that has one,
presented as the Court's words). Each is followed by its citation with a pin page ("Name, 436 U.S. 658, 690
(1978).") and by filler prose (real opinion sentences with their quotation marks, digits and "v." taken out, so
they add neither quotations nor citations) up to the page size. The expected verdicts are printed beside what the
command found.

Timed, each in a new interpreter started through the console entry point (start-up, reading, printing included),
with an empty LEXPROBE_CACHE (the OS file cache is not dropped: the database file was just written, so it is warm):

1. `lexprobe check BRIEF --db DB --json` on the brief (the headline: goal under 10 s);
2. the same brief with every quotation mark removed: citations only, the baseline without quotation checking.

The case database is built into a temporary folder first (not timed) unless `--db` names one.

Usage: python bench/check_quotations.py [--db PATH] [--quotations 300] [--pages 100] [--cases 100] [--seed 34]
                                        [--keep FILE] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import re
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from lexprobe.caselaw.build import build_database
from lexprobe.caselaw.case_names import display_name
from lexprobe.caselaw.opinion_index import part_spans, part_text
from lexprobe.caselaw.paths import data_root

PAGE_CHARS = 3_000
ENTRY = "import sys; sys.argv[0] = 'lexprobe'; from lexprobe.cli import console_main; sys.exit(console_main())"
KINDS = ("verified", "altered", "ellipsis", "brackets", "not_found", "separate_opinion")
EXPECTED = {"ellipsis": "verified", "brackets": "verified"}


def _passage(text: str, rng: random.Random) -> str | None:
    """15 to 40 words of `text` without quotation marks, digits or brackets in them, or None."""
    words = text.split()
    if len(words) < 200:
        return None
    for _ in range(20):
        start = rng.randrange(50, len(words) - 60)
        piece = words[start : start + rng.randint(15, 40)]
        joined = " ".join(piece)
        if not re.search(r"[\"“”‘’'\[\]()*\d§]|\bv\.|\bU\. ?S\.|\bId\.|\bsupra\b|\bat\b \d", joined, re.I):
            return joined
    return None


def _cases(db_path: Path) -> tuple[list[tuple], list[tuple]]:
    """(name, citation, year, text) of U.S. Reports cases with a Court's text, and of separate opinions. A lead file
    that holds further opinions (`opinion_parts`: Bakke's lead file goes on with Brennan's opinion) gives only its
    own part, so a passage drawn from it is the Court's."""
    conn = sqlite3.connect(db_path)
    court = [
        (name, citation, year, part_text(text, part_spans(spans)) if spans else text)
        for name, citation, year, text, spans in conn.execute(
            "SELECT c.name, c.citation, c.year, o.text, p.spans FROM opinions o JOIN cases c ON c.case_id = o.case_id "
            "LEFT JOIN opinion_parts p ON p.opinion_id = o.opinion_id || '#0' "
            "WHERE o.is_majority = 1 AND o.opinion_type = 'lead' AND c.citation LIKE '% U.S. %' "
            "AND length(o.text) > 20000 ORDER BY o.opinion_id"
        )
    ]
    separate = conn.execute(
        "SELECT c.name, c.citation, c.year, o.text FROM opinions o JOIN cases c ON c.case_id = o.case_id "
        "WHERE o.opinion_type IN ('dissent', 'concurrence') AND c.citation LIKE '% U.S. %' "
        "AND length(o.text) > 10000 ORDER BY o.opinion_id"
    ).fetchall()
    conn.close()
    return court, separate


def _filler(texts: list[str], rng: random.Random, size: int) -> str:
    words: list[str] = []
    length = 0
    while length < size:
        text = rng.choice(texts)
        start = rng.randrange(0, max(1, len(text) - 3000))
        chunk = re.sub(r"[\"“”‘’\[\]()*§\d]|\bv\.|\bId\.|\bU\. ?S\.|\bsupra\b", " ", text[start : start + 3000])
        piece = chunk.split()[:200]
        words += piece
        length += sum(len(word) + 1 for word in piece)
    return " ".join(words)[:size]


def _alter(passage: str, rng: random.Random, kind: str) -> str:
    words = passage.split()
    if kind == "altered":
        index = rng.randrange(2, len(words) - 2)
        words[index] = "never" if words[index].lower() != "never" else "always"
    elif kind == "ellipsis":
        middle = len(words) // 2
        words = [*words[: middle - 2], ". . .", *words[middle + 2 :]]
    elif kind == "brackets":
        words[0] = f"[{words[0][0].swapcase()}]{words[0][1:]}"
        index = len(words) // 2
        words[index] = "[the Court]"
    elif kind == "not_found":
        rng.shuffle(words)
    return " ".join(words)


def make_brief(
    db_path: Path, quotations: int, pages: int, distinct_cases: int, seed: int
) -> tuple[str, dict[str, str]]:
    """The brief's text and the kind of each quotation written, by its text."""
    rng = random.Random(seed)
    court, separate = _cases(db_path)
    rng.shuffle(court)
    court = court[:distinct_cases]
    texts = [row[3] for row in court]
    block = pages * PAGE_CHARS // quotations
    parts: list[str] = []
    kinds: dict[str, str] = {}
    for number in range(quotations):
        kind = KINDS[number % len(KINDS)]
        pool = separate if kind == "separate_opinion" else court
        passage = None
        while passage is None:
            name, citation, year, text = pool[(number // len(KINDS) + rng.randrange(len(pool))) % len(pool)]
            passage = _passage(text, rng)
        volume, _, page = citation.partition(" U.S. ")
        pin = int(page) + 1 if page.isdigit() else None
        cite = f"{display_name(name)}, {volume} U.S. {page}" + (f", {pin}" if pin else "") + f" ({year})"
        quoted = _alter(passage, rng, kind) + "."
        sentence = f"The Court explained that “{quoted}” {cite}. "
        parts.append(sentence + _filler(texts, rng, max(200, block - len(sentence))) + "\n\n")
        kinds[quoted] = kind
    return "".join(parts), kinds


def run_check(document: Path, db_path: Path, cache: Path) -> tuple[float, dict]:
    env = os.environ.copy() | {"LEXPROBE_CACHE": str(cache)}
    began = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", ENTRY, "check", str(document), "--db", str(db_path), "--json"],
        capture_output=True,
        text=True,
        env=env,
    )
    elapsed = time.perf_counter() - began
    if done.returncode not in (0, 1):
        raise SystemExit(f"lexprobe check failed (exit {done.returncode}):\n{done.stderr[-2000:]}")
    return elapsed, json.loads(done.stdout)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", type=Path)
    parser.add_argument("--quotations", type=int, default=300)
    parser.add_argument("--pages", type=int, default=100)
    parser.add_argument("--cases", type=int, default=100, help="distinct cases of the Court's opinions quoted")
    parser.add_argument("--seed", type=int, default=34)
    parser.add_argument("--keep", type=Path, help="also write the brief here")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        db_path = args.db
        if db_path is None:
            db_path = folder / "caselaw.sqlite"
            print("building the case database (not timed)...", file=sys.stderr)
            build_database(data_root(), db_path)
        text, kinds = make_brief(db_path, args.quotations, args.pages, args.cases, args.seed)
        brief = folder / "brief.txt"
        brief.write_text(text, encoding="utf-8")
        if args.keep:
            args.keep.write_text(text, encoding="utf-8")
        bare = folder / "bare.txt"
        bare.write_text(re.sub(r"[“”]", "", text), encoding="utf-8")
        (folder / "cache1").mkdir()
        (folder / "cache2").mkdir()
        seconds, payload = run_check(brief, db_path, folder / "cache1")
        bare_seconds, bare_payload = run_check(bare, db_path, folder / "cache2")
    found = payload["quotations"]
    agreement = Counter()
    for quotation in found:
        agreement[(kinds.get(quotation["text"], "unplanned"), quotation["verdict"])] += 1
    distinct = len({quotation["text"] for quotation in found})
    figures = {
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        "characters": len(text),
        "pages": round(len(text) / PAGE_CHARS),
        "quotations_written": len(kinds),
        "quotations_found": len(found),
        "distinct_quotations": distinct,
        "distinct_cases": len({quotation["evidence"]["case_id"] for quotation in found if quotation["evidence"]}),
        "citations": len(payload["citations"]),
        "seconds_with_quotations": round(seconds, 2),
        "seconds_without_quotations": round(bare_seconds, 2),
        "quotations_in_baseline": len(bare_payload["quotations"]),
        "verdicts": payload["summary"]["quotations"],
        "written_kind_to_verdict": {
            f"{kind} -> {verdict}": count for (kind, verdict), count in sorted(agreement.items())
        },
        "as_expected": sum(
            count for (kind, verdict), count in agreement.items() if EXPECTED.get(kind, kind) == verdict
        ),
        "goal_under_10_s": seconds < 10,
    }
    if args.json:
        print(json.dumps(figures, indent=1))
    else:
        for key, value in figures.items():
            print(f"{key}: {value}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
