"""The run viewer (`lexprobe view`): a local Starlette app over one or more run directories.

`app.build_app` mounts the hallucination view (`view.hallucination`) and the sections of part B
(`view.runs`: investigation runs, QA runs, check results) under one security middleware (`view.security`);
`export.export_static` writes a copy that opens from disk. Stores are opened read-only; what the viewer builds
(`view-index.sqlite`) lives next to a run's store, never inside it.
"""

from __future__ import annotations

from typing import Any


def template_environment(*packages: str) -> Any:
    """Return a Jinja2 environment (autoescape on, StrictUndefined, control and bidi characters of every printed
    value shown as escapes by `terminal.safe_value`) over the `templates/` folders of `packages` and then the
    viewer's shared page shell (`lexprobe/view/templates/base.html`)."""
    import jinja2

    from lexprobe.terminal import safe_value

    loaders = [jinja2.PackageLoader(package, "templates") for package in (*packages, "lexprobe.view")]
    return jinja2.Environment(
        loader=jinja2.ChoiceLoader(loaders), autoescape=True, undefined=jinja2.StrictUndefined, finalize=safe_value
    )
