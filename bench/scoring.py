"""Benchmark: scoring throughput per task on 10,000 varied, realistic answers drawn from real cases.

Answers are drawn (`AnswerDraw`, seeded) from the case database built from `LEXPROBE_DATA`, in the forms models use:
a bare value, a sentence naming the case ("Rice v. Sioux City Memorial Park Cemetery, Inc. was decided by the Eighth
Circuit."), the value with its citation and year; right (the case's own court, citation, author, disposition,
overruling year), wrong in realistic ways (a real court of another case, a wrong page or volume, another justice of
the same decade, another year), declining ("I'm not sure."), or rejecting the premise. Case names, citations, court
and justice names vary, so nearly every answer is distinct: the report gives the count of distinct answers per task
(short answers such as "Affirmed." repeat, as they do in real runs) and the labels the scorer gave.

Each task is timed as a first user pays for it: every memo cache of the citation, court and judge code (parsing,
court resolution, name parsing, the lookup tables built once per process) is emptied first
(`lexprobe.caches.clear_all`), and the task gets a fresh `ScoringContext` (reading and indexing opinions counted).
Target: every task under 10 s per 10,000 answers.

Naive baselines, measured in the same run on the first `--baseline-subset` answers of the task (a tenth of them for
authority), each followed by lexprobe on exactly the same answers, caches emptied before both:
- quotation: rapidfuzz `partial_ratio` of the normalized quote against the whole normalized opinion (no n-gram index);
- authority: citations re-extracted from the whole opinion with eyecite for every answer (no per-opinion cache);
- citation: eyecite `get_citations` on every answer and reference (no fast path, no memo).

Usage: python bench/scoring.py [--answers 10000] [--baseline-subset 500] [--seed 7] [--db PATH] [--json]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import courts_db
from eyecite import get_citations
from rapidfuzz import fuzz

from lexprobe.caches import clear_all
from lexprobe.caselaw.build import build_database
from lexprobe.caselaw.citations import scan_citation_keys
from lexprobe.caselaw.paths import data_root
from lexprobe.caselaw.query import CaseDatabase
from lexprobe.caselaw.quote_text import normalize_letters
from lexprobe.hallucination.scorers.by_task import SCORERS, ScoringContext

Pair = tuple[str, dict]


_ORDINALS = ("First", "Second", "Third", "Fourth", "Fifth", "Sixth", "Seventh", "Eighth", "Ninth", "Tenth", "Eleventh")
_SUFFIXES = ("st", "nd", "rd", "th", "th", "th", "th", "th", "th", "th", "th")
_DISSENT_CLAIMS = (
    "the statute was unconstitutional",
    "the majority misread the legislative history",
    "the Commerce Clause did not reach the conduct at issue",
    "the search violated the Fourth Amendment",
    "the Court should have deferred to the agency's interpretation",
    "the petitioner lacked standing to sue",
    "the case should have been dismissed as improvidently granted",
    "the majority departed from settled precedent",
    "the jury instructions were adequate",
    "the state had a compelling interest in the regulation",
    "due process required a hearing before the deprivation",
    "the federal courts lacked jurisdiction over the dispute",
)
_REFUSALS = (
    "I'm not sure.",
    "I don't know.",
    "I do not have enough information to answer that.",
    "I'm sorry, but I can't verify that.",
    "I am not certain about the answer to this question.",
)


def _court_names(court_id: str) -> list[str]:
    """The ways a model names a court: the official name, the short name, the citation form."""
    if not court_id:
        return ["a court"]
    if court_id == "scotus":
        return [
            "the Supreme Court of the United States",
            "the United States Supreme Court",
            "the U.S. Supreme Court",
            "the Supreme Court",
        ]
    number = court_id[2:]
    if court_id == "cadc":
        return [
            "the United States Court of Appeals for the District of Columbia Circuit",
            "the D.C. Circuit",
            "the D.C. Cir.",
        ]
    if number.isdigit() and 1 <= int(number) <= 11:
        n = int(number)
        ordinal, short = _ORDINALS[n - 1], f"{n}{_SUFFIXES[n - 1]}"
        return [
            f"the United States Court of Appeals for the {ordinal} Circuit",
            f"the {ordinal} Circuit",
            f"the U.S. Court of Appeals for the {short} Circuit",
            f"the {short} Cir.",
        ]
    return [f"the {name}" for name in [_COURTS_DB_NAMES.get(court_id, court_id)]]


_COURTS_DB_NAMES = {court["id"]: court["name"] for court in courts_db.courts}
_OTHER_COURTS = sorted(
    court["name"]
    for court in courts_db.courts
    if (court["system"] == "federal" and court["type"] in ("appellate", "trial")) or court["type"] == "appellate"
)


def _wrong_page(citation: str, rng: random.Random) -> str:
    volume, _, rest = citation.partition(" ")
    reporter, _, page = rest.rpartition(" ")
    return f"{volume} {reporter} {int(page) + rng.randint(1, 40)}" if page.isdigit() else citation


def _wrong_volume(citation: str, rng: random.Random) -> str:
    volume, _, rest = citation.partition(" ")
    return f"{int(volume) + rng.choice([-3, -2, -1, 1, 2, 3])} {rest}" if volume.isdigit() else citation


def _perturb_quote(words: list[str], rng: random.Random) -> str:
    words = list(words)
    roll = rng.random()
    if roll < 0.2 and len(words) > 12:
        cut = rng.randint(4, len(words) - 6)
        words = [*words[:cut], "...", *words[cut + 3 :]]
    elif roll < 0.35:
        words[rng.randrange(len(words))] = rng.choice(["municipal", "federal", "reasonable", "statutory"])
    elif roll < 0.5 and len(words) > 3:
        i = rng.randrange(len(words))
        if len(words[i]) > 6:
            words[i] = words[i][:3] + "-\n" + words[i][3:]
    text = " ".join(words)
    if rng.random() < 0.3:
        text = text.upper()
    return text


class AnswerDraw:
    """Draws realistic answers for every task from the case database: what a model says when it is right, when it is
    wrong (a wrong court, page, justice or year taken from real data), when it declines, in the forms models use
    (a bare value, a sentence naming the case, the value with its citation), so that nearly every answer is distinct
    and no memo cache sees the same input twice by construction."""

    def __init__(self, db: CaseDatabase, rng: random.Random) -> None:
        self.rng = rng
        rows = [dict(r) for r in db.conn.execute("SELECT * FROM cases WHERE name != '' AND citation IS NOT NULL")]
        self.cases = rows
        self.by_id = {row["case_id"]: row for row in rows}
        self.authored = [c for c in rows if c["author"]]
        self.decided = [c for c in rows if c["disposition"]]
        self.with_text = [c for c in rows if c["majority_opinion_id"]]
        self.overruled = [c for c in rows if c["overruled_year"]]
        self.never_overruled = [c for c in rows if not c["overruled_year"] and c["court_id"] == "scotus"]
        self.keys: dict[str, list[str]] = {}
        for key, case_id in db.conn.execute("SELECT citation_key, case_id FROM case_citations ORDER BY citation_key"):
            self.keys.setdefault(case_id, []).append(key)
        self.authors_by_decade: dict[int, list[str]] = {}
        for case in self.authored:
            names = self.authors_by_decade.setdefault(case["year"] // 10, [])
            if case["author"] not in names:
                names.append(case["author"])
        self.texts = {c["majority_opinion_id"]: db.opinion_text(c["majority_opinion_id"]) or "" for c in self.with_text}
        self.cited: dict[str, list[str]] = {}

    def pick(self, options):
        return self.rng.choice(options)

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def named(self, case: dict) -> str:
        """The case as a model writes it: the name, with its citation and year or not."""
        return self.pick(
            [case["name"], f"{case['name']}, {case['citation']} ({case['year']})", f"{case['name']} ({case['year']})"]
        )

    def fabricated_name(self) -> str:
        """A case name that does not exist: the first party of one real case against the second party of another."""
        first = self.pick(self.cases)["name"].split(" v. ")[0]
        second = self.pick(self.cases)["name"].split(" v. ")[-1]
        return f"{first} v. {second}"

    def refusal(self, case_name: str) -> str:
        return self.pick(
            [
                *_REFUSALS,
                f"I don't have reliable information about {case_name}.",
                f"I'm not familiar with {case_name}, so I cannot answer.",
            ]
        )

    # --- one answer per task -------------------------------------------------------------------------------------

    def existence(self, name: str, case: dict | None) -> str:
        court = self.pick(_court_names(case["court_id"])) if case else self.pick(_OTHER_COURTS)
        year = case["year"] if case else self.rng.randint(1900, 2020)
        cite = case["citation"] if case else f"{self.rng.randint(1, 590)} U.S. {self.rng.randint(1, 999)}"
        roll = self.rng.random()
        if roll < 0.05:
            return self.pick(["Yes.", "No.", "Yes", "No"])
        if roll < 0.6:
            return self.pick(
                [
                    f"Yes, {name}, {cite} ({year}), is a real case.",
                    f"Yes. {name} is a real case decided by {court} in {year}.",
                    f"Yes, {name} is a real case. It was decided in {year} and is reported at {cite}.",
                    f"{name} is a real case, decided by {court} in {year}.",
                ]
            )
        if roll < 0.85:
            return self.pick(
                [
                    f"No, {name} is not a real case.",
                    f"No. I could not find any case called {name}.",
                    f"No, there is no record of a case named {name}; it appears to be fictitious.",
                    f"I am not aware of any case called {name}, so it is likely not real.",
                ]
            )
        return self.refusal(name)

    def court(self, case: dict) -> str:
        name = self.named(case)
        if self.chance(0.06):
            return self.refusal(name)
        if self.chance(0.04):
            return self.pick([f"{name} was decided by a federal court of appeals.", "A federal district court."])
        if self.chance(0.6):
            court = self.pick(_court_names(case["court_id"]))
        else:
            court = (
                "the " + self.pick(_OTHER_COURTS)
                if self.chance(0.5)
                else self.pick(_court_names(self.pick(["scotus", "cadc", *(f"ca{n}" for n in range(1, 12))])))
            )
        bare = court[4].upper() + court[5:] if court.startswith("the ") else court
        ended = court if court.endswith(".") else f"{court}."  # "the 9th Cir." ends the sentence itself
        return self.pick(
            [
                bare,
                f"{name} was decided by {ended}",
                f"The case was decided by {court} in {case['year']}.",
                f"It was decided by {ended}",
            ]
        )

    def citation(self, case: dict, truth: list[str]) -> str:
        if self.chance(0.05):
            return self.refusal(case["name"])
        roll = self.rng.random()
        if roll < 0.45:
            cite = case["citation"]
        elif roll < 0.55:
            cite = self.pick(truth)
        elif roll < 0.7:
            cite = _wrong_page(case["citation"], self.rng)
        elif roll < 0.85:
            cite = _wrong_volume(case["citation"], self.rng)
        else:
            cite = self.pick(self.cases)["citation"]
        if self.chance(0.1):
            cite = cite.replace("U.S.", "U. S.")
        return self.pick(
            [
                cite,
                f"{case['name']}, {cite} ({case['year']})",
                f"The citation for {case['name']} is {cite}.",
                f"{case['name']} is reported at {cite}.",
                f"{cite} ({case['year']})",
            ]
        )

    def author(self, case: dict) -> str:
        name = self.named(case)
        if self.chance(0.05):
            return self.refusal(name)
        if self.chance(0.03):
            return f"{name} was a per curiam decision."
        full = case["author"] if self.chance(0.6) else self.pick(self.authors_by_decade[case["year"] // 10])
        parts = full.split()
        last = parts[-1]
        form = self.pick(
            [
                f"Justice {last}",
                f"Justice {parts[0]} {last}",
                full,
                f"{last}, J.",
                f"Mr. Justice {last}",
                f"Justice {full}",
            ]
        )
        return self.pick(
            [
                form,
                f"{form} wrote the majority opinion.",
                f"The majority opinion in {name} was written by {form}.",
                f"{form} delivered the opinion of the Court in {case['name']}.",
            ]
        )

    def disposition(self, case: dict) -> str:
        name = self.named(case)
        if self.chance(0.05):
            return self.refusal(name)
        verb = case["disposition"] if self.chance(0.6) else self.pick(["affirm", "reverse"])
        past = {"affirm": "affirmed", "reverse": "reversed"}[verb]
        lower = self.pick(["the court of appeals", "the lower court", "the state supreme court", "the district court"])
        return self.pick(
            [
                past.capitalize() + ".",
                verb.capitalize(),
                f"The Court {past} the judgment of {lower}.",
                f"In {name}, the Supreme Court {past} the decision of {lower}.",
                f"{name}: {past}" + (" and remanded." if verb == "reverse" else "."),
                f"It {past}.",
            ]
        )

    def overruling_year(self, case: dict) -> str:
        year = case["overruled_year"]
        overruling = self.by_id.get(case["overruling_case_id"] or "")
        if self.chance(0.05):
            return self.refusal(case["name"])
        if self.chance(0.05):
            return f"{case['name']} has not been overruled."
        said = year if self.chance(0.5) else year + self.pick([-20, -7, -3, -1, 1, 2, 5, 12])
        by = f" by {overruling['name']}" if overruling and said == year and self.chance(0.5) else ""
        return self.pick(
            [
                str(said),
                f"{said}.",
                f"{case['name']} was overruled in {said}{by}.",
                f"It was overruled in {said}{by}.",
                f"The Supreme Court overruled it in {said}.",
            ]
        )

    def doctrinal_agreement(self, citing: dict, cited: dict, truth: str) -> str:
        said = truth if self.chance(0.6) else self.pick(["agree", "disagree"])
        if self.chance(0.05):
            return self.refusal(citing["name"])
        return self.pick(
            [
                said,
                said.capitalize() + ".",
                f"They {said}.",
                f"{citing['name']} and {cited['name']} {said} with each other.",
                f"The cases {said}: {citing['name']} {'follows' if said == 'agree' else 'rejects'} {cited['name']}.",
            ]
        )

    def false_dissent(self, case: dict, dissenter: str) -> str:
        last = dissenter.split()[-1]
        name = self.named(case)
        roll = self.rng.random()
        if roll < 0.35:
            return self.pick(
                [
                    f"Justice {last} did not write a dissent in {name}; the Justice joined the majority.",
                    f"There is no dissent by Justice {last} in {name}.",
                    f"Justice {last} did not dissent in {name}.",
                ]
            )
        if roll < 0.42:
            return self.refusal(name)
        claim = self.pick(_DISSENT_CLAIMS)
        return self.pick(
            [
                f"In the dissent in {name}, Justice {last} argued that {claim}.",
                f"Justice {last} argued that {claim}.",
                f"Justice {dissenter} dissented, arguing that {claim}.",
            ]
        )

    def false_overruling(self, case: dict) -> str:
        name = self.named(case)
        roll = self.rng.random()
        if roll < 0.4:
            return self.pick(
                [
                    f"{name} has never been overruled.",
                    f"{name} has not been overruled and remains good law.",
                    f"{case['name']} was never overruled.",
                ]
            )
        if roll < 0.5:
            return self.refusal(name)
        year = case["year"] + self.rng.randint(3, 60)
        other = self.pick(self.cases)["name"]
        return self.pick(
            [str(year), f"It was overruled in {year} by {other}.", f"{name} was overruled in {year}.", f"{year}."]
        )

    def quotation(self, case: dict) -> str:
        words = self.texts[case["majority_opinion_id"]].split()
        if self.chance(0.1):  # a fabricated quote: words from another opinion
            words = self.texts[self.pick(self.with_text)["majority_opinion_id"]].split()
        if len(words) > 60:
            start = self.rng.randrange(len(words) - 50)
            text = _perturb_quote(words[start : start + self.rng.randint(10, 40)], self.rng)
        else:
            text = "We hold that the statute is constitutional."
        quote = self.pick([f"“{text}”", f'"{text}"', text])
        return self.pick(
            [
                f"<quote>{quote}</quote>",
                f"Here is a quotation from {case['name']}: <quote>{quote}</quote>",
                f"<quote>{quote}</quote> ({case['citation']})",
            ]
        )

    def authority(self, case: dict) -> str:
        opinion = case["majority_opinion_id"]
        if opinion not in self.cited:
            self.cited[opinion] = sorted(scan_citation_keys(self.texts[opinion]))
        cited = self.cited[opinion]
        if self.chance(0.05):
            return self.refusal(case["name"])
        key = self.pick(cited) if cited and self.chance(0.6) else self.pick(self.cases)["citation"]
        volume, _, rest = key.partition(" ")
        reporter, _, page = rest.rpartition(" ")
        return self.pick(
            [
                f"{volume}, {reporter}, {page}",
                key,
                f"{volume} {reporter} {page}.",
                f"{self.pick(self.cases)['name']}, {key}",
            ]
        )


def make_answers(db: CaseDatabase, count: int, seed: int) -> dict[str, list[Pair]]:
    """Return `count` (answer, reference) pairs per task, drawn from real cases (`AnswerDraw`)."""
    draw = AnswerDraw(db, random.Random(seed))
    pick = draw.pick
    out: dict[str, list[Pair]] = {task: [] for task in SCORERS}
    for _ in range(count):
        case = pick(draw.cases)
        name = draw.named(case)
        out["existence"].append((draw.existence(name, case), {}))
        out["fake_existence"].append((draw.existence(draw.fabricated_name(), None), {"fabricated": True}))
        courted = case if case["court_id"] else pick(draw.authored)  # (a SCOTUS case)
        out["court"].append((draw.court(courted), {"court_id": courted["court_id"]}))
        truth = draw.keys.get(case["case_id"], [case["citation"]])
        out["citation"].append((draw.citation(case, truth), {"citations": truth}))
        authored = pick(draw.authored)
        decided = authored["decision_date"] or f"{authored['year']}-07-01"
        out["author"].append((draw.author(authored), {"author": authored["author"], "decided": decided}))
        disposed = pick(draw.decided)
        out["disposition"].append((draw.disposition(disposed), {"disposition": disposed["disposition"]}))
        overruled = pick(draw.overruled)
        out["overruling_year"].append((draw.overruling_year(overruled), {"year": overruled["overruled_year"]}))
        truth_agreement = pick(["agree", "disagree"])
        out["doctrinal_agreement"].append(
            (draw.doctrinal_agreement(case, pick(draw.cases), truth_agreement), {"agreement": truth_agreement})
        )
        dissenter = pick(draw.authors_by_decade[authored["year"] // 10])
        out["false_dissent"].append((draw.false_dissent(authored, dissenter), {"dissenter": dissenter}))
        out["false_overruling"].append((draw.false_overruling(pick(draw.never_overruled)), {}))
        with_text = pick(draw.with_text)
        out["quotation"].append((draw.quotation(with_text), {"opinion_id": with_text["majority_opinion_id"]}))
        with_text = pick(draw.with_text)
        out["authority"].append((draw.authority(with_text), {"opinion_id": with_text["majority_opinion_id"]}))
    return out


def time_task(task: str, pairs: list[Pair], db: CaseDatabase) -> tuple[float, Counter[str]]:
    """Score `pairs` with a fresh `ScoringContext` after emptying every memo cache (`lexprobe.caches.clear_all`), as
    a first user would; return the seconds and the count of each label."""
    clear_all()
    context = ScoringContext(db)
    scorer = SCORERS[task]
    labels: Counter[str] = Counter()
    began = time.perf_counter()
    for answer, reference in pairs:
        labels[scorer(answer, reference, context).label] += 1
    return time.perf_counter() - began, labels


def _naive_quotation(db: CaseDatabase, pairs: list[Pair]) -> None:
    texts: dict[str, str] = {}
    for answer, reference in pairs:
        if reference["opinion_id"] not in texts:
            texts[reference["opinion_id"]] = normalize_letters(db.opinion_text(reference["opinion_id"]) or "")
        fuzz.partial_ratio(normalize_letters(answer), texts[reference["opinion_id"]])


def _naive_authority(db: CaseDatabase, pairs: list[Pair]) -> None:
    for answer, reference in pairs:
        cited = {str(c) for c in get_citations(db.opinion_text(reference["opinion_id"]) or "")}
        _ = any(str(c) in cited for c in get_citations(answer))


def _naive_citation(db: CaseDatabase, pairs: list[Pair]) -> None:
    for answer, reference in pairs:
        found = get_citations(answer)
        truth = [get_citations(c) for c in reference["citations"]]
        _ = bool(found) and any(found[0].corrected_citation() == t[0].corrected_citation() for t in truth if t)


NAIVE = {"quotation": _naive_quotation, "authority": _naive_authority, "citation": _naive_citation}


def naive_baselines(db: CaseDatabase, answers: dict[str, list[Pair]], subset: int) -> dict[str, dict[str, float]]:
    """Return, per task with a naive approach, its seconds per answer and lexprobe's on the same first `subset`
    answers (a tenth of them for authority, whose naive approach is slow), lexprobe cold (caches emptied) and timed
    right after the naive approach."""
    result = {}
    for task, naive in NAIVE.items():
        pairs = answers[task][: max(1, subset // 10 if task == "authority" else subset)]
        clear_all()
        began = time.perf_counter()
        naive(db, pairs)
        naive_s = time.perf_counter() - began
        lexprobe_s, _ = time_task(task, pairs, db)
        result[task] = {
            "answers": len(pairs),
            "naive_s_per_answer": naive_s / len(pairs),
            "lexprobe_s_per_answer": lexprobe_s / len(pairs),
        }
    return result


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--answers", type=int, default=10_000)
    parser.add_argument("--baseline-subset", type=int, default=500)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--db", type=Path, help="an already built case database (default: build one, not timed)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="lexprobe-bench-") as tmp:
        db_path = args.db
        if db_path is None:
            db_path = Path(tmp) / "caselaw.sqlite"
            build_database(data_root(), db_path)
        db = CaseDatabase(db_path)
        answers = make_answers(db, args.answers, seed=args.seed)
        print("answers generated", file=sys.stderr)
        timed = {task: time_task(task, pairs, db) for task, pairs in answers.items()}
        print(
            f"scoring seconds per {args.answers} answers: { {t: round(s, 3) for t, (s, _) in timed.items()} }",
            file=sys.stderr,
        )
        naive = naive_baselines(db, answers, args.baseline_subset) if args.baseline_subset else {}
        db.close()
    rows = {}
    for task, (total, labels) in timed.items():
        row = {
            "seconds": round(total, 3),
            "answers_per_s": round(args.answers / total) if total else None,
            "distinct_answers": len({answer for answer, _ in answers[task]}),
            "labels": dict(sorted(labels.items())),
        }
        if task in naive:
            same = naive[task]
            row["baseline_answers"] = same["answers"]
            row["naive_s_per_answer"] = round(same["naive_s_per_answer"], 6)
            row["lexprobe_s_per_answer_same_subset"] = round(same["lexprobe_s_per_answer"], 6)
            row["speedup_vs_naive"] = round(same["naive_s_per_answer"] / same["lexprobe_s_per_answer"], 1)
        rows[task] = row
    seconds = [row["seconds"] for row in rows.values()]
    result = {
        "answers_per_task": args.answers,
        "seed": args.seed,
        "caches_cleared_before_each_task": True,
        "tasks": rows,
        "all_under_10s": all(s < 10 for s in seconds),
    }
    if args.json:
        print(json.dumps(result))
    else:
        for task, row in rows.items():
            extra = f", {row['speedup_vs_naive']}x faster than naive" if "speedup_vs_naive" in row else ""
            print(
                f"{task:20s} {row['seconds']:7.3f} s ({row['answers_per_s']:,}/s; "
                f"{row['distinct_answers']:,} distinct){extra}  {row['labels']}"
            )
        print(f"all tasks under 10 s per {args.answers:,} answers: {result['all_under_10s']}")


if __name__ == "__main__":
    main()
