"""The protocol prompts (InvestigationWorlds, Appendix D.3-D.4): lexprobe's templates, or a user's own.

Six Jinja templates make every prompt the harness and the factual-QA runner send: `PROMPT_VARIABLES` names each one
and the variables it is rendered with. A `PromptSet` holds one source per template: a user's `--prompts DIR` file of
that name when there is one, else the package's (`lexprobe/investigation/templates/`). Rendering is strict
(`StrictUndefined`, a sandboxed environment): a template that uses a variable it is not given is refused when the set
is loaded (`load_prompts`), as a `BadInputError` naming the template and the variable, before any model request.
`PromptSet.digest` identifies the sources; it is stored with a run's settings, so a run directory refuses to resume
with a changed prompt set like any other changed setting.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from jinja2 import DictLoader, StrictUndefined, TemplateError, TemplateSyntaxError, meta
from jinja2.sandbox import SandboxedEnvironment

from lexprobe.errors import BadInputError
from lexprobe.investigation.agent.tools import tool_specs

#: Every prompt template and the variables it is rendered with (the contract of `--prompts DIR`).
PROMPT_VARIABLES: dict[str, tuple[str, ...]] = {
    "investigate.j2": ("case_type", "exhibits_path", "tool_names", "tool_budget", "turn_budget", "tell_budget"),
    "verdict.j2": ("summary", "hypotheses"),
    "qa.j2": ("case_type", "exhibits_path", "question", "tool_names", "tool_budget", "turn_budget", "tell_budget"),
    "budget_spent.j2": ("reason", "task", "tool_budget", "turn_budget"),
    "text_protocol.j2": ("tools",),
    "rubric_judge.j2": ("question", "answer", "response", "rubric_items"),
}

#: Where the documents are, as the agent's tools see them: the corpus root. `read`, `glob` and `grep` take paths
#: relative to it, and it is the working directory of `shell`.
CORPUS_PATH = "./"

#: The case type said when an environment does not name its category: the paper's cases are all U.S. federal civil
#: cases (Section 6), so "civil" is true of every one of them.
UNKNOWN_CASE_TYPE = "civil"

_PACKAGE = "lexprobe.investigation"

# Values a template is tried with when a set is loaded, so a bad attribute or filter fails before any request.
_TRIAL: dict[str, Any] = {
    "case_type": "contract",
    "exhibits_path": CORPUS_PATH,
    "tool_names": "read, glob, grep, shell",
    "tool_budget": 30,
    "turn_budget": 25,
    "summary": "The most likely account ...",
    "hypotheses": [{"label": "H1", "text": "A claim."}, {"label": "H2", "text": "Another claim."}],
    "question": "What happened?",
    "answer": "This happened.",
    "response": "This happened.",
    "rubric_items": ["Says what happened.", "Cites a document."],
    "reason": "You have used all 30 tool calls.",
    "task": "investigation",
    "tools": tool_specs(True),
}


def case_type(category: str | None) -> str:
    """Return the case type a prompt names: the environment's category on one line, or "civil" when it has none."""
    return " ".join((category or "").split()) or UNKNOWN_CASE_TYPE


@dataclass(frozen=True)
class PromptSet:
    """The source of every prompt template, where each came from (`origins`: "package" or a file path), and the
    strict environment that renders them."""

    sources: dict[str, str]
    origins: dict[str, str]
    _env: SandboxedEnvironment = field(repr=False, compare=False)

    @property
    def digest(self) -> str:
        """A short hash of every template's source (the `prompts` run setting)."""
        text = "\0".join(f"{name}\0{self.sources[name]}" for name in sorted(self.sources))
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]

    @property
    def custom(self) -> list[str]:
        """The templates taken from a user's directory."""
        return [name for name, origin in self.origins.items() if origin != "package"]

    def __reduce__(self) -> tuple[Any, tuple[dict[str, str], dict[str, str]]]:
        """Pickle the sources and origins only (a Ray worker rebuilds the environment that renders them)."""
        return (_rebuilt, (self.sources, self.origins))

    def render(self, name: str, **variables: Any) -> str:
        """Render template `name` with its variables; raises `BadInputError` naming the template when it fails."""
        try:
            return self._env.get_template(name).render(**variables)
        except TemplateError as exc:
            raise BadInputError(f"prompt template {self.origins[name]}: {_one_line(exc)}") from None


