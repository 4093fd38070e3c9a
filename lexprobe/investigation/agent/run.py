"""`lexprobe investigation run`: episodes of one model over several environments and epochs, concurrently, into one
resumable run directory (`run.sqlite` for every model call, `episodes/*.json` for the records).

A unit of a run (an episode, or a factual-QA question: `RunUnit`) is plain data, what `run_gated` runs: called with
an engine it runs in this process over the view the driver opened (a local run). With `--ray` it travels to a Ray
worker instead (`engine.ray_units`): pickled without the view, it runs there (`run_on_worker`) over a view the worker
opened from the same `env_dir` (checked against `corpus_hash`), into a scratch folder; its result comes back and the
driver `save`s it into the run directory. Every model request of a unit has an id starting `<name>|`, which is how
the driver finds the answers a resumed unit replays."""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from lexprobe.engine.cache import ResponseCache
from lexprobe.engine.config import EngineConfig
from lexprobe.engine.executor import Engine
from lexprobe.engine.interrupt import interrupted_message
from lexprobe.engine.store import RunStore
from lexprobe.errors import Interrupted
from lexprobe.investigation.agent.corpus_view import CorpusView
from lexprobe.investigation.agent.episode import EPISODES_DIR, Episode, safe_name
from lexprobe.investigation.agent.harness import EpisodeRunner, HarnessSettings, episode_id
from lexprobe.investigation.environment.corpus_digest import corpus_hash
from lexprobe.investigation.shell.sandbox import sandbox_available
from lexprobe.models.errors import ModelConfigError

if TYPE_CHECKING:
    from lexprobe.engine.ray_units import RayUnits

T = TypeVar("T")
J = TypeVar("J")

#: The kinds of run an investigation run directory holds: episodes, and factual QA of the same model beside them.
RUN_KIND = "investigation"
QA_KIND = "qa"
COMPANIONS = {RUN_KIND: (QA_KIND,), QA_KIND: (RUN_KIND,)}


@dataclass
class RunUnit(ABC, Generic[T]):
    """An episode or question of one environment, run locally (`__call__`) or on a Ray worker (`run`)."""

    env_dir: str
    corpus_hash: str
    settings: HarnessSettings
    name: str  # the episode id: every request of the unit has an id `<name>|...`
    run_dir: Path
    view: CorpusView | None = field(default=None, compare=False, repr=False)  # the driver's, never pickled

    def __getstate__(self) -> dict[str, Any]:
        """Pickle everything but the view (a worker opens its own)."""
        return {key: value for key, value in self.__dict__.items() if key != "view"} | {"view": None}

    def __call__(self, engine: Engine) -> Awaitable[T]:
        """Run the unit in this process, over the driver's view, into the run directory."""
        if self.view is None:
            raise RuntimeError(f"unit {self.name} has no open view to run over here")
        return self.run(engine, self.view, self.run_dir)

    def run_on_worker(self, engine: Engine, scratch: Path) -> Awaitable[T]:
        """Run the unit on a Ray worker's node (`engine.ray_units.RemoteUnit`), over the view `worker_view` opens
        there, its files into `scratch`."""
        return self.run(engine, self.worker_view(), scratch)

    def worker_view(self) -> CorpusView:
        """The unit's environment as this node holds it (opened once per process); refuses one that is missing or
        holds another corpus."""
        return _node_view(self.env_dir, self.corpus_hash)

    @abstractmethod
    async def run(self, engine: Engine, view: CorpusView, run_dir: Path) -> T:
        """Run (or resume, replaying what `engine.store` holds) the unit over `view`; its files go to `run_dir`."""

    @abstractmethod
    def save(self, result: T, run_dir: Path) -> None:
        """Write what `run` returned into `run_dir`, as a local run leaves it there."""


@cache
def _node_view(env_dir: str, digest: str) -> CorpusView:
    path = Path(env_dir)
    if not path.is_dir():
        raise ModelConfigError(f"environment {env_dir} is not on this node: put every environment at the same path on "
                               "every node")  # fmt: skip
    view = CorpusView.open(path)
    here = corpus_hash(view.env_dir, view.environment) or ""
    if here != digest:
        raise ModelConfigError(f"environment {env_dir} holds another corpus on this node (hash {here[:12] or '-'} "
                               f"here, {digest[:12] or '-'} on the driver)")  # fmt: skip
    return view


def missing_sandbox() -> str | None:
    """What a Ray worker's node lacks for the shell tool (bubblewrap), or None: the `node_check` of a run whose
    agent has the shell tool."""
    if sandbox_available():
        return None
    return ("the shell tool's sandbox is missing there (bubblewrap, `bwrap`, is not installed): install it on every "
            "node, or run with --no-shell")  # fmt: skip


