"""Scoring investigation episodes (InvestigationWorlds, Section 3.1 and 4): pure functions over `Episode` records.

Definitions (h* = the court-adopted hypothesis; every other hypothesis, court-rejected or alternative, is a
non-h* hypothesis whose true label is "do not believe"):

- case solved (per episode): the agent believes h* and believes no non-h* hypothesis. "Don't know" on a non-h*
  hypothesis counts as not believing it (the paper's rule), and so does a missing (unparsed, None) verdict on one;
  a missing verdict on h* means the case is not solved. An episode without an h* verdict is not solved.
- believe-class accuracy (per episode): the share of h* verdicts that are "believe" (one h* per case: 0 or 1).
- do-not-believe-class accuracy ("reject accuracy", per episode): the share of non-h* verdicts that are correct.
  By default (`dont_know_as_reject=True`) "reject" and "don't know" are both correct, the paper's reading that
  "don't know" is not believing; with `dont_know_as_reject=False` only "reject" is correct. The default makes
  case solved equal "both class accuracies are 1" whenever every verdict was read. A None verdict is never correct.
- worst-class accuracy: the smaller of the two class accuracies. For an aggregate it is the smaller of the two
  aggregate class accuracies (not a mean of per-episode minima, which would be 0 for most episodes).
- commitment rate: the share of verdicts that are "believe" or "reject" (not "don't know", not None); committed
  accuracy: the share of committed verdicts that are correct (believe on h*, reject on the others). Both are pooled
  over the verdicts of all episodes of a group (the paper's "commits on 80.7% of verdicts").
- aggregates (per model, per model x ablation level): case solved and the class accuracies are means over episodes;
  case solved has a 95% percentile interval from a cluster bootstrap over environments (resample environments with
  replacement, each keeping all its episodes: epochs and, when pooled, ablation levels).
- paired comparisons: the same environments on both sides, resampled together; the difference is b - a.
- coverage (per episode): the share of the corpus's documents touched by a tool call that ran (not denied): a
  `read` of the document, a `grep` that matched a line of it, a `shell` command or output naming it. `glob` lists
  paths without touching documents. With `reads_only=True` only `read` counts (the paper's "opens").
- signal recall (per episode): the share of the documents with a role in `SIGNAL_ROLES` (merits and signal: "merits
  evidence and h*-supporting signal documents", Section 4.3) that were touched; recall by role is the same share
  for each role alone (None where the corpus has no document of that role).
- usage: tool calls are the calls that ran (refused and failed ones included, denied ones not); denied calls are
  counted apart. Cost is summed over episodes whose cost is known (`cost_usd` None means unknown).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from fractions import Fraction

import numpy as np

from lexprobe.investigation.environment import Environment
from lexprobe.investigation.episode import Episode, HypothesisVerdict
from lexprobe.investigation.ladder import level_sort_key

ADOPTED = "court_adopted"
SIGNAL_ROLES = ("merits", "signal")
ROLES = ("merits", "signal", "pro_alternative", "refuting", "noise", "chaff")
METRICS = ("case_solved", "believe_acc", "reject_acc", "worst_class_acc", "commit_rate", "committed_acc")
UNSPECIFIED = "unspecified"

DEFINITIONS = {
    "case_solved": "believes the court-adopted hypothesis h* and no other; don't know or no verdict on another "
    "hypothesis counts as not believing it; no verdict on h* is not solved",
    "believe_acc": "share of h* verdicts that are believe",
    "reject_acc": "share of non-h* verdicts that are correct: reject or don't know",
    "reject_acc_strict": "share of non-h* verdicts that are correct: reject only",
    "worst_class_acc": "min(believe accuracy, do-not-believe accuracy) of the group",
    "commit_rate": "share of verdicts that are believe or reject (not don't know, not unread), pooled",
    "committed_acc": "share of committed verdicts that are correct, pooled",
    "case_solved_ci": "95% percentile interval, cluster bootstrap over environments (epochs kept together)",
    "coverage": "share of the corpus's documents touched by a tool call that ran (read, grep match, shell mention)",
    "signal_recall": "share of merits and signal documents touched",
    "comparison": "difference b - a on the environments both share; paired cluster bootstrap over environments",
}


# --- per episode -----------------------------------------------------------------------------------------------


def _adopted(verdict: HypothesisVerdict) -> bool:
    return verdict.kind == ADOPTED


def _correct(verdict: HypothesisVerdict, dont_know_as_reject: bool) -> bool:
    if _adopted(verdict):
        return verdict.verdict == "believe"
    return verdict.verdict == "reject" or (dont_know_as_reject and verdict.verdict == "dont_know")


def case_solved(verdicts: Sequence[HypothesisVerdict]) -> bool:
    """True when every h* verdict is believe (and there is one) and no other hypothesis is believed."""
    adopted = [v for v in verdicts if _adopted(v)]
    return (
        bool(adopted)
        and all(v.verdict == "believe" for v in adopted)
        and not any(v.verdict == "believe" for v in verdicts if not _adopted(v))
    )


def class_accuracies(
    verdicts: Sequence[HypothesisVerdict], *, dont_know_as_reject: bool = True
) -> tuple[float | None, float | None]:
    """Return (believe-class accuracy, do-not-believe-class accuracy) of one episode; None for a class the episode
    has no hypothesis of. See the module docstring for `dont_know_as_reject`."""
    believe = [_correct(v, dont_know_as_reject) for v in verdicts if _adopted(v)]
    reject = [_correct(v, dont_know_as_reject) for v in verdicts if not _adopted(v)]
    return (sum(believe) / len(believe) if believe else None, sum(reject) / len(reject) if reject else None)


@dataclass(frozen=True)
class EpisodeScore:
    """The verdict metrics of one episode (definitions in the module docstring)."""

    episode_id: str
    model: str
    environment: str
    ablation: str
    epoch: int
    n_hypotheses: int
    case_solved: bool
    believe_acc: float | None
    reject_acc: float | None
    worst_class_acc: float | None
    n_verdicts: int
    n_committed: int
    n_committed_correct: int
    n_unread: int
    unparsed: bool
    believes_adopted: bool
    believes_other: bool

    @property
    def commit_rate(self) -> float | None:
        return self.n_committed / self.n_verdicts if self.n_verdicts else None

    @property
    def committed_acc(self) -> float | None:
        return self.n_committed_correct / self.n_committed if self.n_committed else None


def score_verdicts(
    verdicts: Sequence[HypothesisVerdict], *, dont_know_as_reject: bool = True
) -> dict[str, float | int | bool | None]:
    """Return the verdict metrics of one list of verdicts (the fields of `EpisodeScore` that depend on them)."""
    believe, reject = class_accuracies(verdicts, dont_know_as_reject=dont_know_as_reject)
    committed = [v for v in verdicts if v.verdict in ("believe", "reject")]
    return {
        "n_hypotheses": len(verdicts),
        "case_solved": case_solved(verdicts),
        "believe_acc": believe,
        "reject_acc": reject,
        "worst_class_acc": None if believe is None or reject is None else min(believe, reject),
        "n_verdicts": len(verdicts),
        "n_committed": len(committed),
        "n_committed_correct": sum(_correct(v, False) for v in committed),
        "n_unread": sum(v.verdict is None for v in verdicts),
        "unparsed": bool(verdicts) and all(v.verdict is None for v in verdicts),
        "believes_adopted": any(_adopted(v) and v.verdict == "believe" for v in verdicts),
        "believes_other": any(not _adopted(v) and v.verdict == "believe" for v in verdicts),
    }


def score_episode(episode: Episode, *, dont_know_as_reject: bool = True) -> EpisodeScore:
    """Score one episode. An episode with no verdicts at all counts as unparsed and not solved."""
    metrics = score_verdicts(episode.verdicts, dont_know_as_reject=dont_know_as_reject)
    metrics["unparsed"] = bool(metrics["unparsed"]) or episode.unparsed or not episode.verdicts
    return EpisodeScore(
        episode_id=episode.episode_id,
        model=episode.model,
        environment=episode.environment,
        ablation=episode.ablation or UNSPECIFIED,
        epoch=episode.epoch,
        **metrics,  # type: ignore[arg-type]
    )


# --- aggregates and the cluster bootstrap ---------------------------------------------------------------------

# columns of the per-environment sums the aggregates and every bootstrap resample are computed from
_N, _SOLVED, _BEL, _BEL_N, _REJ, _REJ_N, _VERDICTS, _COMMITTED, _COMMITTED_OK = range(9)


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
    keys: list[str] = []
    sums: dict[str, np.ndarray] = {}
    for score in scores:
        if score.environment not in sums:
            keys.append(score.environment)
            sums[score.environment] = np.zeros(9)
        sums[score.environment] += _row(score)
    return keys, np.array([sums[key] for key in keys]).reshape(len(keys), 9)


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


def _resample_counts(n_clusters: int, replicates: int, seed: int) -> np.ndarray:
    """How often each environment is drawn in each resample: (replicates, n_clusters), seeded."""
    rng = np.random.default_rng(seed)
    return rng.multinomial(n_clusters, np.full(n_clusters, 1.0 / n_clusters), size=replicates).astype(float)


def _interval(values: np.ndarray, level: float) -> tuple[float, float] | None:
    finite = values[~np.isnan(values)]
    if not len(finite):
        return None
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(finite, [tail, 100 - tail])
    return float(low), float(high)


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
    totals = _resample_counts(len(keys), replicates, seed) @ sums
    return _interval(_statistics(totals)[metric], level)


@dataclass(frozen=True)
class Aggregate:
    """The verdict metrics of a group of episodes (definitions in the module docstring)."""

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
    rows_a = sums_a[[index_a[key] for key in shared]] if shared else np.zeros((0, 9))
    rows_b = sums_b[[index_b[key] for key in shared]] if shared else np.zeros((0, 9))
    point_a, point_b = _statistics(rows_a.sum(axis=0)), _statistics(rows_b.sum(axis=0))
    resampled_a = resampled_b = None
    if len(shared) >= 2 and replicates >= 1:
        counts = _resample_counts(len(shared), replicates, seed)
        resampled_a, resampled_b = _statistics(counts @ rows_a), _statistics(counts @ rows_b)
    result = {}
    for metric in metrics:
        value_a, value_b = _value(point_a[metric]), _value(point_b[metric])
        difference = None if value_a is None or value_b is None else value_b - value_a
        ci = share = None
        if resampled_a is not None and resampled_b is not None:
            deltas = resampled_b[metric] - resampled_a[metric]
            ci = _interval(deltas, level)
            finite = deltas[~np.isnan(deltas)]
            share = float((finite > 0).mean()) if len(finite) else None
        result[metric] = PairedDifference(metric, value_a, value_b, difference, ci, share)
    return len(shared), result


# --- naive baselines (exact) -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Baseline:
    """The expected metrics of a verdict policy that reads nothing, over n hypotheses (one of them h*), exact.
    Class accuracies and commitment are expectations; worst-class is the smaller expected class accuracy and
    committed accuracy the ratio of expected correct committed verdicts to expected committed verdicts (what the
    aggregates of many episodes converge to)."""

    name: str
    description: str
    n_hypotheses: int
    case_solved: float
    believe_acc: float
    reject_acc: float
    worst_class_acc: float
    commit_rate: float
    committed_acc: float

    def to_dict(self) -> dict:
        return asdict(self)


def _baseline(name: str, description: str, n: int, values: dict[str, Fraction]) -> Baseline:
    floats = {key: float(value) for key, value in values.items()}
    return Baseline(name, description, n, worst_class_acc=min(floats["believe_acc"], floats["reject_acc"]), **floats)


def _check_n(n: int) -> None:
    if n < 2:
        raise ValueError(f"a case needs at least two hypotheses (h* and one other), not {n}")


def uniform_random_baseline(n: int = 4, *, dont_know_as_reject: bool = True) -> Baseline:
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


def believe_one_baseline(n: int = 4, *, dont_know_as_reject: bool = True) -> Baseline:
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


def always_reject_baseline(n: int = 4, *, dont_know_as_reject: bool = True) -> Baseline:
    """Reject every hypothesis: case solved 0, believe acc 0, reject acc 1, committed accuracy (n-1)/n."""
    _check_n(n)
    return _baseline("always_reject", "reject every hypothesis", n, {
        "case_solved": Fraction(0),
        "believe_acc": Fraction(0),
        "reject_acc": Fraction(1),
        "commit_rate": Fraction(1),
        "committed_acc": Fraction(n - 1, n),
    })  # fmt: skip


def baselines(n: int = 4, *, dont_know_as_reject: bool = True) -> dict[str, Baseline]:
    """The three naive policies of Section 4.1 for n hypotheses."""
    return {
        policy.name: policy
        for policy in (
            uniform_random_baseline(n, dont_know_as_reject=dont_know_as_reject),
            believe_one_baseline(n, dont_know_as_reject=dont_know_as_reject),
            always_reject_baseline(n, dont_know_as_reject=dont_know_as_reject),
        )
    }


# --- rank correlation ------------------------------------------------------------------------------------------


def average_ranks(values: Sequence[float]) -> np.ndarray:
    """Ranks 1..n of `values`, ties given the mean of the ranks they span."""
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


# --- coverage and recall ---------------------------------------------------------------------------------------

Documents = Environment | Mapping[str, str]


def document_roles(documents: Documents) -> dict[str, str]:
    """doc_id -> role of an environment (a mapping is returned as a dict)."""
    if isinstance(documents, Environment):
        return {doc.doc_id: str(doc.role) for doc in documents.documents}
    return {str(key): str(value) for key, value in documents.items()}


def touched_documents(episode: Episode, documents: Documents, *, reads_only: bool = False) -> set[str]:
    """The ids of the corpus documents that the episode's tool calls touched (see the module docstring). A call
    names a document by id (`doc_ids`) or, where the id is missing, by corpus path (`documents`); ids and paths
    not in the corpus are left out."""
    roles = document_roles(documents)
    by_path = {doc.path: doc.doc_id for doc in documents.documents} if isinstance(documents, Environment) else {}
    touched: set[str] = set()
    for call in episode.tool_calls:
        if call.denied or (reads_only and call.name != "read"):
            continue
        for index, path in enumerate(call.documents):
            doc_id = call.doc_ids[index] if index < len(call.doc_ids) else ""
            for candidate in (doc_id, by_path.get(path, ""), path):
                if candidate in roles:
                    touched.add(candidate)
                    break
        for doc_id in call.doc_ids[len(call.documents) :]:
            if doc_id in roles:
                touched.add(doc_id)
    return touched


@dataclass(frozen=True)
class Coverage:
    """What share of a corpus one episode touched, overall and by role."""

    n_documents: int
    n_touched: int
    coverage: float | None
    signal_recall: float | None
    documents_by_role: dict[str, int] = field(default_factory=dict)
    touched_by_role: dict[str, int] = field(default_factory=dict)
    recall_by_role: dict[str, float | None] = field(default_factory=dict)


def coverage(
    episode: Episode, documents: Documents, *, signal_roles: Sequence[str] = SIGNAL_ROLES, reads_only: bool = False
) -> Coverage:
    """Coverage, signal recall and recall by role of one episode over its corpus (see the module docstring)."""
    roles = document_roles(documents)
    touched = touched_documents(episode, documents, reads_only=reads_only)
    present = list(dict.fromkeys([*ROLES, *roles.values()]))
    documents_by_role = {role: sum(r == role for r in roles.values()) for role in present}
    touched_by_role = {role: sum(roles[d] == role for d in touched) for role in present}
    signal_total = sum(documents_by_role.get(role, 0) for role in signal_roles)
    signal_touched = sum(touched_by_role.get(role, 0) for role in signal_roles)
    return Coverage(
        n_documents=len(roles),
        n_touched=len(touched),
        coverage=len(touched) / len(roles) if roles else None,
        signal_recall=signal_touched / signal_total if signal_total else None,
        documents_by_role=documents_by_role,
        touched_by_role=touched_by_role,
        recall_by_role={
            role: touched_by_role[role] / documents_by_role[role] if documents_by_role[role] else None
            for role in present
        },
    )


def _mean(values: Iterable[float | None]) -> float | None:
    kept = [v for v in values if v is not None]
    return sum(kept) / len(kept) if kept else None


# --- usage -----------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Usage:
    """Cost, tokens, tool calls and time over a group of episodes: per-episode means and totals."""

    n_episodes: int
    cost_usd_mean: float | None
    cost_usd_total: float | None
    cost_unknown: int
    input_tokens_mean: float | None
    input_tokens_total: int
    output_tokens_mean: float | None
    output_tokens_total: int
    tool_calls_mean: float | None
    tool_calls_total: int
    denied_mean: float | None
    denied_total: int
    wall_s_mean: float | None
    wall_s_total: float


def usage(episodes: Sequence[Episode]) -> Usage:
    """Sum and average the telemetry of episodes (see the module docstring for what counts)."""
    n = len(episodes)
    costs = [e.cost_usd for e in episodes if e.cost_usd is not None]
    calls = [sum(not c.denied for c in e.tool_calls) for e in episodes]
    denied = [sum(c.denied for c in e.tool_calls) for e in episodes]
    inputs, outputs = [e.input_tokens for e in episodes], [e.output_tokens for e in episodes]
    walls = [e.wall_s for e in episodes]
    return Usage(
        n_episodes=n,
        cost_usd_mean=sum(costs) / len(costs) if costs else None,
        cost_usd_total=sum(costs) if costs else None,
        cost_unknown=n - len(costs),
        input_tokens_mean=sum(inputs) / n if n else None,
        input_tokens_total=sum(inputs),
        output_tokens_mean=sum(outputs) / n if n else None,
        output_tokens_total=sum(outputs),
        tool_calls_mean=sum(calls) / n if n else None,
        tool_calls_total=sum(calls),
        denied_mean=sum(denied) / n if n else None,
        denied_total=sum(denied),
        wall_s_mean=sum(walls) / n if n else None,
        wall_s_total=sum(walls),
    )


# --- the whole summary -----------------------------------------------------------------------------------------

Environments = Mapping[str, Documents | None]


def ablation_sort_key(level: str) -> tuple[int, str]:
    """Order ablation levels as the paper's cumulative ladder, unknown levels after them by name."""
    return level_sort_key(level)


