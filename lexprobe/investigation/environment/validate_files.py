"""Checks 6 and 8 of `lexprobe.investigation.environment.validate`: the corpus files an environment lists (paths
confined to corpus/, no symbolic link followed, suffixes, unlisted files, text extraction) and the extracted-text cache
(extracted/ and its manifest.json). Also the one safe way from a document path to its file, `resolve_in_corpus`."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any

from lexprobe.investigation.environment.format import CORPUS_DIR, ENVIRONMENT_FILE, EXTRACTED_DIR
from lexprobe.investigation.environment.validate_report import ParsedFile, ProblemReport


def normal_path(path: str) -> str:
    """Return a document path in POSIX normal form (as the validator compares paths)."""
    return str(PurePosixPath(path)) if path else path


def corpus_path_problem(path: str) -> str | None:
    """Return why the document path `path` (relative to corpus/) is not a plain relative POSIX path inside the
    corpus (absolute, `..`, backslashes, empty), or None when it is. Symlinks are checked by `resolve_in_corpus`."""
    if not path.strip():
        return "empty path"
    if "\\" in path:
        return "backslash in path: use POSIX separators"
    if PurePosixPath(path).is_absolute() or PureWindowsPath(path).drive:
        return "absolute path: must be relative to corpus/"
    if ".." in PurePosixPath(path).parts:
        return "path escapes corpus/ ('..')"
    return None


def resolve_in_corpus(env_dir: Path, path: str) -> Path:
    """Return the file a document path names, under ENV/corpus/. Raises ValueError when the path is not a plain
    relative path (`corpus_path_problem`), resolves outside corpus/ (a symlink pointing out), or reaches the file
    through any symbolic link (corpus/ itself, a folder, the file: lexprobe never follows one)."""
    from lexprobe.documents.confined import link_problem, shown

    problem = corpus_path_problem(path)
    if problem:
        raise ValueError(problem)
    corpus = Path(env_dir) / CORPUS_DIR
    if corpus.is_symlink():
        raise ValueError(f"{CORPUS_DIR}/ is a symbolic link (to {shown(os.readlink(corpus))}); it is never followed")
    target = corpus / path
    resolved = target.resolve()
    if not resolved.is_relative_to(corpus.resolve()):
        raise ValueError(f"resolves outside corpus/ (symlink to {shown(str(resolved))})")
    linked = link_problem(corpus, normal_path(path))
    if linked and "symbolic link" in linked:
        raise ValueError(f"{CORPUS_DIR}/{linked}")
    return target


def check_files(env_dir: Path, env: ParsedFile, report: ProblemReport, extract: bool) -> None:
    """Report check 6 (the corpus files) of the parsed environment `env` into `report`; `extract` also extracts
    every listed file's text."""
    corpus = env_dir / CORPUS_DIR
    documents = env.of("documents")
    if not documents and "documents" not in env.incomplete:
        at = f" at level {env.level!r}" if env.level else ""
        report.add(ENVIRONMENT_FILE, "documents", f"no documents: the corpus{at} is empty", "warning")
    if corpus.is_symlink():
        report.add(f"{CORPUS_DIR}/", "", f"is a symbolic link (to {_link_target(corpus)}); it is never followed")
        return
    if not corpus.is_dir():
        if documents:
            report.add(f"{CORPUS_DIR}/", "", f"corpus directory missing in {env_dir}")
        return
    extract_text, extraction_error = _extractor() if extract else (None, None)
    for i, doc in documents:
        where: list[str | int] = ["documents", i]
        suffix = PurePosixPath(doc.path).suffix.lower().lstrip(".")
        shown_suffix = f".{suffix}" if suffix else "(none)"
        if suffix != doc.format:
            report.add(
                ENVIRONMENT_FILE,
                [*where, "format"],
                f"declared format {doc.format!r} does not match the file suffix {shown_suffix!r}",
            )
        try:
            target = resolve_in_corpus(env_dir, doc.path)
        except ValueError as exc:
            report.add(ENVIRONMENT_FILE, [*where, "path"], f"{doc.path!r}: {exc}")
            continue
        shown = f"{CORPUS_DIR}/{normal_path(doc.path)}"
        if not target.exists():
            broken = " (broken symlink)" if target.is_symlink() else ""
            report.add(ENVIRONMENT_FILE, [*where, "path"], f"{shown} does not exist{broken}")
            continue
        if not target.is_file():
            report.add(ENVIRONMENT_FILE, [*where, "path"], f"{shown} is not a file")
            continue
        if extract_text is None:
            continue
        try:
            text = extract_text(corpus, normal_path(doc.path))
        except extraction_error as exc:  # type: ignore[misc]
            report.add(shown, "", f"cannot extract text: {getattr(exc, 'reason', exc)}")
            continue
        except Exception as exc:  # an extractor bug must not hide the remaining problems
            report.add(shown, "", f"text extraction failed unexpectedly: {type(exc).__name__}: {exc}")
            continue
        if not text.strip():
            report.add(shown, "", "extracted text is empty", "warning")
    _check_unlisted(corpus, {normal_path(doc.path) for _, doc in documents} | env.extra_paths, report)


def _check_unlisted(corpus: Path, listed: set[str], report: ProblemReport) -> None:
    """Report the files of the corpus folder that no document lists (a symbolic link as an error)."""
    for relative in _corpus_files(corpus):
        if relative in listed:
            continue
        if (corpus / relative).is_symlink():
            report.add(
                f"{CORPUS_DIR}/{relative}",
                "",
                f"symbolic link (to {_link_target(corpus / relative)}) in corpus/: never followed; delete it",
            )
        else:
            report.add(f"{CORPUS_DIR}/{relative}", "", "file in corpus/ that no document lists", "warning")


