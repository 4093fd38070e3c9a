"""The agent's view of an environment's corpus: the extracted text of every document, under the document's own path.

Agent tools never touch `corpus/` (binary files) directly: they read the extracted text (`lexprobe.documents`
caches it in `extracted/`). The view maps each corpus path ("emails/0001.pdf") to its text and its document id, so
every tool call can be logged with the documents (and so the roles) it touched. For `shell`, the texts are
materialized once as plain files under the same relative paths in a private folder, which the sandbox binds
read-only.

An environment is untrusted: `corpus/` and `extracted/` must be real folders (not symbolic links) and nothing below
them is read through a link (`lexprobe.documents.corpus` refuses such files unread and re-extracts tampered cache
entries), and a document whose path points outside corpus/ (`../../etc/passwd`, an absolute path) is left out
unread. Every refusal is a line in `CorpusView.warnings`, logged as a warning when the view is opened (stderr in the
command line, before the first episode starts) and recorded in each episode.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from lexprobe.documents.confined import shown
from lexprobe.documents.corpus import extract_corpus
from lexprobe.errors import BadInputError
from lexprobe.investigation.environment.format import (
    CORPUS_DIR,
    EXTRACTED_DIR,
    Document,
    Environment,
    QuestionSet,
    load_environment,
)
from lexprobe.investigation.environment.validate_files import corpus_path_problem

log = logging.getLogger(__name__)


@dataclass
class CorpusView:
    """Extracted texts by corpus path, with the environment's document annotations."""

    env_dir: Path
    environment: Environment
    texts: dict[str, str]  # corpus path -> extracted text
    errors: dict[str, str] = field(default_factory=dict)  # corpus path -> why it has no text
    questions: QuestionSet = field(default_factory=QuestionSet)  # questions.json (factual QA)
    warnings: list[str] = field(default_factory=list)  # files refused unread, tampered cache entries ignored
    _lines: dict[str, list[str]] = field(default_factory=dict, repr=False)

    @classmethod
    def open(cls, env_dir: Path) -> CorpusView:
        """Load the environment and the extracted text of its corpus (extracting what the cache lacks).

        Files refused unread (symbolic links, files that are not regular) have an error instead of a text and a line
        in `warnings`, each also logged as a warning. Raises FileNotFoundError / ValueError from `load_environment`
        for a missing or malformed environment, and BadInputError (a ValueError) when `corpus/` or `extracted/` is
        a symbolic link."""
        env_dir = Path(env_dir)
        environment, questions = load_environment(env_dir)
        for name in (CORPUS_DIR, EXTRACTED_DIR):
            _refuse_linked_folder(env_dir, name)
        corpus = (env_dir / CORPUS_DIR).resolve()
        extracted = extract_corpus(env_dir / CORPUS_DIR, env_dir / EXTRACTED_DIR)
        texts, errors = {}, dict(extracted.errors)
        for path, text in extracted.texts.items():
            if (env_dir / CORPUS_DIR / path).resolve().is_relative_to(corpus):
                texts[path] = text
            else:  # a symlink out of the corpus (extract_corpus refuses them already): never shown to the agent
                errors[path] = "refused: a symbolic link (never followed)"
        warnings = [f"{shown(str(env_dir))}: {line}" for line in extracted.warnings]
        warnings += [f"{shown(str(env_dir))}: {line}" for line in outside_documents(environment)]
        for line in warnings:
            log.warning("%s", line)
        return cls(env_dir, environment, texts, errors, questions, warnings)

    @property
    def paths(self) -> list[str]:
        """Every corpus path with text, sorted."""
        return sorted(self.texts)

    def lines(self, path: str) -> list[str]:
        """Return the lines of one document's text (without line ends)."""
        if path not in self._lines:
            self._lines[path] = self.texts[path].splitlines()
        return self._lines[path]

    def doc_id(self, path: str) -> str | None:
        """Return the document id of a corpus path (None for a file the environment does not list)."""
        document = self._documents.get(path)
        return document.doc_id if document else None

    def role(self, path: str) -> str | None:
        """Return the role of the document at a corpus path."""
        document = self._documents.get(path)
        return document.role.value if document else None

    @cached_property
    def _documents(self) -> dict[str, Document]:
        return {document.path: document for document in self.environment.documents}


def outside_documents(environment: Environment) -> list[str]:
    """One warning per document of the environment whose path is not a plain relative path inside corpus/
    (absolute, `..`, backslashes, empty: `validate_files.corpus_path_problem`). Such a document is never read and
    never shown to the agent: it is left out of the run, which goes on with the others."""
    return [
        f"document {shown(document.doc_id)}: path {shown(document.path)!r} is refused ({problem}); left out of the "
        "run (never read)"
        for document in environment.documents
        if (problem := corpus_path_problem(document.path))
    ]


def _refuse_linked_folder(env_dir: Path, name: str) -> None:
    """Raise BadInputError when `env_dir/name` is a symbolic link (lexprobe would read or write outside the
    environment through it)."""
    folder = env_dir / name
    if folder.is_symlink():
        target = shown(str(folder.readlink()))
        raise BadInputError(
            f"{folder} is a symbolic link (to {target}); an environment's {name}/ must be a real folder inside it"
        )
