"""The role of a document in an investigation environment (`lexprobe.investigation.environment.format` describes each
one). Defined apart from the environment model so that light modules (the ablation ladder, the CLI's `--help`)
can name roles without importing pydantic and the whole schema; `environment` re-exports it."""

from __future__ import annotations

from enum import StrEnum

__all__ = ["Role"]


class Role(StrEnum):
    """What a document is in the environment (see `lexprobe.investigation.environment.format`)."""

    merits = "merits"
    signal = "signal"
    pro_alternative = "pro_alternative"
    refuting = "refuting"
    noise = "noise"
    chaff = "chaff"
