"""Calibration of a hallucination profile (the study's Table 7 and Figure 8): ECE per model x task x level x prompt
style and pooled per model, with `width` bins + plug-in estimator (the authors' code) and `mass` bins + debiased
estimator (the paper's text; Kumar et al. 2019), seeded bootstrap standard errors, Platt-rescaled ECE on a held-out
split, and the calibration curves (see `lexprobe.stats`)."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from lexprobe.hallucination.profile.results import Unit, in_prompt_style, row_order, true_premise_reference_based
from lexprobe.stats import apply_platt, bin_groups, bootstrap_se, expected_calibration_error, platt_scale

ECE_WIDTH = "width bins, plug-in (authors' code: uncertainty-calibration get_ece; bins (i/K, (i+1)/K])"
ECE_MASS = "mass bins, debiased (paper; Kumar et al. 2019; thresholds as uncertainty-calibration get_equal_bins)"


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
        for key, group in sorted(groups.items(), key=lambda item: row_order(item[0]))
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