def complete_episodes(episodes: Iterable[Episode]) -> tuple[list[Episode], list[Episode]]:
    """Split episodes into (complete, left out: running or failed)."""
    complete, left_out = [], []
    for episode in episodes:
        (complete if episode.status == "complete" else left_out).append(episode)
    return complete, left_out


def _r(value: float | None, digits: int = 6) -> float | None:
    return None if value is None else round(value, digits)


def _coverages(episodes: Sequence[Episode], environments: Environments | None) -> list[Coverage | None]:
    result = []
    for episode in episodes:
        documents = (environments or {}).get(episode.env_dir)
        result.append(None if documents is None else coverage(episode, documents))
    return result


def _group_record(
    episodes: Sequence[Episode],
    scores: Sequence[EpisodeScore],
    coverages: Sequence[Coverage | None],
    *,
    replicates: int,
    seed: int,
) -> dict:
    stats = aggregate(scores, replicates=replicates, seed=seed)
    used = usage(episodes)
    return {
        "n_episodes": stats.n_episodes,
        "case_solved": _r(stats.case_solved),
        "case_solved_ci": None if stats.case_solved_ci is None else [_r(v) for v in stats.case_solved_ci],
        "believe_acc": _r(stats.believe_acc),
        "reject_acc": _r(stats.reject_acc),
        "worst_class_acc": _r(stats.worst_class_acc),
        "commit_rate": _r(stats.commit_rate),
        "committed_acc": _r(stats.committed_acc),
        "coverage": _r(_mean(c.coverage for c in coverages if c is not None)),
        "signal_recall": _r(_mean(c.signal_recall for c in coverages if c is not None)),
        "cost_usd": {"mean": _r(used.cost_usd_mean), "total": _r(used.cost_usd_total), "unknown": used.cost_unknown},
        "tokens": {
            "input": {"mean": _r(used.input_tokens_mean, 2), "total": used.input_tokens_total},
            "output": {"mean": _r(used.output_tokens_mean, 2), "total": used.output_tokens_total},
        },
        "tool_calls": {
            "mean": _r(used.tool_calls_mean, 4),
            "total": used.tool_calls_total,
            "denied_mean": _r(used.denied_mean, 4),
            "denied_total": used.denied_total,
        },
        "wall_s": {"mean": _r(used.wall_s_mean, 3), "total": _r(used.wall_s_total, 3)},
    }


