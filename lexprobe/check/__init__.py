"""Check the case citations in a brief or a model's answer against the case database (`lexprobe check`).

`check_text(text, db)` extracts every case citation (full citations, short forms, "Id.", "supra"; `extract.py`,
with `layout.py` for the text eyecite reads, `context.py` for names and years, `resolve.py` for references), and
gives each a verdict - verified, mismatch, not_found or unverifiable - with a reason and notes (`verify.py`, reading
the database through its `CaseLookup`). Case names are compared by `lexprobe.caselaw.case_names`. The rules are in
docs/check.md.
"""

from __future__ import annotations

from pathlib import Path

from lexprobe.caselaw.query import CaseDatabase
from lexprobe.check.extract import ProgressCallback, extract_citations
from lexprobe.check.verify import CitationVerdict, case_lookup_for, verify_citations

__all__ = ["check_text", "default_database"]

_default: dict[Path, CaseDatabase] = {}


def default_database() -> CaseDatabase:
    """Open (once per process) the case database at the default path; raises `CaseDatabaseMissing` when there is
    none (build it with `lexprobe data build`)."""
    from lexprobe.caselaw.paths import default_db_path

    path = default_db_path()
    if path not in _default:
        _default[path] = CaseDatabase(path)
    return _default[path]


def check_text(
    text: str, db: CaseDatabase | None = None, *, progress: ProgressCallback | None = None
) -> list[CitationVerdict]:
    """Return a verdict for every case citation in `text`, in document order.

    `db` is an open `CaseDatabase` (default: the one at `lexprobe.caselaw.paths.default_db_path()`, which raises
    `CaseDatabaseMissing` if it was never built). `progress(done, total)` is called as the text is parsed, in
    characters. Offline: nothing leaves the machine. Raises nothing else for any text.
    """
    found = extract_citations(text, progress)
    if not found:
        return []
    return verify_citations(found, case_lookup_for(db or default_database()))
