"""The statistics of a hallucination profile (the study's Section 4): rate tables (rate, strict rate, balanced
rate), breakdowns, the justice-bias table, contra-factual rates and calibration, computed from scored units
(`results.py`); every estimator is named in the output (`estimator_names`). docs/hallucination.md defines them
("Every rate is named where it appears", "Statistics and breakdowns"). The calibration lives in `calibration.py`,
the prompt-style selection and the row order in `results.py`; `profile()` puts everything together.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from datetime import date

from lexprobe.caselaw.judges import Judge, resolve_justice
from lexprobe.caselaw.query import CaseDatabase
from lexprobe.hallucination.labels.answers import answer_text
from lexprobe.hallucination.labels.scoring import as_date
from lexprobe.hallucination.profile.results import (
    FALSE_PREMISE,
    LEVEL_ORDER,
    PROMPT_STYLE_SELECTIONS,
    Unit,
    in_prompt_style,
    row_order,
    true_premise_reference_based,
)
from lexprobe.hallucination.reader.read import read_answer
from lexprobe.hallucination.tasks import TASKS
from lexprobe.hallucination.tasks.author import AuthorReference
from lexprobe.stats import balanced_rate_se, hallucination_rate, strict_rate

__all__ = [  # with the selection constants the reports use (`lexprobe.hallucination.profile.results`)
    "BALANCED_TASKS",
    "CIRCUIT_FIRST_YEAR",
    "COMPLEXITY_ORDER",
    "ERAS",
    "LEVEL_ORDER",
    "PROMPT_STYLE_SELECTIONS",
    "PROMPT_STYLE_TEXT",
    "SINGLE_CLASS_NOTE",
    "GroupRate",
    "JusticeCount",
    "RateRow",
    "breakdown",
    "breakdowns",
    "decade_of",
    "era_of",
    "estimator_names",
    "justice_bias",
    "no_reference",
    "profile",
    "prominence_decile",
    "rate_rows",
    "single_class_notes",
]

#: Tasks whose headline figure is the class-balanced rate: task -> the reference field holding an item's class
#: (`TaskSpec.balanced_on` in the task registry).
BALANCED_TASKS = {task.id: task.balanced_on for task in TASKS.values() if task.balanced_on}
#: What a rate row of a balanced task says when its items have one class (the offline treatment data has only
#: "disagree" pairs): the balanced rate is then the raw rate.
SINGLE_CLASS_NOTE = "single class: not comparable with the paper"
#: Figure 3 (circuits) uses appeals cases decided after 1981 ("post-1981 cases only"; the Online Appendix: "we
#: exclude cases decided prior to 1982"), so that young circuits compare fairly with old ones.
CIRCUIT_FIRST_YEAR = 1982
COMPLEXITY_ORDER = ("low", "moderate", "high")
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
    for (model, task, level, style), group in sorted(groups.items(), key=lambda item: row_order(item[0])):
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
    labels = sorted(label for label in database.agreement_labels() if label)  # none without treatment data
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
        [unit.label for unit in scored], [str(getattr(unit.reference, key, None)) for unit in scored]
    )
    classes = {getattr(unit.reference, key, None) for unit in group}
    row.classes = len({str(value) for value in classes if value not in (None, "")})
    if row.classes == 1:
        row.note = SINGLE_CLASS_NOTE


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
        reference = unit.reference
        if not isinstance(reference, AuthorReference) or unit.level != "scotus" or not reference.author:
            continue
        decided = as_date(reference.decided)
        truth = resolve_justice(reference.author, decided, roster) if roster else None
        true[unit.model][truth.full_name if truth else reference.author] += 1
        name = read_answer("author", answer_text(unit.answer), roster).value if unit.answer else None
        if name and name != "per curiam":
            resolved = resolve_justice(name, decided, roster) if roster else None
            named[unit.model][resolved.full_name if resolved else name] += 1
    rows = []
    for model in sorted(set(named) | set(true)):
        for justice in sorted(set(named[model]) | set(true[model])):
            rows.append(JusticeCount(model, justice, named[model][justice], true[model][justice]))
    return rows


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
    from lexprobe.hallucination.profile.calibration import calibration_curves, calibration_rows  # numpy: here only

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
    from lexprobe.hallucination.profile.calibration import ECE_MASS, ECE_WIDTH

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
