"""Run the construction stages in order, saving each output as OUT/stages/<nn>_<name>.json.

Resumption: each stage file stores the stage's *input hash*: a digest of the stage's version, the build settings
it reads, its prompt templates, its external inputs (for `ingest`: every record file's name, size and SHA-256)
and the input and output hashes of the stage before it (a chain, so a change anywhere upstream reaches every later
stage). A stage whose file holds the current input hash is skipped and its saved output reused; any other stage
runs, and then so does every stage after it whose input hash changes in turn. A killed build therefore resumes
at the first unfinished stage, and the LLM answers of a half-finished stage come back from the run store
(OUT/run/) or the shared response cache without being paid for again.

`until=NAME` (the CLI's `--stage NAME`) runs the stages up to and including NAME: earlier stages run only if they
are unfinished or out of date, so with an up-to-date build it runs just NAME.

A stage that fails raises StageError: its own (stale) file has been removed, the files of the stages before it
stay, and the next run resumes there.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from lexprobe.engine.cache import ResponseCache
from lexprobe.engine.config import EngineConfig
from lexprobe.errors import BadInputError
from lexprobe.investigation.pipeline.context import (
    RUN_DIR,
    STAGES_DIR,
    BuildSettings,
    StageContext,
    StageError,
    stderr_log,
)
from lexprobe.investigation.pipeline.llm import templates_digest
from lexprobe.investigation.pipeline.registry import STAGE_ORDER, Stage, stages


@dataclass
class BuildResult:
    """What a build did: the stages it ran and skipped, and every output it has."""

    out_dir: Path
    ran: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    outputs: dict[str, BaseModel] = field(default_factory=dict)

    @property
    def report(self) -> BaseModel | None:
        """The build report (the `assemble` stage's output), when the build got that far."""
        return self.outputs.get("assemble")


def digest(data: Any) -> str:
    """Return the SHA-256 hex digest of `data` as canonical JSON."""
    blob = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()


def stage_input_hash(stage: Stage, ctx: StageContext, previous: str) -> str:
    """Return the input hash of `stage` given the chain hash of the stage before it."""
    settings = {
        key: ctx.settings.model_for("judge") if key == "judge" else getattr(ctx.settings, key) for key in stage.settings
    }
    return digest(
        {
            "stage": stage.name,
            "version": stage.version,
            "settings": settings,
            "templates": templates_digest(stage.templates),
            "external": stage.external(ctx) if stage.external else None,
            "previous": previous,
        }
    )


def write_atomic(path: Path, text: str) -> None:
    """Write `text` to `path` through a temporary file and a rename (no half-written file survives a crash)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.partial")
    partial.write_text(text, encoding="utf-8")
    os.replace(partial, path)


def read_stage_file(path: Path, stage: Stage) -> tuple[str, BaseModel] | None:
    """Return (input hash, output) from a stage file, or None when it is missing or unreadable."""
    if not path.is_file():
        return None
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        return raw["input_hash"], stage.output.model_validate(raw["output"])
    except (OSError, ValueError, KeyError, TypeError, ValidationError):
        return None


def write_stage_file(path: Path, stage: Stage, input_hash: str, output: BaseModel, seconds: float) -> None:
    """Save a finished stage's output with its input hash."""
    record = {
        "stage": stage.name,
        "number": stage.number,
        "input_hash": input_hash,
        "finished_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "seconds": round(seconds, 3),
        "output": output.model_dump(mode="json"),
    }
    write_atomic(path, json.dumps(record, indent=2, ensure_ascii=False) + "\n")


def run_build(
    record_dir: Path,
    out_dir: Path,
    settings: BuildSettings,
    *,
    llm: Any = None,
    until: str | None = None,
    cache: ResponseCache | None = None,
    engine_config: EngineConfig | None = None,
    log: Callable[[str], None] = stderr_log,
) -> BuildResult:
    """Build (or resume building) an environment from `record_dir` into `out_dir`; return what was done.

    `llm` answers the stages' prompts (default: an `EngineTextSource` over OUT/run/ with `cache` and
    `engine_config`). Raises ValueError for an unknown `until`, StageError when a stage fails, and
    ModelConfigError when a model spec cannot be used.
    """
    if until is not None and until not in STAGE_ORDER:
        raise BadInputError(f"unknown stage {until!r}; stages: {', '.join(STAGE_ORDER)}")
    record_dir, out_dir = Path(record_dir), Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    own_llm = llm is None
    if own_llm:
        from lexprobe.investigation.pipeline.engine_source import EngineTextSource

        llm = EngineTextSource(settings, out_dir / RUN_DIR, cache, engine_config)
    ctx = StageContext(record_dir=record_dir, out_dir=out_dir, settings=settings, llm=llm, log=log)
    result = BuildResult(out_dir)
    all_stages = stages()
    previous = ""
    try:
        for stage in all_stages:
            ctx.stage = stage.name
            label = f"[{stage.number:2d}/{len(all_stages)}] {stage.name}"
            input_hash = stage_input_hash(stage, ctx, previous)
            output = _stage_output(stage, ctx, input_hash, label, result)
            ctx.outputs[stage.name] = output
            result.outputs[stage.name] = output
            previous = digest([input_hash, output.model_dump(mode="json")])
            if stage.name == until:
                break
    finally:
        if own_llm:
            llm.close()
    return result


def _stage_output(stage: Stage, ctx: StageContext, input_hash: str, label: str, result: BuildResult) -> BaseModel:
    """A stage's output: its stored file when that was made from the same inputs, else a fresh run, written."""
    path = ctx.out_dir / STAGES_DIR / stage.file_name
    stored = read_stage_file(path, stage)
    if stored is not None and stored[0] == input_hash:
        result.skipped.append(stage.name)
        ctx.log(f"{label}: up to date, skipped")
        return stored[1]
    path.unlink(missing_ok=True)
    ctx.log(f"{label}: running")
    started = time.perf_counter()
    try:
        output = stage.run(ctx)
    except StageError as exc:
        ctx.log(f"{label}: FAILED: {exc}")
        raise
    seconds = time.perf_counter() - started
    write_stage_file(path, stage, input_hash, output, seconds)
    result.ran.append(stage.name)
    ctx.log(f"{label}: done in {seconds:.1f}s -> {STAGES_DIR}/{stage.file_name}")
    return output
