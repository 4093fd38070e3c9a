"""lexprobe's investigation scorers as an Inspect scorer (`lexprobe/investigation_scorer`) and metric.

Each sample's episode (the record `inspect_investigation.investigation_agent` keeps in the sample's store) is scored
by lexprobe's own functions: `scoring.metrics.score_episode` (case solved, the class accuracies, commitment) and
`scoring.coverage.coverage` over the sample's environment (coverage, signal recall, seen share). The `Score`'s value
holds those numbers (case solved as 1 or 0; None where a metric is undefined), its answer is the verdict reply, its
explanation one line per hypothesis, and its metadata the `EpisodeScore` and the coverage counts.

The metric (`investigation_metrics`) aggregates as `lexprobe investigation score` does, with its functions: the
verdict metrics pooled over episodes (`scoring.aggregates.aggregate`, with the cluster-bootstrap interval of case
solved over environments), coverage, recall and seen share as means over episodes (`coverage.mean_of`), each rounded
to 6 digits as the score summary is. So the numbers of an Inspect log equal those of `investigation score` over the
same episodes. Epochs are episodes: the task's reducer (`episode_epochs`) keeps every epoch's episode score in the
reduced score's metadata, so the metric pools episodes as lexprobe does (the value is their mean per key).
"""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import Any

from inspect_ai.scorer import (
    Metric,
    SampleScore,
    Score,
    Scorer,
    ScoreReducer,
    Target,
    metric,
    score_reducer,
    scorer,
)
from inspect_ai.solver import TaskState

from lexprobe.errors import BadInputError
from lexprobe.investigation.agent.episode import Episode
from lexprobe.investigation.environment.format import load_environment
from lexprobe.investigation.scoring.aggregates import aggregate, rounded
from lexprobe.investigation.scoring.coverage import coverage, mean_of
from lexprobe.investigation.scoring.metrics import EpisodeScore, score_episode

__all__ = ["EPISODE_KEY", "episode_epochs", "investigation_metrics", "investigation_scorer"]

#: Where the solver keeps the episode record in the sample's store.
EPISODE_KEY = "lexprobe_episode"
VERDICT_METRICS = ("case_solved", "believe_acc", "reject_acc", "worst_class_acc", "commit_rate", "committed_acc")
COVERAGE_METRICS = ("coverage", "signal_recall", "seen_share")


def episode_metadata(score: Score) -> list[dict[str, Any]]:
    """The metadata of each episode behind a score: its own, or every epoch's where `episode_epochs` reduced them."""
    metadata = score.metadata or {}
    return list(metadata.get("episodes", [metadata]))


@score_reducer(name="episode_epochs")
def episode_epochs() -> ScoreReducer:
    """Reduce a sample's epochs to the mean of each value (over the epochs where it is defined), keeping every
    epoch's metadata under `episodes` for `investigation_metrics`."""

    def reduce(scores: list[Score]) -> Score:
        keys = list(dict.fromkeys(key for s in scores if isinstance(s.value, dict) for key in s.value))
        value = {}
        for key in keys:
            defined = [s.value[key] for s in scores if isinstance(s.value, dict) and s.value.get(key) is not None]
            value[key] = sum(defined) / len(defined) if defined else None  # type: ignore[arg-type]
        episodes = [m for s in scores for m in episode_metadata(s)]
        return Score(value=value, answer=scores[0].answer, explanation=scores[0].explanation,  # type: ignore[arg-type]
                     metadata={"episodes": episodes})  # fmt: skip

    return reduce


@metric
def investigation_metrics() -> Metric:
    """lexprobe's aggregates over the scored episodes (see the module docstring): the verdict metrics, the 95%
    interval of case solved (`case_solved_ci_low` / `_high`, with two environments or more) and the coverage means;
    an undefined value is left out."""

    def compute(scores: list[SampleScore]) -> dict[str, float | None]:
        metadata = [m for s in scores for m in episode_metadata(s.score)]
        episodes = [EpisodeScore(**m["episode_score"]) for m in metadata if "episode_score" in m]
        if not episodes:
            return {}
        pooled = aggregate(episodes)
        values: dict[str, float | None] = {name: rounded(getattr(pooled, name)) for name in VERDICT_METRICS}
        if pooled.case_solved_ci is not None:
            values["case_solved_ci_low"], values["case_solved_ci_high"] = (rounded(v) for v in pooled.case_solved_ci)
        for name in COVERAGE_METRICS:
            values[name] = rounded(mean_of(m.get("coverage", {}).get(name) for m in metadata))
        return values

    return compute


def _explanation(episode: Episode) -> str:
    """One line per hypothesis: label, kind, the verdict read (or none) and the reason given."""
    lines = [f"{v.label} ({v.kind}): {v.verdict or 'no verdict'}" + (f" - {v.reason}" if v.reason else "")
             for v in episode.verdicts]  # fmt: skip
    if episode.copied_example:
        lines.append("the reply copied the prompt's example: scored as no verdict")
    return "\n".join(lines) or "no verdicts"


def score_value(score: EpisodeScore, covered: dict[str, Any]) -> dict[str, float | None]:
    """The per-sample value: the episode's verdict metrics (case solved as 1 or 0) and its coverage numbers."""
    value: dict[str, float | None] = {"case_solved": float(score.case_solved)}
    for name in VERDICT_METRICS[1:]:
        number = getattr(score, name)
        value[name] = None if number is None else float(number)
    return value | {name: covered.get(name) for name in COVERAGE_METRICS}


@scorer(metrics=[investigation_metrics()])
def investigation_scorer(partial_verdicts: bool = False, strict_reject: bool = False) -> Scorer:
    """Score each sample's episode with lexprobe's investigation scorers; `partial_verdicts` and `strict_reject` are
    `investigation score`'s `--partial-verdicts` and `--strict-reject`. BadInputError for a sample that holds no
    episode (a solver other than `investigation_agent`)."""

    async def score(state: TaskState, target: Target) -> Score:
        record = state.store.get(EPISODE_KEY)
        if record is None:
            raise BadInputError(f"sample {state.sample_id}: no lexprobe episode in its store; the solver must be "
                                "lexprobe/investigation_agent")  # fmt: skip
        episode = Episode.model_validate(record)
        scored = score_episode(episode, dont_know_as_reject=not strict_reject, partial_verdicts=partial_verdicts)
        environment, _ = load_environment(Path(episode.env_dir))
        covered = asdict(coverage(episode, environment))
        return Score(
            value=score_value(scored, covered),  # type: ignore[arg-type]
            answer=episode.verdict_reply,
            explanation=_explanation(episode),
            metadata={"episode_score": asdict(scored), "coverage": covered},
        )

    return score
