"""Run the construction stages in order, saving each output as OUT/stages/<nn>_<name>.json, after checking the
build's options (`build_settings`); `EngineTextSource` answers the stages' model calls through the engine.

Resumption (docs/investigation.md, "Resumption"): each stage file stores the stage's input hash, a digest of its
version, the settings it reads, its templates, its external inputs (for `ingest`: every record file's name, size
and SHA-256) and the hashes of the stage before it (a chain); a stage whose file holds the current hash is skipped
and its output reused. `until=NAME` (`--stage NAME`) runs the stages up to and including NAME. A stage that fails
raises StageError: its own (stale) file has been removed, the files of the stages before it stay, and the next run
resumes there; the answers a half-finished stage already got come back from the run store (OUT/run/).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import os
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from lexprobe.engine.cache import ResponseCache
from lexprobe.engine.config import EngineConfig
from lexprobe.engine.executor import Engine
from lexprobe.engine.store import RunStore
from lexprobe.engine.summary import RunSummary
from lexprobe.errors import BadInputError
from lexprobe.investigation.environment.ladder import canonical_level, parse_levels
from lexprobe.investigation.pipeline.context import (
    RUN_DIR,
    SIZE_PRESETS,
    STAGES_DIR,
    SYSTEM_PROMPT,
    Answer,
    BuildSettings,
    LLMCall,
    StageContext,
    StageError,
    stderr_log,
    templates_digest,
)
from lexprobe.investigation.pipeline.registry import STAGE_ORDER, Stage, stages
from lexprobe.models.types import Request, Response


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


def build_request(call: LLMCall, settings: BuildSettings) -> Request:
    """Return the engine request of one stage call."""
    request = Request.from_prompt(
        settings.model_for(call.role),
        call.prompt,
        system=SYSTEM_PROMPT,
        temperature=0.0 if call.attempt == 0 else settings.retry_temperature,
        max_tokens=call.max_tokens,
        sample_index=call.attempt,
        schema=call.schema,
        tags={"stage": call.stage, "item": call.item, "role": call.role, "attempt": str(call.attempt)},
    )
    return request.model_copy(
        update={"id": f"{call.stage}/{call.item}/{call.role}/{call.attempt}/{request.cache_key()[:12]}"}
    )


class EngineTextSource:
    """Runs stage calls through one `Engine` on a private event loop, with one run store per build (OUT/run/).
    Close it with `close()`.

    Each call's request id is `stage/item/role/attempt/<key prefix>` (`build_request`), so a rerun of the same build
    finds its answers in the run store (or the shared response cache) and sends nothing, and a changed prompt gets a
    new id instead of a conflict. First attempts run at temperature 0; retries at the settings' retry temperature
    with `sample_index` = attempt, so each retry is a distinct sample.
    """

    def __init__(
        self,
        settings: BuildSettings,
        run_dir: Path,
        cache: ResponseCache | None = None,
        config: EngineConfig | None = None,
    ) -> None:
        self.settings = settings
        Path(run_dir).mkdir(parents=True, exist_ok=True)
        self.store = RunStore.open(run_dir)
        self.engine = Engine(self.store, cache, config or EngineConfig(progress=False))
        self.loop = asyncio.new_event_loop()
        self.summary = RunSummary()

    def complete(self, calls: Sequence[LLMCall]) -> list[Answer]:
        """Send `calls` (concurrently, per the engine's limits); return one answer per call, in order.

        Raises ModelConfigError when a model spec cannot be used. A request that failed after the engine's own
        retries comes back as an Answer with no text and the engine's error.
        """
        if not calls:
            return []
        requests = [build_request(call, self.settings) for call in calls]
        self.summary.absorb(self.loop.run_until_complete(self.engine.run(requests)))
        answers = []
        for request in requests:
            response = self.store.response(request.request_id)
            if response is not None:
                answers.append(Answer(response.text))
                continue
            failures = [
                row.error
                for row in self.store.telemetry(request.request_id)
                if row.event in ("failed", "failed_permanent")
            ]
            answers.append(Answer(None, failures[-1] if failures else "no response"))
        return answers

    def usage(self) -> dict[str, Any]:
        """Return tokens, cost and request counts of the whole build so far (every run), in total and per stage."""
        responses = self.store.responses()
        by_stage: dict[str, list[Response | None]] = defaultdict(list)
        for request in self.store.requests():
            by_stage[request.tags.get("stage", "?")].append(responses.get(request.request_id))
        stages = {name: _usage_row(answers) for name, answers in by_stage.items()}
        total = {key: sum(row[key] for row in stages.values()) for key in ("requests", "input_tokens", "output_tokens")}
        total["cost_usd"] = _cost([row["cost_usd"] for row in stages.values()])
        counts = self.store.counts()
        return {
            "total": total,
            "stages": stages,
            "pending": counts["pending"],
            "telemetry_rows": len(self.store.telemetry()),
        }

    def close(self) -> None:
        """Close the models, the event loop and the run store."""
        try:
            self.loop.run_until_complete(self.engine.aclose())
        finally:
            self.loop.close()
            self.store.close()


def _cost(costs: list[float | None]) -> float | None:
    """Return the sum of `costs` (from 0.0, in order), or None when any is unknown."""
    return None if None in costs else sum(costs, 0.0)  # type: ignore[arg-type]


def _usage_row(responses: list[Response | None]) -> dict[str, Any]:
    """Return the requests, tokens and cost of one stage's requests (None: not answered)."""
    answered = [r for r in responses if r is not None]
    return {
        "requests": len(responses),
        "input_tokens": sum(r.usage.input_tokens for r in answered),
        "output_tokens": sum(r.usage.output_tokens for r in answered),
        "cost_usd": _cost([r.cost_usd for r in answered]),
    }