def _comparison_record(kind: str, a: str, b: str, model: str | None, n_shared: int, diffs: dict, counts) -> dict:
    return {
        "kind": kind,
        "model": model,
        "a": a,
        "b": b,
        "n_environments": n_shared,
        "n_episodes_a": counts[0],
        "n_episodes_b": counts[1],
        **{
            metric: {
                "a": _r(d.a),
                "b": _r(d.b),
                "difference": _r(d.difference),
                "ci": None if d.ci is None else [_r(v) for v in d.ci],
                "share_above_zero": _r(d.share_above_zero),
            }
            for metric, d in diffs.items()
        },
    }


def comparisons(
    scores: Sequence[EpisodeScore], *, replicates: int = 2000, seed: int = 0, level: float = 0.95
) -> list[dict]:
    """Paired comparisons: every pair of models (a listed before b) on the (environment, ablation level) units both
    ran, clustered by environment; and, per model, each ablation level against the one before it (a = the earlier
    level, b = the later one; Figure 5's question), paired by environment."""
    models = list(dict.fromkeys(s.model for s in scores))
    result = []
    for model_a, model_b in itertools.combinations(models, 2):
        side_a = [s for s in scores if s.model == model_a]
        side_b = [s for s in scores if s.model == model_b]
        units = {(s.environment, s.ablation) for s in side_a} & {(s.environment, s.ablation) for s in side_b}
        side_a = [s for s in side_a if (s.environment, s.ablation) in units]
        side_b = [s for s in side_b if (s.environment, s.ablation) in units]
        if not units:
            continue
        shared, diffs = paired_bootstrap(side_a, side_b, replicates=replicates, seed=seed, level=level)
        result.append(_comparison_record("models", model_a, model_b, None, shared, diffs, (len(side_a), len(side_b))))
    for model in models:
        own = [s for s in scores if s.model == model]
        levels = sorted({s.ablation for s in own}, key=ablation_sort_key)
        for level_a, level_b in itertools.pairwise(levels):
            side_a = [s for s in own if s.ablation == level_a]
            side_b = [s for s in own if s.ablation == level_b]
            shared, diffs = paired_bootstrap(side_a, side_b, replicates=replicates, seed=seed, level=level)
            if shared:
                result.append(_comparison_record("ablation", level_a, level_b, model, shared, diffs,
                                                 (len(side_a), len(side_b))))  # fmt: skip
    return result


