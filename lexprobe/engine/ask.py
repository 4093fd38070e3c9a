"""`lexprobe ask`'s work: one request through the engine (cache, retries, usage and cost), kept in a run directory
or in memory, or its estimate for a dry run; the command prints the answer."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from lexprobe.engine.estimate import Estimate, dry_run_store, estimate_run
from lexprobe.engine.store import RunStore
from lexprobe.errors import BadInputError, LexprobeError

if TYPE_CHECKING:
    from lexprobe.engine.cache import ResponseCache
    from lexprobe.engine.config import EngineConfig
    from lexprobe.models.types import Request, Response

__all__ = ["ASK_KIND", "ask_once", "estimate_ask"]

#: The kind of run `lexprobe ask --run-dir` records (see `RunStore.claim`).
ASK_KIND = "ask"


def estimate_ask(request: Request, run_dir: Path | None, cache: ResponseCache | None) -> Estimate:
    """What asking `request` would cost; reads an existing run directory, creates none."""
    store = dry_run_store(run_dir)
    store.check_claim(ASK_KIND, request.model)  # a run directory holds one kind of run of one model
    return estimate_run([request], store, cache)


def ask_once(request: Request, run_dir: Path | None, cache: ResponseCache | None, config: EngineConfig) -> Response:
    """The answer to `request` (from the cache, the run directory or the model). Ctrl-C stops the call cleanly
    (`RunInterrupted`); BadInputError for a permanent failure, LexprobeError (exit 1) when retries ran out."""
    from lexprobe.engine.executor import run_requests
    from lexprobe.engine.interrupt import stop_on_sigint

    store = RunStore.open(run_dir) if run_dir else RunStore.in_memory()
    if run_dir:
        store.claim(ASK_KIND, request.model)
    with stop_on_sigint():
        summary = run_requests([request], store, cache, config)
    response = store.response(request.request_id)
    if response is None:
        if summary.permanent_errors:
            raise BadInputError(f"the request failed permanently: {summary.permanent_errors[0].split(': ', 1)[-1]}")
        reason = summary.errors[0].split(": ", 1)[-1] if summary.errors else "no answer"
        raise LexprobeError(f"the request failed after {summary.retries} retries: {reason}; rerun to try again",
                            exit_code=1)  # fmt: skip
    return response
