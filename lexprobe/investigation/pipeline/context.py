"""What every construction stage receives (the build settings, the output folder, the LLM, earlier stage outputs)
and how it talks to models: prompts rendered from the Jinja2 templates in `templates/` (StrictUndefined: a missing
variable is an error), schema-constrained requests, validated answers, bounded retries.

A stage asks through `ask_json(ctx, asks, Model)`: each `Ask` becomes an `LLMCall` carrying the JSON schema of
`Model` (`Model.model_json_schema()`), the answer is parsed and validated with pydantic and, optionally, checked
by code (`check`). An invalid answer is asked again, up to `settings.max_attempts` requests in all: the retry is a
new request (its own id and `sample_index`, temperature `settings.retry_temperature`, and the reasons the last
answer was refused appended to the prompt). When an item never gets a valid answer, `ask_json` raises
`StageError` naming the stage, the item and the last output.

`ctx.llm` is anything with `complete(calls) -> answers` (one answer per call, in order): `EngineTextSource` in a
real build (lexprobe.investigation.pipeline.runner), a small scripted class in tests.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, Literal, TypeVar

from jinja2 import Environment, FileSystemLoader, StrictUndefined
from pydantic import BaseModel, Field, ValidationError
from pydantic_core import to_jsonable_python

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
    """One build's state as a stage sees it. `llm` answers prompts (`ask_json`)."""

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


T = TypeVar("T", bound=BaseModel)
TEMPLATE_DIR = Path(__file__).with_name("templates")
LLMRole = Literal["generator", "judge"]

SYSTEM_PROMPT = (
    "You are a meticulous legal analyst building a research dataset from a court record. "
    "Answer with exactly one JSON object that matches the given JSON schema: no prose, no markdown fences."
)


@dataclass(frozen=True)
class LLMCall:
    """One request a stage makes. `attempt` 0 is the first try of an item; retries count up."""

    stage: str
    item: str
    role: LLMRole
    prompt: str
    schema: dict[str, Any]
    attempt: int = 0
    max_tokens: int = 2048


@dataclass(frozen=True)
class Answer:
    """A model's answer text, or None with the reason no answer came back."""

    text: str | None
    error: str | None = None


@dataclass(frozen=True)
class Ask:
    """One item a stage wants answered: its id inside the stage (a document id, a role, 'all') and its prompt."""

    item: str
    prompt: str
    role: LLMRole = "generator"
    schema: dict[str, Any] | None = None  # this item's own schema (default: the one `ask_json` derives)


