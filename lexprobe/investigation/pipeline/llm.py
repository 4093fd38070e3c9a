"""How stages talk to models: prompts rendered from the Jinja2 templates in `templates/` (StrictUndefined: a missing
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
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Literal, TypeVar

from jinja2 import Environment, FileSystemLoader, StrictUndefined
from pydantic import BaseModel, ValidationError
from pydantic_core import to_jsonable_python

from lexprobe.investigation.pipeline.context import StageContext, StageError, truncate

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
