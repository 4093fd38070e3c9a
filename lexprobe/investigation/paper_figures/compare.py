"""`investigation score --reference paper`: the paper's rows beside the user's scores. For every user number that
measures what a paper row measures (same metric; for the ablation rows the same pair of levels), one comparison:
the difference in percentage points, a two-sided z-test where both sides have counts (the paper prints no standard
errors, so rows without counts get "no s.e. or count printed: no test"; no scipy: the normal tail is `math.erfc`),
and the design notes that say how the two estimates differ (model, sample and environments, levels, budget, verdict
rule; `UserDesign`: what a user's scored episodes were, per model). `paper_lines` groups the paper's per-model numbers
as score-table lines, shown as extra (grey) rows under the user's in the terminal and the HTML report."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field

from lexprobe.investigation.agent.episode import Episode
from lexprobe.investigation.paper_figures.rows import PaperFigures, PaperRow, load_paper_figures
from lexprobe.investigation.scoring.schema import ModelSummary, ScoreSummary
from lexprobe.investigation.scoring.summary import ablation_sort_key

METRIC_LABELS = {
    "case_solved": "case solved",
    "worst_class_acc": "worst-class accuracy",
    "believe_acc": "believe-class accuracy",
    "reject_acc": "do-not-believe-class accuracy",
    "commit_rate": "commitment",
    "committed_acc": "committed accuracy",
    "coverage": "coverage",
    "signal_recall": "signal recall",
    "ablation_change": "case solved, merits -> +pro_alternative (points)",
    "believe_alternative": "believe an alternative",
    "to_believe": "switch to believe an alternative",
}
#: Model metrics compared row by row: the user's `ModelSummary` attribute of the same name.
MODEL_METRICS = ("case_solved", "worst_class_acc", "commit_rate", "committed_acc", "coverage", "signal_recall")
NO_TEST = "no s.e. or count printed: no test"
EXACT = "both are exact expectations of the same naive policy: no sampling error, no test"
PAPER_HYPOTHESES = 4  # Section 3.1: {h_p, h_d, h_1, h_2}


def proportion_se(successes: int, trials: int) -> float | None:
    """Standard error sqrt(p (1 - p) / n) of successes / trials, None when trials is 0."""
    if trials <= 0:
        return None
    p = successes / trials
    return math.sqrt(p * (1 - p) / trials)


def two_sided_z(difference: float, se_a: float, se_b: float) -> tuple[float, float] | None:
    """z = d / sqrt(se_a^2 + se_b^2) and its two-sided normal p-value; None when both errors are 0."""
    spread = math.sqrt(se_a**2 + se_b**2)
    if spread == 0:
        return None
    z = difference / spread
    return z, math.erfc(abs(z) / math.sqrt(2))


def two_proportion_z(k_a: int, n_a: int, k_b: int, n_b: int) -> tuple[float, float] | None:
    """Two-sided z-test of k_a/n_a - k_b/n_b from the counts (unpooled errors); None when it cannot be computed:
    an empty side, or a share of 0 or 1 on either side (whose estimated standard error is 0)."""
    se_a, se_b = proportion_se(k_a, n_a), proportion_se(k_b, n_b)
    if not se_a or not se_b:
        return None
    return two_sided_z(k_a / n_a - k_b / n_b, se_a, se_b)


@dataclass
class UserDesign:
    """One model's scored episodes: counts, levels, budgets (tool calls, turns)."""

    model: str
    n_episodes: int = 0
    environments: set[str] = field(default_factory=set)
    levels: set[str] = field(default_factory=set)
    budgets: set[tuple[int, int]] = field(default_factory=set)

    @property
    def n_environments(self) -> int:
        """Distinct (case, level) environments the model ran."""
        return len(self.environments)

    def level_text(self) -> str:
        """The levels in words: "merits, +pro_alternative", or "unspecified"."""
        names = sorted((level or "unspecified" for level in self.levels), key=ablation_sort_key)
        return ", ".join(names) or "unspecified"

    def budget_text(self) -> str:
        """The budgets in words: "5 tool calls / 5 turns" (several joined by "; ")."""
        return "; ".join(f"{tools} tool calls / {turns} turns" for tools, turns in sorted(self.budgets)) or "unknown"


