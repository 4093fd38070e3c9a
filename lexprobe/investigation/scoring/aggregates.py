"""Aggregates over episodes with cluster-bootstrap intervals (resampling environments), and paired differences.
The investigation-specific parts (the per-environment sums, the metrics as ratios of sums) are here; the generic
resampling and percentile interval are `lexprobe.stats`'s."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from lexprobe.investigation.scoring.metrics import METRICS, EpisodeScore
from lexprobe.investigation.scoring.schema import Comparison, MetricDifference
from lexprobe.stats import (
    cluster_bootstrap_totals,
    cluster_sums,
    paired_cluster_bootstrap_totals,
    percentile_interval,
    share_above_zero,
)

# --- aggregates and the cluster bootstrap ---------------------------------------------------------------------

# columns of the per-environment sums the aggregates and every bootstrap resample are computed from
_N, _SOLVED, _BEL, _BEL_N, _REJ, _REJ_N, _VERDICTS, _COMMITTED, _COMMITTED_OK = range(9)
_COLUMNS = 9


def _row(score: EpisodeScore) -> list[float]:
    return [
        1.0,
        float(score.case_solved),
        score.believe_acc or 0.0,
        float(score.believe_acc is not None),
        score.reject_acc or 0.0,
        float(score.reject_acc is not None),
        float(score.n_verdicts),
        float(score.n_committed),
        float(score.n_committed_correct),
    ]


def _cluster_sums(scores: Sequence[EpisodeScore]) -> tuple[list[str], np.ndarray]:
    """Per environment (in first-seen order), the column sums of its episodes."""
    keys, sums = cluster_sums([score.environment for score in scores], [_row(score) for score in scores])
    return keys, sums.reshape(len(keys), _COLUMNS)


def _ratio(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(denominator > 0, numerator / np.where(denominator > 0, denominator, 1), np.nan)


def _statistics(totals: np.ndarray) -> dict[str, np.ndarray]:
    """Every metric from column totals (shape (..., 9)); NaN where undefined."""
    believe = _ratio(totals[..., _BEL], totals[..., _BEL_N])
    reject = _ratio(totals[..., _REJ], totals[..., _REJ_N])
    return {
        "case_solved": _ratio(totals[..., _SOLVED], totals[..., _N]),
        "believe_acc": believe,
        "reject_acc": reject,
        "worst_class_acc": np.minimum(believe, reject),  # NaN when either is undefined
        "commit_rate": _ratio(totals[..., _COMMITTED], totals[..., _VERDICTS]),
        "committed_acc": _ratio(totals[..., _COMMITTED_OK], totals[..., _COMMITTED]),
    }


def _value(array: np.ndarray) -> float | None:
    value = float(array)
    return None if math.isnan(value) else value


def cluster_bootstrap_ci(
    scores: Sequence[EpisodeScore],
    metric: str = "case_solved",
    *,
    replicates: int = 2000,
    seed: int = 0,
    level: float = 0.95,
) -> tuple[float, float] | None:
    """Return the percentile interval of `metric` (one of `METRICS`) over `replicates` resamples of the
    environments (with replacement, each keeping all its episodes), or None with fewer than two environments."""
    if metric not in METRICS:
        raise ValueError(f"unknown metric {metric!r}; choose one of {', '.join(METRICS)}")
    keys, sums = _cluster_sums(scores)
    if len(keys) < 2 or replicates < 1:
        return None
    totals = cluster_bootstrap_totals(sums, replicates=replicates, seed=seed)
    return percentile_interval(_statistics(totals)[metric], level)


@dataclass(frozen=True)
class Aggregate:
    """The verdict metrics of a group of episodes (definitions: docs/investigation.md, "Scoring")."""

    n_episodes: int
    n_environments: int
    n_unparsed: int
    case_solved: float | None
    case_solved_ci: tuple[float, float] | None
    believe_acc: float | None
    reject_acc: float | None
    worst_class_acc: float | None
    commit_rate: float | None
    committed_acc: float | None


def aggregate(
    scores: Sequence[EpisodeScore], *, replicates: int = 2000, seed: int = 0, level: float = 0.95
) -> Aggregate:
    """Aggregate episode scores: means over episodes, pooled commitment, the case-solved bootstrap interval."""
    keys, sums = _cluster_sums(scores)
    stats = _statistics(sums.sum(axis=0))
    return Aggregate(
        n_episodes=len(scores),
        n_environments=len(keys),
        n_unparsed=sum(score.unparsed for score in scores),
        case_solved=_value(stats["case_solved"]),
        case_solved_ci=cluster_bootstrap_ci(scores, replicates=replicates, seed=seed, level=level),
        believe_acc=_value(stats["believe_acc"]),
        reject_acc=_value(stats["reject_acc"]),
        worst_class_acc=_value(stats["worst_class_acc"]),
        commit_rate=_value(stats["commit_rate"]),
        committed_acc=_value(stats["committed_acc"]),
    )


@dataclass(frozen=True)
class PairedDifference:
    """b - a for one metric on shared environments, with its paired bootstrap interval."""

    metric: str
    a: float | None
    b: float | None
    difference: float | None
    ci: tuple[float, float] | None
    share_above_zero: float | None  # share of resamples with a difference > 0 (ties at 0 do not count)


def paired_bootstrap(
    a: Sequence[EpisodeScore],
    b: Sequence[EpisodeScore],
    metrics: Sequence[str] = ("case_solved", "worst_class_acc"),
    *,
    replicates: int = 2000,
    seed: int = 0,
    level: float = 0.95,
) -> tuple[int, dict[str, PairedDifference]]:
    """Compare two groups of episodes paired by environment: only environments both have are used; each resample
    draws environments with replacement and takes every episode of a drawn environment on both sides. Returns the
    number of shared environments and, per metric, b - a with its percentile interval and the share of resamples
    above zero (interval and share None with fewer than two shared environments)."""
    unknown = [m for m in metrics if m not in METRICS]
    if unknown:
        raise ValueError(f"unknown metric(s) {unknown}; choose from {', '.join(METRICS)}")
    keys_a, sums_a = _cluster_sums(a)
    keys_b, sums_b = _cluster_sums(b)
    index_a = {key: i for i, key in enumerate(keys_a)}
    index_b = {key: i for i, key in enumerate(keys_b)}
    shared = [key for key in keys_a if key in index_b]
    rows_a = sums_a[[index_a[key] for key in shared]] if shared else np.zeros((0, _COLUMNS))
    rows_b = sums_b[[index_b[key] for key in shared]] if shared else np.zeros((0, _COLUMNS))
    point_a, point_b = _statistics(rows_a.sum(axis=0)), _statistics(rows_b.sum(axis=0))
    resampled_a = resampled_b = None
    if len(shared) >= 2 and replicates >= 1:
        totals_a, totals_b = paired_cluster_bootstrap_totals(rows_a, rows_b, replicates=replicates, seed=seed)
        resampled_a, resampled_b = _statistics(totals_a), _statistics(totals_b)
    result = {}
    for metric in metrics:
        value_a, value_b = _value(point_a[metric]), _value(point_b[metric])
        difference = None if value_a is None or value_b is None else value_b - value_a
        ci = share = None
        if resampled_a is not None and resampled_b is not None:
            deltas = resampled_b[metric] - resampled_a[metric]
            ci, share = percentile_interval(deltas, level), share_above_zero(deltas)
        result[metric] = PairedDifference(metric, value_a, value_b, difference, ci, share)
    return len(shared), result


def rounded(value: float | None, digits: int = 6) -> float | None:
    """`value` rounded as the summary rounds its numbers (shares to 6 digits); None stays None."""
    return None if value is None else round(value, digits)


def rounded_interval(ci: tuple[float, float] | None) -> tuple[float, float] | None:
    """An interval with both ends rounded to 6 digits; None stays None."""
    return None if ci is None else (round(ci[0], 6), round(ci[1], 6))


def metric_difference(d: PairedDifference) -> MetricDifference:
    """One `PairedDifference` as the summary reports it, rounded."""
    return MetricDifference(a=rounded(d.a), b=rounded(d.b), difference=rounded(d.difference),
                            ci=rounded_interval(d.ci), share_above_zero=rounded(d.share_above_zero))  # fmt: skip


def paired_comparison(
    kind: str,
    model: str | None,
    pair: tuple[str, str],
    side_a: Sequence[EpisodeScore],
    side_b: Sequence[EpisodeScore],
    *,
    replicates: int = 2000,
    seed: int = 0,
    level: float = 0.95,
) -> Comparison:
    """The `Comparison` of two sides already kept to the units both share (`paired_bootstrap` pairs them by
    environment): b - a of case solved and worst-class accuracy, and how many episodes each side has."""
    n_shared, diffs = paired_bootstrap(side_a, side_b, replicates=replicates, seed=seed, level=level)
    return Comparison(
        kind=kind,
        model=model,
        a=pair[0],
        b=pair[1],
        n_environments=n_shared,
        n_episodes_a=len(side_a),
        n_episodes_b=len(side_b),
        case_solved=metric_difference(diffs["case_solved"]),
        worst_class_acc=metric_difference(diffs["worst_class_acc"]),
    )
