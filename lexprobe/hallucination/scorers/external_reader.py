"""`score-answers --reader MODEL`: the model reader (`model_reader.py`) for answers produced elsewhere.

The lines are scored by the rules once to find the answers they leave unscored (`score_lines` with a `ReaderPass`);
those go to the reader through the engine, into a store that lives as long as the command (`RunStore.in_memory`)
and the shared response cache, so scoring the same file again asks the reader nothing; then the caller scores the
lines again with the readings in that store (`score_lines(lines, db, ReaderPass(model), store)`).
"""

from __future__ import annotations

from lexprobe.caselaw.query import CaseDatabase
from lexprobe.engine.cache import ResponseCache
from lexprobe.engine.config import EngineConfig
from lexprobe.engine.store import RunStore
from lexprobe.engine.summary import RunSummary
from lexprobe.hallucination.scorers.external import AnswerLine, LineError, score_lines
from lexprobe.hallucination.scorers.model_reader import ReaderPass


async def read_unscored(
    lines: list[str | AnswerLine | LineError],
    db: CaseDatabase,
    reader: str,
    cache: ResponseCache | None,
    config: EngineConfig,
) -> tuple[RunStore, RunSummary]:
    """Send every answer of `lines` that the rules leave unscored to `reader` (through the engine, `cache` first) and
    return the in-memory store holding the readings, and the engine's summary."""
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
