"""The statistics of a hallucination profile (the study's Section 4): rate tables, breakdowns, the justice-bias
table, contra-factual rates and calibration, computed from scored units (`results.py`).

Estimators (named in every output):
- rate: hallucinations / scored answers, abstentions counted as non-hallucinations, unscored answers left out;
  standard error sqrt(p(1-p)/n);
- strict rate: the study's Eq. 1 as written, unscored answers counted as hallucinations (answers unscored for want
  of a reference are still left out: there is no truth to compare with); not computed for reference-free tasks,
  whose unscored pairs are judge verdicts without a yes/no, not answers;
- balanced rate (disposition, doctrinal agreement; the headline figure of those tasks, as in the study's tables):
  the mean of the per-class rates, the class being the true answer (affirm / reverse, agree / disagree), so always
  answering the majority class scores 0.5; s.e. of that mean of per-class binomial rates. A row whose items have
  one class only says so (`note`): its balanced rate is the raw rate and is not comparable with the paper;
- reference-free tasks: contradiction rate between two samples, a lower bound on the true rate (Eq. 2);
- breakdowns (the study's Figures 1-5, 7) and the pooled calibration (Figure 8, pooled ECE) use one prompt style,
  few-shot by default as in the study (`PROMPT_STYLE_SELECTIONS`); they pool the reference-based tasks with a true
  premise (Figures 2-5); the complexity breakdown (Figure 1) also shows the high-complexity reference-free tasks,
  marked as lower bounds, and leaves doctrinal agreement out; the circuit breakdown (Figure 3) uses cases decided
  after 1981; the false-premise tasks are reported apart (contra-factual bias, Figure 7);
- calibration: ECE with `width` bins + plug-in estimator (the authors' code) and `mass` bins + debiased estimator
  (the paper's text; Kumar et al. 2019), bootstrap standard errors (seeded), and Platt-rescaled ECE on a held-out
  split (see `lexprobe.stats`).
"""

from __future__ import annotations

import math
import sqlite3
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from datetime import date

import numpy as np

from lexprobe.caselaw.judges import Judge, resolve_justice
from lexprobe.caselaw.query import CaseDatabase
from lexprobe.hallucination.answers import extract_judge_name
from lexprobe.hallucination.results import Unit
from lexprobe.hallucination.tasks import TASKS
from lexprobe.stats import (
    apply_platt,
    balanced_rate_se,
    bin_groups,
    bootstrap_se,
    expected_calibration_error,
    hallucination_rate,
    platt_scale,
    strict_rate,
)

#: Tasks whose headline figure is the class-balanced rate: task -> the reference key holding an item's class
#: (`TaskSpec.balanced_on` in the task registry).
BALANCED_TASKS = {task.id: task.balanced_on for task in TASKS.values() if task.balanced_on}
#: What a rate row of a balanced task says when its items have one class (the offline treatment data has only
#: "disagree" pairs): the balanced rate is then the raw rate.
SINGLE_CLASS_NOTE = "single class: not comparable with the paper"
#: The answers the pooled figures and the pooled ECE use, by `--prompt-style`: "few" (the study's choice: the
#: few-shot answers, and the zero-shot answers of tasks the study asks zero-shot only), "zero", or "all".
PROMPT_STYLE_SELECTIONS = ("few", "zero", "all")
#: Figure 3 (circuits) uses appeals cases decided after 1981 ("post-1981 cases only"; the Online Appendix: "we
#: exclude cases decided prior to 1982"), so that young circuits compare fairly with old ones.
CIRCUIT_FIRST_YEAR = 1982
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
ECE_WIDTH = "width bins, plug-in (authors' code: uncertainty-calibration get_ece; bins (i/K, (i+1)/K])"
ECE_MASS = "mass bins, debiased (paper; Kumar et al. 2019; thresholds as uncertainty-calibration get_equal_bins)"


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
    balanced_se: float | None = None
    strict_rate: float | None = None
    strict_se: float | None = None
    classes: int | None = None  # balanced tasks: how many classes the row's items have
    lower_bound: bool = False
    note: str = ""


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
        row = RateRow(
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
            lower_bound=group[0].reference_free,
        )
        if not row.lower_bound:
            row.strict_rate, row.strict_se = strict_rate([u.label for u in group if u.label and not no_reference(u)])
        if task in BALANCED_TASKS:
            _balanced_fields(row, group, BALANCED_TASKS[task])
        rows.append(row)
    return rows