def user_designs(episodes: Iterable[Episode]) -> dict[str, UserDesign]:
    """Group scored episodes by model into `UserDesign`s."""
    designs: dict[str, UserDesign] = {}
    for episode in episodes:
        design = designs.setdefault(episode.model, UserDesign(episode.model))
        design.n_episodes += 1
        design.environments.add(f"{episode.environment}|{episode.ablation}")
        design.levels.add(episode.ablation)
        design.budgets.add((episode.tool_budget, episode.turn_budget))
    return designs


def _pct(value: float | None) -> float | None:
    return None if value is None else round(100 * value, 4)


def _points(value: float | None) -> str:
    return "–" if value is None else f"{value:+.1f} points"


def _budget_note(figures: PaperFigures, design: UserDesign | None) -> str:
    tools, turns = figures.by_id("budget/tools"), figures.by_id("budget/turns")
    yours = design.budget_text() if design else "unknown"
    return f"budget: yours {yours}; the paper's {tools.printed} tool calls / {turns.printed} turns in Turn 1 " \
           f"({tools.where})"  # fmt: skip


def _rule_notes(summary: ScoreSummary) -> list[str]:
    settings = summary.settings
    notes = []
    if settings is not None and not settings.dont_know_as_reject:
        notes.append("rule: yours counts \"don't know\" on a non-h* hypothesis as wrong (--strict-reject); the paper "
                     "counts it as not believing")  # fmt: skip
    if settings is not None and settings.partial_verdicts:
        notes.append("rule: yours counts a missing verdict on a non-h* hypothesis as not believing "
                     "(--partial-verdicts); the paper scores complete outputs")  # fmt: skip
    return notes


def _model_notes(model: str, design: UserDesign | None, row: PaperRow) -> list[str]:
    n_episodes = design.n_episodes if design else 0
    n_envs = design.n_environments if design else 0
    levels = design.level_text() if design else "unknown"
    notes = [
        f"model: yours {model}; the paper's {row.subject}",
        f"sample: yours {n_episodes} episode(s) on {n_envs} environment(s) of your own build, not the paper's "
        f"cases; the paper's: {row.sample}",
        f"levels: yours {levels} (pooled); the paper's row: {row.where}",
    ]
    if row.n_cases == 87:
        notes.append("the paper's row counts only the 87 cases with complete outputs from both Haiku 4.5 and "
                     "Sonnet 4.6")  # fmt: skip
    return notes


def _test(user_counts: tuple[int, int] | None, row: PaperRow, design: UserDesign | None) -> tuple[dict | None, str]:
    if user_counts is None or row.successes is None or row.trials is None:
        return None, NO_TEST
    result = two_proportion_z(user_counts[0], user_counts[1], row.successes, row.trials)
    if result is None:
        return None, "a share of 0% or 100% has no standard error from its counts: no test"
    z, p = result
    note = "two-sided two-proportion z-test from the counts (unpooled standard errors)"
    if user_counts[1] < 30:
        note += f"; only {user_counts[1]} of yours: the normal approximation is rough"
    if design is not None and design.n_episodes > design.n_environments:
        note += "; your episodes repeat environments, so the counts overstate your sample's independence"
    return {"kind": "two-proportion z", "z": round(z, 4), "p": round(p, 4)}, note


def _comparison(metric: str, user: dict, row: PaperRow, test: dict | None, test_note: str,
                design: list[str]) -> dict:  # fmt: skip
    paper_value, shown = row.value, row.shown()
    if row.unit != "%" and row.trials:  # a printed count: compare its share, computed from the printed counts
        paper_value = round(100 * row.successes / row.trials, 4)
        shown = f"{row.successes}/{row.trials} ({paper_value:.1f}%, computed from the printed counts)"
    difference = None if user["value"] is None or paper_value is None else round(user["value"] - paper_value, 4)
    return {
        "metric": metric,
        "metric_label": METRIC_LABELS.get(metric, metric),
        "user": user,
        "paper": {
            "row": row.id,
            "kind": row.kind,
            "subject": row.subject,
            "shown": shown,
            "value": paper_value,
            "where": row.where,
            "sample": row.sample,
        },
        "difference": difference,
        "difference_shown": _points(difference),
        "test": test,
        "test_note": test_note,
        "design": design,
    }


