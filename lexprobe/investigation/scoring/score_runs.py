"""`lexprobe investigation score`'s work: read run directories, keep the episodes to score, summarize and analyze
them (Section 4); the command adds the paper's numbers when asked and prints the result."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from lexprobe.errors import BadInputError
from lexprobe.investigation.agent.episode import Episode
from lexprobe.investigation.scoring.analyses import analyze, complete_outputs
from lexprobe.investigation.scoring.inputs import LoadedEnvironment, load_environments, read_runs
from lexprobe.investigation.scoring.metrics import complete_episodes
from lexprobe.investigation.scoring.schema import ScoreSummary
from lexprobe.investigation.scoring.summary import summarize

__all__ = ["ScoreSettings", "ScoredRuns", "score_runs"]


@dataclass(frozen=True)
class ScoreSettings:
    """How to score: the bootstrap, the do-not-believe rule, complete outputs only, partial verdicts, a reference."""

    seed: int = 0
    bootstrap: int = 2000
    strict_reject: bool = False
    complete_only: bool = False
    partial_verdicts: bool = False
    reference: str | None = None


@dataclass
class ScoredRuns:
    """The scores of some run directories, the episodes scored, their environments and the notes to show."""

    summary: ScoreSummary
    episodes: list[Episode]
    environments: dict[str, LoadedEnvironment | None]
    notes: list[str]


def _kept_episodes(run_dirs: list[Path], every: list[Episode], complete_only: bool) -> tuple[list[Episode], list[str]]:
    """The episodes to score (finished; with `complete_only` only complete outputs) and the notes on what was left
    out or repeated. BadInputError when nothing is left."""
    episodes, left_out = complete_episodes(every)
    named = ", ".join(str(r) for r in run_dirs)
    if not episodes:
        raise BadInputError(f"no complete episode to score in {named} ({len(left_out)} running or failed)")
    notes = [f"{len(left_out)} episode(s) running or failed were left out"] if left_out else []
    if complete_only:  # Section 4.1: only complete outputs (a partial reply would count as unsolved)
        kept = complete_outputs(episodes)
        if len(kept) < len(episodes):
            notes.append(f"{len(episodes) - len(kept)} finished episode(s) without a complete output were left out "
                         "(--complete-only)")  # fmt: skip
        if not kept:
            raise BadInputError(f"no complete output to score in {named} (--complete-only)")
        episodes = kept
    keys = [(episode.episode_id, episode.ablation) for episode in episodes]
    if repeated := len(keys) - len(set(keys)):
        notes.append(f"{repeated} episode id(s) appear in more than one run directory; each copy is scored")
    return episodes, notes


def score_runs(run_dirs: list[Path], env_root: Path | None, settings: ScoreSettings) -> ScoredRuns:
    """Score the episodes of `run_dirs` pooled by model (environments looked for in `env_root` too). BadInputError
    for an unknown reference, nothing to score, or an episode whose level or corpus differs from its environment's."""
    if settings.reference is not None and settings.reference != "paper":
        raise BadInputError(f"unknown reference {settings.reference!r}; the one reference is 'paper'")
    runs = read_runs(run_dirs)
    every = [episode for _, episodes in runs for episode in episodes]
    episodes, notes = _kept_episodes(run_dirs, every, settings.complete_only)
    environments, env_notes = load_environments(runs, env_root)
    notes.extend(env_notes)
    summary = summarize(episodes, environments, replicates=settings.bootstrap, seed=settings.seed,
                        dont_know_as_reject=not settings.strict_reject,
                        partial_verdicts=settings.partial_verdicts)  # fmt: skip
    summary.analyses = analyze(  # Section 4: complete outputs, shared cases, strategy, generators
        every, episodes, environments, complete_only=settings.complete_only, replicates=settings.bootstrap,
        seed=settings.seed, partial_verdicts=settings.partial_verdicts,
    )  # fmt: skip
    return ScoredRuns(summary, episodes, environments, notes)
