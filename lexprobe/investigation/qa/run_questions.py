"""`lexprobe investigation qa`'s work: check the models, answer and grade every question of the environments, and
the counts the command reports; the command prints the records."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from lexprobe.errors import BadInputError, LexprobeError

if TYPE_CHECKING:
    from lexprobe.engine.cache import ResponseCache
    from lexprobe.engine.config import EngineConfig
    from lexprobe.investigation.agent.harness import HarnessSettings
    from lexprobe.investigation.qa.runner import QARecord

__all__ = ["QARun", "check_qa_models", "run_questions"]


@dataclass
class QARun:
    """The graded questions, and the requests that failed permanently (request id -> reason)."""

    records: list[QARecord]
    permanent: dict[str, str] = field(default_factory=dict)

    def line(self) -> str:
        """How many questions, their mean rubric score over the graded ones, and how many were unscored."""
        scored = [r.score for r in self.records if r.score is not None]
        unscored = sum(r.label == "unscored" for r in self.records)
        mean = f"{sum(scored) / len(scored):.3f}" if scored else "-"
        return f"{len(self.records)} questions; mean rubric score {mean} over {len(scored)} graded; {unscored} unscored"

    def failure(self) -> LexprobeError | None:
        """Exit 2 when requests failed permanently: a rerun would fail the same way."""
        from lexprobe.engine.summary import permanent_failures_error

        return permanent_failures_error(self.permanent)


def check_qa_models(model: str, judge: str | None, *, batch: bool, ray: str | None) -> str:
    """Return the judge's spec (default: the model under test) once both models are usable; BadInputError for
    --batch with --ray (with --ray each question, its judge's call included, runs whole on a worker)."""
    from lexprobe.models.registry import check_model

    judge_model = judge or model
    check_model(model)
    check_model(judge_model)
    if batch and ray is not None:
        raise BadInputError(
            "--batch and --ray cannot be combined here: with --ray each question runs whole on a "
            "Ray worker, its judge's call included, sent there one by one; drop one of them"
        )
    return judge_model


def run_questions(env_dirs: list[Path], settings: HarnessSettings, judge: str, run_dir: Path,
                  cache: ResponseCache | None, config: EngineConfig, concurrency: int) -> QARun:  # fmt: skip
    """Answer and grade every question of `env_dirs`; Ctrl-C stops every question at its next step (exit 130)."""
    import asyncio

    from lexprobe.engine.interrupt import stop_on_sigint
    from lexprobe.investigation.qa.runner import run_qa

    permanent: dict[str, str] = {}
    with stop_on_sigint():
        records = asyncio.run(run_qa(env_dirs, settings, judge, run_dir, cache, config, concurrency=concurrency,
                                     permanent_failures=permanent))  # fmt: skip
    return QARun(records, permanent)
