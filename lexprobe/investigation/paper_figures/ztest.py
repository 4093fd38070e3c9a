"""The two-sided z-test of a difference from two standard errors, and the standard error of a proportion from its
counts (no scipy: the normal tail is `math.erfc`)."""

from __future__ import annotations

import math


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
