"""lexprobe where evaluation teams already work: Inspect logs and Hugging Face dataset folders (docs/interop.md).

Imports inspect_ai, datasets and pyarrow only inside its own modules, so nothing else of lexprobe pays for them."""
