"""One unit of an investigation run: an episode, or a factual-QA question, as plain data.

A unit is what `run_gated` runs: called with an engine it runs in this process over the view the driver opened (a
local run). With `--ray` it travels to a Ray worker instead (`engine.ray_units`): pickled without the view, it runs
there (`run_on_worker`) over a view the worker opened from the same `env_dir` (checked against `corpus_hash`), into a
scratch folder; its result comes back and the driver `save`s it into the run directory. Every model request of a
unit has an id starting `<name>|`, which is how the driver finds the answers a resumed unit replays.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Awaitable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from lexprobe.investigation.agent.corpus_view import CorpusView
from lexprobe.investigation.agent.episode import EPISODES_DIR, Episode
from lexprobe.investigation.agent.harness import EpisodeRunner, HarnessSettings
from lexprobe.investigation.environment.corpus_digest import corpus_hash
from lexprobe.investigation.shell.sandbox import sandbox_available
from lexprobe.models.errors import ModelConfigError

if TYPE_CHECKING:
    from lexprobe.engine.executor import Engine

T = TypeVar("T")


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


__all__ = ["EpisodeUnit", "RunUnit", "missing_sandbox"]
