"""Render the study's prompt templates (Jinja2 files in `templates/`, StrictUndefined).

Zero-shot templates are the study's questions word for word (Appendix B, unwrapped from the figures' line breaks).
Few-shot templates put the level's examples (`examples.py`) between triple backticks, as in the appendix (whose
typesetting shows the backticks as ‘‘‘).

The appendix shows the Supreme Court prompts. Where the study's Section 2.1 says the appeals and district versions
name the court's opinion, the templates do so through two variables every prompt gets: `level_case` (citation: "the
circuit court case", "the district court case") and `level_opinion` (author: the study asks for the "majority
opinion" author of Supreme Court and appeals cases only, so a district prompt asks who wrote "the opinion").

A template whose only markup is `{{ name }}` fields (every zero-shot question, the judge's prompt) is rendered by
`PlainTemplate` without importing Jinja2 (about 30 ms of every run's start-up); it gives exactly what Jinja2 gives,
and hands anything else (a name the context lacks, a loop, a filter) to Jinja2.
"""

from __future__ import annotations

import keyword
import re
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any

from lexprobe.hallucination.prompts.examples import examples_for

if TYPE_CHECKING:
    from jinja2 import Environment, Template

PROMPT_STYLES = ("zero", "few")
#: How a prompt names the case, per level ("What is the citation for the circuit court case ...?").
LEVEL_CASE = {"scotus": "case", "coa": "circuit court case", "district": "district court case"}
#: Whose opinion the author prompt asks about, per level.
LEVEL_OPINION = {"scotus": "majority opinion", "coa": "majority opinion", "district": "opinion"}


class TemplateMissing(LookupError):
    """No template (or no few-shot examples) exists for a task, style and level."""


@cache
def _environment() -> Environment:
    from jinja2 import Environment, StrictUndefined

    return Environment(undefined=StrictUndefined, keep_trailing_newline=False, autoescape=False)


#: A `{{ name }}` field; Jinja2's markup opening (`{{`, `{%`, `{#`); its line breaks.
_FIELD = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")
_MARKUP = re.compile(r"(?=\{[{%#])")
_NEWLINE = re.compile(r"\r\n|\r|\n")
#: Names Jinja2 does not read as a variable of the context (literals, operators).
_NOT_VARIABLES = frozenset({"true", "false", "none", "True", "False", "None", "not", "and", "or", "in", "is"})


class PlainTemplate:
    """A template whose only markup is `{{ name }}` fields, rendered without Jinja2.

    `render(**context)` returns what the Jinja2 template of the same source returns in this module's environment
    (`StrictUndefined`, no autoescaping, line breaks as "\\n", one trailing line break dropped): each field is
    `str()` of its value. When the context lacks a field's name, the Jinja2 template renders instead (a Jinja2
    global such as `range`, or its `UndefinedError`).
    """

    __slots__ = ("_names", "_pieces", "_source")

    def __init__(self, source: str, pieces: tuple[str, ...], names: tuple[str, ...]) -> None:
        self._source = source
        self._pieces = pieces  # text around the fields: len(names) + 1 pieces
        self._names = names

    @classmethod
    def parse(cls, source: str) -> PlainTemplate | None:
        """Return the template of `source`, or None when it holds any markup besides `{{ name }}` fields."""
        fields = list(_FIELD.finditer(source))
        if [m.start() for m in fields] != [m.start() for m in _MARKUP.finditer(source)]:
            return None  # a block, a comment, an expression, a filter, whitespace control ...
        names = tuple(m.group(1) for m in fields)
        if any(name in _NOT_VARIABLES or keyword.iskeyword(name) for name in names):
            return None
        cuts = [0, *(edge for m in fields for edge in m.span()), len(source)]
        pieces = [_NEWLINE.sub("\n", source[start:end]) for start, end in zip(cuts[::2], cuts[1::2], strict=True)]
        if pieces[-1].endswith("\n"):  # keep_trailing_newline=False: Jinja2 drops one trailing line break
            pieces[-1] = pieces[-1][:-1]
        return cls(source, tuple(pieces), names)

    def render(self, **context: Any) -> str:
        """Return the template filled from `context` (Jinja2 renders when a name is missing)."""
        try:
            values = [str(context[name]) for name in self._names]
        except KeyError:
            return _environment().from_string(self._source).render(**context)
        out = [self._pieces[0]]
        for value, piece in zip(values, self._pieces[1:], strict=True):
            out += (value, piece)
        return "".join(out)


def compile_template(source: str) -> PlainTemplate | Template:
    """Return `source` compiled: a `PlainTemplate` when its only markup is `{{ name }}` fields, else Jinja2's."""
    return PlainTemplate.parse(source) or _environment().from_string(source)


def load_template(template_task: str, style: str) -> PlainTemplate | Template:
    """Return the compiled template `<task>_<style>.j2`; raises TemplateMissing when there is none."""
    return load_named_template(f"{template_task}_{style}", f"no {style}-shot template for {template_task}")


@cache
def load_named_template(name: str, missing: str = "") -> PlainTemplate | Template:
    """Return the compiled template `templates/<name>.j2` (e.g. the contradiction judge's); raises TemplateMissing
    (`missing`, else "no template NAME") when there is none."""
    path = resources.files("lexprobe.hallucination") / "templates" / f"{name}.j2"
    if not path.is_file():
        raise TemplateMissing(missing or f"no template {name}")
    return compile_template(path.read_text(encoding="utf-8"))


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
