"""Stage `ingest`: read the record folder, extract each file's text, classify each filing, choose the corpus.

Every file under RECORD_DIR with a known suffix (pdf, txt, md, docx, xlsx, pptx) is extracted with
`lexprobe.documents.extract`; its text goes to OUT/text/<source_id>.txt for later stages. A file that cannot be
extracted (or has no text layer) is recorded with its error and left out. Classification is deterministic first
(`rules.py`, whose docstring lists the rules), then by the generator model for the files no rule decides. Only
`exhibit` files go into the corpus; everything else stays a pipeline input. Every decision keeps its rule (or
"model") and reason.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

from lexprobe.investigation.pipeline.context import StageContext, StageError, unique_id
from lexprobe.investigation.pipeline.llm import Ask, ask_json, render_prompt
from lexprobe.investigation.pipeline.registry import stage
from lexprobe.investigation.pipeline.rules import (
    CORPUS_CATEGORIES,
    DocCategory,
    RuleDecision,
    apply_family_rules,
    classify_by_rules,
    filing_party,
    title_candidates,
)

RECORD_SUFFIXES = (".pdf", ".txt", ".md", ".docx", ".xlsx", ".pptx")
CLASSIFY_EXCERPT_CHARS = 2500


class SourceDocument(BaseModel):
    """One file of the record and what the pipeline decided about it."""

    source_id: str = Field(description="Stable id from the file's path (lowercase, [a-z0-9_]).")
    filename: str = Field(description="Path relative to RECORD_DIR (POSIX separators).")
    sha256: str
    size: int
    chars: int = 0
    category: DocCategory | None = Field(default=None, description="None when the file could not be read.")
    doc_kind: str = ""
    party: str = Field(default="", description="plaintiff | defendant, when the caption says whose counsel filed it.")
    decided_by: Literal["rule", "model", "none"] = "none"
    rule: str = ""
    reason: str = ""
    stands_for: str | None = Field(default=None, description="For a sealed placeholder: what it stands in for.")
    corpus: bool = False
    error: str | None = None
    title: str = ""


class IngestResult(BaseModel):
    """The record as the pipeline sees it."""

    record_dir: str
    documents: list[SourceDocument] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)

    def of(self, *categories: DocCategory) -> list[SourceDocument]:
        """Return the readable documents of the given categories, in record order."""
        return [d for d in self.documents if d.category in categories and d.error is None]

    @property
    def corpus_documents(self) -> list[SourceDocument]:
        """The merits exhibits that go into the corpus."""
        return [d for d in self.documents if d.corpus]


class ClassificationDraft(BaseModel):
    """The generator's classification of one file no rule decided."""

    category: DocCategory
    doc_kind: str
    reason: str


def record_files(record_dir: Path) -> list[Path]:
    """Return the record's files with a known suffix, sorted by relative path (hidden files skipped)."""
    found = []
    for path in sorted(Path(record_dir).rglob("*")):
        relative = path.relative_to(record_dir)
        if (
            path.is_file()
            and path.suffix.lower() in RECORD_SUFFIXES
            and not any(part.startswith(".") for part in relative.parts)
        ):
            found.append(path)
    return found


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def record_fingerprint(ctx: StageContext) -> list[tuple[str, int, str]]:
    """Return (relative path, size, SHA-256) of every record file: the ingest stage's external input."""
    return [
        (p.relative_to(ctx.record_dir).as_posix(), p.stat().st_size, _sha256(p)) for p in record_files(ctx.record_dir)
    ]


def source_id_for(relative: str, taken: set[str]) -> str:
    """Return a stable id for a record file: its path without suffix in [a-z0-9_], unique among `taken`."""
    return unique_id(re.sub(r"[^a-z0-9]+", "_", relative.lower().rsplit(".", 1)[0]).strip("_") or "file", taken)


def _extract(path: Path) -> tuple[str, str | None]:
    from lexprobe.documents.extract import ExtractionError, extract_text

    try:
        text = extract_text(path)
    except ExtractionError as exc:
        return "", str(exc)
    if not text.strip():
        return "", "no text could be extracted (a scan without a text layer?)"
    return text, None


