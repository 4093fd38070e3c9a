"""Scoring investigation episodes (InvestigationWorlds, Section 3.1 and 4): pure functions over `Episode` records.

Modules: `metrics` (per-episode scores), `aggregates` (cluster bootstrap, paired differences), `baselines` (the
exact naive policies), `coverage` (coverage, signal recall), `analyses` (Section 4's complete outputs, shared
cases, strategy correlation, generator robustness), `summary` (the whole summary), `schema` (the typed
pydantic models of the summary: `ScoreSummary` and its parts, read by the CLI, `--json` and the HTML report),
`levels` (Section 4.2: paired level differences, Figure 5; verdict transitions on the alternatives, Figure 6),
`inputs` (run directories, environments, the corpus hash and the level / corpus checks of an episode). Rank
correlation and the generic bootstrap primitives (resampling, percentile interval) live in `lexprobe.stats`.

Definitions (h* = the court-adopted hypothesis; every other hypothesis, court-rejected or alternative, is a
non-h* hypothesis whose true label is "do not believe"):

- case solved (per episode): the agent believes h* and believes no non-h* hypothesis, with a readable verdict on
  every hypothesis (the paper scores complete outputs, Section 4.1). "Don't know" on a non-h* hypothesis counts as
  not believing it (the paper's rule). With `partial_verdicts=True` (`--partial-verdicts`) a missing (unparsed,
  None) verdict on a non-h* hypothesis counts as not believing it too; a missing verdict on h* is never solved.
  An episode whose Turn-2 reply copied the verdict prompt's example (`verdict_example`) counts as giving no
  verdict at all.
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
- coverage (per episode; Section 4.3, Figure 7): documents opened / corpus documents. A document is opened when a
  tool call that ran (not denied) showed its content: a `read`, or a `shell` command printing it (cat, head, tail,
  sed, awk, grep with context or on that one file, ...; `shell_reads.py`). Listing and searching (`glob`, the `grep`
  tool, `ls`, `find`, `grep -l`, grep match lines) opens nothing. Episodes recorded before calls recorded `opened`
  count their `read` calls only. With `reads_only=True` only `read` calls open documents. (Before issue 15 coverage
  counted every document "touched", listed and matched ones included, which inflated it.)
- signal recall (per episode): the share of the merits documents and the h*-supporting signal documents ("merits
  evidence and h*-supporting signal documents", Section 4.3; `coverage.recall_documents`: a signal document targeting
  h*, or targeting nothing and carrying a fact supporting h*) that were opened; recall by role is the same share
  for each role alone (None where the corpus has no document of that role).
- seen share (per episode): documents seen in search results (listed, globbed, grep-matched, named in shell output;
  opened too or not) / corpus documents. A separate measure of search exposure, never part of coverage.
- usage: tool calls are the calls that ran (refused and failed ones included, denied ones not); denied calls are
  counted apart. Cost is summed over episodes whose cost is known (`cost_usd` None means unknown).

May import: `lexprobe.investigation.agent` (episodes, verdict examples), `lexprobe.investigation.environment`,
`lexprobe.investigation.qa` (QA records), `lexprobe.stats`, `lexprobe.reporting` (the QA page).
"""
