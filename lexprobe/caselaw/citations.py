"""Case citations: parse, normalize and compare them ("347 U.S. 483", "5 U.S. (1 Cranch) 137", "124 F.3d 243").

Parsing is eyecite's; reporter spellings are reporters-db's. A `Citation` is the canonical triple
(volume, reporter, page) where the reporter is the reporters-db edition abbreviation ("U.S.", "S. Ct.",
"L. Ed. 2d", "F. Supp. 2d"), so "347 US 483", "347 U. S. 483" and "347 U.S. 483 (1954)" all become
"347 U.S. 483".

Nominative reporters of the early Supreme Court (Dallas, Cranch, Wheaton, Peters, Howard, Black, Wallace, Otto):
- the official parallel form "5 U.S. (1 Cranch) 137" keeps the U.S. volume and page; the nominative part is
  ignored (eyecite issue #154: eyecite's own hash/equality treats the two forms as different, and older eyecite
  versions could yield the nominative part as a second citation - any citation nested inside another one's span
  is dropped here);
- a bare nominative "1 Cranch 137" or "7 Wall. 700" is mapped onto the U.S. Reports ("5 U.S. 137",
  "74 U.S. 700"). Neither reporters-db nor eyecite records which U.S. volume a nominative volume became, so that
  one fact per reporter (its first U.S. volume and its number of volumes) is kept in `US_NOMINATIVE_VOLUMES`;
  whether a parsed reporter *is* the Supreme Court one (and not, say, Cranch's D.C. Circuit Court reports or
  Wallace's Circuit Court reports) is read from reporters-db (`mlz_jurisdiction` "us;supreme.court").
  A bare "Cranch" is ambiguous in reporters-db (Supreme Court or D.C. Circuit Court); without a year that rules
  the Supreme Court out it is read as the Supreme Court reporter. Volumes out of range stay in their own reporter.

Speed: `citation_key` is memoized, and the very common bare "VOL REPORTER PAGE" shape (optionally followed by a
year in parentheses) is answered by one precompiled regex plus a dict of reporters-db spellings built once;
everything else goes through eyecite.
"""

from __future__ import annotations

import functools
import logging
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # eyecite (~0.25 s to import) loads on the first text that needs it, not at start-up
    from eyecite.models import CitationBase, FullCaseCitation

SCOTUS_JURISDICTION = "us;supreme.court"


@dataclass(frozen=True)
class NominativeSpan:
    """Where one Supreme Court nominative reporter sits in the U.S. Reports."""

    first_us_volume: int  # the U.S. volume that is this reporter's volume 1
    volumes: int  # how many volumes the reporter has


# Bluebook table T1: 1-4 Dall. = 1-4 U.S., 1-9 Cranch = 5-13 U.S., 1-12 Wheat. = 14-25 U.S., 1-16 Pet. = 26-41 U.S.,
# 1-24 How. = 42-65 U.S., 1-2 Black = 66-67 U.S., 1-23 Wall. = 68-90 U.S., 1-17 Otto = 91-107 U.S.
US_NOMINATIVE_VOLUMES: dict[str, NominativeSpan] = {
    "Dall.": NominativeSpan(1, 4),
    "Cranch": NominativeSpan(5, 9),
    "Wheat.": NominativeSpan(14, 12),
    "Pet.": NominativeSpan(26, 16),
    "How.": NominativeSpan(42, 24),
    "Black": NominativeSpan(66, 2),
    "Wall.": NominativeSpan(68, 23),
    "Otto": NominativeSpan(91, 17),
}


@dataclass(frozen=True)
class Citation:
    """One case citation in canonical form: volume, reporters-db edition abbreviation, first page."""

    volume: str
    reporter: str
    page: str

    @property
    def key(self) -> str:
        """Return the normalized "VOLUME REPORTER PAGE" string, e.g. "347 U.S. 483"."""
        return f"{self.volume} {self.reporter} {self.page}"

    def __str__(self) -> str:
        return self.key


# An edition candidate as (edition abbreviation, reporter full name), the two facts the canonicalization needs.
_Candidate = tuple[str, str]