@cache
def _environment() -> Environment:
    env = Environment(
        loader=FileSystemLoader(str(TEMPLATE_DIR)),
        undefined=StrictUndefined,
        autoescape=False,
        keep_trailing_newline=False,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["tojson"] = to_json
    return env


def to_json(value: Any) -> str:
    """Return `value` (pydantic models and lists of them included) as compact, stable JSON for a prompt."""
    return json.dumps(to_jsonable_python(value), ensure_ascii=False, sort_keys=False, separators=(", ", ": "))


def render_prompt(name: str, **variables: Any) -> str:
    """Return the prompt `templates/<name>.j2` rendered with `variables`.

    Raises jinja2.TemplateNotFound for an unknown name and jinja2.UndefinedError for a missing variable.
    """
    return _environment().get_template(f"{name}.j2").render(**variables).strip() + "\n"


def templates_digest(names: tuple[str, ...]) -> str:
    """Return a digest of the named templates' text and every shared partial (`_*.j2`), for input hashes."""
    digest = hashlib.sha256()
    partials = sorted(p.stem for p in TEMPLATE_DIR.glob("_*.j2"))
    for name in (*names, *partials):
        digest.update(name.encode())
        digest.update((TEMPLATE_DIR / f"{name}.j2").read_bytes())
    return digest.hexdigest()


class OutputInvalid(ValueError):
    """An answer that is not JSON, does not match the output model, or fails a code check."""


def output_schema(model: type[BaseModel]) -> dict[str, Any]:
    """Return the JSON schema the model is asked to follow: pydantic's schema of `model`."""
    return model.model_json_schema()


def with_array_size(schema: dict[str, Any], field: str, size: int) -> dict[str, Any]:
    """Return a copy of an object schema whose array property `field` must hold exactly `size` items."""
    copy = json.loads(json.dumps(schema))
    prop = copy["properties"][field]
    prop["minItems"] = prop["maxItems"] = size
    return copy


_FENCE = re.compile(r"^\s*```(?:json)?\s*|\s*```\s*$", re.S)


def parse_output(text: str | None, model: type[T]) -> T:
    """Return `text` parsed as JSON and validated as `model`; raises OutputInvalid saying what is wrong."""
    if text is None or not text.strip():
        raise OutputInvalid("empty answer")
    body = _FENCE.sub("", text.strip())
    try:  # strict=False: raw line breaks inside strings are common in model output and harmless
        raw = json.loads(body, strict=False)
    except json.JSONDecodeError as exc:
        start, end = body.find("{"), body.rfind("}")
        try:
            raw = json.loads(body[start : end + 1], strict=False) if 0 <= start < end else None
        except json.JSONDecodeError:
            raw = None
        if raw is None:
            raise OutputInvalid(f"not JSON ({exc})") from None
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        problems = [f"{'.'.join(str(p) for p in e['loc']) or '(root)'}: {e['msg']}" for e in exc.errors()[:6]]
        raise OutputInvalid("does not match the schema: " + "; ".join(problems)) from None


Check = Callable[[str, Any, int], list[str]]


def _retry_prompt(prompt: str, reasons: str) -> str:
    return (
        f"{prompt}\n\nYOUR PREVIOUS ANSWER WAS REFUSED: {truncate(reasons, 1200)}\n"
        "Write a corrected answer: one JSON object that follows the schema and every rule above."
    )


def ask_json(
    ctx: StageContext,
    asks: Sequence[Ask],
    model: type[T],
    *,
    check: Check | None = None,
    schema: dict[str, Any] | None = None,
    first_attempt: int = 0,
    give_up: Literal["raise", "none"] = "raise",
    failures: dict[str, str] | None = None,
) -> list[T | None]:
    """Ask every item, retrying invalid answers; return the valid outputs in the order of `asks`.

    `check(item, output, attempt)` returns the reasons (if any) a schema-valid output is still refused. With
    `give_up="none"` an item that never gets a valid answer yields None (and its last refusal reason goes into
    `failures[item]`) instead of raising; otherwise raises StageError for the first such item. `first_attempt`
    offsets attempt numbers (a stage's later rounds).
    """
    settings = ctx.settings
    schema = schema or output_schema(model)
    results: dict[int, T] = {}
    last: dict[int, tuple[str | None, str]] = {}
    pending = list(range(len(asks)))
    for attempt in range(first_attempt, first_attempt + settings.max_attempts):
        if not pending:
            break
        calls = []
        for index in pending:
            ask = asks[index]
            prompt = ask.prompt if index not in last else _retry_prompt(ask.prompt, last[index][1])
            call = LLMCall(
                ctx.stage, ask.item, ask.role, prompt, ask.schema or schema, attempt, max_tokens=settings.max_tokens
            )
            calls.append(call)
        answers = [a if isinstance(a, Answer) else Answer(a) for a in ctx.llm.complete(calls)]
        if len(answers) != len(calls):
            raise StageError(ctx.stage, "llm", f"asked {len(calls)} questions, got {len(answers)} answers")
        still = []
        for index, answer in zip(pending, answers, strict=True):
            try:
                if answer.text is None:
                    raise OutputInvalid(f"no answer: {answer.error or 'the request failed'}")
                value = parse_output(answer.text, model)
                problems = check(asks[index].item, value, attempt) if check else []
                if problems:
                    raise OutputInvalid("; ".join(problems))
                results[index] = value
            except OutputInvalid as exc:
                last[index] = (answer.text, str(exc))
                still.append(index)
                ctx.log(f"  {ctx.stage}/{asks[index].item}: attempt {attempt + 1} refused: {truncate(str(exc), 160)}")
        pending = still
    if failures is not None:
        failures.update({asks[index].item: last[index][1] for index in pending})
    if pending and give_up == "raise":
        index = pending[0]
        text, reason = last[index]
        tries = f"after {settings.max_attempts} attempt(s)"
        raise StageError(ctx.stage, asks[index].item, f"no valid output {tries}: {reason}", text)
    return [results.get(index) for index in range(len(asks))]


def ask_one(ctx: StageContext, ask: Ask, model: type[T], **options: Any) -> T:
    """`ask_json` for a single item; returns its output or raises StageError."""
    (value,) = ask_json(ctx, [ask], model, **options)
    assert value is not None
    return value
