"""The InvestigationWorlds construction pipeline: from a summary-judgment record to an environment.

    result = run_build(record_dir, out_dir, BuildSettings(generator="openai/gpt-4o-mini"))

Stages (one module per group, registered by name in `registry.py`, run in order by `runner.py`, each output
saved as OUT/stages/<nn>_<name>.json and reused while its inputs are unchanged): ingest; opinion, souf,
ground_facts, party_dags, ruling; entities, exhibits; alternatives, doc_plans, shard_plans, generate; assemble.

May import: `lexprobe.investigation.environment` (the format it writes, the ladder, the validator),
`lexprobe.engine`, `lexprobe.models`, `lexprobe.documents`. The names below are exported lazily (`lexprobe.lazy`), so
importing one submodule does not import the others.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lexprobe.lazy import lazy_exports

if TYPE_CHECKING:
    from lexprobe.investigation.pipeline.context import BuildSettings, StageContext, StageError
    from lexprobe.investigation.pipeline.llm import Answer, Ask, LLMCall, ask_json
    from lexprobe.investigation.pipeline.registry import STAGE_ORDER, Stage, stages
    from lexprobe.investigation.pipeline.runner import BuildResult, run_build

__all__ = [
    "STAGE_ORDER",
    "Answer",
    "Ask",
    "BuildResult",
    "BuildSettings",
    "LLMCall",
    "Stage",
    "StageContext",
    "StageError",
    "ask_json",
    "run_build",
    "stages",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    globals(),
    {
        "STAGE_ORDER": "registry",
        "Answer": "llm",
        "Ask": "llm",
        "BuildResult": "runner",
        "BuildSettings": "context",
        "LLMCall": "llm",
        "Stage": "registry",
        "StageContext": "context",
        "StageError": "context",
        "ask_json": "llm",
        "run_build": "runner",
        "stages": "registry",
    },
)