_WHITESPACE = re.compile(r"\s+")
_PIN_MARKER = re.compile(r"(?<![A-Za-z])at$")  # a squashed spelling ending in the word "at"
# The bare shape: volume, reporter words, optional comma, page, optional "(1954)".
_FAST_SHAPE = re.compile(r"\s*(\d{1,5})\s+([A-Za-z][^()\[\]]*?)\s*,?\s+(\d{1,6})\s*(?:\((\d{4})\))?\s*")


def _squash(reporter: str) -> str:
    """Return a reporter spelling without whitespace: eyecite matches reporters with flexible inner spacing."""
    return _WHITESPACE.sub("", reporter)


@functools.cache
def _scotus_nominative_names() -> frozenset[str]:
    """Return the full names of the Supreme Court nominative reporters in `US_NOMINATIVE_VOLUMES`, per reporters-db."""
    from reporters_db import REPORTERS  # imported on first use: start-up needs none of reporters-db

    return frozenset(
        reporter["name"]
        for short_name in US_NOMINATIVE_VOLUMES
        for reporter in REPORTERS.get(short_name, [])
        if SCOTUS_JURISDICTION in reporter.get("mlz_jurisdiction", [])
    )


@functools.cache
def _fast_reporter_table() -> dict[str, tuple[_Candidate, ...]]:
    """Return reporter spelling (whitespace removed) -> edition candidates, as eyecite would read a bare cite.

    Built once from reporters-db: edition abbreviations are exact matches, `variations` are variations, and exact
    matches win over variations (as in eyecite). A spelling is left out, and so sent to eyecite, when any edition it
    can name uses a citation shape other than the standard "$volume $reporter $page", or when it ends in the word
    "at" (reporters-db lists "T.C. at" as a spelling of "T.C.", but "12 T.C. at 345" is a short-form pin cite, which
    eyecite reads either way depending on the process's hash seed).
    """
    from reporters_db import REPORTERS

    exact: dict[str, set[_Candidate]] = defaultdict(set)
    variation: dict[str, set[_Candidate]] = defaultdict(set)
    nonstandard: set[str] = set()
    for clusters in REPORTERS.values():
        for reporter in clusters:
            for edition_name, edition in reporter["editions"].items():
                candidate = (edition_name, reporter["name"])
                standard = "$full_cite" in (edition.get("regexes") or ["$full_cite"])
                spellings = [(edition_name, exact)] + [
                    (spelling, variation)
                    for spelling, target in reporter.get("variations", {}).items()
                    if target == edition_name
                ]
                for spelling, table in spellings:
                    table[_squash(spelling)].add(candidate)
                    if not standard:
                        nonstandard.add(_squash(spelling))
    table: dict[str, tuple[_Candidate, ...]] = {}
    for spelling in exact.keys() | variation.keys():
        if spelling in nonstandard or _PIN_MARKER.search(spelling):
            continue
        candidates = exact.get(spelling) or variation[spelling]
        table[spelling] = tuple(sorted(candidates))
    return table


def _canonical(volume: str, page: str, candidates: Sequence[_Candidate], raw_reporter: str) -> Citation:
    """Return the canonical citation for a parsed volume/page and the editions its reporter may name."""
    for short_name, reporter_name in candidates:
        span = US_NOMINATIVE_VOLUMES.get(short_name)
        if span and reporter_name in _scotus_nominative_names() and 1 <= int(volume) <= span.volumes:
            return Citation(str(span.first_us_volume + int(volume) - 1), "U.S.", page)
    short_names = {short_name for short_name, _ in candidates}
    reporter = short_names.pop() if len(short_names) == 1 else _WHITESPACE.sub(" ", raw_reporter).strip()
    return Citation(volume, reporter, page)


def _fast_parse(text: str) -> Citation | None:
    """Return the citation when `text` is exactly a bare "VOL REPORTER PAGE [(YEAR)]" the table can settle alone."""
    match = _FAST_SHAPE.fullmatch(text)
    if match is None:
        return None
    volume, raw_reporter, page, year = match.groups()
    candidates = _fast_reporter_table().get(_squash(raw_reporter))
    if candidates is None or (year and len(candidates) > 1):  # eyecite narrows several editions by year
        return None
    return _canonical(volume, page, candidates, raw_reporter)


