"""Level-to-level analyses of the ablation ladder (InvestigationWorlds, Section 4.2).

- Paired level differences (Figure 5): per model, each ablation level against the one before it among the levels
  the model ran (a = the earlier level, b = the later one), b - a of case solved (and worst-class accuracy) on the
  environments (cases) present at both levels only, with a 95% percentile interval from a paired cluster bootstrap
  over those cases (`aggregates.paired_bootstrap`: each resample draws cases with replacement and takes every
  episode of a drawn case on both sides). The summary's "ablation" comparisons are these (`level_differences`).
- Verdict transitions (Figure 6): for each alternative hypothesis (kind `alternative`; not h* nor the
  court-rejected h-dagger) of each case and model, the verdict at level a against the verdict at level b of the same
  epoch, counted over the pairs with a parsed verdict at both levels: a 3x3 table (believe / reject / dont_know at
  a x the same at b), the number of pairs, and how many (and what share) believe the alternative at each level.
  Per model, and pooled over the models ("all models", the paper's 506 paired verdicts over six models).

Levels are grouped by their canonical name (`ladder.canonical_level`: an old alias such as `+pro_alt` counts as
`+pro_alternative`); an episode without a level counts as `unspecified`. An episode repeated in several run
directories counts once here (its first copy).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from lexprobe.investigation.agent.episode import Episode
from lexprobe.investigation.agent.verdict_example import episode_copies_example
from lexprobe.investigation.environment.ladder import canonical_level, level_sort_key
from lexprobe.investigation.scoring.aggregates import paired_comparison, rounded
from lexprobe.investigation.scoring.metrics import UNSPECIFIED, EpisodeScore
from lexprobe.investigation.scoring.schema import Comparison, VerdictTransitions

VERDICTS = ("believe", "reject", "dont_know")
ALL_MODELS = "all models"


def level_name(level: str) -> str:
    """The canonical name of a level (an alias such as `+pro_alt` becomes `+pro_alternative`); an unknown level is
    kept as it is, an empty one is `unspecified`."""
    if not level:
        return UNSPECIFIED
    try:
        return canonical_level(level)
    except ValueError:
        return level


def consecutive_levels(levels: set[str] | Sequence[str]) -> list[tuple[str, str]]:
    """The pairs of consecutive levels, in the ladder's order (unknown levels after the ladder, by name)."""
    return list(itertools.pairwise(sorted(set(levels), key=level_sort_key)))


# --- Figure 5: paired level differences ---------------------------------------------------------------------------


def level_difference(
    scores: Sequence[EpisodeScore],
    model: str,
    level_a: str,
    level_b: str,
    *,
    replicates: int = 2000,
    seed: int = 0,
    level: float = 0.95,
) -> Comparison | None:
    """b - a of `model`'s case solved and worst-class accuracy between two ablation levels, on the environments
    present at both (paired cluster bootstrap over them); None when no environment is at both levels.
    `n_episodes_a` / `n_episodes_b` count the episodes on those shared environments (the ones compared)."""
    own = [s for s in scores if s.model == model]
    side_a = [s for s in own if level_name(s.ablation) == level_a]
    side_b = [s for s in own if level_name(s.ablation) == level_b]
    shared = {s.environment for s in side_a} & {s.environment for s in side_b}
    if not shared:
        return None
    side_a = [s for s in side_a if s.environment in shared]
    side_b = [s for s in side_b if s.environment in shared]
    return paired_comparison("ablation", model, (level_a, level_b), side_a, side_b, replicates=replicates, seed=seed,
                             level=level)  # fmt: skip