@dataclass
class EpisodeUnit(RunUnit[Episode]):
    """One episode of the two-turn protocol (`EpisodeRunner`)."""

    epoch: int = 0

    async def run(self, engine: Engine, view: CorpusView, run_dir: Path) -> Episode:
        """Run both turns; the episode record is saved in `run_dir/episodes/` after every step."""
        runner = EpisodeRunner(engine, view, self.settings, self.epoch, run_dir, self.name,
                               corpus_hash=self.corpus_hash)  # fmt: skip
        return await runner.run()

    def save(self, result: Episode, run_dir: Path) -> None:
        """Write the episode record into `run_dir/episodes/`."""
        result.save(run_dir, EPISODES_DIR)


def open_run_store(run_dir: Path, kind: str, model: str, settings_key: str, settings: dict) -> RunStore:
    """Open (and lock) the run directory's store for a `kind` run of `model`; raises `RunConflictError` naming
    what differs when it holds another kind of run (QA beside investigation episodes of the same model is fine),
    another model's run, or `settings_key` settings that differ."""
    store = RunStore.open(run_dir)
    try:
        store.check_claim(kind, model, COMPANIONS.get(kind, ()))
        store.check_settings(settings_key, settings)
    except BaseException:
        store.close()
        raise
    return store


def record_run(store: RunStore, kind: str, model: str, settings_key: str, settings: dict) -> None:
    """Record in the store that it holds a `kind` run of `model` with these settings."""
    store.claim(kind, model, COMPANIONS.get(kind, ()))
    store.set_meta(settings_key, settings)


def open_run(
    env_dirs: list[Path], run_dir: Path, kind: str, model: str, settings_key: str, settings: dict
) -> tuple[RunStore, list[CorpusView], list[str]]:
    """Open the run directory's store for a `kind` run of `model` (`open_run_store`), open every environment with its
    corpus hash (recorded in each episode) and record the run (`record_run`); returns the store, the views and the
    hashes. Closes the store and re-raises when an environment cannot be loaded."""
    store = open_run_store(Path(run_dir), kind, model, settings_key, settings)
    try:
        views = [CorpusView.open(Path(env_dir)) for env_dir in env_dirs]
        hashes = [corpus_hash(view.env_dir, view.environment) or "" for view in views]
        record_run(store, kind, model, settings_key, settings)
    except BaseException:
        store.close()
        raise
    return store, views, hashes


async def run_investigations(
    env_dirs: list[Path],
    settings: HarnessSettings,
    run_dir: Path,
    cache: ResponseCache | None,
    config: EngineConfig,
    *,
    concurrency: int = 2,
    on_episode: Callable[[Episode], None] | None = None,
    permanent_failures: dict[str, str] | None = None,
) -> list[Episode]:
    """Run every environment x epoch episode (at most `concurrency` at a time) and return the episodes in order.

    Ctrl-C (inside `stop_on_sigint`) stops every episode at its next step and raises `Interrupted`; the model
    requests that failed permanently are added to `permanent_failures` when given (see `run_gated`).

    Raises `RunConflictError` (a ValueError) when `run_dir` holds another kind of run, another model's run or a run
    with other settings, `RunDirectoryLocked` while another process runs there, and FileNotFoundError / ValueError
    for an environment that cannot be loaded (all before any model call).
    """
    run_dir = Path(run_dir)
    meta = settings.to_meta()
    store, views, hashes = open_run(env_dirs, run_dir, RUN_KIND, settings.model, "investigation_settings", meta)
    jobs = [
        EpisodeUnit(env_dir=str(view.env_dir), corpus_hash=digest, settings=settings, run_dir=run_dir, view=view,
                    name=resumed_episode_id(run_dir, view, settings.model, epoch), epoch=epoch)
        for view, digest in zip(views, hashes, strict=True)
        for epoch in range(settings.epochs)
    ]  # fmt: skip
    return await run_gated(store, cache, config, jobs, concurrency, on_episode, unit="episode(s)",
                           permanent_failures=permanent_failures)  # fmt: skip


