"""Render the study's prompt templates (Jinja2 files in `templates/`, StrictUndefined).

Zero-shot templates are the study's questions word for word (Appendix B, unwrapped from the figures' line breaks).
Few-shot templates put the level's examples (`examples.py`) between triple backticks, as in the appendix (whose
typesetting shows the backticks as ‘‘‘).

The appendix shows the Supreme Court prompts. Where the study's Section 2.1 says the appeals and district versions
name the court's opinion, the templates do so through two variables every prompt gets: `level_case` (citation: "the
circuit court case", "the district court case") and `level_opinion` (author: the study asks for the "majority
opinion" author of Supreme Court and appeals cases only, so a district prompt asks who wrote "the opinion").
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from typing import Any

from jinja2 import Environment, StrictUndefined, Template

from lexprobe.hallucination.examples import examples_for

PROMPT_STYLES = ("zero", "few")
#: How a prompt names the case, per level ("What is the citation for the circuit court case ...?").
LEVEL_CASE = {"scotus": "case", "coa": "circuit court case", "district": "district court case"}
#: Whose opinion the author prompt asks about, per level.
LEVEL_OPINION = {"scotus": "majority opinion", "coa": "majority opinion", "district": "opinion"}


class TemplateMissing(LookupError):
    """No template (or no few-shot examples) exists for a task, style and level."""


@cache
def _environment() -> Environment:
    return Environment(undefined=StrictUndefined, keep_trailing_newline=False, autoescape=False)


@cache
def load_template(template_task: str, style: str) -> Template:
    """Return the compiled template `<task>_<style>.j2`; raises TemplateMissing when there is none."""
    name = f"{template_task}_{style}.j2"
    path = resources.files("lexprobe.hallucination") / "templates" / name
    if not path.is_file():
        raise TemplateMissing(f"no {style}-shot template for {template_task}")
    return _environment().from_string(path.read_text(encoding="utf-8"))


@cache
def load_named_template(name: str) -> Template:
    """Return the compiled template `templates/<name>.j2` (e.g. the contradiction judge's); raises TemplateMissing."""
    path = resources.files("lexprobe.hallucination") / "templates" / f"{name}.j2"
    if not path.is_file():
        raise TemplateMissing(f"no template {name}")
    return _environment().from_string(path.read_text(encoding="utf-8"))


def has_template(template_task: str, style: str, level: str) -> bool:
    """True when the task can be asked in this style at this level (template and, for few-shot, examples)."""
    try:
        load_template(template_task, style)
    except TemplateMissing:
        return False
    return style == "zero" or examples_for(template_task, level) is not None


def render_prompt(template_task: str, style: str, level: str, variables: dict[str, Any]) -> str:
    """Return the prompt text. Raises TemplateMissing for a missing template or missing few-shot examples, and
    jinja2.UndefinedError when a variable the template needs is absent."""
    template = load_template(template_task, style)
    context: dict[str, Any] = {
        "level_case": LEVEL_CASE.get(level, "case"),
        "level_opinion": LEVEL_OPINION.get(level, "majority opinion"),
    }
    context |= variables
    if style == "few":
        examples = examples_for(template_task, level)
        if examples is None:
            raise TemplateMissing(f"no few-shot examples for {template_task} at level {level}")
        context["examples"] = examples
    return template.render(**context)
