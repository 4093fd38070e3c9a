"""The investigating agent (InvestigationWorlds, Section 3.1, Appendix D.4): the two-turn protocol (`harness`), the
tools it calls (`tools`) over a read-only copy of the corpus (`corpus_view`), the prompts (`prompts`), reading the
Turn-2 verdicts (`verdicts`; a reply that copied the prompt's example in `verdict_example`), the episode record
(`episode`), and a run of episodes over several environments and epochs into one run directory (`run`).

May import: `lexprobe.investigation.environment`, `lexprobe.investigation.shell`, `lexprobe.engine`,
`lexprobe.models`, `lexprobe.documents`, `lexprobe.errors`. Scoring, QA and the reports build on it, never the
reverse. The names below are exported lazily (`lexprobe.lazy`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lexprobe.lazy import lazy_exports

if TYPE_CHECKING:
    from lexprobe.investigation.agent.corpus_view import CorpusView
    from lexprobe.investigation.agent.episode import (
        EPISODES_DIR,
        Episode,
        HypothesisVerdict,
        ToolCallRecord,
        load_episodes,
    )
    from lexprobe.investigation.agent.harness import EpisodeFailed, EpisodeRunner, HarnessSettings
    from lexprobe.investigation.agent.prompts import PromptSet, load_prompts, package_prompts
    from lexprobe.investigation.agent.run import QA_KIND, RUN_KIND, run_investigations
    from lexprobe.investigation.agent.tools import Toolbox, tool_specs
    from lexprobe.investigation.agent.verdict_example import copies_example, episode_copies_example
    from lexprobe.investigation.agent.verdicts import ParsedVerdicts, parse_verdicts

__all__ = [
    "EPISODES_DIR",
    "QA_KIND",
    "RUN_KIND",
    "CorpusView",
    "Episode",
    "EpisodeFailed",
    "EpisodeRunner",
    "HarnessSettings",
    "HypothesisVerdict",
    "ParsedVerdicts",
    "PromptSet",
    "ToolCallRecord",
    "Toolbox",
    "copies_example",
    "episode_copies_example",
    "load_episodes",
    "load_prompts",
    "package_prompts",
    "parse_verdicts",
    "run_investigations",
    "tool_specs",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    globals(),
    {
        "CorpusView": "corpus_view",
        "EPISODES_DIR": "episode",
        "Episode": "episode",
        "EpisodeFailed": "harness",
        "EpisodeRunner": "harness",
        "HarnessSettings": "harness",
        "HypothesisVerdict": "episode",
        "ParsedVerdicts": "verdicts",
        "PromptSet": "prompts",
        "QA_KIND": "run",
        "RUN_KIND": "run",
        "ToolCallRecord": "episode",
        "Toolbox": "tools",
        "copies_example": "verdict_example",
        "episode_copies_example": "verdict_example",
        "load_episodes": "episode",
        "load_prompts": "prompts",
        "package_prompts": "prompts",
        "parse_verdicts": "verdicts",
        "run_investigations": "run",
        "tool_specs": "tools",
    },
)
