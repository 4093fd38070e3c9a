"""The one page writer of lexprobe's static HTML: every report, the check page and every page of the run viewer are
rendered by the one Jinja environment here (autoescape; StrictUndefined; `trim_blocks`/`lstrip_blocks`; `finalize`
is `terminal.safe_value`, so control and bidi characters show as escapes) and written by `write_page` (atomic).
"package:name" names `name` in that package's `templates/` folder; every page extends `base.html.j2`, the one page
frame and the reports' CSS (blocks `title`, `content`, `extra_style`, `style`, `body`, `page_head`). Templates can
call `pct`, `interval` and `num` and filter with `visible` and `share`. docs/architecture.md describes it.
"""

from __future__ import annotations

import functools
import html
import os
import secrets
import shutil
import stat
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

from jinja2 import BaseLoader, Environment, StrictUndefined, TemplateNotFound
from markupsafe import Markup

from lexprobe.reporting.numbers import interval, num, pct, whole_share
from lexprobe.terminal import safe_text, safe_value

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


def visible(value: object) -> str:
    """Return `value` as text with its control and bidi characters shown as escapes ("" for None): the templates'
    `visible` filter, for a value printed inside an attribute or a longer text."""
    return safe_text("" if value is None else str(value))


def escape(text: str) -> Markup:
    """Return untrusted `text` HTML-escaped, its control and bidi characters first shown as escapes, as the
    templates print every value: for the pieces of HTML Python code builds itself."""
    return Markup(html.escape(safe_text(text)))


@functools.cache
def report_environment() -> Environment:
    """Return the one page environment (built once)."""
    environment = Environment(
        loader=_PackageTemplates(),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        finalize=safe_value,
    )
    environment.globals.update(pct=pct, interval=interval, num=num)
    environment.filters.update(visible=visible, share=whole_share)
    return environment


def render_report(template: str, **context: Any) -> str:
    """Render the page template `template` ("package:name") with `context`. Raises jinja2.TemplateNotFound for
    an unknown template and jinja2.UndefinedError when the template uses a variable `context` lacks."""
    return report_environment().get_template(template).render(**context)


def figure(title: str, build: Callable[[], Any], caption: str, *, empty: bool = False) -> dict:
    """Return one figure of a report as the templates show it ({"title", "uri", "caption", "empty"}): `build()`'s
    matplotlib figure inlined as an SVG data URI, or, when drawing fails for want of data (ValueError, KeyError,
    TypeError, FileNotFoundError: a missing shapefile), no image and the caption saying why: never a broken
    image."""
    from lexprobe.reporting.figures import figure_to_data_uri  # matplotlib: only for pages with figures

    try:
        return {"title": title, "uri": figure_to_data_uri(build(), "svg"), "caption": caption, "empty": empty}
    except (FileNotFoundError, ValueError, KeyError, TypeError) as exc:
        return {"title": title, "uri": None, "caption": f"{caption} Not drawn: {exc}", "empty": empty}


def write_page(path: str | Path, text: str) -> None:
    """Write the page `text` to `path` as UTF-8, atomically: the text is encoded first
    (an unencodable character raises UnicodeEncodeError before any file is touched), then written to a temporary
    file beside `path` that replaces it in one rename, so a failure never leaves an empty or half-written page (the
    temporary file is removed). A target that exists and is not a regular file (a named pipe, /dev/stdout) is
    written in place instead of being replaced. Raises OSError when the page cannot be written."""
    write_file(path, text.encode("utf-8"))


def write_file(path: str | Path, data: bytes) -> None:
    """Write `data` to `path` atomically, as `write_page` writes a page (an annotated .docx, say)."""
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


def copy_assets(source: Path, target: Path) -> None:
    """Copy the files of folder `source` (a page's style sheets and scripts) into `target` (created)."""
    target.mkdir(parents=True, exist_ok=True)
    for path in source.iterdir():
        if path.is_file():
            shutil.copyfile(path, target / path.name)


def write_report(path: str | Path, template: str, **context: Any) -> None:
    """Render `template` with `context` and write the page to `path` (parent folders created) with `write_page`.
    Raises what `render_report` raises, and OSError when the page cannot be written."""
    page = render_report(template, **context)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_page(path, page)
