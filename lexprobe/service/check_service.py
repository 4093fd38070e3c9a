"""`CheckService`: `lexprobe check` kept warm for `lexprobe mcp` and `lexprobe serve`.

Loaded once per process: the case database (one read-only connection), eyecite and its reporters, the citation
lookup (`verify.case_lookup_for`), the quotation checker's opinion texts and the opinions' word index (SQLite's page
cache), and a few warm processes reading uploads (`document_reader.py`). Every check result is
`check.result_json.check_result` of `check.run_check.check_one_text`'s document: the JSON `lexprobe check --json`
prints for the same text, made by the same functions.

Thread-safe: any number of threads may call one service. Work on the case database (every check, lookup and page)
is serialised by one lock: a check is Python work under the GIL, so threads would not run two at once anyway, and
one SQLite connection then serves them all. Reading an upload's text (pypdf, python-docx, OCR) happens outside the
lock, in the reader's worker processes, so uploads are read in parallel while another document is checked.
Errors are lexprobe's: `BadInputError` (bad input: a text or document over a limit, an unreadable file, no citation)
and `service.errors.NotInDatabase` (no such case or page), each with one line.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from lexprobe.caselaw.query import CaseDatabase, open_case_database
from lexprobe.check.quote_match import opinion_texts_for
from lexprobe.check.render_html import CheckedDocument
from lexprobe.check.result_json import SCHEMA_VERSION, check_result
from lexprobe.check.run_check import check_one_text
from lexprobe.documents.limits import MAX_TEXT_CHARS
from lexprobe.errors import BadInputError
from lexprobe.service.case_pages import page_passages, page_range
from lexprobe.service.document_reader import DocumentReader, ReadLimits, upload_name
from lexprobe.service.errors import NotInDatabase

__all__ = ["MAX_CHECK_CHARS", "CheckService"]

#: Characters of one text checked at most: a 700-page brief. Past it a check would hold the service for minutes.
MAX_CHECK_CHARS = 2_000_000
#: Characters of a quotation, a citation or a case name asked about alone.
MAX_QUOTATION_CHARS = 5_000
MAX_CITATION_CHARS = 500
#: The text checked once at start: it loads eyecite, the lookup, an opinion text and the word index.
WARM_TEXT = (
    'The Court held that "whenever a police officer accosts an individual and restrains his freedom to walk away, '
    'he has seized that person." Terry v. Ohio, 392 U.S. 1, 16 (1968).\n'
)


class CheckService:
    """`lexprobe check` loaded once: check texts and documents, verify a quotation, look a case up, read a page of
    an opinion, report the database's coverage (see the module docstring)."""

    def __init__(self, db: Path | None = None, *, limits: ReadLimits | None = None, readers: int = 2,
                 max_chars: int = MAX_CHECK_CHARS) -> None:  # fmt: skip
        """Open the case database at `db` (None: the default, as `lexprobe check --db`), start `readers` reading
        processes with `limits`, and check a short text so the first request finds everything loaded."""
        self.db: CaseDatabase = open_case_database(db)
        self.max_chars = min(max_chars, MAX_TEXT_CHARS)
        self._lock = threading.Lock()
        self._texts = opinion_texts_for(self.db)
        self.reader = DocumentReader(readers, limits)
        self.check_text(WARM_TEXT)

    def close(self) -> None:
        """Stop the reading processes and close the database."""
        self.reader.close()
        with self._lock:
            self.db.close()

    def check_text(self, text: str, name: str = "text") -> dict[str, Any]:
        """The check result of `text` (shown as `name`): `lexprobe check --json`'s JSON for a file holding it."""
        return check_result([self.checked_text(text, name)])

    def checked_text(self, text: str, name: str = "text") -> CheckedDocument:
        """`text` checked (shown as `name`): the document `check_text`'s result is made of, its text and verdicts
        (what `lexprobe serve`'s page shows and `check.render_html.render_html` annotates)."""
        if not isinstance(text, str):
            raise BadInputError("the text to check must be a string")
        if len(text) > self.max_chars:
            raise BadInputError(f"{upload_name(name)}: the text has {len(text):,} characters, over the limit of "
                                f"{self.max_chars:,} (MAX_CHECK_CHARS)")  # fmt: skip
        with self._lock:
            return check_one_text(upload_name(name), text, self.db)

    def check_document(self, name: str, data: bytes) -> dict[str, Any]:
        """The check result of an uploaded document (.txt, .md, .docx, .pdf, ...; `name` gives its format by its
        suffix): its text read within the reader's limits (bytes, pages, seconds), then checked as `check_text`."""
        extracted = self.reader.read(name, data)
        return self.check_text(extracted.text, name)

    def verify_quotation(self, quotation: str, citation: str) -> dict[str, Any]:
        """Whether `quotation` is in the opinion `citation` names: the quotation's verdict, reason, page and
        evidence passage (where it was found, or the closest one; None without one), and the quotation's and the
        citation's objects as check --json gives them."""
        quotation, citation = " ".join(str(quotation).split()), " ".join(str(citation).split())
        if not quotation or len(quotation) > MAX_QUOTATION_CHARS:
            raise BadInputError(f"the quotation must have 1 to {MAX_QUOTATION_CHARS:,} characters")
        if not citation or len(citation) > MAX_CITATION_CHARS:
            raise BadInputError(f"the citation must have 1 to {MAX_CITATION_CHARS:,} characters")
        result = self.check_text(f"\u201c{quotation}\u201d {citation}.\n", "quotation")
        if not result["citations"]:
            raise BadInputError(f"no case citation in {citation!r} (write one as a brief would: 347 U.S. 483)")
        cited = result["citations"][0]
        found = next((q for q in result["quotations"] if q["citation"] == 0), None)
        if found is None:
            raise BadInputError("the quotation was not read as one (it needs at least a few words)")
        evidence = found.get("evidence") or {}
        return {
            "schema_version": SCHEMA_VERSION,
            "verdict": found["verdict"],
            "reason": found["reason"],
            "page": found["page"],
            "pin_ok": found["pin_ok"],
            "passage": evidence.get("passage"),
            "quotation": found,
            "citation": cited,
        }

    def lookup_case(self, citation_or_name: str) -> dict[str, Any]:
        """Everything the database knows about the case a citation or name finds, each fact with its source, and
        its treatment (the decisions overruling it and those it overrules): `lexprobe data case --json`'s JSON."""
        query = " ".join(str(citation_or_name).split())
        if not query or len(query) > MAX_CITATION_CHARS:
            raise BadInputError(f"the citation or name must have 1 to {MAX_CITATION_CHARS:,} characters")
        with self._lock:
            ids = self.db.find(query)
            detail = self.db.case(ids[0]) if ids else None
        if detail is None:
            raise NotInDatabase(f"no case matches {query!r}")
        return {"matches": ids, "case": detail.as_dict()}

    def case_text(self, citation: str, page: int) -> dict[str, Any]:
        """The text of page `page` of the case `citation` names, in each of its opinions that has it (the opinion
        of the Court first), read from the opinions' star paging."""
        query = " ".join(str(citation).split())
        if not query or len(query) > MAX_CITATION_CHARS:
            raise BadInputError(f"the citation must have 1 to {MAX_CITATION_CHARS:,} characters")
        if isinstance(page, bool) or not isinstance(page, int) or page < 1:
            raise BadInputError("the page must be a whole number of at least 1")
        with self._lock:
            case = self.db.find_case(query)
            opinions = self._texts.opinions_of(case.case_id) if case is not None else ()
        if case is None:
            raise NotInDatabase(f"no case has the citation {query!r}")
        if not opinions:
            raise NotInDatabase(f"the database holds no opinion text of {case.name or case.case_id}")
        passages = page_passages(opinions, page)
        if not passages:
            pages = page_range(opinions)
            held = f"pages {pages[0]}-{pages[1]}" if pages else "no star paging, so no page can be told apart"
            raise NotInDatabase(f"no page {page} in the opinions of {case.name or case.case_id} ({held})")
        summary = {"case_id": case.case_id, "name": case.name, "citation": case.citation, "year": case.year}
        return {"case": summary, "page": page, "passages": passages}

    def coverage(self) -> dict[str, Any]:
        """What the database holds: cases per court level and source, the cases with each fact per level (name,
        citation, author, disposition, opinion text, overruling, prominence), the build's facts and the tables."""
        with self._lock:
            return {
                "db": self.db.path.name,
                "tables": self.db.table_counts(),
                "levels": self.db.level_counts(),
                "sources": self.db.source_counts(),
                "coverage": self.db.coverage(),
                "build": self.db.build_info(),
            }
