"""Benchmark: text-extraction throughput per format, cold (nothing cached) and warm (every text cached).

Generates a deterministic 500-document corpus (100 per format: pdf, docx, xlsx, pptx, txt), each format in its own
folder, with document types and lengths varied by a seeded RNG (emails, memos, letters, contracts, depositions,
invoices, chats, calendars, reports, spreadsheets, presentations; 1 to ~40 paragraphs, 2 to ~80 table rows).
For each format, `extract_corpus` runs twice on its folder with a fresh cache: cold (every document extracted and
written to the cache) and warm (every document hashed and read back from the cache). Reports docs/s and MB/s of
source bytes for both, and warm/cold = warm time / cold time. One run on one machine: read the numbers as
ratios and rough throughputs, not as targets.

When the public data is present (`LEXPROBE_DATA`), the same cold/warm measurement also runs on the real court
filings of `sj_records/marshall_v_northrop` (scanned-and-OCRed PDFs, pleading paper), reported in pages/s.

Usage: python bench/documents.py [--per-format 100] [--seed 0] [--workers 1] [--json]
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from pathlib import Path

from lexprobe.caselaw.paths import data_root
from lexprobe.documents.content import DocType, DocumentContent
from lexprobe.documents.corpus import extract_corpus
from lexprobe.documents.render import render_document

FORMATS = ("pdf", "docx", "xlsx", "pptx", "txt")
PEOPLE = ["Dana Whitfield", "Raj Patel", "Nancy Ross", "Kurt Struckhoff", "Lena Ortiz", "Marcus Hale", "Priya Shah"]
ORGS = ["Northwind LLC", "Acme Supply Co.", "Hewitt Associates LLC", "Meridian Trust", "Calloway Partners"]
_VOCABULARY = (
    "plan fee committee review recordkeeping participant fund benchmark contract invoice schedule approval "
    "meeting quarter proposal amendment vendor services agreement report audit trustee payment account balance "
    "allocation performance returns policy compliance notice request response budget estimate rate transition"
)
WORDS = _VOCABULARY.split()
DOC_TYPES = list(DocType)  # every document type, chosen uniformly


def sentence(rng: random.Random) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(8, 22))]
    return " ".join(words).capitalize() + "."


def paragraph(rng: random.Random) -> str:
    return " ".join(sentence(rng) for _ in range(rng.randint(2, 6)))


def iso(rng: random.Random, with_time: bool = False) -> str:
    day = f"20{rng.randint(10, 19)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
    return f"{day}T{rng.randint(8, 18):02d}:{rng.choice((0, 15, 30, 45)):02d}" if with_time else day


def money(rng: random.Random) -> str:
    return f"${rng.randint(10, 250_000):,}.{rng.randint(0, 99):02d}"


def body(doc_type: DocType, rng: random.Random) -> list[dict]:
    size = rng.choice((1, 2, 4, 8, 16, 40))  # lengths from a note to a long report
    if doc_type == DocType.deposition:
        return [{"kind": "qa", "speaker": "QA"[i % 2], "text": sentence(rng)} for i in range(size * 6)]
    if doc_type == DocType.contract:
        return [
            {
                "kind": "numbered_section",
                "number": str(i + 1),
                "heading": rng.choice(WORDS).title(),
                "text": paragraph(rng),
            }
            for i in range(size + 2)
        ]
    if doc_type in (DocType.invoice, DocType.purchase_order):
        rows = [[iso(rng), sentence(rng)[:40], str(rng.randint(1, 500)), money(rng)] for _ in range(size * 2)]
        table = {"kind": "table", "header": ["Date", "Description", "Qty", "Amount"], "rows": rows}
        return [{**table, "totals": [["", "", "Total", money(rng)]]}, {"kind": "paragraph", "text": sentence(rng)}]
    if doc_type == DocType.chat:
        return [
            {"kind": "chat_message", "timestamp": iso(rng, True), "sender": rng.choice(PEOPLE), "text": sentence(rng)}
            for _ in range(size * 3)
        ]
    if doc_type == DocType.calendar:
        return [
            {
                "kind": "calendar_entry",
                "title": sentence(rng)[:50],
                "start": iso(rng, True),
                "location": f"Room {rng.randint(100, 900)}",
                "attendees": rng.sample(PEOPLE, 3),
                "text": sentence(rng),
            }
            for _ in range(size)
        ]
    if doc_type == DocType.spreadsheet:
        rows = [[rng.choice(ORGS), money(rng), f"{rng.randint(0, 999) / 10}%", iso(rng)] for _ in range(size * 2)]
        return [{"kind": "sheet", "name": "Data", "header": ["Party", "Amount", "Share", "Date"], "rows": rows}]
    if doc_type == DocType.presentation:
        return [
            {
                "kind": "slide",
                "title": sentence(rng)[:40],
                "bullets": [sentence(rng) for _ in range(4)],
                "notes": sentence(rng),
            }
            for _ in range(size)
        ]
    blocks: list[dict] = []
    for i in range(size):
        if i and i % 4 == 0:
            blocks.append({"kind": "heading", "text": sentence(rng)[:40]})
        blocks.append({"kind": "paragraph", "text": paragraph(rng)})
    return blocks


def make_document(rng: random.Random) -> DocumentContent:
    doc_type = rng.choice(DOC_TYPES)
    return DocumentContent(
        doc_type=doc_type,
        title=sentence(rng)[:60],
        date=iso(rng, with_time=doc_type == DocType.email),
        author=rng.choice(PEOPLE),
        recipients=rng.sample(PEOPLE + ORGS, 2),
        subject=sentence(rng)[:70],
        body=body(doc_type, rng),
        metadata={"number": str(rng.randint(1000, 9999))},
    )


def generate(corpus: Path, per_format: int, seed: int) -> dict[str, float]:
    """Render the corpus; return seconds spent rendering per format."""
    rng = random.Random(seed)
    spent = dict.fromkeys(FORMATS, 0.0)
    for i in range(per_format):
        for fmt in FORMATS:
            content = make_document(rng)
            began = time.perf_counter()
            render_document(content, corpus / fmt / f"{i:04d}_{content.doc_type.value}.{fmt}", seed=i)
            spent[fmt] += time.perf_counter() - began
    return spent


def measure(corpus: Path, cache_root: Path, workers: int) -> dict[str, dict]:
    results = {}
    for fmt in FORMATS:
        folder = corpus / fmt
        size_mb = sum(p.stat().st_size for p in folder.iterdir()) / 1e6
        cache = cache_root / fmt
        began = time.perf_counter()
        cold = extract_corpus(folder, cache, workers=workers)
        cold_s = time.perf_counter() - began
        began = time.perf_counter()
        warm = extract_corpus(folder, cache, workers=workers)
        warm_s = time.perf_counter() - began
        docs = len(cold.documents)
        assert not cold.errors and warm.extracted_count == 0 and warm.texts == cold.texts
        results[fmt] = {
            "docs": docs,
            "mb": round(size_mb, 2),
            "chars": sum(len(text) for text in cold.texts.values()),
            "cold_s": round(cold_s, 3),
            "warm_s": round(warm_s, 3),
            "cold_docs_per_s": round(docs / cold_s, 1),
            "cold_mb_per_s": round(size_mb / cold_s, 2),
            "warm_docs_per_s": round(docs / warm_s, 1),
            "warm_mb_per_s": round(size_mb / warm_s, 2),
            "warm_over_cold": round(warm_s / cold_s, 4),
        }
    return results


def measure_filings(cache: Path, workers: int) -> dict | None:
    """Return cold/warm extraction of the real Marshall v. Northrop filings, or None when they are absent."""
    folder = data_root() / "sj_records" / "marshall_v_northrop"
    if not folder.is_dir():
        return None
    began = time.perf_counter()
    cold = extract_corpus(folder, cache, workers=workers)
    cold_s = time.perf_counter() - began
    began = time.perf_counter()
    extract_corpus(folder, cache, workers=workers)
    warm_s = time.perf_counter() - began
    pages = sum(doc.page_count or 0 for doc in cold.documents.values())
    return {
        "docs": len(cold.documents),
        "errors": len(cold.errors),
        "pages": pages,
        "mb": round(sum(p.stat().st_size for p in folder.iterdir()) / 1e6, 2),
        "cold_s": round(cold_s, 2),
        "warm_s": round(warm_s, 3),
        "cold_pages_per_s": round(pages / cold_s, 1),
        "warm_over_cold": round(warm_s / cold_s, 4),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--per-format", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=1, help="extraction processes (extract_corpus workers)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="lexprobe-bench-docs-") as tmp:
        corpus = Path(tmp) / "corpus"
        render_s = generate(corpus, args.per_format, args.seed)
        results = measure(corpus, Path(tmp) / "extracted", args.workers)
        filings = measure_filings(Path(tmp) / "filings", args.workers)
    for fmt in FORMATS:
        results[fmt]["render_docs_per_s"] = round(args.per_format / render_s[fmt], 1)
    if args.json:
        print(json.dumps({"synthetic": results, "filings": filings}))
        return
    print("| format | docs | MB | cold docs/s | cold MB/s | warm docs/s | warm MB/s | warm/cold | render docs/s |")
    print("|---|---|---|---|---|---|---|---|---|")
    for fmt, r in results.items():
        print(
            f"| {fmt} | {r['docs']} | {r['mb']} | {r['cold_docs_per_s']} | {r['cold_mb_per_s']} | "
            f"{r['warm_docs_per_s']} | {r['warm_mb_per_s']} | {r['warm_over_cold']} | {r['render_docs_per_s']} |"
        )
    total_cold = sum(r["cold_s"] for r in results.values())
    total_warm = sum(r["warm_s"] for r in results.values())
    docs = sum(r["docs"] for r in results.values())
    print(
        f"\nworkers={args.workers}; all {docs} documents: cold {total_cold:.1f} s ({docs / total_cold:.1f} docs/s), "
        f"warm {total_warm:.2f} s ({docs / total_warm:.0f} docs/s), warm/cold {total_warm / total_cold:.3f}"
    )

    if filings:
        print(
            f"real filings (marshall_v_northrop): {filings['docs']} PDFs, {filings['pages']} pages, "
            f"{filings['mb']} MB, {filings['errors']} errors; cold {filings['cold_s']} s "
            f"({filings['cold_pages_per_s']} pages/s), warm {filings['warm_s']} s, "
            f"warm/cold {filings['warm_over_cold']}"
        )


if __name__ == "__main__":
    main()
