"""The stages' prompts: Jinja2 templates in `templates/` (StrictUndefined: a missing variable is an error)."""

from __future__ import annotations

import hashlib
import json
from functools import cache
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined

TEMPLATE_DIR = Path(__file__).with_name("templates")


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
    return json.dumps(_plain(value), ensure_ascii=False, sort_keys=False, separators=(", ", ": "))


def _plain(value: Any) -> Any:
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json")
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


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
