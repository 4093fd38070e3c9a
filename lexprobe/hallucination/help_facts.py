"""The few facts about the tasks and calibration that `lexprobe hallucination run --help` prints, in a module that
imports nothing, so that help text does not load the task registry, its scorers or calibration.

The registry (`hallucination/tasks`) checks on import that `UNCALIBRATED_WITH_REFERENCE` names exactly its tasks
that are neither calibrated nor reference-free, in its order; calibration takes `DEFAULT_SAMPLES` from here.
"""

from __future__ import annotations

__all__ = ["DEFAULT_SAMPLES", "UNCALIBRATED_WITH_REFERENCE"]

#: K where the study drew samples (Table 7: 10 samples at temperature 1).
DEFAULT_SAMPLES = 10

#: The tasks with a reference answer that the study did not calibrate, in the registry's order.
UNCALIBRATED_WITH_REFERENCE: tuple[str, ...] = ("quotation", "authority", "false_dissent")
