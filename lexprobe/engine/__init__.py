"""How requests run: resumable SQLite run store, shared response cache, concurrency, retries, progress."""

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