def _apply(doc: SourceDocument, decision: RuleDecision, by: Literal["rule", "model"]) -> None:
    for name, value in vars(decision).items():  # category, doc_kind, rule, reason, stands_for
        setattr(doc, name, value)
    doc.decided_by = by


@stage("ingest", output=IngestResult, templates=("ingest_classify",), external=record_fingerprint)
def ingest(ctx: StageContext) -> IngestResult:
    """Extract and classify every record file. Raises StageError when the folder has no readable file."""
    files = record_files(ctx.record_dir)
    if not files:
        raise StageError("ingest", str(ctx.record_dir), f"no {'/'.join(RECORD_SUFFIXES)} files in the record folder")
    result = IngestResult(record_dir=str(ctx.record_dir))
    texts: dict[str, str] = {}
    taken: set[str] = set()
    for path in files:
        relative = path.relative_to(ctx.record_dir).as_posix()
        doc = SourceDocument(
            source_id=source_id_for(relative, taken), filename=relative, sha256=_sha256(path), size=path.stat().st_size
        )
        text, doc.error = _extract(path)
        result.documents.append(doc)
        if doc.error:
            doc.reason = f"not read: {doc.error}"
            ctx.log(f"  ingest: {relative}: {doc.error}")
            continue
        texts[doc.source_id] = text
        ctx.text_path(doc.source_id).parent.mkdir(parents=True, exist_ok=True)
        ctx.text_path(doc.source_id).write_text(text, encoding="utf-8")
        doc.chars, doc.party = len(text), filing_party(text)
        titles = title_candidates(text)
        doc.title = titles[0] if titles else ""
        decision = classify_by_rules(Path(relative).name, text)
        if decision:
            _apply(doc, decision, "rule")
    readable = [d for d in result.documents if d.error is None]
    if not readable:
        raise StageError("ingest", str(ctx.record_dir), "no record file could be read")
    changed = apply_family_rules({Path(d.filename).name: (texts[d.source_id], _decision_of(d)) for d in readable})
    for doc in readable:
        if Path(doc.filename).name in changed:
            _apply(doc, changed[Path(doc.filename).name], "rule")
    _classify_with_model(ctx, [d for d in readable if d.category is None], texts)
    for doc in readable:
        doc.corpus = doc.category in CORPUS_CATEGORIES
    result.warnings = record_warnings(result)
    for warning in result.warnings:
        ctx.log(f"  ingest: warning: {warning}")
    return result


def _decision_of(doc: SourceDocument) -> RuleDecision | None:
    if doc.category is None:
        return None
    return RuleDecision(doc.category, doc.doc_kind, doc.rule, doc.reason, doc.stands_for)


def _classify_with_model(ctx: StageContext, undecided: list[SourceDocument], texts: dict[str, str]) -> None:
    asks = []
    for doc in undecided:
        text = texts[doc.source_id]
        prompt = render_prompt(
            "ingest_classify",
            filename=doc.filename,
            titles=title_candidates(text)[:4],
            excerpt=text[:CLASSIFY_EXCERPT_CHARS],
        )
        asks.append(Ask(doc.source_id, prompt))
    for doc, draft in zip(undecided, ask_json(ctx, asks, ClassificationDraft), strict=True):
        assert draft is not None
        decision = RuleDecision(
            draft.category, draft.doc_kind.strip().lower() or draft.category.value, "model", draft.reason.strip()
        )
        _apply(doc, decision, "model")


def record_warnings(result: IngestResult) -> list[str]:
    """Return what the record lacks for a full build (no opinion, sealed statements, no merits exhibits)."""
    warnings = []
    placeholders = result.of(DocCategory.sealed_placeholder)
    for category in (DocCategory.opinion, DocCategory.statement_of_facts, DocCategory.response_to_statement):
        if not result.of(category):
            sealed = [d.filename for d in placeholders if d.stands_for == category.value]
            note = f" (sealed placeholder: {', '.join(sealed)})" if sealed else ""
            warnings.append(f"the record has no readable {category.value.replace('_', ' ')}{note}")
    if not result.corpus_documents:
        warnings.append("no merits exhibit was found: the corpus would hold synthetic documents only")
    unreadable = [d.filename for d in result.documents if d.error]
    if unreadable:
        warnings.append(f"{len(unreadable)} file(s) could not be read: {', '.join(unreadable[:5])}")
    return warnings
