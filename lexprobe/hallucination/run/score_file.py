"""`lexprobe hallucination score-answers`'s work: score a JSON Lines file of answers produced elsewhere against the
case database, line by line (with `--reader`, the answers the rules leave unscored read by a model first); the
command prints each result as it comes."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lexprobe.errors import BadInputError, LexprobeError
from lexprobe.hallucination.scorers.external import AnswerLine, LineError, read_answer_lines, score_lines
from lexprobe.terminal import safe_text

if TYPE_CHECKING:
    from lexprobe.caselaw.query import CaseDatabase
    from lexprobe.engine.cache import ResponseCache
    from lexprobe.engine.config import EngineConfig
    from lexprobe.engine.store import RunStore
    from lexprobe.engine.summary import RunSummary

__all__ = ["AnswerFileScore", "read_unscored", "score_answer_file"]


@dataclass
class AnswerFileScore:
    """How scoring a file went: its shown name, the lines scored and refused, the reader's engine summary."""

    name: str
    scored: int = 0
    errors: int = 0
    summary: RunSummary | None = None

    def failure(self) -> LexprobeError | None:
        """The error the command exits with: a reader request left unanswered, bad lines, or no line at all."""
        if self.summary is not None and self.summary.total:
            failure = self.summary.failure()  # a reader request left unanswered: its line kept the rules' label
            if failure is not None:
                return failure
        if self.errors:
            return BadInputError(f"{self.errors} bad line(s) in {self.name} were not scored (listed above); "
                                 f"{self.scored} line(s) scored")  # fmt: skip
        if not self.scored:
            return BadInputError(f"{self.name} holds no answer lines (empty input); expected one JSON object a line")
        return None


def score_answer_file(file: Path, open_db: Callable[[], CaseDatabase], reader: str | None,
                      engine: Callable[[], tuple[Any, Any]], emit: Callable[[dict | LineError | str], None],
                      ) -> AnswerFileScore:  # fmt: skip
    """Score every line of `file` against the database `open_db()` opens; `emit` gets each scored line (a dict),
    each bad line (a `LineError`) and each note (a str), in order. With `reader`, `engine()` gives the response
    cache and engine settings its requests use. BadInputError for a file that cannot be read, before any work."""
    if not file.is_file():
        raise BadInputError(f"file not found: {safe_text(str(file))}")
    if reader:
        from lexprobe.models.registry import check_model

        check_model(reader)
    database = open_db()
    result = AnswerFileScore(safe_text(str(file)))
    try:
        handle = file.open("rb")
    except OSError as exc:
        raise BadInputError(f"cannot read {result.name}: {exc.strerror or exc}") from None
    with handle:
        codec, lines = read_answer_lines(handle)
        if codec != "utf-8":
            emit(f"note: {result.name} starts with a {codec} byte-order mark: read as {codec} (save JSON Lines as "
                 "UTF-8)")  # fmt: skip
        store, reading = None, None
        if reader:  # the rules once, the answers they leave unscored to the reader, then every line with its reading
            import asyncio

            from lexprobe.hallucination.scorers.model_reader import ReaderPass

            lines = list(lines)
            store, result.summary = asyncio.run(read_unscored(lines, database, reader, *engine()))
            reading = ReaderPass(reader)
        for scored in score_lines(lines, database, reading, store):
            if isinstance(scored, LineError):
                result.errors += 1
            else:
                result.scored += 1
            emit(scored)
    return result


async def read_unscored(
    lines: list[str | AnswerLine | LineError],
    db: CaseDatabase,
    reader: str,
    cache: ResponseCache | None,
    config: EngineConfig,
) -> tuple[RunStore, RunSummary]:
    """Send every answer of `lines` that the rules leave unscored to the model reader `reader` (through the engine,
    `cache` first) and return the in-memory store holding the readings (`RunStore.in_memory`: it lives as long as
    the command; the shared response cache means scoring the same file again asks the reader nothing), and the
    engine's summary. The caller then scores the lines again with the readings in that store."""
    from lexprobe.engine.store import RunStore
    from lexprobe.engine.summary import RunSummary
    from lexprobe.hallucination.scorers.model_reader import ReaderPass

    store = RunStore.in_memory()
    first = ReaderPass(reader)
    for _ in score_lines(lines, db, first, store):
        pass
    if not first.unread:
        return store, RunSummary()
    from lexprobe.engine.executor import Engine  # here: a file the rules read whole imports no client

    engine = Engine(store, cache, config)
    try:
        summary = await engine.run(first.unread)
    finally:
        await engine.aclose()
    return store, summary
