"""What Inspect loads through lexprobe's `inspect_ai` entry point (pyproject.toml): importing the modules below
registers lexprobe's Inspect model API (`lexprobe/...` models), tasks (`lexprobe/hallucination`) and scorers
(`lexprobe/hallucination_reader`, `lexprobe/citation_check`). Nothing else is defined here."""

import lexprobe.interop.inspect_investigation  # noqa: F401 - lexprobe/investigation, its solver and scorer
from lexprobe.interop import inspect_model  # noqa: F401 - registers the model API
