"""Parentheticals after a citation: which citations sit inside another's parenthetical ("X, 1 U. S. 1, 5 (1990)
(quoting Y, 2 U. S. 2, 7 (1991) (quoting Z, ...))": Y's host is X, Z's is Y), where a citation's parentheticals
end (`clause_end`), and what the words of those parentheticals allow a quotation (`allowances`: "(citations
omitted)", "(alteration in original)", "(cleaned up)" ...). docs/check.md, "Quotations".

A parenthesis is attached to a citation when only a pin cite, a year or other closed parentheticals lie between the
citation's end and it, and it does not open a sentence (an explanatory parenthetical begins in lower case:
"(quoting", "(citing", "(holding that", or with a quotation); a citation inside an attached parenthesis is nested,
and its host is the citation the innermost attached parenthesis belongs to. A parenthesis opened in prose ("(See
Terry v. Ohio, 392 U. S. 1.)") or opening a sentence after a citation ("Ibid. (We saw no difference in Zobrest ...
509 U. S., at 13.)") is not attached, so its citations stay citations of their own. Paragraph breaks close every
parenthesis, and one left open more than `MAX_PARENTHETICAL_CHARS` characters is taken for a stray mark. Everything
here reads each character of the document at most a bounded number of times (linear in the document).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

#: A parenthesis open longer than this (characters) is a stray mark, not a parenthetical.
MAX_PARENTHETICAL_CHARS = 1_500
#: Characters between a citation's end and the parenthesis attached to it (a pin cite, a year, other parentheticals).
MAX_ATTACH_CHARS = 300

#: What may lie between a citation and its parenthetical: pin pages and footnotes, a year or court parenthetical
#: and other closed parentheticals ("(1990) (alteration in original) (quoting").
_BETWEEN = re.compile(r"(?:[\s,;]|\bat\b|\bnn?\.|\bpp?\.|\band\b|\d|[-–—&*]|\([^()]{0,200}\))*")
_MARKS = re.compile(r"[()]|\n[ \t]*\n|\n")
#: A parenthesis that opens a sentence ("X (We saw no difference in Zobrest ... 509 U. S., at 13.)"): its citations
#: are the text's own, not an explanatory parenthetical's ("(quoting", "(citing", "(holding that").
_SENTENCE_INSIDE = re.compile(r"\s*[A-Z][a-z]")

#: The parentheticals after a citation that allow something when a quotation is matched, by what they allow.
CITATIONS, LITERAL_BRACKETS, QUOTATION_MARKS = "citations", "literal_brackets", "quotation_marks"
EMPHASIS, FOOTNOTES, BRACKETS, CLEANED_UP = "emphasis", "footnotes", "brackets", "cleaned_up"
_ALLOWANCES = (
    (CITATIONS, re.compile(r"\bcitations?\b[^()]*\bomitted\b|\bomitting\s+citations?\b", re.I)),
    (LITERAL_BRACKETS, re.compile(r"^\s*(?:alterations?|brackets?)\s+in\s+(?:the\s+)?original\s*$", re.I)),
    (QUOTATION_MARKS, re.compile(r"\bquotation\s+marks?\b[^()]*\bomitted\b", re.I)),
    (EMPHASIS, re.compile(r"\bemphas[ie]s\s+(?:added|supplied|in\s+(?:the\s+)?original|omitted)\b", re.I)),
    (FOOTNOTES, re.compile(r"\bfootnotes?\b[^()]*\bomitted\b", re.I)),
    (BRACKETS, re.compile(r"\b(?:brackets|alterations)\b[^()]*\bomitted\b", re.I)),
    (CLEANED_UP, re.compile(r"^\s*cleaned\s+up\s*$", re.I)),
)
_INNERMOST = re.compile(r"\(([^()]{1,200})\)")


def nesting(text: str, spans: Sequence[tuple[int, int]], paragraph: str = "blank") -> list[int | None]:
    """For citations at `spans` (sorted by start; each end is where a parenthetical may follow: after the pin
    cite), the index of the citation whose parenthetical holds each one, or None for a citation of its own.
    `paragraph`: "blank" when a blank line ends a paragraph (a document as written), "newline" when every newline
    does (the extraction's flattened text)."""
    hosts: list[int | None] = []
    stack: list[tuple[int, int | None]] = []  # (offset of "(", the citation it is attached to, or None)
    anchor: tuple[int | None, int] = (None, 0)  # (citation, offset): where an attached parenthesis may open
    previous_end = 0
    for index, (start, end) in enumerate(spans):
        for mark in _MARKS.finditer(text, min(previous_end, start), start):
            character = mark.group()
            if character == "(":
                host, since = anchor
                attached = host is not None and mark.start() - since <= MAX_ATTACH_CHARS
                attached = attached and _BETWEEN.fullmatch(text, since, mark.start()) is not None
                attached = attached and not _SENTENCE_INSIDE.match(text, mark.end())
                stack.append((mark.start(), host if attached else None))
            elif character == ")":
                if stack:
                    _, host = stack.pop()
                    if host is not None:
                        anchor = (host, mark.end())
            elif paragraph == "newline" or len(character) > 1:
                stack.clear()
                anchor = (None, mark.end())
        while stack and stack[0][0] < start - MAX_PARENTHETICAL_CHARS:
            stack.pop(0)
        hosts.append(next((host for _, host in reversed(stack) if host is not None), None))
        for mark in _MARKS.finditer(text, max(previous_end, start), end):  # the citation's own ("supra).")
            if mark.group() == "(":
                stack.append((mark.start(), None))
            elif mark.group() == ")" and stack:
                stack.pop()
        anchor = (index, max(end, start))
        previous_end = max(previous_end, end)
    return hosts


def clause_end(text: str, end: int, limit: int | None = None) -> int:
    """The end of the parentheticals that follow a citation ending at `end` (and its pin cite and year): after the
    last closing parenthesis of the chain "(1990) (quoting Y, 2 U. S. 2 (1991)) (emphasis added)", else `end`.
    Reads at most `MAX_PARENTHETICAL_CHARS` characters per parenthetical, and never past `limit`."""
    stop = len(text) if limit is None else min(limit, len(text))
    position = end
    while True:
        lead = _BETWEEN_PIN.match(text, position, stop)
        opening = lead.end() if lead else position
        if opening >= stop or text[opening] != "(":
            return position
        closing = _matching(text, opening, min(stop, opening + MAX_PARENTHETICAL_CHARS))
        if closing < 0:
            return position
        position = closing + 1


_BETWEEN_PIN = re.compile(r"(?:[\s,]|\bat\b|\bnn?\.|\bpp?\.|\band\b|\d|[-–—&*])*")


def _matching(text: str, opening: int, stop: int) -> int:
    """The offset of the parenthesis closing the one at `opening`, or -1 before `stop`."""
    depth = 0
    for mark in re.finditer(r"[()]|\n[ \t]*\n", text[opening:stop]):
        if mark.group() == "(":
            depth += 1
        elif mark.group() == ")":
            depth -= 1
            if depth == 0:
                return opening + mark.start()
        else:
            return -1
    return -1


def allowances(parentheticals: str) -> frozenset[str]:
    """What the parentheticals after a citation allow a quotation (`CITATIONS` for "(citations omitted)" and
    "(internal quotation marks and citations omitted)", `LITERAL_BRACKETS` for "(alteration in original)",
    `CLEANED_UP` for "(cleaned up)", which allows citations, quotation marks and brackets too ...)."""
    found: set[str] = set()
    for inner in _INNERMOST.finditer(parentheticals):
        words = inner.group(1)
        found.update(name for name, pattern in _ALLOWANCES if pattern.search(words))
    if CLEANED_UP in found:
        found.update((CITATIONS, QUOTATION_MARKS, BRACKETS))
    return frozenset(found)
