"""A small job for crash/resume tests: N distinct temperature-0 requests to the embedded model, run to completion.

    python tests/run_job.py RUN_DIR [N] [MAX_TOKENS]

Prints the engine's summary as one JSON line on stdout. Killing it at any moment and running it again with the
same arguments resumes the job. SIGUSR1 dumps every thread's stack to stderr (for diagnosing a stalled job).
"""

from __future__ import annotations

import faulthandler
import json
import signal
import sys

from lexprobe.engine.config import EngineConfig
from lexprobe.engine.executor import run_requests
from lexprobe.engine.store import RunStore
from lexprobe.models.types import Request

#: Distinct first words, and prompts that invite long answers, so every request runs to max_tokens.
TOPICS = (
    "Adverse possession",
    "Bailment",
    "Consideration in contracts",
    "Defamation",
    "Easements",
    "Fiduciary duty",
    "Garnishment",
    "Habeas corpus",
    "Indemnity clauses",
    "Joint tenancy",
    "Kidnapping statutes",
    "Libel per se",
)


def job_requests(count: int, max_tokens: int) -> list[Request]:
    """The job's requests: `count` distinct prompts with stable ids job-0, job-1, ..."""
    if not 1 <= count <= len(TOPICS):
        raise ValueError(f"count must be between 1 and {len(TOPICS)}")
    return [
        Request.from_prompt(
            "local",
            f"{topic}: explain this legal concept in detail, with an example.",
            temperature=0.0,
            max_tokens=max_tokens,
            id=f"job-{i}",
        )
        for i, topic in enumerate(TOPICS[:count])
    ]


def main(argv: list[str]) -> int:
    faulthandler.register(signal.SIGUSR1, all_threads=True)
    run_dir = argv[1]
    count = int(argv[2]) if len(argv) > 2 else 10
    max_tokens = int(argv[3]) if len(argv) > 3 else 32
    store = RunStore.open(run_dir)
    try:
        summary = run_requests(
            job_requests(count, max_tokens),
            store,
            cache=None,
            config=EngineConfig(use_cache=False, progress=False),
        )
    finally:
        store.close()
    print(json.dumps(summary.to_dict()), flush=True)
    return 0 if summary.complete else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
