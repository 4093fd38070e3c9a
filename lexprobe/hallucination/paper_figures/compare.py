"""A user's profile beside the paper's published estimates: the matching rows, the difference, a two-sided z-test
from both standard errors, and a note on everything the two estimates do not share.

What is compared with what (the paper's Eq. 1 counts every answer that is not the truth, abstentions counted as
non-hallucinations, over all N queries):
- hallucination rates (Tables 3-6, Appendix Table 5): lexprobe's strict rate (Eq. 1 as written: an answer that
  cannot be read as the truth counts as a hallucination) for reference-based tasks; the class-balanced rate for
  disposition and doctrinal agreement (the paper's figures for them sit near 0.5, a balanced rate); the
  contradiction rate, a lower bound, for reference-free tasks;
- abstention rates (Appendix Table 6): the share of scored answers that abstain, s.e. sqrt(p(1-p)/n);
- ECE (Table 7): lexprobe's equal-width, plug-in ECE (what the authors' code ran) with its bootstrap s.e.;
- temperature-scaled ECE (Appendix Table 3) and the pooled ECE (Appendix Table 4): lexprobe's Platt-rescaled and
  pooled ECE; where either side has no standard error there is a difference but no test.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable

from lexprobe.hallucination.paper_figures.data import PAPER_MODELS, PaperValue, paper_tables, paper_values
from lexprobe.hallucination.profile.stats import BALANCED_TASKS, SINGLE_CLASS_NOTE, no_reference
from lexprobe.hallucination.tasks import TASKS

PAPER_JUDGE = "GPT 4"
DATA_SOURCE_NOTE = "data: your cases come from lexprobe's offline case database, not the paper's sample (Appendix A)"
NO_SE = "no s.e. printed: no test"
RATE_KIND = (
    "The paper's rates (Tables 3-6, Eq. 1) count every answer that is not the truth as a hallucination and "
    "abstentions as non-hallucinations, over all queries. Compared with lexprobe's strict rate (unscored answers "
    "counted as hallucinations), the class-balanced rate for disposition and doctrinal agreement, and the "
    "contradiction rate (a lower bound) for reference-free tasks."
)
STRICT_ESTIMATOR = "strict rate (Eq. 1 as written): unscored answers counted as hallucinations, and in n"
PLATT_ESTIMATOR = "ECE after Platt scaling, equal-width bins (no s.e.)"
QUANTITY_TEXT = {
    "hallucination_rate": "hallucination rate",
    "abstention_rate": "abstention rate",
    "ece": "ECE",
    "ece_temperature_scaled": "temperature-scaled ECE",
    "ece_pooled_unscaled": "pooled ECE (unscaled)",
    "ece_pooled_scaled": "pooled ECE (scaled)",
}


def z_test(a: float, se_a: float | None, b: float, se_b: float | None) -> tuple[float | None, float | None]:
    """Return (z, two-sided p) for the difference a - b of two independent estimates: z = (a - b) / sqrt(se_a^2 +
    se_b^2), p = P(|Z| >= |z|) under the standard normal. (None, None) when a standard error is missing or both are
    zero (no test can be made)."""
    if se_a is None or se_b is None:
        return None, None
    spread = math.sqrt(se_a**2 + se_b**2)
    if spread == 0:
        return None, None
    z = (a - b) / spread
    return z, math.erfc(abs(z) / math.sqrt(2))


def _binomial_se(rate: float | None, n: int) -> float | None:
    return None if rate is None or n <= 0 else math.sqrt(rate * (1 - rate) / n)


def strict_counts(units: Iterable) -> dict[tuple[str, str, str, str], int]:
    """Return, per (model, task, level, prompt style), how many answers the strict rate counts: scored and unscored
    answers, those unscored for want of a reference left out (as `profile_stats.rate_rows` does)."""
    counts: dict[tuple[str, str, str, str], int] = defaultdict(int)
    for unit in units:
        if unit.label in ("correct", "hallucination", "abstain", "unscored") and not no_reference(unit):
            counts[(unit.model, unit.task, unit.level, unit.prompt_style)] += 1
    return counts


def user_estimates(stats: dict, strict_n: dict[tuple[str, str, str, str], int] | None = None) -> list[dict]:
    """Return the user's estimates that the paper has a counterpart for: {"model", "quantity", "task", "level",
    "prompt_style", "value", "se", "n", "estimator", "notes"}, from the `profile()` statistics; `strict_n`
    (`strict_counts`) gives the exact n of each strict rate, else it is taken as scored + unscored answers."""
    found = []
    for row in stats["rates"]:
        key = {"model": row["model"], "task": row["task"], "level": row["level"], "prompt_style": row["prompt_style"]}
        estimate = _rate_estimate(row)
        if strict_n is not None and estimate["estimator"] == STRICT_ESTIMATOR:
            estimate["n"] = strict_n.get(tuple(key.values()), estimate["n"])
        found.append(key | estimate)
        abstain = row["abstain_rate"]
        found.append(key | {"quantity": "abstention_rate", "value": abstain, "se": _binomial_se(abstain, row["n"]),
                            "n": row["n"], "estimator": "abstentions / scored answers", "notes": []})  # fmt: skip
    for row in stats["calibration"]:
        key = {"model": row["model"], "task": row["task"], "level": row["level"], "prompt_style": row["prompt_style"]}
        pooled = row["task"] == "pooled"
        found.append(key | {"quantity": "ece_pooled_unscaled" if pooled else "ece", "value": row["ece_width"],
                            "se": row["ece_width_se"], "n": row["n"],
                            "estimator": "ECE, equal-width bins, plug-in (the authors' code), bootstrap s.e.",
                            "notes": []})  # fmt: skip
        found.append(key | {"quantity": "ece_pooled_scaled" if pooled else "ece_temperature_scaled",
                            "value": row["platt_ece_width"], "se": None, "n": row.get("platt_n") or row["n"],
                            "estimator": PLATT_ESTIMATOR, "notes": []})  # fmt: skip
    return [estimate for estimate in found if estimate["value"] is not None]


def _rate_estimate(row: dict) -> dict:
    """The user's rate that matches the paper's for the row's task (see the module docstring)."""
    notes, n = [], row["n"]
    if row["task"] in BALANCED_TASKS:
        value, se = row["balanced_rate"], row["balanced_se"]
        estimator = "class-balanced rate (mean of per-class rates); unscored answers left out"
        if row["note"] == SINGLE_CLASS_NOTE or row.get("classes") == 1:
            notes.append("your items have one class: the balanced rate is the raw rate, not comparable with the paper")
    elif row["lower_bound"]:
        value, se = row["rate"], row["se"]
        estimator = "contradiction rate between two samples, a lower bound (unscored pairs left out)"
    elif row["strict_rate"] is not None:
        value, se, n = row["strict_rate"], row["strict_se"], row["n"] + row["unscored"]
        estimator = STRICT_ESTIMATOR
    else:
        value, se = row["rate"], row["se"]
        estimator = "rate over scored answers: unscored answers left out (the paper counts them as hallucinations)"
    return {"quantity": "hallucination_rate", "value": value, "se": se, "n": n, "estimator": estimator,
            "notes": notes}  # fmt: skip


