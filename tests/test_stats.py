"""Known-value tests for lexprobe.stats (hand-computed cases and the published formulas)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from lexprobe.stats import (
    apply_platt,
    balanced_rate,
    bootstrap_se,
    cohen_kappa,
    expected_calibration_error,
    hallucination_rate,
    platt_scale,
)


def test_rate_counts_abstentions_as_non_hallucinations_and_drops_unscored() -> None:
    rate, se = hallucination_rate(["hallucination", "correct", "abstain", "hallucination", "unscored"])
    assert rate == 0.5
    assert se == pytest.approx(math.sqrt(0.25 / 4))
    assert hallucination_rate(["unscored"]) == (None, None)


def test_balanced_rate_is_the_mean_of_class_rates() -> None:
    # 9 affirm items all correct, 1 reverse item wrong: plain rate 0.1, balanced (0 + 1) / 2
    labels = ["correct"] * 9 + ["hallucination"]
    classes = ["affirm"] * 9 + ["reverse"]
    assert balanced_rate(labels, classes) == 0.5


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        (["y", "y", "n", "n"], ["y", "y", "n", "n"], 1.0),
        (["y", "n", "y", "n"], ["n", "y", "n", "y"], -1.0),
        # observed 0.7; expected 0.5*0.6 + 0.5*0.4 = 0.5; kappa = 0.2 / 0.5
        (["y"] * 5 + ["n"] * 5, ["y", "y", "y", "y", "n", "y", "y", "n", "n", "n"], 0.4),
    ],
)
def test_cohen_kappa_known_values(a: list[str], b: list[str], expected: float) -> None:
    assert cohen_kappa(a, b) == pytest.approx(expected)


def test_kappa_rejects_bad_input() -> None:
    with pytest.raises(ValueError):
        cohen_kappa(["y"], [])


def test_width_ece_hand_computed() -> None:
    # bin 1 (0.1-0.2): conf 0.15, 0.15 with outcomes 0, 1 -> |0.5 - 0.15| = 0.35, weight 2/4
    # bin 9 (0.9-1.0): conf 0.95, 1.0 with outcomes 1, 1 -> |1 - 0.975| = 0.025, weight 2/4
    ece = expected_calibration_error([0.15, 0.15, 0.95, 1.0], [0, 1, 1, 1], bins=10, binning="width")
    assert ece == pytest.approx(0.5 * 0.35 + 0.5 * 0.025)


def test_bin_edges_are_right_closed() -> None:
    # as uncertainty-calibration's get_ece (issue 13; this test asserted left-closed bins before): 0.1 belongs to
    # the first bin, with 0.05: |mean acc 0.5 - mean conf 0.075|; 0.15 alone in the second bin: |1 - 0.15|
    ece = expected_calibration_error([0.05, 0.1, 0.15], [0, 1, 1], bins=10, binning="width")
    assert ece == pytest.approx((2 / 3) * 0.425 + (1 / 3) * 0.85)


def test_mass_bins_split_sorted_confidences_evenly() -> None:
    # 2 bins of 2: {0.1, 0.2} outcomes {0, 0} -> 0.15; {0.8, 0.9} outcomes {1, 1} -> 0.15
    ece = expected_calibration_error([0.9, 0.1, 0.8, 0.2], [1, 0, 1, 0], bins=2, binning="mass")
    assert ece == pytest.approx(0.15)


def test_debiasing_removes_most_of_the_plug_in_bias_on_calibrated_data() -> None:
    rng = np.random.default_rng(3)
    confidences = rng.uniform(0, 1, 2000)
    outcomes = rng.uniform(0, 1, 2000) < confidences  # perfectly calibrated
    plug_in = expected_calibration_error(confidences, outcomes, binning="mass")
    debiased = expected_calibration_error(confidences, outcomes, binning="mass", debias=True, seed=1)
    assert debiased < plug_in
    assert abs(debiased) < 0.02
    again = expected_calibration_error(confidences, outcomes, binning="mass", debias=True, seed=1)
    assert again == debiased


def test_ece_rejects_bad_input() -> None:
    with pytest.raises(ValueError):
        expected_calibration_error([], [])
    with pytest.raises(ValueError):
        expected_calibration_error([1.2], [1])
    with pytest.raises(ValueError):
        expected_calibration_error([0.5], [1], binning="quantile")  # type: ignore[arg-type]


def test_bootstrap_se_of_a_mean() -> None:
    data = np.array([0, 1] * 200, dtype=float)
    se = bootstrap_se(np.mean, data, replicates=400, seed=2)
    assert se == pytest.approx(0.5 / math.sqrt(400), rel=0.2)
    assert bootstrap_se(np.mean, data, replicates=400, seed=2) == se


def test_platt_scaling_recovers_overconfidence() -> None:
    rng = np.random.default_rng(5)
    truth = rng.uniform(0.05, 0.95, 4000)
    outcomes = rng.uniform(0, 1, 4000) < truth
    overconfident = 1 / (1 + np.exp(-3 * np.log(truth / (1 - truth))))  # logits tripled
    a, b = platt_scale(overconfident, outcomes)
    assert a == pytest.approx(1 / 3, abs=0.06)
    assert abs(b) < 0.1
    before = expected_calibration_error(overconfident, outcomes)
    after = expected_calibration_error(apply_platt(overconfident, a, b), outcomes)
    assert after < before / 2
