"""The statistics of a hallucination profile (the study's Section 4): rate tables, breakdowns, the justice-bias
table, contra-factual rates and calibration, computed from scored units (`results.py`).

Estimators (named in every output):
- rate: hallucinations / scored answers, abstentions counted as non-hallucinations, unscored answers left out;
  standard error sqrt(p(1-p)/n) (the study's Eq. 1 and tables);
- balanced rate (disposition, doctrinal agreement): the mean of the per-class rates, the class being the true
  answer (affirm / reverse, agree / disagree), so always answering the majority class scores no better than 0.5;
- reference-free tasks: contradiction rate between two samples, a lower bound on the true rate (Eq. 2);
- breakdowns pool the reference-based tasks with a true premise (as the study's Figures 2-5 do); the complexity
  breakdown also shows the high-complexity reference-free tasks, marked as lower bounds; the false-premise tasks
  are reported apart (contra-factual bias, Figure 7);
- calibration: ECE with `width` bins + plug-in estimator (the authors' code) and `mass` bins + debiased estimator
  (the paper's text; Kumar et al. 2019), bootstrap standard errors (seeded), and Platt-rescaled ECE on a held-out
  split (see `lexprobe.stats`).
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from datetime import date

import numpy as np

from lexprobe.caselaw.judges import Judge, resolve_justice
from lexprobe.hallucination.answers import extract_judge_name
from lexprobe.hallucination.results import Unit
from lexprobe.stats import (
    apply_platt,
    balanced_rate,
    bootstrap_se,
    expected_calibration_error,
    hallucination_rate,
    platt_scale,
)

#: Tasks whose classes are unbalanced in the data, reported with the balanced rate too.
BALANCED_TASKS = {"disposition": "disposition", "doctrinal_agreement": "agreement"}
FALSE_PREMISE = "false premise"
COMPLEXITY_ORDER = ("low", "moderate", "high")
LEVEL_ORDER = ("scotus", "coa", "district")
#: The Supreme Court under each Chief Justice (the study discusses the Warren Court, 1953-1969).
ERAS = (
    ("Jay-Ellsworth", 1789, 1800),
    ("Marshall", 1801, 1835),
    ("Taney", 1836, 1863),
    ("Chase", 1864, 1873),
    ("Waite", 1874, 1887),
    ("Fuller", 1888, 1909),
    ("White", 1910, 1920),
    ("Taft", 1921, 1929),
    ("Hughes", 1930, 1940),
    ("Stone", 1941, 1945),
    ("Vinson", 1946, 1952),
    ("Warren", 1953, 1968),
    ("Burger", 1969, 1985),
    ("Rehnquist", 1986, 2004),
    ("Roberts", 2005, 2100),
)
ECE_WIDTH = "width bins, plug-in (authors' code)"
ECE_MASS = "mass bins, debiased (paper; Kumar et al. 2019)"


@dataclass
class RateRow:
    """One model x task x level x prompt style."""

    model: str
    task: str
    level: str
    prompt_style: str
    complexity: str
    n: int
    rate: float | None
    se: float | None
    abstain_rate: float | None
    unscored: int
    unscored_rate: float | None
    pending: int
    balanced_rate: float | None = None
    lower_bound: bool = False


@dataclass
class GroupRate:
    """The pooled rate of one group (a breakdown cell) for one model."""

    model: str
    group: str
    n: int
    rate: float | None
    se: float | None


def _rate_fields(units: list[Unit]) -> tuple[int, float | None, float | None, float | None]:
    labels = [unit.label for unit in units if unit.scored]
    rate, se = hallucination_rate(labels)
    abstain = sum(label == "abstain" for label in labels) / len(labels) if labels else None
    return len(labels), rate, se, abstain


def rate_rows(units: Iterable[Unit]) -> list[RateRow]:
    """Return the rate table: one row per model x task x level x prompt style (the study's Tables 3-6)."""
    groups: dict[tuple[str, str, str, str], list[Unit]] = defaultdict(list)
    for unit in units:
        groups[(unit.model, unit.task, unit.level, unit.prompt_style)].append(unit)
    rows = []
    for (model, task, level, style), group in sorted(groups.items(), key=lambda item: _row_order(item[0])):
        n, rate, se, abstain = _rate_fields(group)
        unscored = sum(unit.label == "unscored" for unit in group)
        balanced = None
        if task in BALANCED_TASKS:
            scored = [unit for unit in group if unit.scored]
            classes = [str(unit.reference.get(BALANCED_TASKS[task])) for unit in scored]
            balanced = balanced_rate([unit.label for unit in scored], classes) if scored else None
        rows.append(
            RateRow(
                model=model,
                task=task,
                level=level,
                prompt_style=style,
                complexity=group[0].complexity,
                n=n,
                rate=rate,
                se=se,
                abstain_rate=abstain,
                unscored=unscored,
                unscored_rate=unscored / (n + unscored) if n + unscored else None,
                pending=sum(unit.label is None for unit in group),
                balanced_rate=balanced,
                lower_bound=group[0].reference_free,
            )
        )
    return rows


def _row_order(key: tuple[str, str, str, str]) -> tuple:
    from lexprobe.hallucination.tasks import TASKS

    model, task, level, style = key
    task_index = list(TASKS).index(task) if task in TASKS else len(TASKS)
    level_index = LEVEL_ORDER.index(level) if level in LEVEL_ORDER else len(LEVEL_ORDER)
    return (task_index, level_index, style != "zero", model)


def breakdown(
    units: Iterable[Unit], group_of: Callable[[Unit], str | None], order: Iterable[str] = ()
) -> list[GroupRate]:
    """Return the pooled rate per (model, group); units whose group is None are left out."""
    cells: dict[tuple[str, str], list[Unit]] = defaultdict(list)
    for unit in units:
        group = group_of(unit)
        if group is not None and unit.scored:
            cells[(unit.model, group)].append(unit)
    ranking = {name: index for index, name in enumerate(order)}
    keys = sorted(cells, key=lambda key: (ranking.get(key[1], len(ranking)), key[1], key[0]))
    result = []
    for model, group in keys:
        n, rate, se, _ = _rate_fields(cells[(model, group)])
        result.append(GroupRate(model, group, n, rate, se))
    return result


def true_premise_reference_based(unit: Unit) -> bool:
    """The units the study's pooled figures use: reference-based tasks with a true premise."""
    return not unit.reference_free and unit.complexity != FALSE_PREMISE


def era_of(year: int | None) -> str | None:
    """Return the Chief Justice era of a decision year."""
    if year is None:
        return None
    for name, start, end in ERAS:
        if start <= year <= end:
            return f"{name} ({start}-{min(end, date.today().year)})"
    return None


def decade_of(year: int | None) -> str | None:
    """Return the decade of a decision year ("1950s")."""
    return None if year is None else f"{year // 10 * 10}s"


def prominence_decile(prominence: float | None) -> str | None:
    """Return the prominence decile ("90-100") of a percentile."""
    if prominence is None:
        return None
    low = min(int(prominence // 10) * 10, 90)
    return f"{low}-{low + 10}"


def breakdowns(units: list[Unit]) -> dict[str, list[GroupRate]]:
    """Return every breakdown of Section 4.1 (each pooled over true-premise reference-based tasks unless named)."""
    pooled = [unit for unit in units if true_premise_reference_based(unit)]
    scotus = [unit for unit in pooled if unit.level == "scotus"]
    not_false = [unit for unit in units if unit.complexity != FALSE_PREMISE]
    deciles = [f"{low}-{low + 10}" for low in range(0, 100, 10)]
    return {
        "complexity": breakdown(not_false, lambda u: u.complexity, COMPLEXITY_ORDER),
        "level": breakdown(pooled, lambda u: u.level, LEVEL_ORDER),
        "prompt_style": breakdown(pooled, lambda u: u.prompt_style, ("zero", "few")),
        "model": breakdown(pooled, lambda u: "all tasks"),
        "circuit": breakdown(
            [u for u in pooled if u.level == "coa"], lambda u: u.circuit, [f"ca{i}" for i in range(1, 12)]
        ),
        "decade": breakdown(scotus, lambda u: decade_of(u.year)),
        "era": breakdown(scotus, lambda u: era_of(u.year), [era_of(start) or "" for _, start, _ in ERAS]),
        "prominence": breakdown(scotus, lambda u: prominence_decile(u.prominence), deciles),
        "contra_factual": breakdown(
            [u for u in units if u.complexity == FALSE_PREMISE], lambda u: f"{u.task} / {u.level}"
        ),
    }


@dataclass
class JusticeCount:
    """How often a justice is named as the majority author vs how often they truly wrote it (Figure 6)."""

    model: str
    justice: str
    named: int
    true: int


def justice_bias(units: Iterable[Unit], roster: list[Judge]) -> list[JusticeCount]:
    """Return, per model, each justice's named and true majority-author counts over the Supreme Court author
    questions (answers naming no one on the roster are counted under the name they give)."""
    named: dict[str, Counter] = defaultdict(Counter)
    true: dict[str, Counter] = defaultdict(Counter)
    for unit in units:
        if unit.task != "author" or unit.level != "scotus" or not unit.reference.get("author"):
            continue
        decided = _date(unit.reference.get("decided"))
        truth = resolve_justice(unit.reference["author"], decided, roster) if roster else None
        true[unit.model][truth.full_name if truth else unit.reference["author"]] += 1
        name = extract_judge_name(unit.answer) if unit.answer else None
        if name and name != "per curiam":
            resolved = resolve_justice(name, decided, roster) if roster else None
            named[unit.model][resolved.full_name if resolved else name] += 1
    rows = []
    for model in sorted(set(named) | set(true)):
        for justice in sorted(set(named[model]) | set(true[model])):
            rows.append(JusticeCount(model, justice, named[model][justice], true[model][justice]))
    return rows


def _date(value: object) -> date | None:
    try:
        return date.fromisoformat(str(value)[:10]) if value else None
    except ValueError:
        return None


@dataclass
class CalibrationRow:
    """ECE of one model x task x level x prompt style (or `pooled`), both variants, with bootstrap SEs."""

    model: str
    task: str
    level: str
    prompt_style: str
    n: int
    mean_confidence: float | None
    accuracy: float | None
    ece_width: float | None
    ece_width_se: float | None
    ece_mass_debiased: float | None
    ece_mass_debiased_se: float | None
    platt_ece_width: float | None = None
    platt_ece_mass_debiased: float | None = None
    platt_n: int = 0
    note: str = ""


def _ece_pair(x: np.ndarray, y: np.ndarray, bins: int, seed: int) -> tuple[float, float]:
    return (
        expected_calibration_error(x, y, bins, "width", debias=False),
        expected_calibration_error(x, y, bins, "mass", debias=True, seed=seed),
    )


def calibration_row(
    model: str, task: str, level: str, style: str, units: list[Unit], *, bins: int, seed: int, holdout: float
) -> CalibrationRow:
    """Compute one calibration row from units with a measured confidence."""
    x = np.array([unit.confidence for unit in units], dtype=float)
    y = np.array([unit.label == "correct" for unit in units], dtype=float)
    row = CalibrationRow(model, task, level, style, len(units), None, None, None, None, None, None)
    if len(units) < 2:
        row.note = "fewer than two answers with a confidence"
        return row
    row.mean_confidence, row.accuracy = float(x.mean()), float(y.mean())
    row.ece_width, row.ece_mass_debiased = _ece_pair(x, y, bins, seed)
    data = np.column_stack([x, y])
    row.ece_width_se = bootstrap_se(lambda d: expected_calibration_error(d[:, 0], d[:, 1], bins), data, seed=seed)
    row.ece_mass_debiased_se = bootstrap_se(
        lambda d: expected_calibration_error(d[:, 0], d[:, 1], bins, "mass", debias=True, seed=seed, draws=200),
        data,
        seed=seed,
    )
    _platt(row, x, y, bins=bins, seed=seed, holdout=holdout)
    return row


def _platt(row: CalibrationRow, x: np.ndarray, y: np.ndarray, *, bins: int, seed: int, holdout: float) -> None:
    """Fill the Platt-rescaled ECE: fit on a seeded (1 - holdout) share, evaluate on the held-out rest (or, with
    holdout 0, in-sample, which flatters the result and is said so)."""
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(x))
    cut = len(x) - round(len(x) * holdout) if holdout > 0 else len(x)
    fit, evaluate = order[:cut], (order[cut:] if holdout > 0 else order)
    if len(evaluate) < 2 or len(set(y[fit])) < 2:
        row.note = "Platt scaling needs both outcomes in the fitting split and two held-out answers"
        return
    a, b = platt_scale(x[fit], y[fit])
    scaled = apply_platt(x[evaluate], a, b)
    row.platt_ece_width, row.platt_ece_mass_debiased = _ece_pair(scaled, y[evaluate], bins, seed)
    row.platt_n = len(evaluate)
    if holdout <= 0:
        row.note = "Platt scaling evaluated in-sample (no held-out split)"


def calibration_rows(
    units: Iterable[Unit], *, bins: int = 10, seed: int = 0, holdout: float = 0.5
) -> list[CalibrationRow]:
    """Return ECE per model x task x level x style (the study's Table 7) and pooled per model (Figure 8)."""
    measured = [unit for unit in units if unit.confidence is not None and unit.label in ("correct", "hallucination")]
    groups: dict[tuple[str, str, str, str], list[Unit]] = defaultdict(list)
    pooled: dict[str, list[Unit]] = defaultdict(list)
    for unit in measured:
        groups[(unit.model, unit.task, unit.level, unit.prompt_style)].append(unit)
        pooled[unit.model].append(unit)
    rows = [
        calibration_row(*key, group, bins=bins, seed=seed, holdout=holdout)
        for key, group in sorted(groups.items(), key=lambda item: _row_order(item[0]))
    ]
    rows += [
        calibration_row(model, "pooled", "all", "all", group, bins=bins, seed=seed, holdout=holdout)
        for model, group in sorted(pooled.items())
    ]
    return rows


def calibration_curves(units: Iterable[Unit], bins: int = 10) -> dict[str, list[tuple[float, float, int]]]:
    """Return per model the (mean confidence, share correct, n) of `bins` equal-mass bins, all tasks pooled."""
    pooled: dict[str, list[Unit]] = defaultdict(list)
    for unit in units:
        if unit.confidence is not None and unit.label in ("correct", "hallucination"):
            pooled[unit.model].append(unit)
    curves = {}
    for model, group in sorted(pooled.items()):
        x = np.array([unit.confidence for unit in group], dtype=float)
        y = np.array([unit.label == "correct" for unit in group], dtype=float)
        order = np.argsort(x, kind="stable")
        curves[model] = [
            (float(x[chunk].mean()), float(y[chunk].mean()), len(chunk))
            for chunk in np.array_split(order, min(bins, len(x)))
            if len(chunk)
        ]
    return curves


def profile(units: list[Unit], roster: list[Judge], *, bins: int = 10, seed: int = 0, holdout: float = 0.5) -> dict:
    """Return every statistic of the profile as JSON-ready data."""
    return {
        "estimators": {
            "rate": "hallucinations / scored answers; abstentions count as non-hallucinations; se = sqrt(p(1-p)/n)",
            "balanced_rate": "mean of per-class rates (class = true answer)",
            "reference_free": "contradiction rate between two samples: a lower bound",
            "ece_width": ECE_WIDTH,
            "ece_mass_debiased": ECE_MASS,
            "ece_se": "bootstrap standard error, 200 replicates, seeded",
            "platt": f"Platt scaling fitted on {1 - holdout:.0%} of answers, ECE on the held-out {holdout:.0%}"
            if holdout > 0
            else "Platt scaling fitted and evaluated on all answers (in-sample)",
            "bins": bins,
        },
        "rates": [asdict(row) for row in rate_rows(units)],
        "breakdowns": {name: [asdict(g) for g in groups] for name, groups in breakdowns(units).items()},
        "justice_bias": [asdict(row) for row in justice_bias(units, roster)],
        "calibration": [_finite(asdict(row)) for row in calibration_rows(units, bins=bins, seed=seed, holdout=holdout)],
        "calibration_curves": calibration_curves(units, bins),
    }


def _finite(row: dict) -> dict:
    return {
        key: (None if isinstance(value, float) and not math.isfinite(value) else value) for key, value in row.items()
    }