def level_differences(
    scores: Sequence[EpisodeScore], *, replicates: int = 2000, seed: int = 0, level: float = 0.95
) -> list[Comparison]:
    """Figure 5: per model (first-seen order), each pair of consecutive levels the model ran (`level_difference`);
    pairs without a shared environment are left out."""
    result = []
    for model in dict.fromkeys(s.model for s in scores):
        levels = {level_name(s.ablation) for s in scores if s.model == model}
        for level_a, level_b in consecutive_levels(levels):
            found = level_difference(scores, model, level_a, level_b, replicates=replicates, seed=seed, level=level)
            if found is not None:
                result.append(found)
    return result


# --- Figure 6: verdict transitions on the alternatives --------------------------------------------------------------


PairKey = tuple[str, str, str, int]  # model, environment, hypothesis id, epoch


def _alternative_verdicts(episodes: Sequence[Episode], level: str) -> dict[PairKey, str | None]:
    verdicts: dict[PairKey, str | None] = {}
    for episode in episodes:
        if level_name(episode.ablation) != level:
            continue
        copied = episode_copies_example(episode)  # a copied prompt example gives no verdict (verdict_example)
        for verdict in episode.verdicts:
            if verdict.kind == "alternative":
                key = (episode.model, episode.environment, verdict.hypothesis_id, episode.epoch)
                verdicts.setdefault(key, None if copied else verdict.verdict)
    return verdicts


def verdict_transitions(
    episodes: Sequence[Episode], level_a: str, level_b: str, model: str | None = None
) -> VerdictTransitions:
    """Figure 6 between two levels: the verdict on each alternative hypothesis at `level_a` against the verdict on
    it at `level_b` (same model, case, hypothesis and epoch), over `model`'s episodes or, with None, every model's
    (pooled). A pair counts when both verdicts were parsed; the others are `n_unparsed`."""
    chosen = [e for e in episodes if model is None or e.model == model]
    at_a, at_b = _alternative_verdicts(chosen, level_a), _alternative_verdicts(chosen, level_b)
    counts = {va: dict.fromkeys(VERDICTS, 0) for va in VERDICTS}
    unparsed = 0
    environments = set()
    for key in at_a.keys() & at_b.keys():
        va, vb = at_a[key], at_b[key]
        if va is None or vb is None:
            unparsed += 1
            continue
        counts[va][vb] += 1
        environments.add(key[1])
    n = sum(sum(row.values()) for row in counts.values())
    believe_a, believe_b = sum(counts["believe"].values()), sum(row["believe"] for row in counts.values())
    return VerdictTransitions(
        model=ALL_MODELS if model is None else model,
        a=level_a,
        b=level_b,
        n_pairs=n,
        n_unparsed=unparsed,
        n_environments=len(environments),
        counts=counts,
        believe_a=believe_a,
        believe_b=believe_b,
        share_believe_a=rounded(believe_a / n) if n else None,
        share_believe_b=rounded(believe_b / n) if n else None,
        to_believe=counts["reject"]["believe"] + counts["dont_know"]["believe"],
    )


def level_transitions(episodes: Sequence[Episode]) -> list[VerdictTransitions]:
    """Figure 6 for every pair of consecutive levels: per model (first-seen order) over the levels it ran, then
    pooled over the models ("all models") for each pair some model ran, when more than one model did. Tables
    without a single paired verdict (parsed or not) are left out."""
    models = list(dict.fromkeys(e.model for e in episodes))
    result: list[VerdictTransitions] = []
    pairs: dict[tuple[str, str], list[str]] = {}
    for model in models:
        levels = {level_name(e.ablation) for e in episodes if e.model == model}
        for level_a, level_b in consecutive_levels(levels):
            table = verdict_transitions(episodes, level_a, level_b, model)
            if table.n_pairs or table.n_unparsed:
                result.append(table)
                pairs.setdefault((level_a, level_b), []).append(model)
    for (level_a, level_b), ran in sorted(pairs.items(), key=lambda item: [level_sort_key(x) for x in item[0]]):
        if len(ran) > 1:
            chosen = [e for e in episodes if e.model in ran]
            result.append(verdict_transitions(chosen, level_a, level_b))
    return result
