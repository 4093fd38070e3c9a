"""The whole scoring summary (`ScoreSummary`, typed in `schema`): per model, per model x ablation level,
comparisons, baselines, usage and recall by role."""

from __future__ import annotations

import itertools
import statistics
from collections.abc import Sequence

from lexprobe.investigation.agent.episode import Episode
from lexprobe.investigation.environment.ladder import level_sort_key
from lexprobe.investigation.scoring.aggregates import aggregate, paired_comparison, rounded, rounded_interval
from lexprobe.investigation.scoring.baselines import baselines
from lexprobe.investigation.scoring.coverage import (
    Coverage,
    Environments,
    episode_coverages,
    mean_of,
    role_recall_table,
)
from lexprobe.investigation.scoring.levels import level_differences, level_transitions
from lexprobe.investigation.scoring.metrics import EpisodeScore, score_episode, verdict_rule
from lexprobe.investigation.scoring.schema import (
    Comparison,
    CostSummary,
    GroupSummary,
    ModelSummary,
    ScoreSummary,
    ScoringSettings,
    TokenCount,
    TokenSummary,
    ToolCallSummary,
    Usage,
    WallTime,
)

# --- usage -----------------------------------------------------------------------------------------------------


def usage(episodes: Sequence[Episode]) -> Usage:
    """Sum and average the telemetry of episodes (what counts: docs/investigation.md, "Scoring", usage)."""
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


def group_summary(
    episodes: Sequence[Episode],
    scores: Sequence[EpisodeScore],
    coverages: Sequence[Coverage | None],
    *,
    replicates: int,
    seed: int,
) -> GroupSummary:
    """The scores of one group of episodes (`scores` and `coverages` aligned with `episodes`), rounded."""
    stats = aggregate(scores, replicates=replicates, seed=seed)
    used = usage(episodes)
    return GroupSummary(
        n_episodes=stats.n_episodes,
        case_solved=rounded(stats.case_solved),
        case_solved_ci=rounded_interval(stats.case_solved_ci),
        believe_acc=rounded(stats.believe_acc),
        reject_acc=rounded(stats.reject_acc),
        worst_class_acc=rounded(stats.worst_class_acc),
        commit_rate=rounded(stats.commit_rate),
        committed_acc=rounded(stats.committed_acc),
        coverage=rounded(mean_of(c.coverage for c in coverages if c is not None)),
        signal_recall=rounded(mean_of(c.signal_recall for c in coverages if c is not None)),
        seen_share=rounded(mean_of(c.seen_share for c in coverages if c is not None)),
        cost_usd=CostSummary(
            mean=rounded(used.cost_usd_mean), total=rounded(used.cost_usd_total), unknown=used.cost_unknown
        ),
        tokens=TokenSummary(
            input=TokenCount(mean=rounded(used.input_tokens_mean, 2), total=used.input_tokens_total),
            output=TokenCount(mean=rounded(used.output_tokens_mean, 2), total=used.output_tokens_total),
        ),
        tool_calls=ToolCallSummary(
            mean=rounded(used.tool_calls_mean, 4),
            total=used.tool_calls_total,
            denied_mean=rounded(used.denied_mean, 4),
            denied_total=used.denied_total,
        ),
        wall_s=WallTime(mean=rounded(used.wall_s_mean, 3), total=round(used.wall_s_total, 3)),
    )


def comparisons(
    scores: Sequence[EpisodeScore], *, replicates: int = 2000, seed: int = 0, level: float = 0.95
) -> list[Comparison]:
    """Paired comparisons: every pair of models (a listed before b) on the (environment, ablation level) units both
    ran, clustered by environment; and, per model, each ablation level against the one before it (a = the earlier
    level, b = the later one; Figure 5's question), paired by environment (`levels.level_differences`)."""
    models = list(dict.fromkeys(s.model for s in scores))
    result = []
    for model_a, model_b in itertools.combinations(models, 2):
        side_a = [s for s in scores if s.model == model_a]
        side_b = [s for s in scores if s.model == model_b]
        units = {(s.environment, s.ablation) for s in side_a} & {(s.environment, s.ablation) for s in side_b}
        side_a = [s for s in side_a if (s.environment, s.ablation) in units]
        side_b = [s for s in side_b if (s.environment, s.ablation) in units]
        if units:
            result.append(paired_comparison("models", None, (model_a, model_b), side_a, side_b, replicates=replicates,
                                            seed=seed, level=level))  # fmt: skip
    result.extend(level_differences(scores, replicates=replicates, seed=seed, level=level))  # Figure 5: one place
    return result


