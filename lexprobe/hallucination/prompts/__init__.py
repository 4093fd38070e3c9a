"""The questions as the model sees them: the study's Jinja2 templates (in `hallucination/templates/`, where
`render` finds them) rendered with the few-shot examples of each court level (`examples`).

May import: nothing else of `lexprobe.hallucination` (Jinja2 only when a template needs it).
"""
