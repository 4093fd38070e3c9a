"""Extract a whole corpus folder, with a cache of extracted text beside it.

`extract_corpus(corpus_dir)` walks the folder (hidden files and folders are skipped, and so is the cache folder if
it lies inside), extracts every document and never raises for one bad file: each document gets its text or its
error. Keys are paths relative to the corpus, with "/" separators.

The cache (default: `corpus_dir.parent / "extracted"`, the environment layout's `extracted/` folder):

    extracted/
      manifest.json          {"version", "max_bytes", "files": {REL: {sha256, text, error, page_count, chars}}}
      emails/0001.pdf.txt    the text of corpus/emails/0001.pdf (the source's full name + ".txt")

A document whose sha256 and extraction settings match the manifest is read from its `.txt` (or its recorded
error) instead of being extracted again; a changed document is re-extracted; cache entries of documents that are
gone are removed. The manifest is written last, atomically, so an interrupted run costs only re-extraction.
"""

from __future__ import annotations

import hashlib
import json
import os
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from lexprobe.documents.errors import ExtractionError
from lexprobe.documents.extract import MAX_BYTES, extract
from lexprobe.documents.readers import Extracted

MANIFEST = "manifest.json"
EXTRACTOR_VERSION = 1  # bump when the text layout changes, so every cached text is redone


@dataclass(frozen=True)
class DocumentText:
    """One document's extraction: `text` ("" for a scan without a text layer) or `error` (the reason)."""

    path: str  # relative to the corpus, "/"-separated
    text: str | None
    error: str | None
    page_count: int | None
    sha256: str
    cached: bool  # True when the result came from the cache

    @property
    def ok(self) -> bool:
        """Return True when the text was extracted (it may still be empty)."""
        return self.error is None


@dataclass
class CorpusText:
    """Per-document results of `extract_corpus`, keyed by relative path, in sorted order."""

    corpus_dir: Path
    cache_dir: Path
    documents: dict[str, DocumentText] = field(default_factory=dict)

    @property
    def texts(self) -> dict[str, str]:
        """Return the text of every document that extracted."""
        return {key: doc.text for key, doc in self.documents.items() if doc.text is not None}

    @property
    def errors(self) -> dict[str, str]:
        """Return the error reason of every document that did not extract."""
        return {key: doc.error for key, doc in self.documents.items() if doc.error is not None}

    @property
    def extracted_count(self) -> int:
        """Return how many documents were extracted in this call (not read from the cache)."""
        return sum(not doc.cached for doc in self.documents.values())


def sha256_file(path: Path) -> str:
    """Return the hex sha256 of a file's bytes."""
    digest = hashlib.sha256()
    with open(path, "rb") as stream:
        for chunk in iter(lambda: stream.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def corpus_files(corpus_dir: Path, skip: Path | None = None) -> list[str]:
    """Return the relative, "/"-separated paths of the files under `corpus_dir`, sorted; hidden names and the
    folder `skip` are left out."""
    skip_resolved = skip.resolve() if skip else None
    found: list[str] = []
    for folder, dirs, files in os.walk(corpus_dir):
        here = Path(folder)
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and (here / d).resolve() != skip_resolved)
        found.extend((here / name).relative_to(corpus_dir).as_posix() for name in files if not name.startswith("."))
    return sorted(found)


def _load_manifest(cache_dir: Path, max_bytes: int) -> dict[str, dict]:
    try:
        manifest = json.loads((cache_dir / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if manifest.get("version") != EXTRACTOR_VERSION or manifest.get("max_bytes") != max_bytes:
        return {}
    files = manifest.get("files")
    return files if isinstance(files, dict) else {}


def _write_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(text, encoding="utf-8", newline="\n")
    os.replace(temporary, path)


def _from_cache(rel: str, entry: dict, digest: str, cache_dir: Path) -> DocumentText | None:
    if entry.get("sha256") != digest:
        return None
    if entry.get("error") is not None:
        return DocumentText(rel, None, entry["error"], entry.get("page_count"), digest, cached=True)
    try:
        text = (cache_dir / entry["text"]).read_text(encoding="utf-8")
    except (OSError, KeyError, TypeError, ValueError):
        return None
    return DocumentText(rel, text, None, entry.get("page_count"), digest, cached=True)


def _extract_one(source: Path, max_bytes: int) -> Extracted | ExtractionError:
    """Return the extraction of one file, or its error (for a worker process: errors come back as values)."""
    try:
        return extract(source, max_bytes)
    except ExtractionError as exc:
        return exc


def extract_corpus(
    corpus_dir: Path, cache_dir: Path | None = None, max_bytes: int = MAX_BYTES, workers: int = 1
) -> CorpusText:
    """Return the text or error of every document under `corpus_dir`, extracting only what the cache lacks.

    `workers` > 1 extracts in that many processes (the results are the same). Never raises for a bad document
    (its `error` says why); raises NotADirectoryError when `corpus_dir` is not a folder, and OSError when the cache
    folder cannot be written.
    """
    corpus_dir = Path(corpus_dir)
    if not corpus_dir.is_dir():
        raise NotADirectoryError(f"corpus folder not found: {corpus_dir}")
    cache_dir = Path(cache_dir) if cache_dir is not None else corpus_dir.parent / "extracted"
    previous = _load_manifest(cache_dir, max_bytes)
    documents: dict[str, DocumentText] = {}
    todo: dict[str, str] = {}  # relative path -> sha256, for the files the cache cannot answer
    for rel in corpus_files(corpus_dir, skip=cache_dir):
        try:
            digest = sha256_file(corpus_dir / rel)
        except OSError as exc:
            documents[rel] = DocumentText(rel, None, f"cannot read the file ({exc})", None, "", cached=False)
            continue
        doc = _from_cache(rel, previous.get(rel, {}), digest, cache_dir)
        if doc is None:
            todo[rel] = digest
        else:
            documents[rel] = doc
    sources = [corpus_dir / rel for rel in todo]
    if workers > 1 and len(sources) > 1:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            outcomes = list(pool.map(_extract_one, sources, [max_bytes] * len(sources), chunksize=4))
    else:
        outcomes = [_extract_one(source, max_bytes) for source in sources]
    for (rel, digest), outcome in zip(todo.items(), outcomes, strict=True):
        if isinstance(outcome, ExtractionError):
            documents[rel] = DocumentText(rel, None, outcome.reason, None, digest, cached=False)
        else:
            documents[rel] = DocumentText(rel, outcome.text, None, outcome.page_count, digest, cached=False)
            _write_atomic(cache_dir / f"{rel}.txt", outcome.text)
    result = CorpusText(corpus_dir, cache_dir, dict(sorted(documents.items())))
    entries = {
        rel: {
            "sha256": doc.sha256,
            "text": f"{rel}.txt" if doc.text is not None else None,
            "error": doc.error,
            "page_count": doc.page_count,
            "chars": len(doc.text) if doc.text is not None else 0,
        }
        for rel, doc in result.documents.items()
        if doc.sha256  # an unreadable file is retried next time
    }
    for rel, entry in previous.items():  # documents that are gone, or now fail: drop their stale text
        stale = entry.get("text") if isinstance(entry, dict) else None
        if isinstance(stale, str) and (rel not in entries or entries[rel]["text"] is None):
            target = (cache_dir / stale).resolve()
            if target.is_relative_to(cache_dir.resolve()):
                target.unlink(missing_ok=True)
    manifest = {"version": EXTRACTOR_VERSION, "max_bytes": max_bytes, "files": entries}
    _write_atomic(cache_dir / MANIFEST, json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    return result
