"""Scoring investigation episodes (InvestigationWorlds, Section 3.1 and 4): pure functions over `Episode` records.

Modules: `metrics` (per-episode scores), `aggregates` (cluster bootstrap, paired differences), `baselines` (the
exact naive policies), `coverage` (coverage, signal recall), `analyses` (Section 4's complete outputs, shared
cases, strategy correlation, generator robustness), `summary` (the whole summary), `schema` (the typed
pydantic models of the summary: `ScoreSummary` and its parts, read by the CLI, `--json` and the HTML report),
`levels` (Section 4.2: paired level differences, Figure 5; verdict transitions on the alternatives, Figure 6),
`inputs` (run directories, environments, the corpus hash and the level / corpus checks of an episode). Rank
correlation and the generic bootstrap primitives (resampling, percentile interval) live in `lexprobe.stats`.

Definitions of every metric (h*, case solved and the `--partial-verdicts` rule, the class accuracies, worst class,
commitment, coverage and what "opened" means, signal recall, seen share, usage, the cluster-bootstrap aggregates and
paired comparisons): docs/investigation.md, "Scoring".

May import: `lexprobe.investigation.agent` (episodes, verdict examples), `lexprobe.investigation.environment`,
`lexprobe.investigation.qa` (QA records), `lexprobe.stats`, `lexprobe.reporting` (the QA page).
"""
