"""The typed results of investigation scoring (pydantic models): what `summarize` returns and what the `score`
command's tables, its `--json` (`ScoreSummary.model_dump(mode="json")`) and its HTML report read, by attribute.

Shares are floats in [0, 1] rounded to 6 digits, None where undefined (no episode, no verdict of the class, no
known corpus); intervals are [low, high] lists in JSON. Definitions of every metric: docs/investigation.md
("Scoring").

Adding a result: add a field with a default (None, an empty list or dict, `Field(default_factory=...)`) to the
model it belongs to (a per-group number to `GroupSummary`, which `ModelSummary` and the per-level cells share; a
whole-study result to `ScoreSummary`), fill it where the model is built (`summary.py`), and print it in
cli_investigation_score.py and report.html.j2. A default keeps older callers and JSON readers working.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from lexprobe.investigation.environment.ladder import level_sort_key

Interval = tuple[float, float]


class Record(BaseModel):
    """Base of the scoring models: unknown fields are refused (a typo fails loudly)."""

    model_config = ConfigDict(extra="forbid")


# --- usage -----------------------------------------------------------------------------------------------------


class Usage(Record):
    """Cost, tokens, tool calls and time over a group of episodes: per-episode means and totals (unrounded)."""

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


class CostSummary(Record):
    """Cost in USD: mean over the episodes whose cost is known, their total, and how many are unknown."""

    mean: float | None
    total: float | None
    unknown: int


class TokenCount(Record):
    """Tokens of one direction: mean per episode and total."""

    mean: float | None
    total: int


class TokenSummary(Record):
    """Input and output tokens of a group."""

    input: TokenCount
    output: TokenCount


class ToolCallSummary(Record):
    """Tool calls that ran (refused and failed ones included) and denied calls: mean per episode and totals."""

    mean: float | None
    total: int
    denied_mean: float | None
    denied_total: int


class WallTime(Record):
    """Wall-clock seconds: mean per episode and total."""

    mean: float | None
    total: float


# --- groups of episodes ----------------------------------------------------------------------------------------


class GroupSummary(Record):
    """The scores of one group of episodes (a model, or a model at one ablation level)."""

    n_episodes: int = Field(description="episodes scored in the group")
    case_solved: float | None = Field(description="share of episodes that believe h* and no other hypothesis")
    case_solved_ci: Interval | None = Field(
        description="95% percentile interval of case solved, cluster bootstrap over environments"
    )
    believe_acc: float | None = Field(description="believe-class accuracy: share of h* verdicts that are believe")
    reject_acc: float | None = Field(description="do-not-believe-class accuracy over the non-h* verdicts")
    worst_class_acc: float | None = Field(description="the smaller of the two class accuracies of the group")
    commit_rate: float | None = Field(description="share of verdicts that are believe or reject, pooled")
    committed_acc: float | None = Field(description="share of committed verdicts that are correct, pooled")
    coverage: float | None = Field(
        description="mean per-episode coverage (documents opened / corpus documents) over episodes with a known corpus"
    )
    signal_recall: float | None = Field(
        description="mean per-episode signal recall (merits and signal documents opened) over episodes with a known "
        "corpus"
    )
    seen_share: float | None = Field(
        default=None,
        description="mean per-episode share of the corpus seen in search results (listed, globbed, grep-matched; "
        "opened or not) over episodes with a known corpus; not part of coverage",
    )
    cost_usd: CostSummary
    tokens: TokenSummary
    tool_calls: ToolCallSummary
    wall_s: WallTime


class ModelSummary(GroupSummary):
    """One model's scores over all its episodes, and per ablation level (levels in the ladder's order)."""

    model: str
    by_ablation: dict[str, GroupSummary] = Field(default_factory=dict)


# --- baselines and comparisons ---------------------------------------------------------------------------------


class BaselineSummary(Record):
    """The exact expected metrics of a naive verdict policy for n hypotheses (Section 4.1)."""

    name: str
    description: str
    n_hypotheses: int
    case_solved: float
    believe_acc: float
    reject_acc: float
    worst_class_acc: float
    commit_rate: float
    committed_acc: float


class MetricDifference(Record):
    """b - a for one metric on the shared environments, with its paired-bootstrap interval."""

    a: float | None
    b: float | None
    difference: float | None
    ci: Interval | None = Field(description="95% percentile interval of b - a, paired cluster bootstrap")
    share_above_zero: float | None = Field(description="share of resamples in which b - a > 0")


class Comparison(Record):
    """A paired comparison: two models ("models") on the (environment, level) units both ran, or one model's
    consecutive ablation levels ("ablation", a = the earlier level)."""

    kind: str
    model: str | None
    a: str
    b: str
    n_environments: int
    n_episodes_a: int
    n_episodes_b: int
    case_solved: MetricDifference
    worst_class_acc: MetricDifference


class VerdictTransitions(Record):
    """Verdicts on the alternative hypotheses at ablation level a against level b, over paired verdicts (Section
    4.2, Figure 6; built by `scoring.levels.verdict_transitions`)."""

    model: str = Field(description='the model, or "all models" for the pool')
    a: str = Field(description="the earlier ablation level")
    b: str = Field(description="the later ablation level")
    n_pairs: int = Field(description="(model, case, alternative, epoch) pairs with a parsed verdict at both levels")
    n_unparsed: int = Field(description="pairs left out: no parsed verdict at one level or both")
    n_environments: int = Field(description="cases with at least one counted pair")
    counts: dict[str, dict[str, int]] = Field(
        description="counts[verdict at a][verdict at b] over believe, reject, dont_know"
    )
    believe_a: int = Field(description="pairs believing the alternative at level a")
    believe_b: int = Field(description="pairs believing the alternative at level b")
    share_believe_a: float | None = Field(description="believe_a / n_pairs")
    share_believe_b: float | None = Field(description="believe_b / n_pairs")
    to_believe: int = Field(description="pairs that do not believe at a (reject or dont_know) and believe at b")


# --- coverage --------------------------------------------------------------------------------------------------


class CoveragePoint(Record):
    """One episode with a known corpus: its coverage and signal recall (a point of the strategy figure)."""

    model: str
    episode_id: str
    ablation: str
    coverage: float | None
    signal_recall: float | None
    seen_share: float | None = None


class RoleRecall(Record):
    """Per model and document role: mean per-episode recall of the role's documents over the episodes whose corpus
    has the role, and the mean number of such documents per corpus."""

    model: str
    role: str
    episodes: int
    documents_mean: float
    recall: float | None


# --- the analyses of Section 4 (scoring/analyses.py) ----------------------------------------------------------


class Completeness(Record):
    """Per model: every episode found, those that ran to the end, and those with a complete output (Section 4.1)."""

    model: str
    n_episodes: int = Field(description="episodes found, running and failed ones included")
    n_finished: int = Field(description="episodes with status complete (both turns ran)")
    n_complete: int = Field(description="complete outputs: Turn 1 finished and every verdict readable")


class VerdictCounts(Record):
    """One model's verdicts pooled over a set of episodes (Section 4.1)."""

    model: str
    n_episodes: int
    n_verdicts: int
    n_committed: int = Field(description="verdicts that are believe or reject")
    commit_rate: float | None = Field(description="n_committed / n_verdicts, pooled over verdicts")
    n_committed_correct: int = Field(description="committed verdicts that are right: believe on h*, reject elsewhere")
    committed_acc: float | None = Field(description="n_committed_correct / n_committed, pooled")
    n_solved: int
    case_solved: float | None = Field(description="n_solved / n_episodes")
    n_believe_adopted: int = Field(description="episodes that believe h*")
    n_believe_adopted_and_other: int = Field(description="episodes that believe h* and a non-h* hypothesis")


