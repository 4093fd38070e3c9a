"""What a citation's parentheticals allow when its quotation is matched (docs/check.md, "Quotations", "What legal
quoting allows"): "(citations omitted)" and "(cleaned up)" let a quotation leave out, silently, the case citations
the opinion holds inside the quoted passage ("... not places. Katz v. United States, 389 U. S. 347, 351 (1967).
What a person ..." quoted as "... not places. What a person ..."). Such a quotation is looked for, exactly, in the
opinion text with every citation clause blanked out (`CitationFree`): the citation's signal ("See", "cf."), case
name, reporter, pin cite, year and parentheticals, "Id., at 5" and "supra" references; the offsets and page marks
of the text are kept, so the passage and its page are the opinion's own. Without the allowance the dropped
citation stays a difference, as before (`altered` at best).
"""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import replace

from lexprobe.caselaw.quote_text import normalize
from lexprobe.check.context import name_before
from lexprobe.check.parentheticals import clause_end
from lexprobe.check.quote_match import Match, Opinion, court_or_separate, find_exact

#: Opinions kept with their citations blanked (each costs one pass of regular expressions over its text).
OPINIONS_KEPT = 64
_SIGNAL_BEFORE = re.compile(
    r"(?:\b(?:see(?:,?\s+e\.\s?g\.,?)?(?:\s+also)?|cf\.|accord|compare|but\s+see|but\s+cf\.|e\.\s?g\.,?|quoting|"
    r"citing)[\s,]*)+$",
    re.I,
)


#: A citation in an opinion's text: volume, reporter and page (pin cites and years are read by `clause_end`), or a
#: reference ("Id., at 5", "ibid.", "Wolf, supra, at 28").
_CITATION_LIKE = re.compile(
    r"\b(?P<volume>\d{1,4})\s+(?:U\.\s?S\.|S\.\s?Ct\.|L\.\s?Ed\.(?:\s?2d)?|F\.\s?Supp\.(?:\s?[23]d)?|F\.(?:\s?(?:2d|3d|4th))?|"
    r"Wall\.|Wheat\.|How\.|Pet\.|Cranch|Dall\.|Black|[A-Z][A-Za-z]{0,10}\.(?:\s?[A-Z][A-Za-z]{0,10}\.){0,3}(?:\s?[23]d)?)"
    r"(?:\s*\([^()]{1,30}\))?(?:\s+|,\s*at\s+|\s+at\s+)\d{1,5}\b"
    r"|\b(?:[Ii]d|[Ii]bid)\.(?:,?\s*at\s+\d{1,5})?"
    r"|\b[A-Z][\w.'’&-]*(?:\s+v\.\s+[A-Z][\w.'’&-]*)?,\s+supra(?:,\s*(?:at\s+|pp?\.\s*)\d{1,5})?"
)

#: Pin cites after a citation ("210", "at 210-211", "210, n. 5", "pp. 3, 5").
_PIN = re.compile(
    r"(?:\s*,\s*(?:at\s+)?(?:pp?\.\s*)?\d{1,5}(?:\s*[-–—]\s*\d{1,5})?(?:,?\s*(?:and\s+|&\s*)?nn?\.\s*\d{1,4})?)*"
)


class CitationFree:
    """Opinion texts with their citation clauses blanked, computed once per opinion (the latest `OPINIONS_KEPT`)."""

    def __init__(self) -> None:
        self._kept: OrderedDict[tuple[str, str], Opinion] = OrderedDict()

    def of(self, opinion: Opinion) -> Opinion:
        """`opinion` with its citations blanked (same text, offsets and page marks; other normalized letters)."""
        key = (opinion.case_id, opinion.opinion_id)
        if key in self._kept:
            self._kept.move_to_end(key)
            return self._kept[key]
        blanked = replace(opinion, normalized=normalize(blank_citations(opinion.text)))
        self._kept[key] = blanked
        if len(self._kept) > OPINIONS_KEPT:
            self._kept.popitem(last=False)
        return blanked

    def find(self, segments: Sequence[str], opinions: Sequence[Opinion]) -> Match | None:
        """The quotation's segments found exactly in `opinions` once their citations are left out, or None."""
        free = [self.of(opinion) for opinion in opinions]
        match = find_exact(segments, free)
        return court_or_separate(match, free) if match is not None else None


def blank_citations(text: str) -> str:
    """`text` with each citation clause replaced by spaces: a reporter citation ("385 U. S. 206, 210", "74 S. Ct.
    686") with the case name before it (`lexprobe.check.context.name_before`) and the signal before that, its pin
    cite, year and parentheticals (`parentheticals.clause_end`); "Id., at 5", "ibid.", "X, supra, at 5". Read with
    regular expressions in one pass (an opinion of 200 pages in milliseconds), not with eyecite."""
    characters = list(text)
    floor = 0
    for match in _CITATION_LIKE.finditer(text):
        start = match.start()
        if match.group("volume"):
            named = name_before(text, start, max(floor, start - 300))
            start = named[1] if named else start
        lead = _SIGNAL_BEFORE.search(text, max(floor, start - 30), start)
        start = lead.start() if lead else start
        end = clause_end(text, _PIN.match(text, match.end()).end())
        characters[start:end] = " " * (end - start)
        floor = end
    return "".join(characters)
