"""One unit of an investigation run: an episode, or a factual-QA question, as plain data.

A unit is what `run_gated` runs: called with an engine it runs in this process over the view the driver opened (a
local run). With `--ray` it travels to a Ray worker instead (`ray_units.py`): pickled without the view, it is run
there by `run` over a view the worker opened from the same `env_dir` (checked against `corpus_hash`), into a
scratch folder; its result comes back and the driver `save`s it into the run directory. Every model request of a
unit has an id starting `<name>|`, which is how the driver finds the answers a resumed unit replays.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Awaitable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from lexprobe.investigation.agent.corpus_view import CorpusView
from lexprobe.investigation.agent.episode import EPISODES_DIR, Episode
from lexprobe.investigation.agent.harness import EpisodeRunner, HarnessSettings

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

    @property
    def request_prefix(self) -> str:
        """What the id of each of the unit's requests starts with."""
        return f"{self.name}|"

    @abstractmethod
    async def run(self, engine: Engine, view: CorpusView, run_dir: Path) -> T:
        """Run (or resume, replaying what `engine.store` holds) the unit over `view`; its files go to `run_dir`."""

    @abstractmethod
    def save(self, result: T, run_dir: Path) -> None:
        """Write what `run` returned into `run_dir`, as a local run leaves it there."""


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


__all__ = ["EpisodeUnit", "RunUnit"]
