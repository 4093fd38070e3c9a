"""Statistics: rates with standard errors (plain, strict and class-balanced), Cohen's kappa, expected calibration
error in both variants the study's paper and code differ on (binned exactly as the `uncertainty-calibration`
package 0.1.4: `binning="width"` with the plug-in estimator, `binning="mass"` with the debiased one), bootstrap
standard errors, Platt scaling, rank correlation and the cluster and paired bootstrap primitives. What each rate and
ECE variant is: docs/hallucination.md ("Labels and rates", "Calibration").
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:  # imported inside the functions that compute with it: importing stats stays cheap
    import numpy as np

Binning = Literal["width", "mass"]
SCORED = ("correct", "hallucination", "abstain")


def hallucination_rate(labels: Sequence[str]) -> tuple[float | None, float | None]:
    """Return (rate, binomial standard error) over scored labels; abstentions count as non-hallucinations and
    `unscored` labels are left out (the study's Eq. 1). (None, None) when nothing is scored."""
    return _binomial([label == "hallucination" for label in _scored(labels)])


def _binomial(hits: Sequence[bool]) -> tuple[float | None, float | None]:
    if not hits:
        return None, None
    rate = sum(hits) / len(hits)
    return rate, math.sqrt(rate * (1 - rate) / len(hits))


def strict_rate(labels: Sequence[str]) -> tuple[float | None, float | None]:
    """Return (rate, binomial standard error) of the study's Eq. 1 as written: among answers labelled correct,
    hallucination, abstain or unscored, the share that are hallucinations or unscored (an answer that cannot be read
    as the truth is not the truth); abstentions count as non-hallucinations. (None, None) when there is none.
    Callers leave out answers that are unscored for want of a reference (no truth to compare with)."""
    return _binomial([label in ("hallucination", "unscored") for label in labels if label in (*SCORED, "unscored")])


def balanced_rate_se(labels: Sequence[str], classes: Sequence[Hashable]) -> tuple[float | None, float | None]:
    """Return (balanced rate, standard error): the mean of the per-class hallucination rates (class = each item's
    true answer, e.g. affirm / reverse), so a model that always says the majority class scores 0.5, and the standard
    error of that mean of C independent binomial rates, sqrt(sum_c p_c(1 - p_c)/n_c) / C. Classes with no scored
    answer are left out. (None, None) when nothing is scored."""
    by_class: dict[Hashable, list[str]] = {}
    for label, cls in zip(labels, classes, strict=True):
        by_class.setdefault(cls, []).append(label)
    per_class = [(hallucination_rate(group)[0], len(_scored(group))) for group in by_class.values()]
    per_class = [(rate, n) for rate, n in per_class if rate is not None]
    if not per_class:
        return None, None
    count = len(per_class)
    mean = sum(rate for rate, _ in per_class) / count
    return mean, math.sqrt(sum(rate * (1 - rate) / n for rate, n in per_class)) / count


def balanced_rate(labels: Sequence[str], classes: Sequence[Hashable]) -> float | None:
    """Return the balanced rate of `balanced_rate_se` alone."""
    return balanced_rate_se(labels, classes)[0]


def _scored(labels: Sequence[str]) -> list[str]:
    return [label for label in labels if label in SCORED]


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


def bin_edges(confidences: np.ndarray, bins: int, binning: Binning) -> np.ndarray:
    """Return the upper bin edges (the last is 1.0) of `uncertainty-calibration`'s `get_equal_prob_bins` (width)
    or `get_equal_bins` (mass); see the module docstring."""
    import numpy as np

    if binning == "width":
        return np.array([i / bins for i in range(1, bins + 1)])
    if binning == "mass":
        ordered = np.sort(confidences)
        runs = np.array_split(ordered, min(bins, len(ordered)))
        cuts = [(runs[i][-1] + runs[i + 1][0]) / 2.0 for i in range(len(runs) - 1)]
        return np.array(sorted({*cuts, 1.0}))
    raise ValueError(f"binning must be 'width' or 'mass', not {binning!r}")


def bin_groups(confidences: np.ndarray, bins: int, binning: Binning) -> list[np.ndarray]:
    """Return the indices of the confidences in each non-empty bin of `bin_edges` (bins closed on the right, the
    first holding 0), lowest bin first."""
    import numpy as np

    edges = bin_edges(confidences, bins, binning)
    which = np.searchsorted(edges, confidences, side="left")
    groups = [np.flatnonzero(which == b) for b in range(len(edges))]
    return [group for group in groups if len(group)]


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
    confidences outside [0, 1], on an unknown binning, and (debiased) on a bin holding a single answer."""
    import numpy as np

    x = np.asarray(confidences, dtype=float)
    y = np.asarray(correct, dtype=float)
    if len(x) == 0 or len(x) != len(y):
        raise ValueError("ECE needs equally long, non-empty confidences and outcomes")
    if np.any((x < 0) | (x > 1)):
        raise ValueError("confidences must lie in [0, 1]")
    groups = bin_groups(x, bins, binning)
    plug_in = _plug_in(x, y, groups)
    if not debias:
        return plug_in
    sizes = np.array([len(g) for g in groups])
    if sizes.min() < 2:
        raise ValueError("the debiased ECE needs at least 2 answers in every bin (as uncertainty-calibration)")
    accuracy = np.array([y[g].mean() for g in groups])
    confidence = np.array([x[g].mean() for g in groups])
    spread = np.sqrt(accuracy * (1 - accuracy) / sizes)
    redrawn = np.random.RandomState(seed).normal(accuracy, spread, size=(draws, len(sizes)))
    resampled = (np.abs(redrawn - confidence) @ (sizes / len(x))).mean()
    return float(2 * plug_in - resampled)


def bootstrap_se(
    statistic: Callable[[np.ndarray], float], data: Sequence, *, replicates: int = 200, seed: int = 0
) -> float:
    """Return the bootstrap standard error of `statistic` over the rows of `data` (seeded, reproducible).
    Replicates where the statistic is undefined (it returns NaN) are left out; NaN when fewer than two remain."""
    import numpy as np

    rows = np.asarray(data)
    if len(rows) < 2:
        raise ValueError("bootstrap needs at least two rows")
    rng = np.random.default_rng(seed)
    values = np.array([statistic(rows[rng.integers(0, len(rows), len(rows))]) for _ in range(replicates)], float)
    values = values[np.isfinite(values)]
    return float(np.std(values, ddof=1)) if len(values) >= 2 else math.nan


def platt_scale(
    confidences: Sequence[float], correct: Sequence[bool | int], *, iterations: int = 100
) -> tuple[float, float]:
    """Fit Platt scaling: P(correct) = sigmoid(a * logit(c) + b). Returns (a, b), fitted by Newton's method on the
    log-loss (confidences are clipped to [1e-4, 1 - 1e-4] before the logit)."""
    import numpy as np

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
    import numpy as np

    c = np.clip(np.asarray(confidences, dtype=float), 1e-4, 1 - 1e-4)
    return 1 / (1 + np.exp(-(a * np.log(c / (1 - c)) + b)))


# --- rank correlation ------------------------------------------------------------------------------------------


def average_ranks(values: Sequence[float]) -> np.ndarray:
    """Ranks 1..n of `values`, ties given the mean of the ranks they span."""
    import numpy as np

    x = np.asarray(values, dtype=float)
    order = np.argsort(x, kind="stable")
    ranks = np.empty(len(x))
    start = 0
    while start < len(x):
        end = start
        while end + 1 < len(x) and x[order[end + 1]] == x[order[start]]:
            end += 1
        ranks[order[start : end + 1]] = (start + end) / 2 + 1
        start = end + 1
    return ranks


def spearman(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Spearman's rho: the Pearson correlation of the average ranks. None with fewer than two pairs or when either
    side is constant. Raises ValueError on unequal lengths."""
    if len(x) != len(y):
        raise ValueError(f"spearman needs equally long inputs, not {len(x)} and {len(y)}")
    if len(x) < 2:
        return None
    rx, ry = average_ranks(x), average_ranks(y)
    dx, dy = rx - rx.mean(), ry - ry.mean()
    denominator = math.sqrt(float((dx * dx).sum() * (dy * dy).sum()))
    return None if denominator == 0 else float((dx * dy).sum() / denominator)


def ranking_correlation(a: Mapping[str, float | None], b: Mapping[str, float | None]) -> float | None:
    """Spearman's rho between two model -> score mappings (e.g. case solved on two environment sets), over the
    models both score."""
    shared = [key for key in a if key in b and a[key] is not None and b[key] is not None]
    return spearman([float(a[k]) for k in shared], [float(b[k]) for k in shared])  # type: ignore[arg-type]


# --- bootstrap primitives (cluster and paired) -----------------------------------------------------------------


def cluster_sums(clusters: Sequence[Hashable], rows: Sequence[Sequence[float]] | np.ndarray) -> tuple[list, np.ndarray]:
    """Sum the rows (one per observation, equal length) of each cluster. Returns the cluster keys in first-seen
    order and their column sums, shape (clusters, columns); (no keys, shape (0, columns)) without observations."""
    import numpy as np

    values = np.asarray(rows, dtype=float)
    if len(clusters) != len(values):
        raise ValueError(f"cluster_sums needs one cluster per row, not {len(clusters)} for {len(values)}")
    keys = list(dict.fromkeys(clusters))
    width = values.shape[1] if values.ndim == 2 else 0
    sums = np.zeros((len(keys), width))
    if keys:
        index = {key: i for i, key in enumerate(keys)}
        np.add.at(sums, [index[c] for c in clusters], values)
    return keys, sums


def resample_counts(n_clusters: int, replicates: int, seed: int) -> np.ndarray:
    """How often each of `n_clusters` clusters is drawn (with replacement, n_clusters draws) in each of
    `replicates` bootstrap resamples: an array (replicates, n_clusters) from `numpy.random.default_rng(seed)`'s
    multinomial, so the same seed gives the same resamples."""
    import numpy as np

    if n_clusters < 1:
        raise ValueError("a bootstrap needs at least one cluster")
    rng = np.random.default_rng(seed)
    return rng.multinomial(n_clusters, np.full(n_clusters, 1.0 / n_clusters), size=replicates).astype(float)


def cluster_bootstrap_totals(sums: np.ndarray, *, replicates: int, seed: int) -> np.ndarray:
    """The column totals of each cluster-bootstrap resample: `resample_counts` @ per-cluster sums, shape
    (replicates, columns). A statistic that is a function of column totals (a ratio of sums) is then computed
    per resample; resampling whole clusters keeps the observations of a cluster together."""
    import numpy as np

    sums = np.asarray(sums, dtype=float)
    return resample_counts(len(sums), replicates, seed) @ sums


def paired_cluster_bootstrap_totals(
    sums_a: np.ndarray, sums_b: np.ndarray, *, replicates: int, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    """Paired cluster bootstrap: row i of `sums_a` and of `sums_b` are the same cluster on two sides; each resample
    draws clusters once and applies the same draw to both sides. Returns both sides' totals (replicates, columns)."""
    import numpy as np

    a, b = np.asarray(sums_a, dtype=float), np.asarray(sums_b, dtype=float)
    if len(a) != len(b):
        raise ValueError(f"paired sides need the same clusters, not {len(a)} and {len(b)} rows")
    counts = resample_counts(len(a), replicates, seed)
    return counts @ a, counts @ b


def percentile_interval(values: Sequence[float] | np.ndarray, level: float = 0.95) -> tuple[float, float] | None:
    """The percentile bootstrap interval: the (1 - level)/2 and (1 + level)/2 quantiles of the resampled values
    (numpy's default linear interpolation), NaN values (undefined in a resample) left out; None when none is left."""
    import numpy as np

    array = np.asarray(values, dtype=float)
    finite = array[~np.isnan(array)]
    if not len(finite):
        return None
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(finite, [tail, 100 - tail])
    return float(low), float(high)


def share_above_zero(values: Sequence[float] | np.ndarray) -> float | None:
    """The share of resampled values (NaN left out) strictly above zero; None when none is defined."""
    import numpy as np

    array = np.asarray(values, dtype=float)
    finite = array[~np.isnan(array)]
    return float((finite > 0).mean()) if len(finite) else None