def modal_hypothesis_count(episodes: Sequence[Episode], default: int = 4) -> int:
    """The most common number of hypotheses per episode (the smallest on a tie), `default` without episodes."""
    counts: dict[int, int] = {}
    for episode in episodes:
        if episode.verdicts:
            counts[len(episode.verdicts)] = counts.get(len(episode.verdicts), 0) + 1
    if not counts:
        return default
    return max(sorted(counts), key=lambda n: counts[n])


def summarize(
    episodes: Sequence[Episode],
    environments: Environments | None = None,
    *,
    replicates: int = 2000,
    seed: int = 0,
    dont_know_as_reject: bool = True,
    n_hypotheses: int | None = None,
) -> dict:
    """The scoring summary of episodes, JSON-ready: per model (in first-seen order) and per model x ablation
    level, the baselines for `n_hypotheses` (default: the most common count in the episodes), the paired
    comparisons and the number of unparsed episodes. `environments` maps an episode's `env_dir` to its corpus
    (an Environment or doc_id -> role); coverage and recall are None for episodes without one. Every episode
    given is scored; leave out incomplete ones first (`complete_episodes`)."""
    scores = [score_episode(e, dont_know_as_reject=dont_know_as_reject) for e in episodes]
    coverages = _coverages(episodes, environments)
    models = list(dict.fromkeys(e.model for e in episodes))
    records = []
    for model in models:
        index = [i for i, e in enumerate(episodes) if e.model == model]
        record = {"model": model} | _group_record(
            [episodes[i] for i in index], [scores[i] for i in index], [coverages[i] for i in index],
            replicates=replicates, seed=seed,
        )  # fmt: skip
        by_ablation = {}
        for level in sorted({scores[i].ablation for i in index}, key=ablation_sort_key):
            chosen = [i for i in index if scores[i].ablation == level]
            by_ablation[level] = _group_record(
                [episodes[i] for i in chosen], [scores[i] for i in chosen], [coverages[i] for i in chosen],
                replicates=replicates, seed=seed,
            )  # fmt: skip
        record["by_ablation"] = by_ablation
        records.append(record)
    n = n_hypotheses or modal_hypothesis_count(episodes)
    return {
        "models": records,
        "baselines": {
            name: {key: _r(value) if isinstance(value, float) else value for key, value in b.to_dict().items()}
            for name, b in baselines(n, dont_know_as_reject=dont_know_as_reject).items()
        },
        "comparisons": comparisons(scores, replicates=replicates, seed=seed),
        "unparsed": sum(score.unparsed for score in scores),
    }


