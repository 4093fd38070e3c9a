"""Hallucination profiling after Dahl et al., Large Legal Fictions, one package per concept (docs/architecture.md).

In import order, each package importing only those before it: `help_facts` (what `--help` prints), `labels`
(reading one answer into a label), `prompts` (the questions as asked), `tasks` (the study's tasks and the typed
`SampledCase`), `scorers` (judging answers per task, the judge, calibration), `profile` (the statistics of scored
runs), `reference` (the paper's estimates), `report` (the summary and the HTML page) and `run` (one run through the
engine). The domain may import `caselaw`, `engine`, `models`, `stats`, `reporting` and the shared modules, never
`lexprobe.investigation`.
"""
