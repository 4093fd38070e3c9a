"""The whole scoring summary: per model, per model x ablation level, comparisons, baselines and usage."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from lexprobe.investigation.episode import Episode
from lexprobe.investigation.ladder import level_sort_key
from lexprobe.investigation.scoring.aggregates import aggregate, paired_bootstrap
from lexprobe.investigation.scoring.baselines import baselines
from lexprobe.investigation.scoring.coverage import Coverage, Environments, episode_coverages, mean_of
from lexprobe.investigation.scoring.metrics import EpisodeScore, score_episode

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


def ablation_sort_key(level: str) -> tuple[int, str]:
    """Order ablation levels as the paper's cumulative ladder, unknown levels after them by name."""
    return level_sort_key(level)


def _r(value: float | None, digits: int = 6) -> float | None:
    return None if value is None else round(value, digits)


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
        "coverage": _r(mean_of(c.coverage for c in coverages if c is not None)),
        "signal_recall": _r(mean_of(c.signal_recall for c in coverages if c is not None)),
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
    coverages = episode_coverages(episodes, environments)
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