def coverage_points(episodes: Sequence[Episode], environments: Environments | None) -> list[dict]:
    """One point per episode with a known corpus: model, episode id, ablation, coverage and signal recall."""
    points = []
    for episode, cov in zip(episodes, _coverages(episodes, environments), strict=True):
        if cov is not None:
            points.append({"model": episode.model, "episode_id": episode.episode_id,
                           "ablation": episode.ablation or UNSPECIFIED, "coverage": cov.coverage,
                           "signal_recall": cov.signal_recall})  # fmt: skip
    return points


def role_recall_table(episodes: Sequence[Episode], environments: Environments | None) -> list[dict]:
    """Per model and role: the mean per-episode recall of that role's documents (over the episodes whose corpus
    has the role), the mean number of such documents per corpus and the number of episodes averaged."""
    rows = []
    covs = _coverages(episodes, environments)
    for model in dict.fromkeys(e.model for e in episodes):
        mine = [c for e, c in zip(episodes, covs, strict=True) if e.model == model and c is not None]
        roles = list(dict.fromkeys(role for c in mine for role in c.documents_by_role))
        for role in roles:
            having = [c for c in mine if c.documents_by_role.get(role)]
            if not having:
                continue
            rows.append({
                "model": model,
                "role": role,
                "episodes": len(having),
                "documents_mean": sum(c.documents_by_role[role] for c in having) / len(having),
                "recall": _mean(c.recall_by_role[role] for c in having),
            })  # fmt: skip
    return rows
