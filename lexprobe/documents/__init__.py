"""Documents: a format-free content model, renderers to pdf / docx / xlsx / pptx / txt, and text extraction.

- `content`: `DocumentContent` and its blocks (what a document says).
- `render`: `render_document(content, path)` and the `RENDERERS` registry (how it looks, per document type).
- `extract`: `extract_text(path)` and `ExtractionError` (its text, in one layout for every format).
- `corpus`: `extract_corpus(corpus_dir)` with a sha256-keyed cache of extracted text.

The names below are imported on first use (PEP 562), so importing `lexprobe.documents.errors` or `limits` does not
load pypdf, openpyxl, python-docx, python-pptx and reportlab; the command line starts faster for it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_HOMES = {
    "Block": "content",
    "DocType": "content",
    "DocumentContent": "content",
    "CorpusText": "corpus",
    "DocumentText": "corpus",
    "extract_corpus": "corpus",
    "ExtractionError": "errors",
    "MAX_BYTES": "extract",
    "extract": "extract",
    "extract_text": "extract",
    "page_count": "extract",
    "RENDERERS": "render",
    "render_document": "render",
}

__all__ = [
    "MAX_BYTES",
    "RENDERERS",
    "Block",
    "CorpusText",
    "DocType",
    "DocumentContent",
    "DocumentText",
    "ExtractionError",
    "extract",
    "extract_corpus",
    "extract_text",
    "page_count",
    "render_document",
]

if TYPE_CHECKING:
    from lexprobe.documents.content import Block, DocType, DocumentContent
    from lexprobe.documents.corpus import CorpusText, DocumentText, extract_corpus
    from lexprobe.documents.errors import ExtractionError
    from lexprobe.documents.extract import MAX_BYTES, extract, extract_text, page_count
    from lexprobe.documents.render import RENDERERS, render_document


def __getattr__(name: str) -> Any:
    """Import the module that defines `name` on first access."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'lexprobe.documents' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"lexprobe.documents.{home}"), name)
    globals()[name] = value
    return value