def _rebuilt(sources: dict[str, str], origins: dict[str, str]) -> PromptSet:
    """The prompt set of these sources, unpickled (they were checked where they were loaded)."""
    return PromptSet(sources=sources, origins=origins, _env=_environment(sources))


def _one_line(exc: Exception) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


def _environment(sources: dict[str, str]) -> SandboxedEnvironment:
    return SandboxedEnvironment(loader=DictLoader(sources), undefined=StrictUndefined, autoescape=False,
                                keep_trailing_newline=False, trim_blocks=True, lstrip_blocks=True)  # fmt: skip


@lru_cache(maxsize=1)
def _package_sources() -> dict[str, str]:
    folder = resources.files(_PACKAGE).joinpath("templates")
    return {name: folder.joinpath(name).read_text(encoding="utf-8") for name in PROMPT_VARIABLES}


def _user_sources(directory: Path) -> dict[str, str]:
    """Return the templates of a user's directory; refuses a missing directory and a `.j2` file that is not a prompt
    template (most likely a misspelt name, which would otherwise be ignored in silence)."""
    if not directory.is_dir():
        raise BadInputError(f"--prompts {directory}: not a directory")
    unknown = sorted(path.name for path in directory.glob("*.j2") if path.name not in PROMPT_VARIABLES)
    if unknown:
        raise BadInputError(f"--prompts {directory}: {', '.join(unknown)} is not a prompt template; the templates "
                            f"are {', '.join(PROMPT_VARIABLES)}")  # fmt: skip
    found = {}
    for name in PROMPT_VARIABLES:
        path = directory / name
        if path.is_file():
            try:
                found[name] = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                raise BadInputError(f"prompt template {path}: cannot be read ({_one_line(exc)})") from None
    return found


def _check(prompts: PromptSet, name: str) -> None:
    """Refuse a template that does not parse, uses a variable it is not given, or fails on trial values."""
    where, given = prompts.origins[name], PROMPT_VARIABLES[name]
    try:
        tree = prompts._env.parse(prompts.sources[name])
    except TemplateSyntaxError as exc:
        raise BadInputError(f"prompt template {where}: syntax error on line {exc.lineno}: {_one_line(exc)}") from None
    undefined = sorted(meta.find_undeclared_variables(tree) - set(given) - set(prompts._env.globals))
    if undefined:
        raise BadInputError(f"prompt template {where} uses an undefined variable {undefined[0]!r}; its variables "
                            f"are {', '.join(given)}")  # fmt: skip
    for flag in (False, True):  # both branches of `tell_budget` where a template has it
        values = {key: _TRIAL[key] for key in given if key != "tell_budget"}
        if "tell_budget" in given:
            values["tell_budget"] = flag
        prompts.render(name, **values)


def load_prompts(directory: Path | None = None) -> PromptSet:
    """Return the prompt set: the package's templates, each replaced by `directory`'s file of the same name when
    there is one. Raises `BadInputError` (exit 2, one line) for a missing directory, an unknown `.j2` file, or a
    template that does not parse or uses a variable it is not given (naming the template and the variable)."""
    sources, origins = dict(_package_sources()), dict.fromkeys(PROMPT_VARIABLES, "package")
    if directory is not None:
        for name, text in _user_sources(Path(directory)).items():
            sources[name], origins[name] = text, str(Path(directory) / name)
    prompts = PromptSet(sources=sources, origins=origins, _env=_environment(sources))
    for name in PROMPT_VARIABLES:
        _check(prompts, name)
    return prompts


@lru_cache(maxsize=1)
def package_prompts() -> PromptSet:
    """Return lexprobe's own prompt set (the default of every run)."""
    return load_prompts(None)


__all__ = ["CORPUS_PATH", "PROMPT_VARIABLES", "PromptSet", "case_type", "load_prompts", "package_prompts"]
