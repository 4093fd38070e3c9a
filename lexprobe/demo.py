"""The `lexprobe demo` job: a handful of legal questions to the embedded model, asked twice through the engine
to show answers, token usage and the response cache at work. Later issues replace it with the real profiling job.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from lexprobe.engine import Engine, EngineConfig, ResponseCache, RunStore, RunSummary
from lexprobe.models.types import Request, Response

DEMO_SYSTEM = "You are a careful legal research assistant. Answer in one or two sentences."

DEMO_QUESTIONS: tuple[str, ...] = (
    "Is Marbury v. Madison, 5 U.S. 137 (1803), a real case? Answer yes or no, then explain briefly.",
    "Which court decided Brown v. Board of Education, 347 U.S. 483 (1954)?",
    "Who wrote the majority opinion in Miranda v. Arizona, 384 U.S. 436 (1966)?",
    "Was Plessy v. Ferguson, 163 U.S. 537 (1896), ever overruled? If so, by which case?",
    "What is the central holding of Gideon v. Wainwright, 372 U.S. 335 (1963)?",
)


@dataclass
class DemoPass:
    """One pass over the demo questions."""

    summary: RunSummary
    answers: list[tuple[str, Response]]


def demo_requests(model: str, max_tokens: int = 96) -> list[Request]:
    """Return the demo questions as deterministic (temperature 0) requests to `model`."""
    return [
        Request.from_prompt(
            model, question, system=DEMO_SYSTEM, max_tokens=max_tokens, id=f"demo-{index}", tags={"job": "demo"}
        )
        for index, question in enumerate(DEMO_QUESTIONS, start=1)
    ]


async def run_demo(
    model: str, run_dir: Path, cache: ResponseCache | None, config: EngineConfig
) -> tuple[DemoPass, DemoPass]:
    """Ask the demo questions twice, each pass in its own run store under `run_dir`.

    The second pass is answered from the response cache when the cache is on. Returns both passes.
    """
    requests = demo_requests(model)
    passes = []
    for name in ("first", "second"):
        store = RunStore.open(run_dir / f"{name}-pass")
        engine = Engine(store, cache, config)
        try:
            summary = await engine.run(requests)
            stored = store.responses()
            answers = [(r.messages[-1].content, stored[r.request_id]) for r in requests if r.request_id in stored]
        finally:
            await engine.aclose()
            store.close()
        passes.append(DemoPass(summary, answers))
    return passes[0], passes[1]