def _user_share(model: str, value: float | None, n: int, successes: int | None = None) -> dict:
    shown = "–" if value is None else f"{100 * value:.1f}%"
    if successes is not None:
        shown = f"{successes}/{n} ({shown})"
    return {"model": model, "value": _pct(value), "shown": shown, "n": n, "successes": successes}


def _model_comparisons(summary: ScoreSummary, figures: PaperFigures, designs: dict[str, UserDesign]) -> list[dict]:
    result = []
    for m in summary.models:
        design = designs.get(m.model)
        for metric in MODEL_METRICS:
            value = getattr(m, metric)
            counts = _solved_counts(m) if metric == "case_solved" else None
            for row in figures.rows:
                if row.metric != metric or row.kind != "model" or row.generator is not None:
                    continue
                test, note = _test(counts, row, design)
                notes = [*_model_notes(m.model, design, row), _budget_note(figures, design), *_rule_notes(summary)]
                user = _user_share(m.model, value, m.n_episodes, counts[0] if counts else None)
                result.append(_comparison(metric, user, row, test, note, notes))
    return result


def _solved_counts(m: ModelSummary) -> tuple[int, int] | None:
    if m.case_solved is None or not m.n_episodes:
        return None
    return round(m.case_solved * m.n_episodes), m.n_episodes


def _baseline_comparisons(summary: ScoreSummary, figures: PaperFigures) -> list[dict]:
    result = []
    baselines = summary.baselines
    n_hyp = next(iter(baselines.values())).n_hypotheses if baselines else PAPER_HYPOTHESES
    notes = [f"policy: the same naive policy, exact on both sides for {n_hyp} hypotheses per case (the paper's: "
             f"{PAPER_HYPOTHESES}); the paper rounds to one decimal"] + ([] if n_hyp == PAPER_HYPOTHESES else [
        f"hypotheses: yours {n_hyp} per case; the paper's {PAPER_HYPOTHESES} (Section 3.1)"])  # fmt: skip
    pairs = [("baseline/uniform_random", "uniform_random", "case_solved"),
             ("baseline/believe_one", "believe_one", "case_solved"),
             ("baseline/always_reject/reject_acc", "always_reject", "reject_acc"),
             ("baseline/always_reject/believe_acc", "always_reject", "believe_acc")]  # fmt: skip
    for row_id, name, metric in pairs:
        if name in baselines:
            value = getattr(baselines[name], metric)
            user = _user_share(f"baseline: {name}", value, 0)
            result.append(_comparison(metric, user, figures.by_id(row_id), None, EXACT, notes))
    if baselines:
        best = max(b.worst_class_acc for b in baselines.values())
        user = _user_share("baselines: maximum", best, 0)
        row = figures.by_id("baseline/max_worst_class_acc")
        result.append(_comparison("worst_class_acc", user, row, None, EXACT, notes))
    return result


def _ablation_comparisons(summary: ScoreSummary, figures: PaperFigures, designs: dict[str, UserDesign]) -> list:
    result = []
    rows = [r for r in figures.rows if r.metric == "ablation_change" and r.kind == "model"]
    for c in summary.comparisons:
        if c.kind != "ablation" or (c.a, c.b) != ("merits", "+pro_alternative"):
            continue
        model = c.model or ""
        difference = c.case_solved.difference
        shown = _points(None if difference is None else 100 * difference)
        user = {"model": model, "value": _pct(difference), "shown": shown, "n": c.n_environments, "successes": None}
        for row in rows:
            design = designs.get(model)
            notes = [f"model: yours {model}; the paper's {row.subject}",
                     f"sample: yours {c.n_environments} environment(s) at both levels, not the paper's cases; the "
                     f"paper's: {row.sample}",
                     "levels: both merits -> +pro_alternative (the paper adds 20 pro-alternative documents; yours "
                     "adds your build's)", _budget_note(figures, design)]  # fmt: skip
            if row.ci_excludes_zero:
                notes.append(f"the paper's paired {row.ci_level}% bootstrap interval excludes zero (interval not "
                             "printed)")  # fmt: skip
            result.append(_comparison("ablation_change", user, row, None, NO_TEST, notes + _rule_notes(summary)))
    return result


