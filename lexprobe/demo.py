"""The `lexprobe demo` job: a small hallucination profile of a model (the embedded one by default).

It builds the case database from the public data when there is none yet, samples a few Supreme Court cases, asks
every task the data supports in both prompt styles through the engine (temperature 0, cached, resumable), scores the
answers and returns the rate table.
"""

from __future__ import annotations

from pathlib import Path

from lexprobe.caselaw.build import BuildProgress, build_database
from lexprobe.caselaw.paths import data_root
from lexprobe.caselaw.query import CaseDatabase
from lexprobe.engine import EngineConfig, ResponseCache
from lexprobe.hallucination.run import ProfileResult, ProfileSettings, run_profile
from lexprobe.hallucination.tasks import TASKS

DEMO_CASES = 5
DEMO_SEED = 47


def demo_settings(model: str, n: int = DEMO_CASES) -> ProfileSettings:
    """Return the demo's profile: every reference-based task, Supreme Court, zero- and few-shot, n cases."""
    tasks = [task for task in TASKS.values() if not task.reference_free]
    return ProfileSettings(model=model, tasks=tasks, levels=["scotus"], styles=["zero", "few"], n=n, seed=DEMO_SEED)


def ensure_case_database(db_path: Path, progress: BuildProgress | None = None) -> None:
    """Build the case database at `db_path` from `LEXPROBE_DATA` unless it exists."""
    if not db_path.is_file():
        build_database(data_root(), db_path, progress=progress)


async def run_demo(
    model: str, run_dir: Path, db_path: Path, cache: ResponseCache | None, config: EngineConfig, n: int = DEMO_CASES
) -> ProfileResult:
    """Run the demo profile into `run_dir`; returns the plan, engine summary and rate table."""
    database = CaseDatabase(db_path)
    try:
        return await run_profile(demo_settings(model, n), database, run_dir, cache, config)
    finally:
        database.close()
