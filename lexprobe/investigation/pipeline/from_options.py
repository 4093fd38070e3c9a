"""`lexprobe investigation build`'s options made into `BuildSettings`, each checked before any work (the record
folder, the stage, the size preset, the ablation levels, the generator and judge models)."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from lexprobe.errors import BadInputError
from lexprobe.investigation.environment.ladder import canonical_level, parse_levels
from lexprobe.investigation.pipeline.context import SIZE_PRESETS, BuildSettings
from lexprobe.investigation.pipeline.registry import STAGE_ORDER

__all__ = ["build_settings", "counts_line"]


def build_settings(record_dir: Path, stage: str | None, *, ablation: str, levels: str | None, size: str,
                   **fields: Any) -> BuildSettings:  # fmt: skip
    """The settings of a build of `record_dir` up to `stage` (None: every stage), `fields` the other
    `BuildSettings` fields. BadInputError for a missing folder, an unknown stage, size or level; a model error for
    an unusable generator or judge."""
    from lexprobe.models.registry import check_model

    if not record_dir.is_dir():
        raise BadInputError(f"record folder not found: {record_dir}")
    if stage is not None and stage not in STAGE_ORDER:
        raise BadInputError(f"unknown stage {stage!r}; stages: {', '.join(STAGE_ORDER)}")
    if size not in SIZE_PRESETS:
        raise BadInputError(f"unknown size {size!r}; sizes: {', '.join(SIZE_PRESETS)}")
    level = canonical_level(ablation)  # an unknown level: BadInputError
    chosen = parse_levels(levels) if levels is not None else []
    settings = BuildSettings(ablation=level, levels=chosen, size=size, **fields)  # type: ignore[arg-type]
    for spec in dict.fromkeys([settings.generator, settings.judge_model]):
        check_model(spec)
    logging.getLogger("pypdf").setLevel(logging.ERROR)  # "Rotated text discovered" and the like, per page
    return settings


def counts_line(settings: BuildSettings) -> str:
    """Return the one-line summary of the documents a build plans per role (after --size and the count options)."""
    return (
        f"documents per role (--size {settings.size}): signal {settings.signal_count} + "
        f"{settings.shard_count} shard fact(s); per alternative: pro-alternative {settings.pro_alternative_count}, "
        f"refuting {settings.refuting_count}; noise {settings.noise_count}; chaff {settings.chaff_count}"
    )
