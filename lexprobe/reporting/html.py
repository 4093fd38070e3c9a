"""The one Jinja environment of lexprobe's HTML reports (the hallucination profile, the investigation and QA scores,
the citation check): autoescape on, so every model-given or document text is escaped; StrictUndefined, so a
template variable the writer forgot fails loudly instead of rendering as empty; `trim_blocks` and `lstrip_blocks` so
block tags leave no blank lines; `finalize` is `terminal.safe_value`, so every value a template prints has its
control and bidi characters (ESC, NUL, U+202E ...) shown as visible escapes before it is HTML-escaped: autoescape
makes "<>&" harmless but would pass those through to the page.

Template names: a plain name ("base.html.j2") is one of this package's templates; "package:name"
("lexprobe.hallucination:report.html.j2") is `name` in that package's `templates/` folder, so the reporting layer
names no package above it. Every page extends `base.html.j2`, the one place for the reports' CSS: a page fills the
blocks `title` and `content`, and may add rules in `extra_style` or replace the whole sheet (`style`) and the
`<main>` frame (`body`). Templates can call `pct`, `interval` and `num` (`reporting.numbers`).
"""

from __future__ import annotations

import functools
import os
import secrets
import stat
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

from jinja2 import BaseLoader, Environment, StrictUndefined, TemplateNotFound

from lexprobe.reporting.numbers import interval, num, pct
from lexprobe.terminal import safe_value

OWN_PACKAGE = "lexprobe.reporting"


class _PackageTemplates(BaseLoader):
    """Loads "package:name" from `package`'s `templates/` folder, a plain name from this package's."""

    def get_source(self, environment: Environment, template: str) -> tuple[str, str | None, Callable[[], bool]]:
        package, _, name = template.rpartition(":")
        try:
            source = resources.files(package or OWN_PACKAGE).joinpath("templates", name)
            text = source.read_text(encoding="utf-8")
        except (ModuleNotFoundError, FileNotFoundError, IsADirectoryError) as error:
            raise TemplateNotFound(template) from error
        return text, str(source), lambda: True


@functools.cache
def report_environment() -> Environment:
    """Return the shared report environment (built once); its templates can call the number formats of
    `reporting.numbers` as `pct`, `interval` and `num`."""
    environment = Environment(
        loader=_PackageTemplates(),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        finalize=safe_value,
    )
    environment.globals.update(pct=pct, interval=interval, num=num)
    return environment


def render_report(template: str, **context: Any) -> str:
    """Render the report template `template` ("package:name") with `context`. Raises jinja2.TemplateNotFound for
    an unknown template and jinja2.UndefinedError when the template uses a variable `context` lacks."""
    return report_environment().get_template(template).render(**context)


def write_page(path: str | Path, html: str) -> None:
    """Write `html` to `path` as UTF-8, atomically: the text is encoded first (an unencodable character raises
    UnicodeEncodeError before any file is touched), then written to a temporary file beside `path` that replaces it
    in one rename, so a failure never leaves an empty or half-written page (the temporary file is removed). A
    target that exists and is not a regular file (a named pipe, /dev/stdout) is written in place instead of being
    replaced. Raises OSError when the page cannot be written."""
    data = html.encode("utf-8")
    path = Path(path)
    try:
        mode = path.lstat().st_mode
    except FileNotFoundError:
        mode = None
    if mode is not None and not stat.S_ISREG(mode):
        with open(path, "wb") as stream:
            stream.write(data)
        return
    temporary = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)  # the umask applies, as for open()
    try:
        with os.fdopen(descriptor, "wb") as stream:
            stream.write(data)
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def write_report(path: str | Path, template: str, **context: Any) -> None:
    """Render `template` with `context` and write the page to `path` (parent folders created) with `write_page`.
    Raises what `render_report` raises, and OSError when the page cannot be written."""
    html = render_report(template, **context)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_page(path, html)


__all__ = ["render_report", "report_environment", "write_page", "write_report"]
