"""The record's documents as later stages read them: by category, with page markers, or a clear StageError."""

from __future__ import annotations

import hashlib
import re

from lexprobe.investigation.pipeline.context import StageContext, StageError
from lexprobe.investigation.pipeline.ingest import IngestResult, SourceDocument
from lexprobe.investigation.pipeline.rules import DocCategory

_PAGE_HEADING = re.compile(r"^## Page (\d+)$", re.M)


def with_page_markers(text: str) -> str:
    """Return extracted text with each "## Page N" heading written as a "[PAGE N]" marker."""
    return _PAGE_HEADING.sub(r"[PAGE \1]", text)


def require(ctx: StageContext, category: DocCategory, what: str) -> list[SourceDocument]:
    """Return the record's readable documents of `category`; raises StageError saying what is missing.

    The message names sealed placeholders that stand in for the missing document, if any, and says how to fix it.
    """
    ingest: IngestResult = ctx.output("ingest")
    found = ingest.of(category)
    if found:
        return found
    sealed = [d.filename for d in ingest.of(DocCategory.sealed_placeholder) if d.stands_for == category.value]
    unread = [d.filename for d in ingest.documents if d.error]
    detail = f"the record has no {what}"
    if sealed:
        detail += f" (only a sealed placeholder: {', '.join(sealed)})"
    if unread:
        detail += f"; {len(unread)} file(s) could not be read ({', '.join(unread[:3])})"
    detail += (
        f". The pipeline will not invent it: add the {what} to the record folder (PDF or text) and rerun; "
        "finished stages are kept"
    )
    raise StageError(ctx.stage, "record", detail)


def case_id(ctx: StageContext) -> str:
    """Return the environment's case id: the `case_id` setting, else the record folder's name as a slug."""
    return ctx.settings.case_id or re.sub(r"[^a-z0-9]+", "-", ctx.record_dir.resolve().name.lower()).strip("-")


def neutral_doc_id(case: str, key: str) -> str:
    """Return a corpus document id that reveals nothing (not the role, not the source): `doc_` + a hash."""
    return "doc_" + hashlib.sha1(f"{case}/{key}".encode()).hexdigest()[:10]
