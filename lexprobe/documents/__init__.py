"""Documents: a format-free content model, renderers to pdf / docx / xlsx / pptx / txt, and text extraction.

- `content`: `DocumentContent` and its blocks (what a document says).
- `render`: `render_document(content, path)` and the `RENDERERS` registry (how it looks, per document type).
- `extract`: `extract_text(path)` and `ExtractionError` (its text, in one layout for every format).
- `corpus`: `extract_corpus(corpus_dir)` with a sha256-keyed cache of extracted text.
"""

from lexprobe.documents.content import Block, DocType, DocumentContent
from lexprobe.documents.corpus import CorpusText, DocumentText, extract_corpus
from lexprobe.documents.errors import ExtractionError
from lexprobe.documents.extract import MAX_BYTES, extract, extract_text, page_count
from lexprobe.documents.render import RENDERERS, render_document

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