def _transition_comparisons(summary: ScoreSummary, figures: PaperFigures) -> list[dict]:
    result = []
    wanted = [("believe_a", "transitions/believe_merits"), ("believe_b", "transitions/believe_pro_alternative"),
              ("to_believe", "transitions/to_believe")]  # fmt: skip
    for t in summary.level_transitions:
        if (t.a, t.b) != ("merits", "+pro_alternative") or not t.n_pairs:
            continue
        for attribute, row_id in wanted:
            row = figures.by_id(row_id)
            k = getattr(t, attribute)
            user = _user_share(t.model, k / t.n_pairs, t.n_pairs, k)
            test, note = _test((k, t.n_pairs), row, None)
            if test is not None:
                note += "; both sides' pairs share cases, so the counts overstate their independence"
            notes = [f"model: yours {t.model}; the paper's all six models pooled",
                     f"sample: yours {t.n_pairs} pair(s) on {t.n_environments} case(s), not the paper's; the "
                     f"paper's: {row.sample}", "levels: both merits -> +pro_alternative"]  # fmt: skip
            metric = "to_believe" if attribute == "to_believe" else "believe_alternative"
            result.append(_comparison(metric, user, row, test, note, notes + _rule_notes(summary)))
    return result


def paper_comparison(summary: ScoreSummary, episodes: Iterable[Episode] = ()) -> dict:
    """The JSON-ready `reference` block of `investigation score --reference paper`: the paper, what is covered,
    every shipped row (with how it is shown), and the comparisons with the user's scored `episodes`' summary."""
    figures = load_paper_figures()
    designs = user_designs(episodes)
    comparisons = [
        *_model_comparisons(summary, figures, designs),
        *_baseline_comparisons(summary, figures),
        *_ablation_comparisons(summary, figures, designs),
        *_transition_comparisons(summary, figures),
    ]
    return {
        "paper": figures.paper,
        "file": figures.file,
        "covered": list(figures.covered),
        "not_printed": figures.not_printed,
        "rows": [row.to_dict() | {"shown": row.shown()} for row in figures.rows],
        "comparisons": comparisons,
        "notes": [
            "Paper values are as printed in its text (percentages, percentage points, counts); the paper prints no "
            "standard errors, so only rows with printed counts are tested.",
            "Your environments are your own build, not the paper's 100 cases; every comparison lists what else "
            "differs.",
        ],
    }


_LABELS = {"uniform_random": "baseline uniform random", "believe_one": "baseline believe one at random",
           "always_reject": "baseline always reject"}  # fmt: skip


def paper_lines(block: dict) -> list[dict]:
    """Lines {"label", "subject", "sample", "where", "n", "cells": {metric: shown}} from a `reference` block's
    model and baseline rows (the generator rows of Section 4.4 and the ranges are left to the full list)."""
    lines: dict[tuple[str, str], dict] = {}
    for row in block["rows"]:
        if row["kind"] not in ("model", "baseline") or row.get("generator") or row["metric"] not in (
            *MODEL_METRICS, "believe_acc", "reject_acc"):  # fmt: skip
            continue
        key = (row["subject"], row["sample"])
        label = f"paper: {_LABELS.get(row['subject'], row['subject'])}"
        line = lines.setdefault(key, {"label": label, "subject": row["subject"], "sample": row["sample"],
                                      "where": set(), "n": row.get("n_cases"), "cells": {}})  # fmt: skip
        line["where"].add(row["section"].split(" ", 1)[0])
        line["cells"][row["metric"]] = row["shown"]
    result = []
    for line in lines.values():
        line["where"] = "§" + ", §".join(sorted(line["where"]))
        result.append(line)
    return result
