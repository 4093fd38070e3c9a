"""Statistics of the hallucination profile: rates with standard errors, balanced rates, Cohen's kappa, expected
calibration error (both variants the study's paper and code differ on), bootstrap standard errors, Platt scaling.

ECE variants (every report names the one it uses):
- `binning="width"`, `debias=False`: 10 equal-width bins and the plain plug-in estimator, what the authors' code ran.
  Bin rule: a confidence c falls in bin min(floor(c * bins), bins - 1), so bins are closed on the left and open on
  the right, except the last, which also holds c = 1.0 (a confidence of exactly 0.1 is in the second bin).
- `binning="mass"`, `debias=True`: 10 equal-mass bins and a bias-corrected estimator, what the paper describes
  (Appendix D, after Kumar, Liang & Ma 2019). Equal mass: the confidences are sorted (stable) and cut into `bins`
  runs whose sizes differ by at most one; equal confidences may straddle a cut. Debiasing follows Kumar et al.'s
  `normal_debiased_ce`: the plug-in error is recomputed on bin accuracies redrawn from a normal approximation of
  their sampling distribution, and the mean excess over the plug-in value (the estimator's bias) is subtracted.
  The redraws are seeded, so the value is reproducible.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Sequence
from typing import Literal

import numpy as np

Binning = Literal["width", "mass"]
SCORED = ("correct", "hallucination", "abstain")


def hallucination_rate(labels: Sequence[str]) -> tuple[float | None, float | None]:
    """Return (rate, binomial standard error) over scored labels; abstentions count as non-hallucinations and
    `unscored` labels are left out (the study's Eq. 1). (None, None) when nothing is scored."""
    scored = [label for label in labels if label in SCORED]
    if not scored:
        return None, None
    rate = sum(label == "hallucination" for label in scored) / len(scored)
    return rate, math.sqrt(rate * (1 - rate) / len(scored))


def balanced_rate(labels: Sequence[str], classes: Sequence[Hashable]) -> float | None:
    """Return the mean of the per-class hallucination rates (classes = each item's true answer, e.g. affirm /
    reverse), so a model that always says the majority class does not look good. None when nothing is scored."""
    by_class: dict[Hashable, list[str]] = {}
    for label, cls in zip(labels, classes, strict=True):
        by_class.setdefault(cls, []).append(label)
    rates = [rate for rate, _ in (hallucination_rate(group) for group in by_class.values()) if rate is not None]
    return sum(rates) / len(rates) if rates else None


def cohen_kappa(a: Sequence[Hashable], b: Sequence[Hashable]) -> float:
    """Return Cohen's kappa between two coders' labels of the same items. Raises ValueError on unequal lengths or
    no items; returns 1.0 when both coders use a single identical label throughout (no chance to disagree)."""
    if len(a) != len(b) or not a:
        raise ValueError("kappa needs two equally long, non-empty label lists")
    n = len(a)
    observed = sum(x == y for x, y in zip(a, b, strict=True)) / n
    categories = set(a) | set(b)
    expected = sum((list(a).count(c) / n) * (list(b).count(c) / n) for c in categories)
    if expected == 1.0:
        return 1.0
    return (observed - expected) / (1 - expected)


def _bin_indices(confidences: np.ndarray, bins: int, binning: Binning) -> list[np.ndarray]:
    if binning == "width":
        which = np.minimum((confidences * bins).astype(int), bins - 1)
        return [np.flatnonzero(which == b) for b in range(bins)]
    if binning == "mass":
        order = np.argsort(confidences, kind="stable")
        return [chunk for chunk in np.array_split(order, bins)]
    raise ValueError(f"binning must be 'width' or 'mass', not {binning!r}")


def _plug_in(confidences: np.ndarray, correct: np.ndarray, groups: list[np.ndarray]) -> float:
    total = len(confidences)
    return float(sum(len(g) / total * abs(correct[g].mean() - confidences[g].mean()) for g in groups if len(g)))


def expected_calibration_error(
    confidences: Sequence[float],
    correct: Sequence[bool | int],
    bins: int = 10,
    binning: Binning = "width",
    debias: bool = False,
    *,
    seed: int = 0,
    draws: int = 1000,
) -> float:
    """Return the expected calibration error E|X - E[Y|X]| of confidences X against outcomes Y (see the module
    docstring for the binning rule and the debiased estimator). Raises ValueError on empty or unequal inputs, on
    confidences outside [0, 1] or on an unknown binning."""
    x = np.asarray(confidences, dtype=float)
    y = np.asarray(correct, dtype=float)
    if len(x) == 0 or len(x) != len(y):
        raise ValueError("ECE needs equally long, non-empty confidences and outcomes")
    if np.any((x < 0) | (x > 1)):
        raise ValueError("confidences must lie in [0, 1]")
    groups = _bin_indices(x, bins, binning)
    plug_in = _plug_in(x, y, groups)
    if not debias:
        return plug_in
    rng = np.random.default_rng(seed)
    total = len(x)
    sizes = np.array([len(g) for g in groups if len(g)])
    accuracy = np.array([y[g].mean() for g in groups if len(g)])
    confidence = np.array([x[g].mean() for g in groups if len(g)])
    spread = np.sqrt(accuracy * (1 - accuracy) / sizes)
    redrawn = rng.normal(accuracy, spread, size=(draws, len(sizes)))
    resampled = (sizes / total * np.abs(redrawn - confidence)).sum(axis=1).mean()
    return float(plug_in - (resampled - plug_in))


def bootstrap_se(
    statistic: Callable[[np.ndarray], float], data: Sequence, *, replicates: int = 200, seed: int = 0
) -> float:
    """Return the bootstrap standard error of `statistic` over the rows of `data` (seeded, reproducible)."""
    rows = np.asarray(data)
    if len(rows) < 2:
        raise ValueError("bootstrap needs at least two rows")
    rng = np.random.default_rng(seed)
    values = [statistic(rows[rng.integers(0, len(rows), len(rows))]) for _ in range(replicates)]
    return float(np.std(values, ddof=1))


def platt_scale(
    confidences: Sequence[float], correct: Sequence[bool | int], *, iterations: int = 100
) -> tuple[float, float]:
    """Fit Platt scaling: P(correct) = sigmoid(a * logit(c) + b). Returns (a, b), fitted by Newton's method on the
    log-loss (confidences are clipped to [1e-4, 1 - 1e-4] before the logit)."""
    c = np.clip(np.asarray(confidences, dtype=float), 1e-4, 1 - 1e-4)
    y = np.asarray(correct, dtype=float)
    features = np.column_stack([np.log(c / (1 - c)), np.ones_like(c)])
    weights = np.zeros(2)
    for _ in range(iterations):
        p = 1 / (1 + np.exp(-features @ weights))
        gradient = features.T @ (p - y)
        hessian = features.T @ (features * (p * (1 - p))[:, None]) + 1e-9 * np.eye(2)
        step = np.linalg.solve(hessian, gradient)
        weights -= step
        if np.max(np.abs(step)) < 1e-10:
            break
    return float(weights[0]), float(weights[1])


def apply_platt(confidences: Sequence[float], a: float, b: float) -> np.ndarray:
    """Return recalibrated confidences sigmoid(a * logit(c) + b)."""
    c = np.clip(np.asarray(confidences, dtype=float), 1e-4, 1 - 1e-4)
    return 1 / (1 + np.exp(-(a * np.log(c / (1 - c)) + b)))
