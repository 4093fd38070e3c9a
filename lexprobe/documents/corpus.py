"""Extract a whole corpus folder, with a cache of extracted text beside it.

`extract_corpus(corpus_dir)` walks the folder (hidden files and folders are skipped, and so is the cache folder if
it lies inside), extracts every document and never raises for one bad file: each document gets its text or its
error. Keys are paths relative to the corpus, with "/" separators.

The cache (default: `corpus_dir.parent / "extracted"`, the environment layout's `extracted/` folder):

    extracted/
      manifest.json          {"version", "max_bytes", "files": {REL: {sha256, text, text_sha256, error, page_count,
                             chars}}}
      emails/0001.pdf.txt    the text of corpus/emails/0001.pdf (the source's full name + ".txt")

A document whose sha256 and extraction settings match the manifest is read from its `.txt` (or its recorded
error) instead of being extracted again; a changed document is re-extracted; cache entries of documents that are
gone are removed. The manifest is written last, atomically, so an interrupted run costs only re-extraction.

Both folders are untrusted (environments are downloaded): nothing below `corpus_dir` or `cache_dir` is opened
through a symbolic link, and only regular files are read (`open_confined`: every path component is opened with
O_NOFOLLOW). A corpus entry that is a link (or whose folder is one), or not a regular file, is refused: its document
gets an error, `unsafe=True`, and a line in `CorpusText.warnings`. A corpus file is hashed and extracted from the
same bytes (a private copy), so the cached text always belongs to the recorded sha256. A cache entry is used only
when its text file is exactly `REL.txt` inside the cache, is a regular file reached without links, and its bytes
match the recorded `text_sha256`; anything else is ignored (a warning when it looks tampered) and re-extracted.
The manifest may hold anything: bad JSON, wrong types and foreign paths are ignored, never followed. The confined
file access lives in `lexprobe.documents.confined`.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from lexprobe.documents.confined import (
    CHUNK,
    UnsafePathError,
    link_problem,
    open_confined,
    read_confined,
    relative_path_problem,
    sha256_confined,
    shown,
    unlink_confined,
    write_confined,
)
from lexprobe.documents.errors import ExtractionError
from lexprobe.documents.extract import MAX_BYTES, extract
from lexprobe.documents.readers import Extracted
from lexprobe.errors import BadInputError

MANIFEST = "manifest.json"
EXTRACTOR_VERSION = 3  # bump when the text layout or the manifest changes (3: scanned pages OCRed)
MAX_MANIFEST_BYTES = 256 * 1024 * 1024  # a bigger manifest is not one lexprobe wrote: ignored
TEXT_SIZE_FACTOR = 16  # a cached text larger than this many times max_bytes is not one lexprobe wrote: ignored


@dataclass(frozen=True)
class DocumentText:
    """One document's extraction: `text` ("" for a scan without a text layer) or `error` (the reason)."""

    path: str  # relative to the corpus, "/"-separated
    text: str | None
    error: str | None
    page_count: int | None
    sha256: str
    cached: bool  # True when the result came from the cache
    unsafe: bool = False  # True when the file was refused unread (a symbolic link, not a regular file)

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
    warnings: list[str] = field(default_factory=list)  # refused corpus files, tampered cache entries (one line each)

    @property
    def texts(self) -> dict[str, str]:
        """Return the text of every document that extracted."""
        return {key: doc.text for key, doc in self.documents.items() if doc.text is not None}

    @property
    def errors(self) -> dict[str, str]:
        """Return the error reason of every document that did not extract."""
        return {key: doc.error for key, doc in self.documents.items() if doc.error is not None}

    @property
    def refused(self) -> dict[str, str]:
        """Return the reason of every corpus entry refused unread (symbolic links, files that are not regular)."""
        return {key: doc.error or "" for key, doc in self.documents.items() if doc.unsafe}

    @property
    def extracted_count(self) -> int:
        """Return how many documents were extracted in this call (not read from the cache)."""
        return sum(not doc.cached for doc in self.documents.values())


def _walk(corpus_dir: Path, skip: Path | None) -> tuple[list[str], list[str]]:
    """Return (files, linked folders) under `corpus_dir`, relative and sorted; folders that are links are listed,
    never entered; hidden names and the folder `skip` are left out."""
    skip_resolved = skip.resolve() if skip else None
    found: list[str] = []
    linked: list[str] = []
    for folder, dirs, files in os.walk(corpus_dir):
        here = Path(folder)
        kept = []
        for name in sorted(d for d in dirs if not d.startswith(".")):
            if (here / name).is_symlink():
                linked.append((here / name).relative_to(corpus_dir).as_posix())
            elif (here / name).resolve() != skip_resolved:
                kept.append(name)
        dirs[:] = kept
        found.extend((here / name).relative_to(corpus_dir).as_posix() for name in files if not name.startswith("."))
    return sorted(found), sorted(linked)


