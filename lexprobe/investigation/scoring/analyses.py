"""The analyses of Section 4 besides the ablation levels: complete outputs, commitment on the cases every model
completed, believing h* and an alternative, investigation strategy against case solved, and generator robustness.

Pure functions over episodes (and, for strategy and generators, their environments), returning the pydantic models
of scoring/schema.py.
Definitions (docs/investigation.md, "Scoring"):

- complete output (Section 4.1): an episode whose Turn 1 finished (status complete, a non-empty summary not cut by
  the token limit) and whose Turn-2 reply gave a readable verdict on every hypothesis and did not copy the verdict
  prompt's example (`verdict_example`).
- shared cases (Section 4.1): the (case, ablation level) units on which every model in the scoring has at least one
  episode and all of its episodes there are complete outputs; with one epoch per case, a unit is a case.
- commitment on shared cases: per model, over the verdicts of its episodes on the shared cases, the share that are
  believe or reject (commit rate) and the share of those that are correct (committed accuracy: believe on h*,
  reject on the others), pooled over verdicts.
- believe h* and an alternative: per model, the episodes that believe h*, and those of them that also believe a
  non-h* hypothesis (court-rejected or alternative); such an episode is never solved.
- strategy correlation (Section 4.3): the point-biserial correlation (Pearson's r with case solved as 0/1) of
  documents opened, coverage, tool calls and signal recall with case solved, per model and pooled over models, with
  a 95% percentile interval from a cluster bootstrap over environments.
- generator robustness (Section 4.4): per generator (the model that built the environment, `CaseInfo.generator`),
  each model's case-solved rate; per pair of generators, each model's rate on the cases built by both (paired by
  case id and level), the paired difference with its bootstrap interval, and Spearman's rho of the two rankings.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence

import numpy as np

from lexprobe.investigation.agent.episode import Episode
from lexprobe.investigation.agent.verdict_example import episode_copies_example
from lexprobe.investigation.environment.format import Environment
from lexprobe.investigation.scoring.aggregates import cluster_bootstrap_ci, paired_bootstrap, rounded, rounded_interval
from lexprobe.investigation.scoring.coverage import Coverage, Environments, episode_coverages, mean_of
from lexprobe.investigation.scoring.metrics import UNSPECIFIED, EpisodeScore, score_episode
from lexprobe.investigation.scoring.schema import (
    Analyses,
    Completeness,
    GeneratorModelPair,
    GeneratorPair,
    GeneratorRate,
    GeneratorRobustness,
    SharedCases,
    StrategyCorrelation,
    VerdictCounts,
)
from lexprobe.stats import cluster_bootstrap_totals, cluster_sums, percentile_interval, ranking_correlation

STRATEGY_VARIABLES = ("documents_opened", "coverage", "tool_calls", "signal_recall")
POOLED = "all models"


# --- complete outputs ------------------------------------------------------------------------------------------


def complete_output(episode: Episode) -> bool:
    """True when Turn 1 finished (status complete, a non-empty summary the token limit did not cut) and every
    hypothesis got a readable verdict (Section 4.1's complete output), and the Turn-2 reply did not copy the prompt's
    example (`verdict_example`)."""
    return (
        episode.status == "complete"
        and bool(episode.summary.strip())
        and not episode.summary_truncated
        and not episode.unparsed
        and bool(episode.verdicts)
        and all(v.verdict is not None for v in episode.verdicts)
        and not episode_copies_example(episode)
    )


def complete_outputs(episodes: Iterable[Episode]) -> list[Episode]:
    """The episodes with a complete output (what `investigation score --complete-only` scores)."""
    return [episode for episode in episodes if complete_output(episode)]


def completeness(episodes: Sequence[Episode]) -> list[Completeness]:
    """Per model (first-seen order): episodes (running and failed ones included), finished ones (status
    complete) and complete outputs (`complete_output`)."""
    return [
        Completeness(
            model=model,
            n_episodes=len(mine),
            n_finished=sum(e.status == "complete" for e in mine),
            n_complete=sum(complete_output(e) for e in mine),
        )
        for model, mine in _by_model(episodes).items()
    ]


def _by_model(episodes: Iterable[Episode]) -> dict[str, list[Episode]]:
    groups: dict[str, list[Episode]] = {}
    for episode in episodes:
        groups.setdefault(episode.model, []).append(episode)
    return groups


def _unit(episode: Episode) -> tuple[str, str]:
    return episode.environment, episode.ablation or UNSPECIFIED


# --- commitment on shared cases, believing h* and an alternative ------------------------------------------------


def _share(numerator: int, denominator: int) -> float | None:
    return rounded(numerator / denominator) if denominator else None


def verdict_counts(model: str, scores: Sequence[EpisodeScore]) -> VerdictCounts:
    """Pool the verdicts of one model's episode scores: commitment, committed accuracy, case solved and the
    episodes believing h* (and of those, also a non-h* hypothesis)."""
    verdicts = sum(s.n_verdicts for s in scores)
    committed = sum(s.n_committed for s in scores)
    correct = sum(s.n_committed_correct for s in scores)
    solved = sum(s.case_solved for s in scores)
    return VerdictCounts(
        model=model,
        n_episodes=len(scores),
        n_verdicts=verdicts,
        n_committed=committed,
        commit_rate=_share(committed, verdicts),
        n_committed_correct=correct,
        committed_acc=_share(correct, committed),
        n_solved=solved,
        case_solved=_share(solved, len(scores)),
        n_believe_adopted=sum(s.believes_adopted for s in scores),
        n_believe_adopted_and_other=sum(s.believes_adopted and s.believes_other for s in scores),
    )


def shared_complete_cases(episodes: Sequence[Episode]) -> set[tuple[str, str]]:
    """The (case id, ablation level) units where every model has episodes and all of them are complete outputs.
    Pass every episode found (running and failed ones too: they make their unit incomplete)."""
    models = _by_model(episodes)
    shared: set[tuple[str, str]] | None = None
    for mine in models.values():
        units = {_unit(e) for e in mine}
        incomplete = {_unit(e) for e in mine if not complete_output(e)}
        shared = (units - incomplete) if shared is None else shared & (units - incomplete)
    return shared or set()


def shared_cases(episodes: Sequence[Episode]) -> SharedCases:
    """Commitment, committed accuracy, case solved and believing h* and an alternative per model, on the cases
    every model completed (`shared_complete_cases`); pass every episode found."""
    units = shared_complete_cases(episodes)
    per_model = []
    for model, mine in _by_model(episodes).items():
        per_model.append(verdict_counts(model, [score_episode(e) for e in mine if _unit(e) in units]))
    return SharedCases(models=list(_by_model(episodes)), n_cases=len(units), per_model=per_model)


def believe_adopted_and_other(episodes: Sequence[Episode], *, partial_verdicts: bool = False) -> list[VerdictCounts]:
    """Per model, the verdict counts of the episodes given (the scored ones): how many believe h*, and how many of
    those also believe a non-h* hypothesis (Section 4.1); `partial_verdicts` is the case-solved rule."""
    return [verdict_counts(model, [score_episode(e, partial_verdicts=partial_verdicts) for e in mine])
            for model, mine in _by_model(episodes).items()]  # fmt: skip


# --- strategy against case solved -----------------------------------------------------------------------------


def strategy_values(episode: Episode, cov: Coverage | None) -> dict[str, float | None]:
    """One episode's strategy variables: documents opened, coverage and signal recall (None without its corpus,
    and recall None without signal documents) and tool calls that ran (denied ones not counted)."""
    return {
        "documents_opened": None if cov is None else float(cov.n_opened),
        "coverage": None if cov is None else cov.coverage,
        "tool_calls": float(sum(not call.denied for call in episode.tool_calls)),
        "signal_recall": None if cov is None else cov.signal_recall,
    }


def _pearson(totals: np.ndarray) -> np.ndarray:
    """Pearson's r from column totals [n, sum x, sum y, sum xy, sum x^2, sum y^2]; NaN where a side is constant."""
    n, sx, sy, sxy, sxx, syy = (totals[..., i] for i in range(6))
    covariance = n * sxy - sx * sy
    spread = (n * sxx - sx * sx) * (n * syy - sy * sy)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.where(spread > 1e-12, covariance / np.sqrt(np.where(spread > 1e-12, spread, 1)), np.nan)
    return np.clip(r, -1.0, 1.0)


