"""The extracted text of one document of an environment, for the viewer: read without writing anything, never
through a link, only inside the environment folder, and cut at `MAX_SHOWN_CHARS` (the page says so).

The text comes from the environment's extraction cache (`extracted/REL.txt`, used only when it matches the
manifest's recorded hash, as `lexprobe.documents.corpus` checks it) or, when the cache lacks it, from extracting the
corpus file in memory (`extract_confined`); the cache is never written here.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from lexprobe.documents.confined import sha256_confined
from lexprobe.documents.corpus import load_manifest, read_cached_text
from lexprobe.documents.errors import ExtractionError
from lexprobe.documents.extract import MAX_BYTES
from lexprobe.investigation.environment.format import CORPUS_DIR, EXTRACTED_DIR, Document
from lexprobe.investigation.environment.validate_files import corpus_path_problem

#: The most characters of a document's text one page shows.
MAX_SHOWN_CHARS = 200_000


@dataclass(frozen=True)
class DocumentText:
    """What the document page shows: the document's annotation, its text (possibly cut) or why there is none."""

    document: Document
    text: str | None
    total_chars: int
    cut: bool
    problem: str | None = None


def read_document(env_dir: Path, document: Document, max_chars: int = MAX_SHOWN_CHARS) -> DocumentText:
    """Return the extracted text of `document` (at most `max_chars` characters, `cut` saying whether it was cut),
    or a `problem` saying why it cannot be shown (a path outside corpus/, a link, a file that does not extract)."""
    problem = corpus_path_problem(document.path)
    if problem:
        return DocumentText(document, None, 0, False, f"its path is refused ({problem})")
    try:
        text = _cached_text(Path(env_dir), document.path)
        if text is None:
            from lexprobe.documents.corpus import extract_confined

            text = extract_confined(Path(env_dir) / CORPUS_DIR, document.path).text
    except (ExtractionError, OSError, ValueError) as exc:
        return DocumentText(document, None, 0, False, f"no text: {type(exc).__name__}: {exc}")
    return DocumentText(document, text[:max_chars], len(text), len(text) > max_chars)


def _cached_text(env_dir: Path, rel: str) -> str | None:
    """The cached text of `rel` when the extraction cache holds one matching the current corpus file, else None."""
    cache = env_dir / EXTRACTED_DIR
    if cache.is_symlink() or (env_dir / CORPUS_DIR).is_symlink():
        raise ValueError("corpus/ or extracted/ is a symbolic link (never followed)")
    manifest, _ = load_manifest(cache)
    files = manifest.get("files") if isinstance(manifest, dict) else None
    entry = files.get(rel) if isinstance(files, dict) else None
    if not isinstance(entry, dict) or not isinstance(entry.get("text"), str) or entry["text"] != f"{rel}.txt":
        return None
    if entry.get("sha256") != sha256_confined(env_dir / CORPUS_DIR, rel):
        return None
    max_bytes = manifest.get("max_bytes") if isinstance(manifest.get("max_bytes"), int) else MAX_BYTES
    return read_cached_text(cache, rel, entry, max_bytes)
