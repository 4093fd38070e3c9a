"""Documents: a format-free content model, renderers to pdf / docx / xlsx / pptx / txt, and text extraction.

- `content`: `DocumentContent` and its blocks (what a document says).
- `render`: `render_document(content, path)` and the `RENDERERS` registry (how it looks, per document type).
- `extract`: `extract_text(path)` and `ExtractionError` (its text, in one layout for every format).
- `corpus`: `extract_corpus(corpus_dir)` with a sha256-keyed cache of extracted text.
"""