def point_biserial(
    values: Sequence[float],
    solved: Sequence[bool],
    clusters: Sequence[str],
    *,
    replicates: int = 2000,
    seed: int = 0,
    level: float = 0.95,
) -> tuple[float | None, tuple[float, float] | None]:
    """Pearson's r between `values` and `solved` (0/1), and its percentile interval over `replicates` cluster
    resamples (clusters drawn with replacement, each keeping its episodes; None with fewer than two clusters).
    r is None when either side is constant."""
    x = np.asarray(values, dtype=float)
    y = np.asarray(solved, dtype=float)
    rows = np.column_stack([np.ones_like(x), x, y, x * y, x * x, y * y])
    keys, sums = cluster_sums(list(clusters), rows)
    point = float(_pearson(sums.sum(axis=0))) if len(keys) else float("nan")
    r = None if np.isnan(point) else point
    ci = None
    if r is not None and len(keys) >= 2 and replicates >= 1:
        ci = percentile_interval(_pearson(cluster_bootstrap_totals(sums, replicates=replicates, seed=seed)), level)
    return r, ci


def _correlation(model: str, variable: str, rows: list[tuple[float, bool, str]], **options) -> StrategyCorrelation:
    values, solved, clusters = [r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows]
    r, ci = point_biserial(values, solved, clusters, **options)
    return StrategyCorrelation(
        model=model,
        variable=variable,
        n=len(rows),
        n_environments=len(set(clusters)),
        r=rounded(r),
        ci=rounded_interval(ci),
        mean_solved=rounded(mean_of([v for v, s, _ in rows if s])),
        mean_unsolved=rounded(mean_of([v for v, s, _ in rows if not s])),
    )