def design_notes(user: dict, paper: PaperValue, model_row: dict | None, years: tuple[int, int] | None) -> list[str]:
    """Return what differs between the user's estimate and the paper's, as short sentences."""
    task = TASKS.get(user["task"])
    notes = [f"sample: your n={user['n']} vs the paper's n={paper.n}" if paper.n else
             f"sample: your n={user['n']}; the paper prints no sample size for this value"]  # fmt: skip
    if paper.window:
        yours = f"your cases {years[0]}-{years[1]}" if years else "your cases' years not known here"
        notes.append(f"date window: the paper's {paper.window}, {yours}")
    notes.append(DATA_SOURCE_NOTE)
    if task and task.reference_free and user["quantity"] == "hallucination_rate":
        judge = (model_row or {}).get("judge", "unknown")
        self_judged = " (self-judged: the model judged its own pairs)" if (model_row or {}).get("self_judged") else ""
        notes.append(f"judge: the paper's {PAPER_JUDGE}, yours {judge}{self_judged}")
    notes.append(f"estimator: yours {user['estimator']}")
    if user["quantity"].startswith("ece"):
        notes.append("confidence: the paper sampled 10 answers at temperature 1; yours as many as the run's --samples")
    if user["quantity"] == "ece_temperature_scaled" or user["quantity"] == "ece_pooled_scaled":
        notes.append("rescaling: the paper's Platt scaling on the raw distribution; yours Platt scaling on a held-out "
                     "split (--platt-holdout)")  # fmt: skip
    if user["se"] == 0 and user["quantity"] in ("hallucination_rate", "abstention_rate"):
        notes.append(f"your s.e. is 0 (a rate of {user['value']:.0f} on n={user['n']}): the binomial s.e. understates "
                     "the uncertainty of a small sample, so read the z-test with care")  # fmt: skip
    return notes + user["notes"]


