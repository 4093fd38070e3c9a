"""The exact naive-policy baselines (uniform random verdicts, believe one at random, always reject): the expected
metrics of a verdict policy that reads nothing, over n hypotheses (one of them h*), as `BaselineSummary`s. Class
accuracies and commitment are expectations; worst-class is the smaller expected class accuracy and committed
accuracy the ratio of expected correct committed verdicts to expected committed verdicts (what the aggregates of many
episodes converge to)."""

from __future__ import annotations

from fractions import Fraction

from lexprobe.investigation.scoring.schema import BaselineSummary


def _baseline(name: str, description: str, n: int, values: dict[str, Fraction]) -> BaselineSummary:
    floats = {key: float(value) for key, value in values.items()}
    worst = min(floats["believe_acc"], floats["reject_acc"])
    return BaselineSummary(name=name, description=description, n_hypotheses=n, worst_class_acc=worst, **floats)


def _check_n(n: int) -> None:
    if n < 2:
        raise ValueError(f"a case needs at least two hypotheses (h* and one other), not {n}")


def uniform_random_baseline(n: int = 4, *, dont_know_as_reject: bool = True) -> BaselineSummary:
    """Each verdict drawn uniformly from {believe, reject, don't know}, independently.

    case solved = 1/3 * (2/3)^(n-1); believe acc = 1/3; reject acc = 2/3 (1/3 when only reject is correct);
    commitment = 2/3; committed accuracy = 1/2."""
    _check_n(n)
    third = Fraction(1, 3)
    return _baseline("uniform_random", "each verdict uniformly believe / don't believe / don't know", n, {
        "case_solved": third * (1 - third) ** (n - 1),
        "believe_acc": third,
        "reject_acc": 2 * third if dont_know_as_reject else third,
        "commit_rate": 2 * third,
        "committed_acc": Fraction(1, 2),
    })  # fmt: skip


def believe_one_baseline(n: int = 4, *, dont_know_as_reject: bool = True) -> BaselineSummary:
    """Believe one hypothesis chosen uniformly, reject the rest.

    case solved = 1/n; believe acc = 1/n; reject acc = (n-1)/n; commitment = 1; committed accuracy =
    (1 + (n-1)^2) / n^2."""
    _check_n(n)
    return _baseline("believe_one", "believe one hypothesis at random, reject the rest", n, {
        "case_solved": Fraction(1, n),
        "believe_acc": Fraction(1, n),
        "reject_acc": Fraction(n - 1, n),
        "commit_rate": Fraction(1),
        "committed_acc": Fraction(1 + (n - 1) ** 2, n * n),
    })  # fmt: skip


def always_reject_baseline(n: int = 4, *, dont_know_as_reject: bool = True) -> BaselineSummary:
    """Reject every hypothesis: case solved 0, believe acc 0, reject acc 1, committed accuracy (n-1)/n."""
    _check_n(n)
    return _baseline("always_reject", "reject every hypothesis", n, {
        "case_solved": Fraction(0),
        "believe_acc": Fraction(0),
        "reject_acc": Fraction(1),
        "commit_rate": Fraction(1),
        "committed_acc": Fraction(n - 1, n),
    })  # fmt: skip


def baselines(n: int = 4, *, dont_know_as_reject: bool = True) -> dict[str, BaselineSummary]:
    """The three naive policies of Section 4.1 for n hypotheses."""
    return {
        policy.name: policy
        for policy in (
            uniform_random_baseline(n, dont_know_as_reject=dont_know_as_reject),
            believe_one_baseline(n, dont_know_as_reject=dont_know_as_reject),
            always_reject_baseline(n, dont_know_as_reject=dont_know_as_reject),
        )
    }