def strategy_correlations(
    episodes: Sequence[Episode],
    environments: Environments | None,
    *,
    replicates: int = 2000,
    seed: int = 0,
    partial_verdicts: bool = False,
) -> list[StrategyCorrelation]:
    """Per model (first-seen order) and pooled over models (`POOLED`), per variable of `STRATEGY_VARIABLES`: the
    point-biserial correlation with case solved over the episodes where the variable is known."""
    coverages = episode_coverages(episodes, environments)
    points = [
        (
            e.model,
            strategy_values(e, cov),
            score_episode(e, partial_verdicts=partial_verdicts).case_solved,
            e.environment,
        )
        for e, cov in zip(episodes, coverages, strict=True)
    ]
    groups = [(model, [p for p in points if p[0] == model]) for model in dict.fromkeys(e.model for e in episodes)]
    if len(groups) > 1:
        groups.append((POOLED, points))
    result = []
    for model, chosen in groups:
        for variable in STRATEGY_VARIABLES:
            rows = [
                (values[variable], solved, env) for _, values, solved, env in chosen if values[variable] is not None
            ]
            result.append(_correlation(model, variable, rows, replicates=replicates, seed=seed))  # type: ignore[arg-type]
    return result


# --- generator robustness -------------------------------------------------------------------------------------


def _rate(generator: str, model: str, scores: list[EpisodeScore], replicates: int, seed: int) -> GeneratorRate:
    return GeneratorRate(
        generator=generator,
        model=model,
        n_episodes=len(scores),
        n_cases=len({(s.environment, s.ablation) for s in scores}),
        case_solved=_share(sum(s.case_solved for s in scores), len(scores)),
        case_solved_ci=rounded_interval(cluster_bootstrap_ci(scores, replicates=replicates, seed=seed)),
    )


