"""The few facts about the tasks, calibration and the model reader that `lexprobe hallucination run --help` prints,
in a module that imports nothing, so that help text does not load the task registry, its scorers or calibration.

The registry (`hallucination/tasks`) checks on import that `UNCALIBRATED_WITH_REFERENCE` names exactly its tasks
that are neither calibrated nor reference-free, in its order; calibration takes `DEFAULT_SAMPLES` from here.
"""

from __future__ import annotations

__all__ = ["DEFAULT_SAMPLES", "READER_HELP", "UNCALIBRATED_WITH_REFERENCE"]

#: K where the study drew samples (Table 7: 10 samples at temperature 1).
DEFAULT_SAMPLES = 10

#: The tasks with a reference answer that the study did not calibrate, in the registry's order.
UNCALIBRATED_WITH_REFERENCE: tuple[str, ...] = ("quotation", "authority", "false_dissent")

#: `--reader` of `hallucination run` and `score-answers` (`scorers/model_reader.py`).
READER_HELP = (
    "A model (any --model spec) that reads the answers the rules leave unscored: it says, as JSON, the value the "
    "answer gives, or that it declines, or that it gives no answer; the value is scored by the task's own rules. "
    "Labels so given say 'read by MODEL' and the report counts them. Read once (kept in the run directory and the "
    "cache). Reference-based tasks only; off by default (the rules alone)."
)