def modal_hypothesis_count(episodes: Sequence[Episode], default: int = 4) -> int:
    """The most common number of hypotheses per episode (the smallest on a tie), `default` without episodes."""
    counts = [len(episode.verdicts) for episode in episodes if episode.verdicts]
    return min(statistics.multimode(counts)) if counts else default


def model_summaries(
    episodes: Sequence[Episode],
    scores: Sequence[EpisodeScore],
    coverages: Sequence[Coverage | None],
    *,
    replicates: int,
    seed: int,
) -> list[ModelSummary]:
    """Per model (in first-seen order): its scores over all its episodes and per ablation level."""
    result = []
    for model in dict.fromkeys(e.model for e in episodes):
        index = [i for i, e in enumerate(episodes) if e.model == model]

        def group(chosen: list[int]) -> GroupSummary:
            return group_summary([episodes[i] for i in chosen], [scores[i] for i in chosen],
                                 [coverages[i] for i in chosen], replicates=replicates, seed=seed)  # fmt: skip

        levels = sorted({scores[i].ablation for i in index}, key=ablation_sort_key)
        by_ablation = {lv: group([i for i in index if scores[i].ablation == lv]) for lv in levels}
        result.append(ModelSummary(model=model, by_ablation=by_ablation, **dict(group(index))))
    return result


def summarize(
    episodes: Sequence[Episode],
    environments: Environments | None = None,
    *,
    replicates: int = 2000,
    seed: int = 0,
    dont_know_as_reject: bool = True,
    n_hypotheses: int | None = None,
    partial_verdicts: bool = False,
) -> ScoreSummary:
    """The scoring summary of episodes: per model (in first-seen order) and per model x ablation level, the
    baselines for `n_hypotheses` (default: the most common count in the episodes), the paired comparisons, the
    number of unparsed episodes and recall by document role. `environments` maps an episode's `env_dir` to its
    corpus (an Environment or doc_id -> role); coverage and recall are None for episodes without one. Every
    episode given is scored; leave out incomplete ones first (`complete_episodes`). `partial_verdicts` is the
    case-solved rule (`metrics.case_solved`; the default needs a verdict on every hypothesis)."""
    scores = [score_episode(e, dont_know_as_reject=dont_know_as_reject, partial_verdicts=partial_verdicts)
              for e in episodes]  # fmt: skip
    coverages = episode_coverages(episodes, environments)
    n = n_hypotheses or modal_hypothesis_count(episodes)
    return ScoreSummary(
        models=model_summaries(episodes, scores, coverages, replicates=replicates, seed=seed),
        baselines={  # the exact naive baselines (Section 4.1), rounded as the rest of the summary
            name: b.model_copy(update={key: rounded(v) for key, v in b.model_dump().items() if isinstance(v, float)})
            for name, b in baselines(n, dont_know_as_reject=dont_know_as_reject).items()
        },
        comparisons=comparisons(scores, replicates=replicates, seed=seed),
        unparsed=sum(score.unparsed for score in scores),
        copied_example=sum(score.copied_example for score in scores),
        incomplete_verdicts=sum(0 < score.n_unread < score.n_verdicts and not score.copied_example for score in scores),
        recall_by_role=role_recall_table(episodes, environments),
        level_transitions=level_transitions(episodes),
        settings=ScoringSettings(
            replicates=replicates,
            seed=seed,
            dont_know_as_reject=dont_know_as_reject,
            n_hypotheses=n,
            partial_verdicts=partial_verdicts,
            verdict_rule=verdict_rule(partial_verdicts),
        ),
    )