def _years(units: Iterable | None) -> dict[tuple[str, str, str], tuple[int, int]]:
    spans: dict[tuple[str, str, str], list[int]] = defaultdict(list)
    for unit in units or ():
        if unit.year is not None:
            spans[(unit.model, unit.task, unit.level)].append(unit.year)
    return {key: (min(years), max(years)) for key, years in spans.items()}


def _paper_index() -> dict[tuple, list[PaperValue]]:
    index: dict[tuple, list[PaperValue]] = defaultdict(list)
    for value in paper_values():
        index[(value.quantity, value.task, value.level, value.prompt_style)].append(value)
    return index


def _paper_key(user: dict) -> tuple:
    if user["quantity"].startswith("ece_pooled"):
        return (user["quantity"], "pooled", None, None)
    return (user["quantity"], user["task"], user["level"], user["prompt_style"])


def comparisons(stats: dict, models: list[dict], units: Iterable | None = None) -> list[dict]:
    """Return one comparison per user estimate x paper model that measure the same quantity, task, court level and
    prompt style: both values, the difference (yours - paper), z and two-sided p (or why there is no test), and the
    design notes."""
    index = _paper_index()
    by_model = {row["model"]: row for row in models}
    units = list(units) if units is not None else None
    years = _years(units)
    found = []
    for user in user_estimates(stats, strict_counts(units) if units is not None else None):
        for paper in index.get(_paper_key(user), []):
            z, p = z_test(user["value"], user["se"], paper.value, paper.se)
            if paper.se is None:
                test = NO_SE
            elif user["se"] is None:
                test = "no s.e. of yours: no test"
            elif z is None:
                test = "both s.e. are 0: no test"
            else:
                test = f"z={z:+.2f} p={p:.2g}"
            found.append({
                "model": user["model"], "quantity": user["quantity"], "task": user["task"], "level": user["level"],
                "prompt_style": user["prompt_style"],
                "yours": {key: user[key] for key in ("value", "se", "n", "estimator")},
                "paper": paper.to_dict(),
                "difference": user["value"] - paper.value, "z": z, "p": p, "test": test,
                "design": design_notes(user, paper, by_model.get(user["model"]),
                                       years.get((user["model"], user["task"], user["level"]))),
            })  # fmt: skip
    return found


def _table_facts(table: dict) -> dict:
    return {key: table[key] for key in ("id", "table", "where", "title", "quantity", "note")}


def paper_comparison(stats: dict, models: list[dict], units: Iterable | None = None) -> dict:
    """Return the JSON-ready `reference` block of a report: the paper, its tables (where each is printed), every
    value it prints (`values`), and the comparisons with the user's rows (`comparisons`); `units` (optional) lets
    the design notes name the years of the user's cases."""
    data = paper_tables()
    return {
        "source": "paper",
        "paper": data["paper"],
        "models": list(PAPER_MODELS),
        "rate_kind": RATE_KIND,
        "judge": f"the paper's reference-free tasks were judged by {PAPER_JUDGE}",
        "data_source": DATA_SOURCE_NOTE,
        "tables": [_table_facts(table) for table in data["tables"]],
        "values": [value.to_dict() for value in paper_values()],
        "comparisons": comparisons(stats, models, units),
        "quantities": QUANTITY_TEXT,
    }
