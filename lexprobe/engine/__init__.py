"""How requests run: resumable SQLite run store, shared response cache, concurrency, retries, progress.

The names below are exported lazily (`lexprobe.lazy`): `from lexprobe.engine import RunStore` imports only the
store, so a command that sends nothing (`lexprobe --help`, a dry run) never imports the executor or the model SDKs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lexprobe.lazy import lazy_exports

if TYPE_CHECKING:
    from lexprobe.engine.cache import ResponseCache, default_cache_dir
    from lexprobe.engine.config import EngineConfig
    from lexprobe.engine.estimate import Estimate, estimate_run
    from lexprobe.engine.executor import Engine, run_requests
    from lexprobe.engine.store import RunConflictError, RunStore, TelemetryRow
    from lexprobe.engine.summary import RunSummary

__all__ = [
    "Engine",
    "EngineConfig",
    "Estimate",
    "ResponseCache",
    "RunConflictError",
    "RunStore",
    "RunSummary",
    "TelemetryRow",
    "default_cache_dir",
    "estimate_run",
    "run_requests",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    globals(),
    {
        "Engine": "executor",
        "EngineConfig": "config",
        "Estimate": "estimate",
        "ResponseCache": "cache",
        "RunConflictError": "store",
        "RunStore": "store",
        "RunSummary": "summary",
        "TelemetryRow": "store",
        "default_cache_dir": "cache",
        "estimate_run": "estimate",
        "run_requests": "executor",
    },
)
