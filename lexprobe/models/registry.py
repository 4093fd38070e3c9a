"""Which backend serves which spec, whether it is usable right now, and how to open it.

Backends are imported lazily, so a missing optional package (llama-cpp-python) only matters to the specs that
need it. Adding a backend means adding one `Backend` entry here and one module.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from lexprobe.models.errors import ModelConfigError
from lexprobe.models.identity import embedded_model_path
from lexprobe.models.spec import SPEC_FORMS, ModelSpec, parse_model_spec

if TYPE_CHECKING:
    from lexprobe.models.base import Model


def _needs_package(module: str, extra_hint: str) -> str | None:
    if importlib.util.find_spec(module) is None:
        return f"Python package {module!r} is not installed ({extra_hint})"
    return None


def _local_problem(spec: ModelSpec) -> str | None:
    problem = _needs_package("llama_cpp", "pip install 'lexprobe[local]'")
    if problem:
        return problem
    if spec.path is None:
        try:
            embedded_model_path()
        except ModelConfigError as exc:
            return str(exc)
        return None
    if not Path(spec.path).is_file():
        return f"GGUF file not found: {spec.path}"
    return _gguf_header_problem(Path(spec.path))


#: Every GGUF file starts with these four bytes.
GGUF_MAGIC = b"GGUF"


def _gguf_header_problem(path: Path) -> str | None:
    """Return why `path` is not a GGUF file judging by its first bytes (a truncated body shows only on loading)."""
    try:
        with path.open("rb") as handle:
            head = handle.read(len(GGUF_MAGIC))
    except OSError as exc:
        return f"cannot read {path}: {exc.strerror or exc}"
    if head != GGUF_MAGIC:
        return f"{path} is not a GGUF file (it does not start with {GGUF_MAGIC!r})"
    return None


def _scripted_problem(spec: ModelSpec) -> str | None:
    if spec.path and not Path(spec.path).is_file():
        return f"script file not found: {spec.path}"
    return None


@dataclass(frozen=True)
class Backend:
    """How to check and open one kind of model; `key_env` names the API key variable a hosted backend sends."""

    module: str
    class_name: str
    problem: Callable[[ModelSpec], str | None]
    key_env: str | None = None

    def missing(self, spec: ModelSpec, *, credentials: bool = True) -> str | None:
        """Return why `spec` cannot be used now, or None; the API key counts only when `credentials` is True."""
        problem = self.problem(spec)
        if problem is None and credentials and self.key_env and not os.environ.get(self.key_env):
            problem = f"{self.key_env} is not set"
        return problem


BACKENDS: dict[str, Backend] = {
    "local": Backend("lexprobe.models.local", "LlamaCppModel", _local_problem),
    "openai": Backend("lexprobe.models.openai_chat", "OpenAIModel", lambda s: None, key_env="OPENAI_API_KEY"),
    "openai-compatible": Backend("lexprobe.models.replicas", "open_openai_compatible", lambda s: None),
    "anthropic": Backend(
        "lexprobe.models.anthropic_messages", "AnthropicModel", lambda s: None, key_env="ANTHROPIC_API_KEY"
    ),
    "scripted": Backend("lexprobe.models.scripted", "ScriptedModel", _scripted_problem),
}


def check_model(spec: str, *, credentials: bool = True) -> ModelSpec:
    """Parse `spec` and verify it can be used now (key present, package installed, file found).

    With `credentials=False` (a dry run, which sends nothing) a missing API key is not a problem.
    Returns the parsed spec; raises `ModelConfigError` saying what is missing. Nothing is loaded or sent.
    """
    parsed = parse_model_spec(spec)
    problem = BACKENDS[parsed.backend].missing(parsed, credentials=credentials)
    if problem:
        raise ModelConfigError(f"model {spec!r} cannot be used: {problem}")
    return parsed


def open_model(spec: str) -> Model:
    """Check `spec` and return a ready `Model`. Raises `ModelConfigError` when it cannot be used."""
    parsed = check_model(spec)
    backend = BACKENDS[parsed.backend]
    cls = getattr(importlib.import_module(backend.module), backend.class_name)
    return cls(parsed)


@dataclass(frozen=True)
class SpecStatus:
    """One row of `lexprobe models`."""

    form: str
    description: str
    usable: bool
    reason: str


def model_status() -> list[SpecStatus]:
    """Return every spec form with whether it is usable right now and, when not, why."""
    examples = {
        "local": "local",
        "openai/MODEL": "openai/gpt-4o-mini",
        "anthropic/MODEL": "anthropic/claude-3-5-haiku-latest",
    }
    rows = []
    for form, description in SPEC_FORMS:
        if form in examples:
            parsed = parse_model_spec(examples[form])
            problem = BACKENDS[parsed.backend].missing(parsed)
        elif form == "local:PATH.gguf":
            problem = _needs_package("llama_cpp", "pip install 'lexprobe[local]'")
        else:
            problem = None
        rows.append(SpecStatus(form, description, problem is None, problem or "ready"))
    return rows