def corpus_files(corpus_dir: Path, skip: Path | None = None) -> list[str]:
    """Return the relative, "/"-separated paths of the files under `corpus_dir`, sorted; hidden names and the
    folder `skip` are left out, and folders that are symbolic links are not entered."""
    return _walk(corpus_dir, skip)[0]


# --- the cache -------------------------------------------------------------------------------------------------


def load_manifest(cache_dir: Path) -> tuple[dict[str, Any] | None, str | None]:
    """Return (the manifest's JSON object, None), or (None, why it cannot be used) -- missing, a link, not JSON,
    not an object. Never raises and never follows a link."""
    try:
        raw = read_confined(cache_dir, MANIFEST, MAX_MANIFEST_BYTES)
    except FileNotFoundError:
        return None, "missing"
    except (OSError, UnsafePathError) as exc:
        return None, str(exc) if isinstance(exc, UnsafePathError) else f"cannot be read ({exc.strerror or exc})"
    try:
        manifest = json.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError) as exc:  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        return None, f"not JSON ({type(exc).__name__})"
    if not isinstance(manifest, dict):
        return None, f"not a JSON object ({type(manifest).__name__})"
    return manifest, None


def _load_manifest(cache_dir: Path, max_bytes: int) -> dict[str, Any]:
    manifest, _ = load_manifest(cache_dir)
    if manifest is None or manifest.get("version") != EXTRACTOR_VERSION or manifest.get("max_bytes") != max_bytes:
        return {}
    files = manifest.get("files")
    return files if isinstance(files, dict) else {}


def text_path_problem(rel: str, entry: Any) -> str | None:
    """Return why a manifest entry's `text` names a file other than `REL.txt` (a path elsewhere in the cache, or
    outside it: `../../etc/shadow`, an absolute path, not a string), or None when it is `REL.txt` or null."""
    text = entry.get("text") if isinstance(entry, dict) else None
    if text is None or text == f"{rel}.txt":
        return None
    where = "outside extracted/" if not isinstance(text, str) or relative_path_problem(text) else "elsewhere"
    return f"its text file {shown(repr(text))} lies {where}; lexprobe reads only {shown(rel)}.txt"


def entry_problem(rel: str, entry: Any) -> str | None:
    """Return why a manifest entry would never be used as it stands -- a `text` other than `REL.txt`
    (`text_path_problem`) or fields of the wrong type -- or None when it is well-formed."""
    if not isinstance(entry, dict):
        return f"not an object ({type(entry).__name__})"
    path_problem = text_path_problem(rel, entry)
    if path_problem:
        return path_problem
    text = entry.get("text")
    if not isinstance(entry.get("sha256"), str):
        return "sha256 is not a string"
    if text is None and not isinstance(entry.get("error"), str):
        return "neither a text file nor an error"
    if text is not None and not isinstance(entry.get("text_sha256"), str):
        return "text_sha256 is not a string"
    page_count = entry.get("page_count")
    if page_count is not None and (not isinstance(page_count, int) or isinstance(page_count, bool)):
        return "page_count is not a number"
    return None


def read_cached_text(cache_dir: Path, rel: str, entry: dict, max_bytes: int) -> str:
    """Return the cached text of `rel` (`cache_dir/REL.txt`) when it is a regular file reached without links whose
    bytes match the entry's `text_sha256`. Raises UnsafePathError (link, not a regular file, too large), ValueError
    (hash or UTF-8 mismatch) or OSError (missing, unreadable)."""
    raw = read_confined(cache_dir, f"{rel}.txt", TEXT_SIZE_FACTOR * max_bytes)
    if hashlib.sha256(raw).hexdigest() != entry.get("text_sha256"):
        raise ValueError(f"{shown(rel)}.txt does not match its recorded text_sha256 (edited after extraction)")
    return raw.decode("utf-8")


def _from_cache(
    rel: str, entry: Any, digest: str, cache_dir: Path, max_bytes: int, warnings: list[str]
) -> DocumentText | None:
    """Return the cached result of `rel`, or None when the cache cannot answer (a warning when it looks tampered)."""
    if not isinstance(entry, dict) or entry.get("sha256") != digest:
        return None
    problem = entry_problem(rel, entry)
    if problem:
        warnings.append(f"{cache_dir.name}/{MANIFEST}: entry {shown(rel)}: {problem}: ignored, extracted again")
        return None
    if entry.get("text") is None:
        return DocumentText(rel, None, entry["error"], entry.get("page_count"), digest, cached=True)
    try:
        text = read_cached_text(cache_dir, rel, entry, max_bytes)
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:  # UnsafePathError is a ValueError
        warnings.append(f"{cache_dir.name}/{shown(str(exc))}: ignored, extracted again")
        return None
    return DocumentText(rel, text, None, entry.get("page_count"), digest, cached=True)


