"""Pin cites: read them from a document after a citation (`read_pin`), in the forms briefs write them, and turn
them into page ranges (`pin_ranges`). docs/check.md, "Quotations" ("Pages").

Forms read: "641", "at 641", "641-42", "641-642", "641–642" (en or em dash), "641 - 42", "641, 643" (a list: the
passage may be on any of them), "641-42, 644", "641 n. 3", "641, and n. 3", "at 641 & nn. 3-4", "pp. 641-642",
after a full citation ("1 U. S. 1, 5"), a short form ("1 U. S., at 5", "1 U. S. at 5", the Court's "1 U. S., 5"),
"Id." ("Id. at 5", "Id., at 5") and "supra" ("X, supra, at 5"). A star page ("at *5": a Westlaw screen or another
reporter's page) is read but is no page of the official report.
"""

from __future__ import annotations

import re

_PAGE = r"\*?\d{1,5}(?!\s*[A-Z][A-Za-z]{0,5}\.)"  # a page, not the volume of a parallel cite ("74 S. Ct. 686")
_RANGE = rf"{_PAGE}(?:\s*[-–—]\s*\*?\d{{1,5}})?"
_NOTE = r"(?:,?\s*(?:and\s+|&\s*)?nn?\.\s*\d{1,4}(?:\s*(?:[-–—,&]|and)\s*\d{1,4})*)"
_BODY = rf"(?P<pin>{_RANGE}(?:\s*,\s*(?:and\s+|&\s*)?{_RANGE}(?!\s*[A-Z]))*{_NOTE}?)(?![\w-])"
#: The pin after each kind of citation, read from where the citation's reporter (or "Id.", "supra") ends.
_AFTER_FULL = re.compile(rf"\s?,\s*(?:at\s+)?(?:pp?\.\s*)?{_BODY}")  # "72, 85", the texts' "72 , 85"
_AFTER_SHORT = re.compile(rf"(?:\s?,\s*(?:at\s+)?|\s+at\s+)(?:pp?\.\s*)?{_BODY}")
_AFTER_REFERENCE = re.compile(rf"\s?,?\s*(?:at\s+|pp?\.\s*)(?:pp?\.\s*)?{_BODY}")
_REFERENCE_WORD = re.compile(r"(?:ibid|id|supra)\.?", re.I)
_NUMBERS = re.compile(r"(\*?)(\d{1,5})(?:\s*[-–—]\s*(\d{1,5}))?")


def read_pin(text: str, kind: str, start: int, end: int, reporter: str | None = None) -> tuple[str, int] | None:
    """The pin cite written after a citation whose core (eyecite's span) is `text[start:end]`, as written ("641-42,
    644 n. 3"), and where it ends; or None. `kind`: "full" (the pin follows the core after a comma), "short" (after
    the `reporter` within the core), "id" or "supra" (after the word, with "at" or "p.")."""
    if kind == "full":
        found = _AFTER_FULL.match(text, end)
    elif kind == "short":
        at = text.find(reporter, start, end + 1) if reporter else -1
        found = _AFTER_SHORT.match(text, at + len(reporter)) if reporter and at >= 0 else None
    else:
        word = _REFERENCE_WORD.search(text, start, min(len(text), end + 8))
        found = _AFTER_REFERENCE.match(text, word.end()) if word else None
    return (found.group("pin"), found.end("pin")) if found else None


def pin_ranges(pin_text: str | None) -> list[tuple[int, int]]:
    """The page ranges of a pin cite: "641-42, 644 n. 3" -> [(641, 642), (644, 644)]; a shortened end takes the
    first page's leading digits ("641-42" -> 642); footnotes count as their page; star pages are left out."""
    if not pin_text:
        return []
    body = re.split(r",?\s*(?:and\s+|&\s*)?nn?\.", pin_text, maxsplit=1)[0]
    ranges = []
    for star, first, last in _NUMBERS.findall(body):
        if star:
            continue
        head = int(first)
        tail = head
        if last:
            tail = int(first[: len(first) - len(last)] + last) if len(last) < len(first) else int(last)
            tail = max(tail, head)
        ranges.append((head, tail))
    return ranges
