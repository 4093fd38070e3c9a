"""What one investigation episode records: one model on one environment in one epoch, both turns, every tool call
with the documents it touched, the verdicts, usage and cost. Saved as `RUN_DIR/episodes/<episode_id>.json` after
every step, so a transcript is readable while a run is going and after it was killed.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from lexprobe.errors import BadInputError

EPISODES_DIR = "episodes"
Verdict = Literal["believe", "reject", "dont_know"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ToolCallRecord(_Model):
    """One tool call of Turn 1 and what came of it."""

    step: int = Field(description="The assistant turn (1-based) that asked for the call.")
    name: str
    arguments: dict = Field(default_factory=dict)
    output_chars: int = 0
    refused: bool = False
    error: bool = False
    truncated: bool = False
    denied: bool = Field(default=False, description="Denied because the tool budget was spent (never executed).")
    opened: list[str] | None = Field(
        default=None,
        description="Corpus paths whose content the call showed (read; shell cat, head, sed -n, grep -C on a file, "
        "...): what coverage and signal recall count. None in records made before lexprobe told opened from seen.",
    )
    seen: list[str] = Field(
        default_factory=list,
        description="Corpus paths the call showed only by name or matching line (glob, grep, ls, find, grep -l, "
        "shell grep match lines): 'seen in search', not opened.",
    )
    documents: list[str] = Field(
        default_factory=list,
        description="Every document the call touched, opened first then seen (doc_ids and roles follow this "
        "order). In records made before `opened` existed it meant: the document read, the documents grep matched, "
        "and every corpus path named in a shell command or its output (not what the call opened).",
    )
    doc_ids: list[str] = Field(default_factory=list, description="The document id of each path in `documents`.")
    roles: list[str] = Field(default_factory=list, description="The role of each path in `documents`.")

    def opened_and_seen(self) -> tuple[list[str], list[str]]:
        """The corpus paths this call opened and those it only saw. A record made before `opened` existed counts
        the document of a `read` as opened and whatever any other call touched as seen (never as opened)."""
        if self.opened is not None:
            return list(self.opened), list(self.seen)
        if self.name == "read":
            return list(self.documents), []
        return [], list(self.documents)


class HypothesisVerdict(_Model):
    """The agent's verdict on one shuffled hypothesis, and the truth."""

    label: str = Field(description="H1, H2, ... as shown to the agent.")
    hypothesis_id: str
    kind: str = Field(description="court_adopted | court_rejected | alternative")
    verdict: Verdict | None = Field(default=None, description="None when the reply gave none we could read.")
    reason: str = ""


class Episode(_Model):
    """One episode (see the module docstring)."""

    episode_id: str
    environment: str = Field(description="The environment's case id.")
    env_dir: str
    ablation: str = Field(default="", description="The environment's ablation level (also part of the episode id).")
    corpus_hash: str = Field(
        default="",
        description="SHA-256 of the environment's document list at run time (environment.corpus_digest.corpus_hash); "
        "empty in episodes recorded before lexprobe recorded it.",
    )
    model: str
    epoch: int = 0
    seed: int = Field(description="Seed of the hypothesis shuffle.")
    tool_budget: int
    turn_budget: int
    protocol: Literal["native", "text"] = "native"
    shell_enabled: bool = True
    shell_note: str = ""
    warnings: list[str] = Field(
        default_factory=list,
        description="Environment files refused unread (symbolic links, tampered cache) and documents left out because "
        "their path points outside corpus/.",
    )
    status: Literal["running", "complete", "failed"] = "running"
    error: str = ""
    steps: int = 0
    tool_calls: list[ToolCallRecord] = Field(default_factory=list)
    summary: str = ""
    summary_truncated: bool = Field(
        default=False,
        description="True when the Turn-1 summary (for QA: the final reply) was cut by the output token cap "
        "(finish reason 'length'); False in episodes recorded before lexprobe recorded it.",
    )
    verdict_reply: str = ""
    verdicts: list[HypothesisVerdict] = Field(default_factory=list)
    unparsed: bool = Field(default=False, description="True when the Turn-2 reply held no readable verdicts.")
    copied_example: bool = Field(
        default=False,
        description="True when the Turn-2 reply copied the verdict prompt's example (verdict_example.py); scoring "
        "counts such an episode as giving no verdict. False in episodes recorded before lexprobe recorded it "
        "(scoring then judges the transcript).",
    )
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = 0.0
    wall_s: float = 0.0
    transcript: list[dict] = Field(default_factory=list, description="Messages of both turns, in order.")

    def save(self, run_dir: Path, folder_name: str = EPISODES_DIR) -> Path:
        """Write the episode atomically to `run_dir/<folder_name>/<episode_id>.json` and return the path."""
        folder = Path(run_dir) / folder_name
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{safe_name(self.episode_id)}.json"
        temporary = path.with_suffix(".json.tmp")
        temporary.write_text(self.model_dump_json(indent=1) + "\n", encoding="utf-8")
        os.replace(temporary, path)
        return path


def safe_name(name: str) -> str:
    """Return `name` as a file name (characters other than letters, digits, - _ . become _)."""
    return "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in name)


def load_episodes(run_dir: Path) -> list[Episode]:
    """Return every episode saved in a run directory, sorted by id. Raises ValueError naming a malformed file."""
    folder = Path(run_dir) / EPISODES_DIR
    episodes = []
    for path in sorted(folder.glob("*.json")):
        try:
            episodes.append(Episode.model_validate(json.loads(path.read_text(encoding="utf-8"))))
        except (json.JSONDecodeError, ValueError) as exc:
            raise BadInputError(f"{path}: not an episode record: {exc}") from None
    return episodes