def _from_eyecite(found: FullCaseCitation) -> Citation | None:
    """Return the canonical citation for one eyecite full case citation, or None without a volume or a page."""
    volume = found.groups.get("volume")
    page = found.groups.get("page")
    if not volume or not page or not volume.isdigit():
        return None
    editions = [found.edition_guess] if found.edition_guess else found.exact_editions or found.variation_editions
    candidates = [(edition.short_name, edition.reporter.name) for edition in editions]
    return _canonical(volume, page, candidates, found.groups.get("reporter") or "")


def _outermost(found: Iterable[FullCaseCitation]) -> list[FullCaseCitation]:
    """Drop any citation whose span lies inside another's (the nominative half of "5 U.S. (1 Cranch) 137")."""
    found = list(found)
    spans = [citation.span() for citation in found]
    return [
        citation
        for citation, (start, end) in zip(found, spans, strict=True)
        if not any(s <= start and end <= e and (s, e) != (start, end) for s, e in spans)
    ]


def eyecite_citations(text: str) -> list[CitationBase]:
    """Return every citation eyecite's `get_citations` finds in `text` (full, short, "Id.", "supra", statutes, ...)
    with offsets into `text`: the project's one call into eyecite's extraction, used by `parse_citations` and by
    the citation checker (`lexprobe.check.extract`). eyecite's "Unknown overlap case" warnings (its own bookkeeping)
    are silenced. Raises nothing."""
    if not text.strip():  # eyecite refuses empty documents
        return []
    from eyecite import get_citations

    eyecite_log = logging.getLogger("eyecite")
    level = eyecite_log.level
    eyecite_log.setLevel(logging.ERROR)
    try:
        return list(get_citations(text))
    finally:
        eyecite_log.setLevel(level)


def _eyecite_parse_all(text: str) -> list[Citation]:
    """Return the canonical full case citations eyecite finds in `text`, in order, duplicates kept."""
    return [citation for citation, _, _ in _eyecite_spanned(text)]


def _eyecite_spanned(text: str) -> list[tuple[Citation, int, int]]:
    """`_eyecite_parse_all` with each citation's span (start, end) in `text`."""
    from eyecite.models import FullCaseCitation

    found = [citation for citation in eyecite_citations(text) if isinstance(citation, FullCaseCitation)]
    parsed = ((_from_eyecite(citation), *citation.span()) for citation in _outermost(found))
    return [entry for entry in parsed if entry[0] is not None]


def spanned_citations(text: str) -> list[tuple[Citation, int, int]]:
    """Return every full case citation in `text` in canonical form with its span (start, end), in order, duplicates
    kept: a text that is one bare citation by the fast path, else eyecite's full case citations. Raises nothing."""
    fast = _fast_parse(text.strip())
    if fast is not None:
        start = len(text) - len(text.lstrip())
        return [(fast, start, start + len(text.strip()))]
    return _eyecite_spanned(text)


def _first_citation(text: str) -> Citation | None:
    """Return the first full case citation in `text`: the fast path when it settles the text alone, else eyecite."""
    fast = _fast_parse(text)
    if fast is not None:
        return fast
    parsed = _eyecite_parse_all(text)
    return parsed[0] if parsed else None


@functools.lru_cache(maxsize=1 << 17)
def parse_citation(text: str) -> Citation | None:
    """Return the first full case citation in `text` in canonical form, or None when there is none.

    "347 US 483", "347 U. S. 483 (1954)" and "Brown v. Board, 347 U.S. 483" all give Citation("347", "U.S.", "483");
    "5 U.S. (1 Cranch) 137" and "1 Cranch 137" give Citation("5", "U.S.", "137"). Short forms ("410 U.S., at 160"),
    "Id." and citations without a page ("576 U.S. ___") are not full citations. Memoized. Raises nothing.
    """
    return _first_citation(text)


def parse_citations(text: str) -> list[Citation]:
    """Return every full case citation in `text` in canonical form, in order of first appearance, without repeats.

    Parallel citations ("347 U.S. 483, 74 S. Ct. 686, 98 L. Ed. 873") are separate entries. Raises nothing.
    """
    fast = _fast_parse(text)
    if fast is not None:
        return [fast]
    return list(dict.fromkeys(_eyecite_parse_all(text)))