def _pair(a: str, b: str, scores: dict[str, list[EpisodeScore]], models: list[str], **options) -> GeneratorPair:
    units = {(s.environment, s.ablation) for s in scores[a]} & {(s.environment, s.ablation) for s in scores[b]}
    rows, rates_a, rates_b = [], {}, {}
    for model in models:
        side_a = [s for s in scores[a] if s.model == model and (s.environment, s.ablation) in units]
        side_b = [s for s in scores[b] if s.model == model and (s.environment, s.ablation) in units]
        if not side_a or not side_b:
            continue
        _, diffs = paired_bootstrap(side_a, side_b, ("case_solved",), **options)
        d = diffs["case_solved"]
        rates_a[model], rates_b[model] = d.a, d.b
        rows.append(GeneratorModelPair(model=model, n_episodes_a=len(side_a), n_episodes_b=len(side_b),
                                       a=rounded(d.a), b=rounded(d.b), difference=rounded(d.difference),
                                       ci=rounded_interval(d.ci)))  # fmt: skip
    rho = ranking_correlation(rates_a, rates_b)
    return GeneratorPair(a=a, b=b, n_cases=len(units), n_models=len(rows), spearman_rho=rounded(rho), models=rows)


def generator_robustness(
    episodes: Sequence[Episode],
    environments: Environments | None,
    *,
    replicates: int = 2000,
    seed: int = 0,
    partial_verdicts: bool = False,
) -> GeneratorRobustness | None:
    """Per generator (sorted by name) and model, case solved; per pair of generators, the models compared on the
    cases both built (paired by case id and level; the paired bootstrap resamples case ids). None when no
    episode's environment records a generator. Episodes of environments without one are counted as unrecorded."""
    scores: dict[str, list[EpisodeScore]] = {}
    unrecorded = 0
    for episode in episodes:
        documents = (environments or {}).get(episode.env_dir)  # no generator when only its roles are known
        generator = documents.case.generator if isinstance(documents, Environment) else ""
        if not generator:
            unrecorded += 1
            continue
        scores.setdefault(generator, []).append(score_episode(episode, partial_verdicts=partial_verdicts))
    if not scores:
        return None
    generators = sorted(scores)
    models = list(dict.fromkeys(e.model for e in episodes))
    rates = [
        _rate(g, m, [s for s in scores[g] if s.model == m], replicates, seed)
        for g in generators
        for m in models
        if any(s.model == m for s in scores[g])
    ]
    pairs = [
        _pair(a, b, scores, models, replicates=replicates, seed=seed) for a, b in itertools.combinations(generators, 2)
    ]
    return GeneratorRobustness(generators=generators, n_unrecorded=unrecorded, rates=rates, pairs=pairs)


# --- all of them -----------------------------------------------------------------------------------------------


def analyze(
    found: Sequence[Episode],
    scored: Sequence[Episode],
    environments: Environments | None,
    *,
    complete_only: bool = False,
    replicates: int = 2000,
    seed: int = 0,
    partial_verdicts: bool = False,
) -> Analyses:
    """Every analysis: completeness and the shared cases over `found` (every episode, running and failed included),
    the others over `scored` (the episodes the summary scores), under the case-solved rule `partial_verdicts`."""
    options = {"replicates": replicates, "seed": seed, "partial_verdicts": partial_verdicts}
    return Analyses(
        complete_only=complete_only,
        completeness=completeness(found),
        shared_cases=shared_cases(found),
        believe_adopted_and_other=believe_adopted_and_other(scored, partial_verdicts=partial_verdicts),
        strategy=strategy_correlations(scored, environments, **options),
        generators=generator_robustness(scored, environments, **options),
    )
