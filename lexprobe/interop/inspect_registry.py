"""What Inspect loads through lexprobe's `inspect_ai` entry point (pyproject.toml): importing the modules below
registers lexprobe's Inspect model API (`lexprobe/...` models), tasks (`lexprobe/hallucination`,
`lexprobe/investigation`) and scorers (`lexprobe/hallucination_reader`, `lexprobe/citation_check`,
`lexprobe/investigation_scorer`). Nothing else is defined here."""

from lexprobe.interop import (  # noqa: F401 - importing registers
    inspect_check,
    inspect_hallucination,
    inspect_investigation,
    inspect_model,
    inspect_reader,
)