def single_class_notes(database: CaseDatabase) -> dict[str, str]:
    """Return {task: note} for each class-balanced task whose truth has a single class in the case database: doctrinal
    agreement when the treatment data holds only one agreement label (offline: "disagree" only). Raises `StoreError`
    when the database cannot be read."""
    try:
        labels = [row[0] for row in database.conn.execute("SELECT DISTINCT agreement FROM treatments")]
    except sqlite3.OperationalError:  # a database built without treatment data: the task is skipped anyway
        return {}
    labels = sorted(label for label in labels if label)
    if len(labels) != 1:
        return {}
    return {"doctrinal_agreement": f"{SINGLE_CLASS_NOTE} (the treatment data has only {labels[0]!r} pairs)"}


def no_reference(unit: Unit) -> bool:
    """Whether the unit is unscored for want of a reference (no truth to compare with), not for its answer."""
    return unit.label == "unscored" and unit.detail.startswith("reference missing")


def _balanced_fields(row: RateRow, group: list[Unit], key: str) -> None:
    """Fill the balanced rate and its s.e.; the classes are those of the row's items (every unit asked), and a row
    with one class says so."""
    scored = [unit for unit in group if unit.scored]
    row.balanced_rate, row.balanced_se = balanced_rate_se(
        [unit.label for unit in scored], [str(unit.reference.get(key)) for unit in scored]
    )
    row.classes = len({str(unit.reference.get(key)) for unit in group if unit.reference.get(key) not in (None, "")})
    if row.classes == 1:
        row.note = SINGLE_CLASS_NOTE


def _row_order(key: tuple[str, str, str, str]) -> tuple:
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


def in_prompt_style(unit: Unit, selection: str) -> bool:
    """Whether a unit belongs to the answers `selection` (see `PROMPT_STYLE_SELECTIONS`) picks for the pooled
    figures: "few" takes the few-shot answers, and the zero-shot answers of a task the study asks zero-shot only
    (reference-free and contra-factual tasks, which Figures 1 and 7 show); "zero" the zero-shot answers; "all"
    every answer. Raises ValueError on another selection."""
    if selection == "all":
        return True
    if selection == "zero":
        return unit.prompt_style == "zero"
    if selection == "few":
        spec = TASKS.get(unit.task)
        zero_only = spec is not None and "few" not in spec.styles
        return unit.prompt_style == "few" or (zero_only and unit.prompt_style == "zero")
    raise ValueError(f"prompt style must be one of {', '.join(PROMPT_STYLE_SELECTIONS)}, not {selection!r}")


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


