"""Render a `DocumentContent` to a file: pdf, docx, xlsx, pptx or txt, in the conventions of its document type.

`RENDERERS` maps a format name to a function `(content, path, seed) -> None`; `render_document` picks one by name
or by the path's suffix. The same content and seed always give byte-identical files (see each module for how).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from lexprobe.documents.content import DocumentContent
from lexprobe.documents.render.docx import render_docx
from lexprobe.documents.render.pdf import render_pdf
from lexprobe.documents.render.plan import render_txt
from lexprobe.documents.render.pptx import render_pptx
from lexprobe.documents.render.xlsx import render_xlsx

Renderer = Callable[[DocumentContent, Path, int], None]

RENDERERS: dict[str, Renderer] = {
    "pdf": render_pdf,
    "docx": render_docx,
    "xlsx": render_xlsx,
    "pptx": render_pptx,
    "txt": render_txt,
}


def render_document(content: DocumentContent, path: Path, format: str | None = None, seed: int = 0) -> Path:
    """Write `content` to `path` in `format` (default: the path's suffix) and return `path`.

    `seed` picks the house style (font, margins, date and page-number formats). Parent folders are created; the
    file is written beside `path` and moved into place, so a failed render leaves no partial file.
    Raises ValueError for a format with no renderer.
    """
    path = Path(path)
    name = (format or path.suffix.lstrip(".")).lower()
    renderer = RENDERERS.get(name)
    if renderer is None:
        known = ", ".join(sorted(RENDERERS))
        raise ValueError(f"no renderer for format {name!r} (path {path}); known formats: {known}")
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.stem}.partial{path.suffix}")
    try:
        renderer(content, partial, seed)
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)
    return path