class SharedCases(Record):
    """Commitment and accuracy of each model on the cases every model completed (Section 4.1)."""

    models: list[str]
    n_cases: int = Field(description="(case, level) units where every model's episodes are all complete outputs")
    per_model: list[VerdictCounts]


class StrategyCorrelation(Record):
    """The point-biserial correlation of one strategy variable with case solved (Section 4.3)."""

    model: str = Field(description='a model, or "all models" (pooled)')
    variable: str = Field(description="documents_opened | coverage | tool_calls | signal_recall")
    n: int = Field(description="episodes where the variable is known")
    n_environments: int
    r: float | None = Field(description="Pearson's r with case solved as 0/1; None when either side is constant")
    ci: Interval | None = Field(description="95% percentile interval, cluster bootstrap over environments")
    mean_solved: float | None
    mean_unsolved: float | None


class GeneratorRate(Record):
    """One model's case-solved rate on the environments one generator built (Section 4.4)."""

    generator: str
    model: str
    n_episodes: int
    n_cases: int
    case_solved: float | None
    case_solved_ci: Interval | None = Field(description="95% percentile interval, cluster bootstrap over cases")


class GeneratorModelPair(Record):
    """One model on the cases two generators both built: case solved on each, b - a and its paired interval."""

    model: str
    n_episodes_a: int
    n_episodes_b: int
    a: float | None
    b: float | None
    difference: float | None
    ci: Interval | None = Field(description="95% percentile interval of b - a, paired bootstrap over case ids")


