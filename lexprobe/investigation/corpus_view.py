"""The agent's view of an environment's corpus: the extracted text of every document, under the document's own path.

Agent tools never touch `corpus/` (binary files) directly: they read the extracted text (`lexprobe.documents`
caches it in `extracted/`). The view maps each corpus path ("emails/0001.pdf") to its text and its document id, so
every tool call can be logged with the documents (and so the roles) it touched. For `shell`, the texts are
materialized once as plain files under the same relative paths in a private folder, which the sandbox binds
read-only.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from lexprobe.documents.corpus import extract_corpus
from lexprobe.investigation.environment import (
    CORPUS_DIR,
    EXTRACTED_DIR,
    Document,
    Environment,
    QuestionSet,
    load_environment,
)


@dataclass
class CorpusView:
    """Extracted texts by corpus path, with the environment's document annotations."""

    env_dir: Path
    environment: Environment
    texts: dict[str, str]  # corpus path -> extracted text
    errors: dict[str, str] = field(default_factory=dict)  # corpus path -> why it has no text
    questions: QuestionSet = field(default_factory=QuestionSet)  # questions.json (factual QA)
    _lines: dict[str, list[str]] = field(default_factory=dict, repr=False)

    @classmethod
    def open(cls, env_dir: Path) -> CorpusView:
        """Load the environment and the extracted text of its corpus (extracting what the cache lacks).

        Raises FileNotFoundError / ValueError from `load_environment` for a missing or malformed environment."""
        env_dir = Path(env_dir)
        environment, questions = load_environment(env_dir)
        corpus = (env_dir / CORPUS_DIR).resolve()
        extracted = extract_corpus(env_dir / CORPUS_DIR, env_dir / EXTRACTED_DIR)
        texts, errors = {}, dict(extracted.errors)
        for path, text in extracted.texts.items():
            if (env_dir / CORPUS_DIR / path).resolve().is_relative_to(corpus):
                texts[path] = text
            else:  # a symlink out of the corpus: never shown to the agent
                errors[path] = "the file links outside the corpus"
        return cls(env_dir, environment, texts, errors, questions)

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

    def materialize(self, folder: Path) -> Path:
        """Write every text under `folder/<corpus path>` (for the shell sandbox) and return `folder`.

        Hard links to the cached `.txt` files where possible, copies otherwise; rewritten from scratch each time."""
        folder = Path(folder)
        if folder.exists():
            shutil.rmtree(folder)
        cache = self.env_dir / EXTRACTED_DIR
        for path, text in self.texts.items():
            target = folder / path
            target.parent.mkdir(parents=True, exist_ok=True)
            source = cache / f"{path}.txt"
            try:
                os.link(source, target)
            except OSError:
                target.write_text(text, encoding="utf-8")
        return folder
