"""The papers' figures of InvestigationWorlds: the numbers its Section 4 prints (case solved per model and the naive
baselines, commitment, the ablation changes and verdict transitions, coverage and signal recall, the generator
check) and its investigation budget, shipped as package data (`investigation_worlds.json`, read by `rows`), and
their comparison with a user's scores (`compare.paper_comparison`). See docs/investigation.md, "Reference rows from
the paper".

May import: `lexprobe.investigation.agent` (episodes), `lexprobe.investigation.scoring` (the summary it compares
with)."""