def _extract_one(source: Path, max_bytes: int) -> Extracted | ExtractionError:
    """Return the extraction of one file, or its error (for a worker process: errors come back as values)."""
    try:
        return extract(source, max_bytes)
    except ExtractionError as exc:
        return exc


def _copy_confined(corpus_dir: Path, rel: str, target: Path, max_bytes: int) -> tuple[str, int | None]:
    """Copy the regular file `corpus_dir/rel` (opened as `open_confined` does) to `target` and return (its sha256,
    None); a file over `max_bytes` is only hashed: (its sha256, its size)."""
    digest = hashlib.sha256()
    with os.fdopen(open_confined(corpus_dir, rel), "rb") as source:
        size = os.fstat(source.fileno()).st_size
        if size > max_bytes:
            return hashlib.file_digest(source, "sha256").hexdigest(), size
        with open(target, "wb") as copy:
            for chunk in iter(lambda: source.read(CHUNK), b""):
                digest.update(chunk)
                copy.write(chunk)
    return digest.hexdigest(), None


def _refused(corpus_dir: Path, rel: str, reason: str, warnings: list[str]) -> DocumentText:
    warnings.append(f"{corpus_dir.name}/{reason}: refused, never read")
    message = (
        "refused: a symbolic link (never followed)" if "symbolic link" in reason else "refused: not a regular file"
    )
    return DocumentText(rel, None, message, None, "", cached=False, unsafe=True)


def extract_confined(root: Path, rel: str, max_bytes: int = MAX_BYTES) -> Extracted:
    """Return the extraction of the regular file `root/rel`, read without following any link below `root` (a private
    copy of its bytes is extracted). Raises UnsafePathError (a link on the way, not a regular file) and
    ExtractionError naming `root/rel` (unreadable, too large, and everything `extract` raises for)."""
    source = Path(root) / rel
    with tempfile.TemporaryDirectory(prefix="lexprobe-extract-") as scratch:
        copy = Path(scratch) / PurePosixPath(rel).name
        try:
            _, too_large = _copy_confined(Path(root), rel, copy, max_bytes)
        except UnsafePathError:
            raise
        except OSError as exc:
            raise ExtractionError(source, f"cannot read the file ({exc.strerror or exc})") from exc
        if too_large is not None:
            raise ExtractionError(source, f"file too large ({too_large:,} bytes; the limit is {max_bytes:,})")
        outcome = _extract_one(copy, max_bytes)
    if isinstance(outcome, ExtractionError):
        raise ExtractionError(source, outcome.reason)
    return outcome


def extract_corpus(
    corpus_dir: Path, cache_dir: Path | None = None, max_bytes: int = MAX_BYTES, workers: int = 1
) -> CorpusText:
    """Return the text or error of every document under `corpus_dir`, extracting only what the cache lacks.

    `workers` > 1 extracts in that many processes (the results are the same). Never raises for a bad document
    (its `error` says why; links and non-regular files are refused unread, see the module docstring); raises
    NotADirectoryError when `corpus_dir` is not a folder, and BadInputError when `cache_dir` is a symbolic link. A cache
    folder that cannot be written (read-only environment, full disk) is a warning: the texts stay in memory.
    """
    corpus_dir = Path(corpus_dir)
    cache_dir = _cache_folder(corpus_dir, cache_dir)
    previous = _load_manifest(cache_dir, max_bytes)
    documents: dict[str, DocumentText] = {}
    warnings: list[str] = []
    files, linked = _walk(corpus_dir, cache_dir)
    for rel in linked:
        documents[rel] = _refused(corpus_dir, rel, link_problem(corpus_dir, rel) or rel, warnings)
    todo: dict[str, Path] = {}  # relative path -> private copy, for the files the cache cannot answer
    with tempfile.TemporaryDirectory(prefix="lexprobe-extract-") as scratch:
        for rel in files:
            try:
                digest = sha256_confined(corpus_dir, rel)
            except UnsafePathError as exc:
                documents[rel] = _refused(corpus_dir, rel, str(exc), warnings)
                continue
            except OSError as exc:
                documents[rel] = DocumentText(rel, None, f"cannot read the file ({exc.strerror or exc})", None, "",
                                              cached=False)  # fmt: skip
                continue
            doc = _from_cache(rel, previous.get(rel), digest, cache_dir, max_bytes, warnings)
            if doc is not None:
                documents[rel] = doc
            else:
                todo[rel] = Path(scratch) / f"{len(todo)}-{PurePosixPath(rel).name}"
        digests = _copy_sources(corpus_dir, todo, max_bytes, documents, warnings)
        sources = [todo[rel] for rel in digests]
        if workers > 1 and len(sources) > 1:
            with ProcessPoolExecutor(max_workers=workers) as pool:
                outcomes = list(pool.map(_extract_one, sources, [max_bytes] * len(sources), chunksize=4))
        else:
            outcomes = [_extract_one(source, max_bytes) for source in sources]
    writable = True
    for (rel, digest), outcome in zip(digests.items(), outcomes, strict=True):
        if isinstance(outcome, ExtractionError):
            documents[rel] = DocumentText(rel, None, outcome.reason, None, digest, cached=False)
            continue
        documents[rel] = DocumentText(rel, outcome.text, None, outcome.page_count, digest, cached=False)
        if writable:
            writable = _write_cache(cache_dir, f"{rel}.txt", outcome.text.encode("utf-8"), warnings)
    result = CorpusText(corpus_dir, cache_dir, dict(sorted(documents.items())), warnings)
    if writable:
        _write_manifest(cache_dir, max_bytes, result, previous)
    return result


