"""Scoring investigation episodes (InvestigationWorlds, Section 3.1 and 4): pure functions over `Episode` records.

Modules: `metrics` (per-episode scores), `aggregates` (cluster bootstrap, paired differences), `baselines` (the
exact naive policies), `coverage` (coverage, signal recall), `summary` (the whole summary). Rank correlation lives
in `lexprobe.stats`.

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

from lexprobe.investigation.scoring.aggregates import (
    Aggregate,
    PairedDifference,
    aggregate,
    cluster_bootstrap_ci,
    paired_bootstrap,
)
from lexprobe.investigation.scoring.baselines import (
    Baseline,
    always_reject_baseline,
    baselines,
    believe_one_baseline,
    uniform_random_baseline,
)
from lexprobe.investigation.scoring.coverage import (
    ROLES,
    SIGNAL_ROLES,
    Coverage,
    Documents,
    coverage,
    coverage_points,
    document_roles,
    role_recall_table,
    touched_documents,
)
from lexprobe.investigation.scoring.metrics import (
    ADOPTED,
    DEFINITIONS,
    METRICS,
    UNSPECIFIED,
    EpisodeScore,
    case_solved,
    class_accuracies,
    complete_episodes,
    score_episode,
    score_verdicts,
)
from lexprobe.investigation.scoring.summary import (
    Environments,
    Usage,
    ablation_sort_key,
    comparisons,
    modal_hypothesis_count,
    summarize,
    usage,
)
from lexprobe.stats import average_ranks, ranking_correlation, spearman

__all__ = [
    "ADOPTED",
    "DEFINITIONS",
    "METRICS",
    "ROLES",
    "SIGNAL_ROLES",
    "UNSPECIFIED",
    "Aggregate",
    "Baseline",
    "Coverage",
    "Documents",
    "Environments",
    "EpisodeScore",
    "PairedDifference",
    "Usage",
    "ablation_sort_key",
    "aggregate",
    "always_reject_baseline",
    "average_ranks",
    "baselines",
    "believe_one_baseline",
    "case_solved",
    "class_accuracies",
    "cluster_bootstrap_ci",
    "comparisons",
    "complete_episodes",
    "coverage",
    "coverage_points",
    "document_roles",
    "modal_hypothesis_count",
    "paired_bootstrap",
    "ranking_correlation",
    "role_recall_table",
    "score_episode",
    "score_verdicts",
    "spearman",
    "summarize",
    "touched_documents",
    "uniform_random_baseline",
    "usage",
]