def resumed_episode_id(run_dir: Path, view: CorpusView, model: str, epoch: int) -> str:
    """Return the id the episode of `view` x `model` x `epoch` runs under: `<case>|<level>|<model>|e<epoch>`, or the
    level-free id of earlier lexprobe versions (`<case>|<model>|e<epoch>`) when the run directory already holds an
    episode under that id recorded at this environment's level, so an old run resumes (its stored model replies
    replay) instead of starting over beside it. An old episode of another level keeps its file; the new one gets
    the new id."""
    env = view.environment
    new = episode_id(env.case.case_id, model, epoch, env.ablation)
    old = episode_id(env.case.case_id, model, epoch)
    path = Path(run_dir) / EPISODES_DIR / f"{safe_name(old)}.json"
    if not path.is_file():
        return new
    try:
        recorded = Episode.model_validate_json(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return new
    same = recorded.episode_id == old and recorded.environment == env.case.case_id and recorded.model == model
    return old if same and recorded.ablation == env.ablation else new


async def run_gated(
    store: RunStore,
    cache: ResponseCache | None,
    config: EngineConfig,
    jobs: Sequence[Callable[[Engine], Awaitable[T]]],
    concurrency: int,
    on_done: Callable[[T], None] | None = None,
    *,
    unit: str = "job(s)",
    permanent_failures: dict[str, str] | None = None,
) -> list[T]:
    """Run `jobs` (each given one shared engine over `store`) at most `concurrency` at a time and return their
    results in order; `on_done` sees each result as it finishes. Closes the engine and the store.

    Stops cleanly: on Ctrl-C (inside `stop_on_sigint`) a job stops at its next model call - an episode record is
    saved after every step, so it resumes there - and jobs not started yet never start; the first job that raises
    stops the others the same way. The engine (and the models under it) is closed only once every job has ended.
    Raises the first job's error, else `Interrupted` (exit 130) saying how many `unit` finished and how many are
    pending. Requests that failed permanently (retrying cannot help) are added to `permanent_failures` (request id ->
    reason) when it is given, for the command to exit 2 with.

    With `config.ray`, jobs that are `RunUnit`s (episodes, QA questions) run whole on Ray workers instead, their
    tools and sandbox there, and this process stays the only writer of `store` (`engine.ray_units.RayUnits`, which
    checks every worker first: the model, the version, the model file, the sandbox when the agent has the shell tool);
    each result is saved into its run directory as it ends.
    """
    on_ray = config.ray is not None and bool(jobs) and all(isinstance(job, RunUnit) for job in jobs)
    try:
        runner = _ray_units(store, cache, config, jobs[0]) if on_ray else Engine(store, cache, config)  # type: ignore[arg-type]
    except BaseException:
        store.close()
        raise

    async def run_one(job: Callable[[Engine], Awaitable[T]]) -> T:
        if isinstance(runner, Engine):
            return await job(runner)
        result = await runner.run(job)  # type: ignore[arg-type]
        job.save(result, Path(job.run_dir))  # type: ignore[attr-defined]
        return result

    try:
        outcomes = await gather_gated(jobs, concurrency, run_one, runner, on_done)
    finally:
        await runner.aclose()
        store.close()
    results = settled_outcomes(outcomes, unit)
    if permanent_failures is not None:
        permanent_failures.update(runner.permanent_failures)
    return results


def _ray_units(store: RunStore, cache: ResponseCache | None, config: EngineConfig, first: RunUnit) -> RayUnits:
    """The Ray workers that run a run's units (of `first`'s model), checking the sandbox when the agent has the shell
    tool."""
    from lexprobe.engine.ray_units import RayUnits

    return RayUnits(store, cache, config, first.settings.model, missing_sandbox if first.settings.shell else None)


async def gather_gated(
    jobs: Sequence[J], concurrency: int, run_one: Callable[[J], Awaitable[T]], runner: Engine | RayUnits,
    on_done: Callable[[T], None] | None,
) -> list[T | BaseException]:  # fmt: skip
    """Run `run_one` on each job, at most `concurrency` at a time, and return each job's result or exception in
    order. A job not started once `runner.stopping` raises `Interrupted`; the first job that fails (but for
    `Interrupted`) calls `runner.request_stop()` so the others stop at their next model call; `on_done` sees each
    result."""
    gate = asyncio.Semaphore(max(concurrency, 1))

    async def one(job: J) -> T:
        async with gate:
            if runner.stopping:
                raise Interrupted("not started")
            try:
                result = await run_one(job)
            except Interrupted:
                raise
            except BaseException:
                runner.request_stop()
                raise
            if on_done is not None:
                on_done(result)
            return result

    return await asyncio.gather(*(one(job) for job in jobs), return_exceptions=True)


def settled_outcomes(outcomes: Sequence[T | BaseException], unit: str) -> list[T]:
    """Return the jobs' results in order; raise the first job's error, else `Interrupted` (exit 130) saying how many
    `unit` finished and how many are pending."""
    stopped = [outcome for outcome in outcomes if isinstance(outcome, BaseException)]
    errors = [outcome for outcome in stopped if not isinstance(outcome, Interrupted)]
    if errors:
        raise errors[0]
    if stopped:
        raise Interrupted(interrupted_message(len(outcomes) - len(stopped), len(stopped), unit))
    return list(outcomes)  # type: ignore[arg-type]