def _cache_folder(corpus_dir: Path, cache_dir: Path | None) -> Path:
    """The extracted-text cache of `corpus_dir` (default `extracted/` beside it); raises for a corpus that is no
    folder and for a cache folder that is a symbolic link."""
    if not corpus_dir.is_dir():
        raise NotADirectoryError(f"corpus folder not found: {corpus_dir}")
    cache_dir = Path(cache_dir) if cache_dir is not None else corpus_dir.parent / "extracted"
    if cache_dir.is_symlink():
        raise BadInputError(
            f"{cache_dir} is a symbolic link (to {shown(os.readlink(cache_dir))}); the extracted-text cache must be "
            "a real folder: delete the link"
        )
    return cache_dir


def _write_cache(cache_dir: Path, rel: str, data: bytes, warnings: list[str]) -> bool:
    """Write one cached text; on a read-only or full disk, warn once and return False (the texts stay in memory)."""
    try:
        write_confined(cache_dir, rel, data)
    except OSError as exc:
        message = (
            f"cannot write the extracted-text cache {cache_dir} ({exc.strerror or exc}); the texts are kept in "
            "memory for this run and extracted again next time"
        )
        warnings.append(message)
        return False
    return True


def _copy_sources(
    corpus_dir: Path, todo: dict[str, Path], max_bytes: int, documents: dict[str, DocumentText], warnings: list[str]
) -> dict[str, str]:
    """Copy each file of `todo` to its private path and return {rel: sha256 of the copied bytes} for those to
    extract; files too large, gone or refused get their DocumentText in `documents` instead."""
    digests: dict[str, str] = {}
    for rel, copy in todo.items():
        try:
            digest, too_large = _copy_confined(corpus_dir, rel, copy, max_bytes)
        except UnsafePathError as exc:
            documents[rel] = _refused(corpus_dir, rel, str(exc), warnings)
        except OSError as exc:
            documents[rel] = DocumentText(rel, None, f"cannot read the file ({exc.strerror or exc})", None, "",
                                          cached=False)  # fmt: skip
        else:
            if too_large is None:
                digests[rel] = digest
            else:  # the reason `extract` gives, without copying a huge file
                reason = f"file too large ({too_large:,} bytes; the limit is {max_bytes:,})"
                documents[rel] = DocumentText(rel, None, reason, None, digest, cached=False)
    return digests


def _write_manifest(cache_dir: Path, max_bytes: int, result: CorpusText, previous: dict[str, Any]) -> None:
    """Write the manifest of `result` and remove the cached texts of documents that are gone or now fail."""
    entries = {
        rel: {
            "sha256": doc.sha256,
            "text": f"{rel}.txt" if doc.text is not None else None,
            "text_sha256": hashlib.sha256(doc.text.encode("utf-8")).hexdigest() if doc.text is not None else None,
            "error": doc.error,
            "page_count": doc.page_count,
            "chars": len(doc.text) if doc.text is not None else 0,
        }
        for rel, doc in result.documents.items()
        if doc.sha256  # an unreadable or refused file is retried next time
    }
    for rel in previous:  # documents that are gone, or now fail: drop their stale text (never through a link)
        if rel not in entries or entries[rel]["text"] is None:
            unlink_confined(cache_dir, f"{rel}.txt")
    manifest = {"version": EXTRACTOR_VERSION, "max_bytes": max_bytes, "files": entries}
    _write_cache(cache_dir, MANIFEST, (json.dumps(manifest, indent=1, sort_keys=True) + "\n").encode("utf-8"), [])
