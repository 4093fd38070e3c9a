"""lexprobe where evaluation teams already work: Inspect tasks, scorers and a model API (`inspect_*` modules), and
exports to Inspect logs and Hugging Face dataset folders (`export_*`; docs/interop.md). The only package that imports
`inspect_ai` (an optional extra, `lexprobe[inspect]`), and it imports it, datasets and pyarrow only inside its own
modules; it sits above `check/`, `hallucination/` and `investigation/`, below `cli/` and `view/` (docs/architecture.md).
"""