def breakdowns(units: list[Unit], prompt_style: str = "few") -> dict[str, list[GroupRate]]:
    """Return every breakdown of Section 4.1 (each pooled over true-premise reference-based tasks unless named),
    over the answers `prompt_style` selects (`in_prompt_style`), except the prompt-style breakdown itself."""
    every_style = [unit for unit in units if true_premise_reference_based(unit)]
    chosen = [unit for unit in units if in_prompt_style(unit, prompt_style)]
    pooled = [unit for unit in chosen if true_premise_reference_based(unit)]
    scotus = [unit for unit in pooled if unit.level == "scotus"]
    figure_1 = [u for u in chosen if u.complexity != FALSE_PREMISE and u.task != "doctrinal_agreement"]
    circuits = [u for u in pooled if u.level == "coa" and u.year is not None and u.year >= CIRCUIT_FIRST_YEAR]
    deciles = [f"{low}-{low + 10}" for low in range(0, 100, 10)]
    return {
        "complexity": breakdown(figure_1, lambda u: u.complexity, COMPLEXITY_ORDER),
        "level": breakdown(pooled, lambda u: u.level, LEVEL_ORDER),
        "prompt_style": breakdown(every_style, lambda u: u.prompt_style, ("zero", "few")),
        "model": breakdown(pooled, lambda u: "all tasks"),
        "circuit": breakdown(circuits, lambda u: u.circuit, [f"ca{i}" for i in range(1, 12)]),
        "decade": breakdown(scotus, lambda u: decade_of(u.year)),
        "era": breakdown(scotus, lambda u: era_of(u.year), [era_of(start) or "" for _, start, _ in ERAS]),
        "prominence": breakdown(scotus, lambda u: prominence_decile(u.prominence), deciles),
        "contra_factual": breakdown(
            [u for u in chosen if u.complexity == FALSE_PREMISE], lambda u: f"{u.task} / {u.level}"
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
    """Return (width/plug-in ECE, mass/debiased ECE); the debiased one is NaN (reported as none) where a bin holds a
    single answer and the estimator is undefined."""
    return expected_calibration_error(x, y, bins, "width", debias=False), _mass_debiased(x, y, bins, seed, 1000)


def _mass_debiased(x: np.ndarray, y: np.ndarray, bins: int, seed: int, draws: int) -> float:
    try:
        return expected_calibration_error(x, y, bins, "mass", debias=True, seed=seed, draws=draws)
    except ValueError:
        return math.nan


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
        lambda d: _mass_debiased(d[:, 0], d[:, 1], bins, seed, 200), data, seed=seed
    )
    if not math.isfinite(row.ece_mass_debiased):
        row.note = "mass/debiased ECE undefined: a bin holds a single answer"
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
        row.note = _join(row.note, "Platt scaling needs both outcomes in the fitting split and two held-out answers")
        return
    a, b = platt_scale(x[fit], y[fit])
    scaled = apply_platt(x[evaluate], a, b)
    row.platt_ece_width, row.platt_ece_mass_debiased = _ece_pair(scaled, y[evaluate], bins, seed)
    row.platt_n = len(evaluate)
    if holdout <= 0:
        row.note = _join(row.note, "Platt scaling evaluated in-sample (no held-out split)")


def _join(*notes: str) -> str:
    return "; ".join(note for note in notes if note)


def _measured(unit: Unit) -> bool:
    return unit.confidence is not None and unit.label in ("correct", "hallucination")


def pooled_calibration_units(units: Iterable[Unit], prompt_style: str = "few") -> dict[str, list[Unit]]:
    """Return per model the units of the pooled ECE and the calibration curves (Figure 8): measured answers of the
    true-premise reference-based tasks (the study's Table 7 tasks) in the selected prompt style."""
    pooled: dict[str, list[Unit]] = defaultdict(list)
    for unit in units:
        if _measured(unit) and true_premise_reference_based(unit) and in_prompt_style(unit, prompt_style):
            pooled[unit.model].append(unit)
    return pooled


def calibration_rows(
    units: Iterable[Unit], *, bins: int = 10, seed: int = 0, holdout: float = 0.5, prompt_style: str = "few"
) -> list[CalibrationRow]:
    """Return ECE per model x task x level x style (the study's Table 7) and pooled per model (Figure 8) over the
    answers `prompt_style` selects (the pooled row's `prompt_style` names it)."""
    units = list(units)
    groups: dict[tuple[str, str, str, str], list[Unit]] = defaultdict(list)
    for unit in units:
        if _measured(unit):
            groups[(unit.model, unit.task, unit.level, unit.prompt_style)].append(unit)
    rows = [
        calibration_row(*key, group, bins=bins, seed=seed, holdout=holdout)
        for key, group in sorted(groups.items(), key=lambda item: _row_order(item[0]))
    ]
    rows += [
        calibration_row(model, "pooled", "all", prompt_style, group, bins=bins, seed=seed, holdout=holdout)
        for model, group in sorted(pooled_calibration_units(units, prompt_style).items())
    ]
    return rows


def calibration_curves(
    units: Iterable[Unit], bins: int = 10, prompt_style: str = "few"
) -> dict[str, list[tuple[float, float, int]]]:
    """Return per model the (mean confidence, share correct, n) of `bins` equal-mass bins (the package's
    thresholds, as the mass ECE), over the pooled calibration units (`pooled_calibration_units`)."""
    pooled = pooled_calibration_units(units, prompt_style)
    curves = {}
    for model, group in sorted(pooled.items()):
        x = np.array([unit.confidence for unit in group], dtype=float)
        y = np.array([unit.label == "correct" for unit in group], dtype=float)
        curves[model] = [
            (float(x[chunk].mean()), float(y[chunk].mean()), len(chunk)) for chunk in bin_groups(x, bins, "mass")
        ]
    return curves


def profile(
    units: list[Unit],
    roster: list[Judge],
    *,
    bins: int = 10,
    seed: int = 0,
    holdout: float = 0.5,
    prompt_style: str = "few",
) -> dict:
    """Return every statistic of the profile as JSON-ready data; `prompt_style` selects the answers of the pooled
    breakdowns, the pooled ECE and the calibration curves (`in_prompt_style`). Raises ValueError on an unknown
    prompt style."""
    if prompt_style not in PROMPT_STYLE_SELECTIONS:
        raise ValueError(f"prompt style must be one of {', '.join(PROMPT_STYLE_SELECTIONS)}, not {prompt_style!r}")
    calibration = calibration_rows(units, bins=bins, seed=seed, holdout=holdout, prompt_style=prompt_style)
    return {
        "estimators": estimator_names(bins=bins, holdout=holdout, prompt_style=prompt_style),
        "rates": [asdict(row) for row in rate_rows(units)],
        "breakdowns": {name: [asdict(g) for g in groups] for name, groups in breakdowns(units, prompt_style).items()},
        "justice_bias": [asdict(row) for row in justice_bias(units, roster)],
        "calibration": [_finite(asdict(row)) for row in calibration],
        "calibration_curves": calibration_curves(units, bins, prompt_style),
    }


#: What each `--prompt-style` selection means, as the reports say it.
PROMPT_STYLE_TEXT = {
    "few": "few-shot answers (zero-shot for tasks asked zero-shot only: reference-free and contra-factual), "
    "as in the study",
    "zero": "zero-shot answers only",
    "all": "zero-shot and few-shot answers pooled",
}


def estimator_names(*, bins: int, holdout: float, prompt_style: str) -> dict:
    """Return the name of every estimator a profile uses, as the reports print them."""
    return {
        "rate": "hallucinations / scored answers; abstentions count as non-hallucinations; unscored answers left "
        "out; se = sqrt(p(1-p)/n)",
        "strict_rate": "strict rate (the study's Eq. 1 as written): unscored answers counted as hallucinations "
        "(answers without a reference still left out; none for reference-free tasks); se = sqrt(p(1-p)/n)",
        "balanced_rate": "class-balanced rate, the headline of disposition and doctrinal agreement: mean of "
        "per-class rates (class = true answer); se = sqrt(sum_c p_c(1-p_c)/n_c) / C",
        "single_class": f"{SINGLE_CLASS_NOTE}: the row's items have one class, so its balanced rate is its raw rate",
        "reference_free": "contradiction rate between two samples: a lower bound",
        "prompt_style": prompt_style,
        "pooled": f"figures 1-5, 7-8 and the pooled ECE: {PROMPT_STYLE_TEXT[prompt_style]}; figure 1 leaves "
        f"doctrinal agreement out; figure 3 uses appeals cases decided from {CIRCUIT_FIRST_YEAR} (post-1981)",
        "ece_width": ECE_WIDTH,
        "ece_mass_debiased": ECE_MASS,
        "ece_se": "bootstrap standard error, 200 replicates, seeded",
        "platt": f"Platt scaling fitted on {1 - holdout:.0%} of answers, ECE on the held-out {holdout:.0%}"
        if holdout > 0
        else "Platt scaling fitted and evaluated on all answers (in-sample)",
        "bins": bins,
    }


def _finite(row: dict) -> dict:
    return {
        key: (None if isinstance(value, float) and not math.isfinite(value) else value) for key, value in row.items()
    }
