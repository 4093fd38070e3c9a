"""The questions as the model sees them: the study's Jinja2 templates (in `hallucination/templates/`, where
`render` finds them) rendered with the few-shot examples of each court level (`examples`).

May import: nothing else of `lexprobe.hallucination` (Jinja2 only when a template needs it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lexprobe.lazy import lazy_exports

if TYPE_CHECKING:
    from lexprobe.hallucination.prompts.render import (
        PROMPT_STYLES,
        PlainTemplate,
        TemplateMissing,
        compile_template,
        has_template,
        load_named_template,
        load_template,
        render_prompt,
    )

__all__ = [
    "PROMPT_STYLES",
    "PlainTemplate",
    "TemplateMissing",
    "compile_template",
    "has_template",
    "load_named_template",
    "load_template",
    "render_prompt",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    globals(),
    {
        "PROMPT_STYLES": "render",
        "PlainTemplate": "render",
        "TemplateMissing": "render",
        "compile_template": "render",
        "has_template": "render",
        "load_named_template": "render",
        "load_template": "render",
        "render_prompt": "render",
    },
)