def _link_target(path: Path) -> str:
    from lexprobe.documents.confined import shown

    try:
        return shown(os.readlink(path))
    except OSError:
        return "?"


def _corpus_files(corpus: Path) -> list[str]:
    """Every file (and symlink) under corpus/, relative POSIX paths, sorted; symlinked folders are not entered."""
    found: list[str] = []
    for root, dirs, files in os.walk(corpus):
        base = Path(root).relative_to(corpus)
        found.extend((base / name).as_posix() for name in files)
        found.extend((base / name).as_posix() for name in dirs if (Path(root) / name).is_symlink())
    return sorted(found)


def _extractor() -> tuple[Any, tuple[type[Exception], ...]]:
    """Return (extract(corpus, rel) -> text, the errors it raises for a bad file): files are read without following
    links (`lexprobe.documents.corpus.extract_confined`)."""
    from lexprobe.documents.confined import UnsafePathError
    from lexprobe.documents.corpus import extract_confined
    from lexprobe.documents.extract import ExtractionError

    return (lambda corpus, rel: extract_confined(corpus, rel).text), (ExtractionError, UnsafePathError)


# --- 7. questions ----------------------------------------------------------------------------------------------


def check_extracted(env_dir: Path, report: ProblemReport) -> None:
    """Report links and odd files in extracted/ and manifest entries that name other files (errors), and entries a
    run would ignore and extract again (warnings). Never follows a link or reads outside extracted/."""
    cache = env_dir / EXTRACTED_DIR
    if cache.is_symlink():
        report.add(f"{EXTRACTED_DIR}/", "", f"is a symbolic link (to {_link_target(cache)}); it is never followed: "
                   "delete it (the cache is rebuilt)")  # fmt: skip
        return
    if not cache.exists():
        return
    if not cache.is_dir():
        report.add(f"{EXTRACTED_DIR}", "", "is not a folder: delete it (the cache is rebuilt)")
        return
    _check_cache_entries(cache, report)
    _check_manifest(env_dir, cache, report)


def _check_cache_entries(cache: Path, report: ProblemReport) -> None:
    from lexprobe.documents.confined import shown

    for root, dirs, files in os.walk(cache):
        for name in sorted([*dirs, *files]):
            path = Path(root) / name
            where = f"{EXTRACTED_DIR}/{shown(path.relative_to(cache).as_posix())}"
            info = path.lstat()
            if stat.S_ISLNK(info.st_mode):
                report.add(where, "", f"symbolic link (to {_link_target(path)}): never read; delete it")
            elif not (stat.S_ISDIR(info.st_mode) or stat.S_ISREG(info.st_mode)):
                report.add(where, "", "not a regular file: never read; delete it")


def _check_manifest(env_dir: Path, cache: Path, report: ProblemReport) -> None:
    from lexprobe.documents import corpus as cached
    from lexprobe.documents.confined import relative_path_problem

    where = f"{EXTRACTED_DIR}/{cached.MANIFEST}"
    manifest, why = cached.load_manifest(cache)
    if manifest is None:
        if why != "missing" and not (cache / cached.MANIFEST).is_symlink():  # a link is reported already
            report.add(where, "", f"{why}: ignored, every file is extracted again", "warning")
        return
    files = manifest.get("files")
    if not isinstance(files, dict):
        report.add(where, "files", "not an object: ignored, every file is extracted again", "warning")
        return
    current = manifest.get("version") == cached.EXTRACTOR_VERSION
    for rel, entry in files.items():
        location = f"files[{json.dumps(rel)}]"
        problem = relative_path_problem(rel) or corpus_path_problem(rel)
        if problem:
            report.add(where, location, f"{problem}: not a corpus path; never used")
            continue
        hostile = cached.text_path_problem(rel, entry)
        if hostile:
            report.add(where, f"{location}.text", f"{hostile}; never read")
        elif current:
            _check_manifest_entry(env_dir, cache, rel, entry, report, f"{where}:{location}")


def _check_manifest_entry(env_dir: Path, cache: Path, rel: str, entry: Any, report: ProblemReport, where: str) -> None:
    """Warn about an entry a run ignores: malformed, stale (its corpus file changed or is gone) or whose text does
    not match its recorded hash."""
    from lexprobe.documents import corpus as cached
    from lexprobe.documents.confined import UnsafePathError, sha256_confined, shown

    problem = cached.entry_problem(rel, entry)
    if problem:
        report.add(where, "", f"{problem}: ignored, extracted again", "warning")
        return
    try:
        digest = sha256_confined(env_dir / CORPUS_DIR, rel)
    except FileNotFoundError:
        report.add(where, "", f"no file {CORPUS_DIR}/{shown(rel)}: stale entry, removed on the next run", "warning")
        return
    except (OSError, ValueError):  # a link or odd file in corpus/: reported by the file checks
        return
    if digest != entry["sha256"]:
        report.add(where, "", f"{CORPUS_DIR}/{shown(rel)} changed since it was extracted: extracted again",
                   "warning")  # fmt: skip
        return
    if entry.get("text") is None:
        return
    try:
        cached.read_cached_text(cache, rel, entry, cached.MAX_BYTES)
    except FileNotFoundError:
        report.add(where, "", f"{EXTRACTED_DIR}/{shown(rel)}.txt is missing: extracted again", "warning")
    except UnsafePathError as exc:
        if "symbolic link" not in str(exc):  # links are reported by _check_cache_entries
            report.add(where, "", f"{exc}: ignored, extracted again", "warning")
    except (OSError, ValueError) as exc:
        report.add(where, "", f"{exc}: ignored, extracted again", "warning")
