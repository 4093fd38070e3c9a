"""What every construction stage receives: the build settings, the output folder, the LLM, earlier stage outputs."""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from lexprobe.investigation.pipeline.ablation import AblationLevel

TEXT_DIR = "text"  # OUT/text/<source_id>.txt: extracted text of every record file
STAGES_DIR = "stages"
RENDERED_DIR = "documents"  # OUT/documents/: every accepted synthetic document, rendered once (all levels link here)
RUN_DIR = "run"


class StageError(RuntimeError):
    """A stage could not produce its output. The message names the stage, the item and, where there was one, the
    (truncated) last model output."""

    def __init__(self, stage: str, item: str, message: str, last_output: str | None = None) -> None:
        self.stage = stage
        self.item = item
        self.detail = message
        self.last_output = last_output
        text = f"stage {stage!r} failed on {item!r}: {message}"
        if last_output is not None:
            text += f"; last output: {truncate(last_output, 300)!r}"
        super().__init__(text)


def truncate(text: str, limit: int) -> str:
    """Return `text` cut to `limit` characters, marking the cut with an ellipsis and the dropped length."""
    if len(text) <= limit:
        return text
    return text[:limit] + f"... [{len(text) - limit} more characters]"


class BuildSettings(BaseModel):
    """Settings of one environment build. Every stage's input hash includes the fields it reads."""

    generator: str = Field(default="local", description="Model spec that extracts, plans and writes documents.")
    judge: str | None = Field(default=None, description="Model spec that judges documents and alternatives.")
    ablation: AblationLevel = Field(default="+chaff100", description="Document roles assembled into the corpus.")
    case_id: str = Field(default="", description="Environment case id; default: the record folder's name.")
    category: str = Field(default="", description="Federal case type (employment, contract, ...), if known.")
    fictional: bool = Field(default=False, description="Mark the environment as built from a fictional record.")
    docs_per_role: int = Field(
        default=2,
        ge=0,
        description="Signal and noise documents; pro-alternative and refuting documents per alternative.",
    )
    chaff_docs: int = Field(default=4, ge=0, description="Chaff documents (at +chaff100).")
    shard_facts: int = Field(default=1, ge=0, description="Pattern facts embedded as 3-5 shard documents each.")
    regenerations: int = Field(default=3, ge=0, description="Regenerations of a document the judge rejects.")
    max_attempts: int = Field(default=3, ge=1, description="Requests per item until the output is valid.")
    retry_temperature: float = Field(default=0.7, gt=0, le=2, description="Temperature of retried requests.")
    max_tokens: int = Field(default=2048, ge=16, description="Output token limit of each request.")
    max_input_chars: int = Field(default=24000, ge=200, description="Characters of one source text in a prompt.")
    seed: int = Field(default=0, description="Rendering seed (house styles of synthetic documents).")

    @property
    def judge_model(self) -> str:
        """The judge's model spec (the generator when no judge is set)."""
        return self.judge or self.generator

    def model_for(self, role: str) -> str:
        """Return the model spec of an LLM role: 'generator' or 'judge'."""
        return self.judge_model if role == "judge" else self.generator


def stderr_log(message: str) -> None:
    """Print one progress line on stderr."""
    print(message, file=sys.stderr, flush=True)


@dataclass
class StageContext:
    """One build's state as a stage sees it. `llm` answers prompts (`lexprobe.investigation.pipeline.llm`)."""

    record_dir: Path
    out_dir: Path
    settings: BuildSettings
    llm: Any  # TextSource: `complete(calls) -> answers`; typed loosely so test doubles need no base class
    stage: str = ""
    outputs: dict[str, BaseModel] = field(default_factory=dict)
    log: Callable[[str], None] = stderr_log

    def output(self, name: str) -> Any:
        """Return the output of the earlier stage `name`; raises StageError when it has not run."""
        if name not in self.outputs:
            raise StageError(self.stage or "?", name, f"needs the output of stage {name!r}, which has not run")
        return self.outputs[name]

    def text_path(self, source_id: str) -> Path:
        """Return where the extracted text of record file `source_id` is kept."""
        return self.out_dir / TEXT_DIR / f"{source_id}.txt"

    def text_of(self, source_id: str) -> str:
        """Return the extracted text of record file `source_id`; raises StageError when it is missing."""
        path = self.text_path(source_id)
        if not path.is_file():
            hint = "delete OUT/stages/01_ingest.json and rerun to extract the record again"
            raise StageError(self.stage or "?", source_id, f"extracted text {path} is missing; {hint}")
        return path.read_text(encoding="utf-8")

    def clip(self, text: str, limit: int | None = None) -> str:
        """Return `text` cut to the prompt budget (`max_input_chars`, or `limit`)."""
        return truncate(text, limit or self.settings.max_input_chars)
