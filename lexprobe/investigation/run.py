"""`lexprobe investigation run`: episodes of one model over several environments and epochs, concurrently, into one
resumable run directory (`run.sqlite` for every model call, `episodes/*.json` for the records)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import TypeVar

from lexprobe.engine import Engine, EngineConfig, ResponseCache, RunStore
from lexprobe.investigation.corpus_view import CorpusView
from lexprobe.investigation.episode import Episode
from lexprobe.investigation.harness import EpisodeRunner, HarnessSettings

T = TypeVar("T")


async def run_investigations(
    env_dirs: list[Path],
    settings: HarnessSettings,
    run_dir: Path,
    cache: ResponseCache | None,
    config: EngineConfig,
    *,
    concurrency: int = 2,
    on_episode: Callable[[Episode], None] | None = None,
) -> list[Episode]:
    """Run every environment x epoch episode (at most `concurrency` at a time) and return the episodes in order.

    Raises ValueError when `run_dir` holds a run with other settings, and FileNotFoundError / ValueError for an
    environment that cannot be loaded (before any model call).
    """
    views = [CorpusView.open(Path(env_dir)) for env_dir in env_dirs]
    run_dir = Path(run_dir)
    store = RunStore.open(run_dir)
    previous = store.get_meta("investigation_settings")
    if previous is not None and previous != settings.to_meta():
        store.close()
        raise ValueError(f"{run_dir} holds a run with other settings ({previous}); use a new --run-dir")
    store.set_meta("investigation_settings", settings.to_meta())
    store.set_meta("model", settings.model)
    jobs = [
        lambda engine, view=view, epoch=epoch: EpisodeRunner(engine, view, settings, epoch, run_dir).run()
        for view in views
        for epoch in range(settings.epochs)
    ]
    return await run_gated(store, cache, config, jobs, concurrency, on_episode)


async def run_gated(
    store: RunStore,
    cache: ResponseCache | None,
    config: EngineConfig,
    jobs: Sequence[Callable[[Engine], Awaitable[T]]],
    concurrency: int,
    on_done: Callable[[T], None] | None = None,
) -> list[T]:
    """Run `jobs` (each given one shared engine over `store`) at most `concurrency` at a time and return their
    results in order; `on_done` sees each result as it finishes. Closes the engine and the store."""
    engine = Engine(store, cache, config)
    gate = asyncio.Semaphore(max(concurrency, 1))

    async def one(job: Callable[[Engine], Awaitable[T]]) -> T:
        async with gate:
            result = await job(engine)
            if on_done is not None:
                on_done(result)
            return result

    try:
        return list(await asyncio.gather(*(one(job) for job in jobs)))
    finally:
        await engine.aclose()
        store.close()
