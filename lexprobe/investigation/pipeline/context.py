"""What every construction stage receives: the build settings, the output folder, the LLM, earlier stage outputs."""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from lexprobe.investigation.environment.ladder import AblationLevel

TEXT_DIR = "text"  # OUT/text/<source_id>.txt: extracted text of every record file
STAGES_DIR = "stages"
RENDERED_DIR = "documents"  # OUT/documents/: every accepted synthetic document, rendered once (all levels link here)
RUN_DIR = "run"
SizePreset = Literal["small", "paper"]


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


def unique_id(base: str, taken: set[str]) -> str:
    """Return `base`, else `base_2`, `base_3`, ...: the first that is not in `taken` (and add it there)."""
    candidate, n = base, 2
    while candidate in taken:
        candidate, n = f"{base}_{n}", n + 1
    taken.add(candidate)
    return candidate


def _count_property(name: str, doc: str) -> property:
    """Return a read-only property of BuildSettings that resolves count `name` (`BuildSettings.count`)."""

    def resolved(self: BuildSettings) -> int:
        return self.count(name)

    resolved.__doc__ = doc
    return property(resolved)


class BuildSettings(BaseModel):
    """Settings of one environment build. Every stage's input hash includes the fields it reads."""

    generator: str = Field(default="local", description="Model spec that extracts, plans and writes documents.")
    judge: str | None = Field(default=None, description="Model spec that judges documents and alternatives.")
    ablation: AblationLevel = Field(default="+chaff100", description="Document roles assembled into the corpus.")
    levels: list[AblationLevel] = Field(
        default_factory=list,
        description="Levels to assemble, one environment folder each (OUT/<slug>/); empty: `ablation`, at OUT.",
    )
    case_id: str = Field(default="", description="Environment case id; default: the record folder's name.")
    category: str = Field(default="", description="Federal case type (employment, contract, ...), if known.")
    fictional: bool = Field(default=False, description="Mark the environment as built from a fictional record.")
    size: SizePreset = Field(default="small", description="Preset of the per-role counts left unset (SIZE_PRESETS).")
    docs_per_role: int | None = Field(
        default=None,
        ge=0,
        description="Default of the signal, noise, per-alternative pro-alternative and refuting counts left unset.",
    )
    signal_docs: int | None = Field(default=None, ge=0, description="Signal documents (besides shards).")
    pro_alternative_docs: int | None = Field(default=None, ge=0, description="Pro-alternative documents per alt.")
    refuting_docs: int | None = Field(default=None, ge=0, description="Refuting documents per alternative.")
    noise_docs: int | None = Field(default=None, ge=0, description="Noise documents.")
    chaff_docs: int | None = Field(default=None, ge=0, description="Chaff documents (at +chaff100).")
    shard_facts: int | None = Field(default=None, ge=0, description="Pattern facts embedded as 3-5 shards each.")
    regenerations: int = Field(default=3, ge=0, description="Regenerations of a document the judge rejects.")
    generate_batch: int = Field(default=32, ge=1, description="Specifications written per generation batch.")
    max_attempts: int = Field(default=3, ge=1, description="Requests per item until the output is valid.")
    retry_temperature: float = Field(default=0.7, gt=0, le=2, description="Temperature of retried requests.")
    max_tokens: int = Field(default=2048, ge=16, description="Output token limit of each request.")
    max_input_chars: int | None = Field(
        default=None,
        ge=200,
        description="Optional cap on the characters of each source that reach a model (default: the whole source).",
    )
    context_tokens: int | None = Field(
        default=None, ge=512, description="The generator's context window in tokens (default: the backend's)."
    )
    seed: int = Field(default=0, description="Rendering seed (house styles of synthetic documents).")

    @property
    def judge_model(self) -> str:
        """The judge's model spec (the generator when no judge is set)."""
        return self.judge or self.generator

    @property
    def assembled_levels(self) -> list[AblationLevel]:
        """The levels `assemble` writes: `levels`, or just `ablation` when none are listed."""
        return list(self.levels) or [self.ablation]

    def model_for(self, role: str) -> str:
        """Return the model spec of an LLM role: 'generator' or 'judge'."""
        return self.judge_model if role == "judge" else self.generator

    def count(self, name: str) -> int:
        """Return the resolved count `name` (a key of SIZE_PRESETS[size]): the explicit field (`<name>_docs`,
        `shard_facts` for shards) when set, then (for the four per-role counts) `docs_per_role`, then the preset."""
        explicit = getattr(self, "shard_facts" if name == "shards" else f"{name}_docs")
        if explicit is None and name in _PER_ROLE:
            explicit = self.docs_per_role
        return SIZE_PRESETS[self.size][name] if explicit is None else explicit

    signal_count = _count_property("signal", "Signal documents to plan (shards come on top).")
    pro_alternative_count = _count_property("pro_alternative", "Pro-alternative documents per alternative.")
    refuting_count = _count_property("refuting", "Refuting documents per alternative.")
    noise_count = _count_property("noise", "Noise documents.")
    chaff_count = _count_property("chaff", "Chaff documents at +chaff100 (the +chaff50 level keeps half of them).")
    shard_count = _count_property("shards", "Pattern facts embedded as 3-5 shard documents each.")


#: Resolved counts of the `size` presets. "paper" follows section 4.2 of the paper: 20 pro-alternative documents
#: (10 for each of its 2 alternatives), ~57 noise, 500 chaff at +chaff100 (250 at +chaff50). The paper states no
#: number for signal and refuting documents: 10 signal documents plus 2 pattern facts as 3-5 shards each, and 3
#: refuting documents per alternative, bring the +chaff100 corpus to about 600 documents with the merits exhibits.
SIZE_PRESETS: dict[str, dict[str, int]] = {
    "small": {"signal": 2, "pro_alternative": 2, "refuting": 2, "noise": 2, "chaff": 4, "shards": 1},
    "paper": {"signal": 10, "pro_alternative": 10, "refuting": 3, "noise": 57, "chaff": 500, "shards": 2},
}
_PER_ROLE = ("signal", "pro_alternative", "refuting", "noise")
#: Settings (resolved counts) that change what `doc_plans` plans; in its input hash.
COUNT_SETTINGS = ("signal_count", "pro_alternative_count", "refuting_count", "noise_count", "chaff_count")


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
        """Return `text` cut to `limit`, else to the user's cap (`max_input_chars`); uncut when neither is set."""
        limit = limit or self.settings.max_input_chars
        return truncate(text, limit) if limit else text
