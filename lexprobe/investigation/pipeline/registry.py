"""The stage registry: each construction stage is a function registered by name with `@stage(...)`.

`STAGE_ORDER` is the order a build runs them in; `stages()` imports every stage module and returns them in that
order. A stage declares what its output depends on besides the earlier stages' outputs: the build settings it
reads, its templates, and (for `ingest`) an external fingerprint of the record files.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # annotations only: `STAGE_ORDER` is read by the CLI's `--help`, which needs no pydantic
    from pydantic import BaseModel

    from lexprobe.investigation.pipeline.context import StageContext

STAGE_ORDER = (
    "ingest",
    "opinion",
    "souf",
    "ground_facts",
    "party_dags",
    "ruling",
    "entities",
    "exhibits",
    "alternatives",
    "doc_plans",
    "shard_plans",
    "generate",
    "assemble",
)
STAGE_MODULES = (
    "ingest",
    "opinion",
    "facts",
    "hypotheses",
    "entities",
    "generate",
    "assemble",
)

StageFunction = Callable[["StageContext"], "BaseModel"]


@dataclass(frozen=True)
class Stage:
    """One registered stage."""

    name: str
    run: StageFunction
    output: type[BaseModel]
    settings: tuple[str, ...] = ()
    templates: tuple[str, ...] = ()
    external: Callable[[StageContext], Any] | None = None
    version: int = 1

    @property
    def number(self) -> int:
        """1-based position in the build."""
        return STAGE_ORDER.index(self.name) + 1

    @property
    def file_name(self) -> str:
        """The stage file's name: `<nn>_<name>.json`."""
        return f"{self.number:02d}_{self.name}.json"


REGISTRY: dict[str, Stage] = {}

#: Settings every LLM stage reads (what model answers, and how requests are made).
LLM_SETTINGS = ("generator", "max_attempts", "retry_temperature", "max_tokens", "max_input_chars", "context_tokens")


def stage(
    name: str,
    *,
    output: type[BaseModel],
    settings: tuple[str, ...] = LLM_SETTINGS,
    templates: tuple[str, ...] = (),
    external: Callable[[StageContext], Any] | None = None,
    version: int = 1,
) -> Callable[[StageFunction], StageFunction]:
    """Register the decorated function as stage `name`; raises ValueError for a name not in STAGE_ORDER."""
    if name not in STAGE_ORDER:
        raise ValueError(f"unknown stage {name!r}; add it to STAGE_ORDER")

    def register(function: StageFunction) -> StageFunction:
        REGISTRY[name] = Stage(name, function, output, settings, templates, external, version)
        return function

    return register


def stages() -> list[Stage]:
    """Return every stage in build order (importing the stage modules first)."""
    for module in STAGE_MODULES:
        importlib.import_module(f"lexprobe.investigation.pipeline.{module}")
    missing = [name for name in STAGE_ORDER if name not in REGISTRY]
    if missing:
        raise RuntimeError(f"stages without an implementation: {missing}")
    return [REGISTRY[name] for name in STAGE_ORDER]
