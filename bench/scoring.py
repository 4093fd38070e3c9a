"""Benchmark: scoring throughput per task on 10,000 realistic answers drawn from real cases.

Answers are generated from the case database built from `LEXPROBE_DATA`: real citations (some with a wrong page),
real author names in the forms models use, real court names, and for quotations windows cut from real majority
opinions, then perturbed (case, curly quotes, an ellipsis, a changed word, line-break hyphenation). Each task scores
10,000 answers with a fresh `ScoringContext` (so index building is counted). Target: every task under 10 s.

Naive baselines, measured in the same run on a subset and reported per answer:
- quotation: rapidfuzz `partial_ratio` of the normalized quote against the whole normalized opinion (no n-gram index);
- authority: citations re-extracted from the whole opinion with eyecite for every answer (no per-opinion cache);
- citation: eyecite `get_citations` on every answer and reference (no fast path, no memo).

Usage: python bench/scoring.py [--answers 10000] [--json]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path

from eyecite import get_citations
from rapidfuzz import fuzz

from lexprobe.caselaw.build import build_database
from lexprobe.caselaw.citations import scan_citation_keys
from lexprobe.caselaw.paths import data_root
from lexprobe.caselaw.query import CaseDatabase
from lexprobe.hallucination.quotation import normalize_text
from lexprobe.hallucination.scorers import SCORERS, ScoringContext

Pair = tuple[str, dict]


def _wrong_page(citation: str, rng: random.Random) -> str:
    volume, _, rest = citation.partition(" ")
    reporter, _, page = rest.rpartition(" ")
    return f"{volume} {reporter} {int(page) + rng.randint(1, 40)}" if page.isdigit() else citation


def _perturb_quote(words: list[str], rng: random.Random) -> str:
    words = list(words)
    roll = rng.random()
    if roll < 0.2 and len(words) > 12:
        cut = rng.randint(4, len(words) - 6)
        words = [*words[:cut], "...", *words[cut + 3 :]]
    elif roll < 0.35:
        words[rng.randrange(len(words))] = "municipal"
    elif roll < 0.5 and len(words) > 3:
        i = rng.randrange(len(words))
        if len(words[i]) > 6:
            words[i] = words[i][:3] + "-\n" + words[i][3:]
    text = " ".join(words)
    if rng.random() < 0.3:
        text = text.upper()
    return f"<quote>“{text}”</quote>"


def make_answers(db: CaseDatabase, count: int, seed: int) -> dict[str, list[Pair]]:
    """Return `count` (answer, reference) pairs per task, drawn from real cases."""
    rng = random.Random(seed)
    cases = [dict(r) for r in db.conn.execute("SELECT * FROM cases WHERE name != '' AND citation IS NOT NULL")]
    authored = [c for c in cases if c["author"]]
    decided = [c for c in cases if c["disposition"]]
    with_text = [c for c in cases if c["majority_opinion_id"]]
    keys: dict[str, list[str]] = {}
    for key, case_id in db.conn.execute("SELECT citation_key, case_id FROM case_citations"):
        keys.setdefault(case_id, []).append(key)
    texts = {c["majority_opinion_id"]: db.opinion_text(c["majority_opinion_id"]) or "" for c in with_text}
    pick = rng.choice
    out: dict[str, list[Pair]] = {task: [] for task in SCORERS}
    cited_by_opinion: dict[str, list[str]] = {}
    yes_no = ["Yes.", "Yes, it is a real case.", "No.", "No, I am not aware of such a case.", "I don't know."]
    courts = {"scotus": ["Supreme Court", "The Supreme Court of the United States", "U.S. Supreme Court"]}
    for _ in range(count):
        out["existence"].append((pick(yes_no), {}))
        out["fake_existence"].append((pick(yes_no), {"fabricated": True}))
        case = pick(cases)
        court_answers = courts.get(
            case["court_id"], ["Ninth Circuit", "The Second Circuit Court of Appeals", "D.C. Cir."]
        )
        out["court"].append((pick([*court_answers, "Ninth Circuit"]), {"court_id": case["court_id"]}))
        truth = keys.get(case["case_id"], [case["citation"]])
        answer = case["citation"] if rng.random() < 0.5 else _wrong_page(case["citation"], rng)
        out["citation"].append(
            (pick([answer, f"{case['name']}, {answer}", answer.replace(" ", ", ")]), {"citations": truth})
        )
        author = pick(authored)
        last = author["author"].split()[-1]
        form = pick(
            [author["author"], f"Justice {last}", f"{last}, J.", f"Chief Justice {author['author']}", "Learned Hand"]
        )
        out["author"].append(
            (form, {"author": author["author"], "decided": author["decision_date"] or f"{author['year']}-07-01"})
        )
        d = pick(decided)
        out["disposition"].append(
            (
                pick(["Affirm", "Reverse", "Affirmed.", "The court reversed.", "Vacated"]),
                {"disposition": d["disposition"]},
            )
        )
        out["overruling_year"].append(
            (pick(["1954", "It was overruled in 1937.", "Never.", "1990"]), {"year": rng.randint(1850, 2022)})
        )
        out["doctrinal_agreement"].append(
            (pick(["Agree", "Disagree", "They disagree."]), {"agreement": pick(["agree", "disagree"])})
        )
        out["false_dissent"].append(
            (
                pick(
                    [
                        f"Justice {last} did not write a dissent in this case.",
                        f"In his dissent, Justice {last} argued that the statute was unconstitutional.",
                    ]
                ),
                {"dissenter": author["author"]},
            )
        )
        out["false_overruling"].append(
            (pick(["It has never been overruled.", "1973", "The case was overruled in 1954.", "I don't know."]), {})
        )
        op_case = pick(with_text)
        words = texts[op_case["majority_opinion_id"]].split()
        if len(words) > 60:
            start = rng.randrange(len(words) - 50)
            quote = _perturb_quote(words[start : start + rng.randint(10, 40)], rng)
        else:
            quote = "<quote>We hold that the statute is constitutional.</quote>"
        out["quotation"].append((quote, {"opinion_id": op_case["majority_opinion_id"]}))
        opinion = op_case["majority_opinion_id"]
        if opinion not in cited_by_opinion:
            cited_by_opinion[opinion] = sorted(scan_citation_keys(texts[opinion]))
        cited = cited_by_opinion[opinion]
        answer = pick(cited) if cited and rng.random() < 0.6 else pick(cases)["citation"]
        out["authority"].append((answer, {"opinion_id": op_case["majority_opinion_id"]}))
    return out  # fmt: skip


def time_task(task: str, pairs: list[Pair], db: CaseDatabase) -> float:
    context = ScoringContext(db)
    scorer = SCORERS[task]
    began = time.perf_counter()
    for answer, reference in pairs:
        scorer(answer, reference, context)
    return time.perf_counter() - began


def naive_baselines(db: CaseDatabase, answers: dict[str, list[Pair]], subset: int) -> dict[str, float]:
    """Return seconds per answer of the naive approaches, measured on `subset` answers."""
    result = {}
    texts: dict[str, str] = {}
    pairs = answers["quotation"][:subset]
    began = time.perf_counter()
    for answer, reference in pairs:
        if reference["opinion_id"] not in texts:
            texts[reference["opinion_id"]] = normalize_text(db.opinion_text(reference["opinion_id"]) or "")
        fuzz.partial_ratio(normalize_text(answer), texts[reference["opinion_id"]])
    result["quotation"] = (time.perf_counter() - began) / len(pairs)
    pairs = answers["authority"][: max(1, subset // 10)]
    began = time.perf_counter()
    for answer, reference in pairs:
        cited = {str(c) for c in get_citations(db.opinion_text(reference["opinion_id"]) or "")}
        _ = any(str(c) in cited for c in get_citations(answer))
    result["authority"] = (time.perf_counter() - began) / len(pairs)
    pairs = answers["citation"][:subset]
    began = time.perf_counter()
    for answer, reference in pairs:
        found = get_citations(answer)
        truth = [get_citations(c) for c in reference["citations"]]
        _ = bool(found) and any(found[0].corrected_citation() == t[0].corrected_citation() for t in truth if t)
    result["citation"] = (time.perf_counter() - began) / len(pairs)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--answers", type=int, default=10_000)
    parser.add_argument("--baseline-subset", type=int, default=500)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="lexprobe-bench-") as tmp:
        db_path = Path(tmp) / "caselaw.sqlite"
        build_database(data_root(), db_path)
        db = CaseDatabase(db_path)
        answers = make_answers(db, args.answers, seed=7)
        print("answers generated", file=sys.stderr)
        seconds = {task: round(time_task(task, pairs, db), 3) for task, pairs in answers.items()}
        print(f"scoring seconds per {args.answers} answers: {seconds}", file=sys.stderr)
        naive = naive_baselines(db, answers, args.baseline_subset)
        db.close()
    rows = {}
    for task, total in seconds.items():
        per_answer = total / args.answers
        row = {"seconds": total, "answers_per_s": round(args.answers / total) if total else None}
        if task in naive:
            row["naive_s_per_answer"] = round(naive[task], 6)
            row["speedup_vs_naive"] = round(naive[task] / per_answer, 1) if per_answer else None
        rows[task] = row
    result = {"answers_per_task": args.answers, "tasks": rows, "all_under_10s": all(s < 10 for s in seconds.values())}
    if args.json:
        print(json.dumps(result))
    else:
        for task, row in rows.items():
            extra = f", {row['speedup_vs_naive']}x faster than naive" if "speedup_vs_naive" in row else ""
            print(f"{task:22s} {row['seconds']:7.3f} s ({row['answers_per_s']:,}/s){extra}")
        print(f"all tasks under 10 s per {args.answers:,} answers: {result['all_under_10s']}")


if __name__ == "__main__":
    main()
