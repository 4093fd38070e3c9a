"""lexprobe where evaluation teams already work: Inspect tasks, scorers and a model API (`inspect_*` modules), and
exports to other formats. The only package that imports `inspect_ai` (an optional extra, `lexprobe[inspect]`); it
sits above `check/`, `hallucination/` and `investigation/`, below `cli/` and `view/` (docs/architecture.md).
"""