# volume, reporter (its series may be "2d", "3d", "4th", or parenthesized as in older opinions: "F. (2d)"), page
_SCAN = re.compile(
    r"(?<![\w.])(\d{1,5})\s+([A-Z][A-Za-z.' ]{0,24}?(?:\s?\(?\d[a-z]{1,2}\)?\.?)?)\s*,?\s+(\d{1,6})"
    r"(?![\d,]*\s*U\.)"
)
#: What may stand between a citation's volume and its page: no line break, and no digit except in a reporter's
#: series ("F.2d", "F. (2d)", "L. Ed. 2d", "F.4th", "N.Y.3d").
REPORTER_GAP = r"(?:[^\n\d]|\d(?:st|nd|rd|d|th)(?![A-Za-z\d]))"


def scan_citation_keys(text: str) -> frozenset[str]:
    """Return the keys of the bare "VOL REPORTER PAGE" citations in a long text, fast (a regex over the text and
    the reporters-db spelling table; no eyecite tokenization), for checking whether a text cites a case.

    It finds what `parse_citations` finds in the standard shape, maps nominative Supreme Court reporters to U.S.
    Reports volumes, and skips short forms ("410 U.S., at 160") and reporters the table cannot settle alone. About
    a hundred times faster than `parse_citations` on a 100,000-character opinion. Raises nothing.
    """
    table = _fast_reporter_table()
    keys = set()
    for match in _SCAN.finditer(text):
        volume, raw_reporter, page = match.groups()
        candidates = table.get(_squash(raw_reporter))
        if candidates:
            keys.add(_canonical(volume, page, candidates, raw_reporter).key)
    return frozenset(keys)


@functools.lru_cache(maxsize=1 << 17)
def citation_key(text: str) -> str | None:
    """Return the normalized key ("347 U.S. 483") of the first full case citation in `text`, or None.

    Memoized on its own (`citation_key.cache_clear()` empties it). Raises nothing.
    """
    citation = _first_citation(text)
    return citation.key if citation else None


def citations_equal(a: str, b: str) -> bool:
    """Return True when both texts hold a full case citation and the first ones are the same citation.

    Only the same volume, reporter and page count: parallel citations in different reporters ("347 U.S. 483" and
    "74 S. Ct. 686") are not equal. Raises nothing.
    """
    key_a = citation_key(a)
    return key_a is not None and key_a == citation_key(b)


def citation_parts(key: str) -> tuple[str, str, str] | None:
    """Return (volume, reporter, page) of a normalized citation key ("124 F.3d 243" -> ("124", "F.3d", "243";
    "1997 U.S. App. LEXIS 22161" -> ("1997", "U.S. App. LEXIS", "22161")), or None when `key` is not in that shape.
    Raises nothing."""
    volume, _, rest = key.strip().partition(" ")
    reporter, _, page = rest.rpartition(" ")
    if not volume or not reporter.strip() or not page:
        return None
    return volume, reporter.strip(), page


#: Reporters-db citation types of the vendors' own databases (LEXIS and Westlaw numbers, not printed reporters).
VENDOR_CITE_TYPES = frozenset({"specialty_lexis", "specialty_west"})


@functools.lru_cache(maxsize=4096)
def is_vendor_reporter(reporter: str) -> bool:
    """Return True for a vendor database's "reporter" ("U.S. App. LEXIS", "U.S. Dist. LEXIS", "WL"): reporters-db
    marks it a LEXIS or Westlaw citation type, or its name holds the word LEXIS or is WL. Such a citation is a
    parallel citation, never a case's official one. Raises nothing."""
    words = reporter.replace(".", " ").split()
    if "LEXIS" in (word.upper() for word in words) or reporter.strip() in ("WL", "W.L."):
        return True
    from reporters_db import REPORTERS

    for clusters in REPORTERS.values():
        for entry in clusters:
            named = reporter in entry["editions"] or reporter in entry.get("variations", {})
            if named and entry.get("cite_type") in VENDOR_CITE_TYPES:
                return True
    return False
