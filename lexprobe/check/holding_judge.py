"""The judge of `lexprobe check --judge MODEL`: its prompt, how its reply is read, and how it is asked.

The prompt is the Jinja template `templates/holding_judge.j2`, or the file `--judge-template` names, rendered in
Jinja's sandbox with `proposition`, `case`, `citation` and `passages` (each with `text`, `label`, `page`,
`opinion_type`, `author`). Requests go through the engine (`lexprobe.engine.Engine`): the shared response cache
answers a request asked before, so a rerun sends nothing.

The reply is read leniently but never guessed: the last "VERDICT: x" line counts (x one of supported, contradicted,
not_supported, also written "not supported" or "unsupported"), else a reply that begins with one of those words,
else a reply whose first line names exactly one verdict ("The opinion supports the proposition.", "... does not
support ...") with no other negation or hedge ("not", "partly", "may") in it; anything else is `None` (the holding is
`unjudged`, the reply kept).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lexprobe.errors import BadInputError

if TYPE_CHECKING:
    from jinja2 import Template

    from lexprobe.engine.cache import ResponseCache
    from lexprobe.engine.config import EngineConfig
    from lexprobe.models.types import Request, Response

SUPPORTED, CONTRADICTED, NOT_SUPPORTED = "supported", "contradicted", "not_supported"
#: Tokens a judge may answer with (the reason takes the rest of the first lines).
JUDGE_MAX_TOKENS = 200
#: The largest `--judge-template` file read.
MAX_TEMPLATE_BYTES = 100_000
#: Characters of the judge's reply kept as the reason.
MAX_REASON_CHARS = 600

_WORD = r"(not[\s_-]+supported|unsupported|contradicted|contradicts|supported|supports)"
_VERDICT_LINE = re.compile(r"verdict\s*(?:is)?\s*[:=\-–]?\s*[*_`\"'\[(]*\s*" + _WORD + r"\b", re.I)
_LEADING = re.compile(r"^[\s*_`#>\"'\[(]*" + _WORD + r"\b", re.I)
_REASON = re.compile(r"reason\s*[:=\-–]\s*(.+)", re.I | re.S)
_IN_SENTENCE = re.compile(
    r"\b(does\s+not\s+support|doesn[’']t\s+support|not[\s_-]+supported|unsupported|contradict(?:s|ed)?|supports|"
    r"supported)\b",
    re.I,
)
_HEDGE = re.compile(r"\b(?:not|no|nothing|never|neither|nor|partly|partially|unclear|may|might)\b|n[’']t\b", re.I)


def _verdict_of(word: str) -> str:
    word = " ".join(word.lower().replace("_", " ").replace("-", " ").replace("’", "'").split())
    if word in ("not supported", "unsupported", "does not support", "doesn't support"):
        return NOT_SUPPORTED
    return CONTRADICTED if word.startswith("contradict") else SUPPORTED


def parse_reply(text: str) -> tuple[str | None, str]:
    """The verdict a judge's reply gives (None when it gives none plainly) and its reason (the "REASON:" text,
    else the reply without its verdict line), whitespace collapsed and cut to `MAX_REASON_CHARS`."""
    text = text or ""
    lines = _VERDICT_LINE.findall(text)
    verdict = _verdict_of(lines[-1]) if lines else None
    if verdict is None:
        leading = _LEADING.match(text)
        verdict = _verdict_of(leading.group(1)) if leading else _first_line_verdict(text)
    found = _REASON.search(text)
    reason = found.group(1) if found else _VERDICT_LINE.sub(" ", text)
    reason = " ".join(reason.split())
    return verdict, reason if len(reason) <= MAX_REASON_CHARS else reason[: MAX_REASON_CHARS - 1] + "…"


def _first_line_verdict(text: str) -> str | None:
    """The verdict of a reply whose first line names exactly one ("The opinion supports the proposition."),
    with no other negation or hedge in it; else None."""
    first = text.strip().split("\n", 1)[0][:400]  # a line, not a sentence: "Monell v. Dep't of Soc. Servs." has dots
    words = _IN_SENTENCE.findall(first)
    verdicts = {_verdict_of(word) for word in words}
    if len(words) != 1 or len(verdicts) != 1 or _HEDGE.search(_IN_SENTENCE.sub(" ", first)):
        return None
    return verdicts.pop()


def load_template(path: Path | None) -> Template:
    """The judge's prompt template: `path` (a user's file) or the one shipped; a user's file that cannot be read
    or compiled is a `BadInputError` saying why."""
    from jinja2 import StrictUndefined, TemplateError
    from jinja2.sandbox import SandboxedEnvironment

    environment = SandboxedEnvironment(undefined=StrictUndefined, keep_trailing_newline=True, autoescape=False)
    if path is None:
        source = (resources.files("lexprobe.check") / "templates" / "holding_judge.j2").read_text(encoding="utf-8")
        return environment.from_string(source)
    try:
        data = path.read_bytes()[: MAX_TEMPLATE_BYTES + 1]
    except OSError as exc:
        raise BadInputError(f"cannot read the judge template {path}: {exc.strerror or exc}") from None
    if len(data) > MAX_TEMPLATE_BYTES:
        raise BadInputError(f"the judge template {path} is over {MAX_TEMPLATE_BYTES:,} bytes")
    try:
        return environment.from_string(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise BadInputError(f"the judge template {path} is not UTF-8 text") from None
    except TemplateError as exc:
        raise BadInputError(f"the judge template {path} does not compile: {exc}") from None


def render_prompt(template: Template, variables: dict[str, Any]) -> str:
    """The prompt for one proposition; a user's template that uses an unknown variable is a `BadInputError`."""
    from jinja2 import TemplateError

    try:
        return template.render(**variables)
    except TemplateError as exc:
        raise BadInputError(f"the judge template does not render: {exc}") from None


def judge_request(model: str, prompt: str) -> Request:
    """The temperature-0 request asking `model` about one proposition (its id is its cache key)."""
    from lexprobe.models.types import Request

    return Request.from_prompt(model, prompt, temperature=0.0, max_tokens=JUDGE_MAX_TOKENS,
                               tags={"role": "holding_judge"})  # fmt: skip


@dataclass(frozen=True)
class Answers:
    """The judge's answers by request id, and why the rest have none."""

    responses: dict[str, Response]
    failure: str | None


def ask(requests: Sequence[Request], config: EngineConfig, cache: ResponseCache | None) -> Answers:
    """Send `requests` (distinct) through the engine, answered from `cache` where it holds them; a model that
    cannot be used raises its `ModelConfigError`, and Ctrl-C stops the run cleanly (`RunInterrupted`)."""
    from lexprobe.engine.executor import Engine
    from lexprobe.engine.interrupt import stop_on_sigint
    from lexprobe.engine.store import RunStore

    store = RunStore.in_memory()

    async def run():
        engine = Engine(store, cache, config)
        try:
            return await engine.run(list(requests))
        finally:
            await engine.aclose()

    try:
        with stop_on_sigint():
            summary = asyncio.run(run())
        responses = {}
        for request in requests:
            response = store.response(request.request_id)
            if response is not None:
                responses[request.request_id] = response
    finally:
        store.close()
    problems = [*summary.permanent_errors, *summary.errors]
    failure = problems[0].split(": ", 1)[-1] if problems else None
    return Answers(responses, failure)
