"""`EngineTextSource`: answers a stage's LLM calls through the engine, with one run store per build (OUT/run/).

Every call becomes a `Request` with the call's JSON schema; its id is `stage/item/role/attempt/<key prefix>`, so
a rerun of the same build finds its answers in the run store (or the shared response cache) and sends nothing,
and a changed prompt gets a new id instead of a conflict. First attempts run at temperature 0; retries at the
settings' retry temperature with `sample_index` = attempt, so each retry is a distinct sample.
"""

from __future__ import annotations

import asyncio
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from lexprobe.engine.cache import ResponseCache
from lexprobe.engine.config import EngineConfig
from lexprobe.engine.executor import Engine
from lexprobe.engine.store import RunStore
from lexprobe.engine.summary import RunSummary
from lexprobe.investigation.pipeline.context import BuildSettings
from lexprobe.investigation.pipeline.llm import Answer, LLMCall
from lexprobe.models.types import Request, Response


def build_request(call: LLMCall, settings: BuildSettings) -> Request:
    """Return the engine request of one stage call."""
    request = Request.from_prompt(
        settings.model_for(call.role),
        call.prompt,
        system=call.system,
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
    """Runs stage calls through one `Engine` on a private event loop. Close it with `close()`."""

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