class GeneratorPair(Record):
    """Two generators compared on the (case, level) units both built (Section 4.4)."""

    a: str
    b: str
    n_cases: int
    n_models: int
    spearman_rho: float | None = Field(description="Spearman's rho of the models' case solved on a vs on b")
    models: list[GeneratorModelPair]


class GeneratorRobustness(Record):
    """Per-generator rates and the pairwise ranking comparisons (Section 4.4)."""

    generators: list[str]
    n_unrecorded: int = Field(description="episodes left out: their environment records no generator or is unknown")
    rates: list[GeneratorRate]
    pairs: list[GeneratorPair]


class Analyses(Record):
    """The Section 4 analyses of one scoring (`scoring.analyses.analyze`)."""

    complete_only: bool = Field(description="True when only complete outputs were scored (--complete-only)")
    completeness: list[Completeness]
    shared_cases: SharedCases
    believe_adopted_and_other: list[VerdictCounts] = Field(description="over the scored episodes")
    strategy: list[StrategyCorrelation]
    generators: GeneratorRobustness | None = None


# --- the whole summary -----------------------------------------------------------------------------------------


class ScoringSettings(Record):
    """How the summary was computed."""

    replicates: int
    seed: int
    level: float = 0.95
    dont_know_as_reject: bool = True
    n_hypotheses: int = Field(description="hypotheses per case the baselines are computed for")
    partial_verdicts: bool = Field(
        default=False,
        description="the case-solved rule: False (default) needs a readable verdict on every hypothesis; True "
        "(--partial-verdicts) counts a missing verdict on a non-h* hypothesis as not believing it",
    )
    verdict_rule: str = Field(default="", description="the case-solved rule used, in words")


class ScoreSummary(Record):
    """The scoring summary of a set of episodes (`summarize`)."""

    models: list[ModelSummary]
    baselines: dict[str, BaselineSummary]
    comparisons: list[Comparison]
    unparsed: int = Field(description="episodes without any readable verdict (scored as not solved)")
    copied_example: int = Field(
        default=0, description="episodes whose Turn-2 reply copied the verdict prompt's example (scored as no verdict)"
    )
    incomplete_verdicts: int = Field(
        default=0, description="episodes with a readable verdict on some hypotheses but not all"
    )
    recall_by_role: list[RoleRecall] = Field(default_factory=list)
    level_transitions: list[VerdictTransitions] = Field(
        default_factory=list, description="verdict transitions on the alternatives between consecutive levels (Fig. 6)"
    )
    settings: ScoringSettings | None = None
    analyses: Analyses | None = None

    def levels(self) -> list[str]:
        """The ablation levels of every model, in the ladder's order (unknown levels after them by name)."""
        return sorted({level for m in self.models for level in m.by_ablation}, key=level_sort_key)
