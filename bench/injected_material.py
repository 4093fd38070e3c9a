"""The real material the injected-error bench (`bench/injected_errors.py`) writes its brief excerpts from, read
from the case database: Supreme Court cases with their names, citations, years and page ranges; passages of their
opinions with the page each lies on (from the opinions' star paging); passages of separate opinions (dissents,
concurrences); cases the database knows were overruled; and Courts of Appeals cases (Songer's, F.3d, with court and
date but no name).

Only the database is read (never the checker's verdicts), so the ground truth of the bench does not depend on what it
measures.
"""

from __future__ import annotations

import bisect
import re
from collections import defaultdict
from dataclasses import dataclass, field

from lexprobe.caselaw.case_names import names_match
from lexprobe.caselaw.query import CaseDatabase
from lexprobe.caselaw.quote_text import normalize, page_marks
from lexprobe.check.verify import CaseFacts, CaseLookup

US_KEY = re.compile(r"^(\d+) U\.S\. (\d+)$")
F3D_KEY = re.compile(r"^(\d+) F\.3d (\d+)$")
#: Words that would make the checker read a quotation as a separate opinion's, or as a Justice's own words.
SEPARATE_WORDS = re.compile(r"(?i)\b(?:dissent\w*|concurr\w*|justice|separate)\b")
#: Where a Court's opinion held in a combined text gives way to a separate opinion (or mentions one): passages are
#: taken before it only.
SEPARATE_START = re.compile(r"(?i)\b(?:dissent\w*|concurr\w*)\b")
#: The start of the Court's opinion in a combined text (the syllabus and headnotes come before it).
COURT_START = re.compile(r"(?i)delivered the opinion of the court")
#: Words a quoted sentence must not hold: references the checker normalizes away, abbreviations, signals.
_BAD_WORDS = re.compile(r"(?i)\b(?:supra|infra|ibid|ante|post)\b")
_SENTENCE = re.compile(r"(?<=[.?!])\s+(?=[A-Z])")
_QUOTABLE = re.compile(r"^[A-Z][A-Za-z ,;'’-]+ [a-z]{3,}[.]$")  # ends with a word, not an abbreviation ("v.")
#: Court of Appeals ids and the abbreviation a citation's parenthetical gives them.
CIRCUITS = {
    "ca1": "1st Cir.",
    "ca2": "2d Cir.",
    "ca3": "3d Cir.",
    "ca4": "4th Cir.",
    "ca5": "5th Cir.",
    "ca6": "6th Cir.",
    "ca7": "7th Cir.",
    "ca8": "8th Cir.",
    "ca9": "9th Cir.",
    "ca10": "10th Cir.",
    "ca11": "11th Cir.",
    "cadc": "D.C. Cir.",
    "cafc": "Fed. Cir.",
}
MIN_WORDS, MAX_WORDS = 12, 40
#: Of the Supreme Court cases without an opinion text, every this-many-th (in case id order) is read as material:
#: plenty for citations without quotations, and reading the facts of all 28,000 would take seconds for nothing.
OTHERS_EVERY = 6


@dataclass(frozen=True)
class CaseInfo:
    """A case as an excerpt cites it: its name, first page, year and court, and what the database knows of it."""

    case_id: str
    name: str
    volume: int
    reporter: str  # "U.S." or "F.3d"
    page: int
    year: int
    court_id: str
    facts: CaseFacts
    next_page: int | None  # the first page of the next decision listed in the volume

    @property
    def key(self) -> str:
        return f"{self.volume} {self.reporter} {self.page}"


@dataclass(frozen=True)
class Passage:
    """A quotable sentence (or the end of one) of an opinion, the page it lies on, and the opinion's marked pages."""

    case_id: str
    text: str
    page: int
    opinion_type: str
    author: str | None
    pages: tuple[int, ...]


@dataclass
class Material:
    """Everything the excerpts are written from (see the module docstring)."""

    reference: CaseLookup
    clean: list[CaseInfo]  # Supreme Court cases never overruled, with a unique U.S. citation and a usable name
    court_passages: dict[str, list[Passage]]  # case id -> passages of the Court's opinion
    separate_passages: list[Passage]  # passages found only in a separate opinion of their case
    overruled: list[CaseInfo]  # Supreme Court cases wholly overruled (no "in part"), cited cleanly otherwise
    appeals: list[CaseInfo]  # Courts of Appeals cases (F.3d) with a court and a date
    case_letters: dict[str, list[str]] = field(default_factory=dict)  # case id -> normalized texts of its opinions
    mispaged: set[str] = field(default_factory=set)  # cases with passages left out: star paging not the U.S. Reports'

    def info(self, case_id: str) -> CaseInfo | None:
        """The `CaseInfo` of a clean or overruled Supreme Court case."""
        return self._by_id.get(case_id)

    def __post_init__(self) -> None:
        self._by_id = {case.case_id: case for case in self.clean + self.overruled}
        self.clean_ids = {case.case_id for case in self.clean}


def usable_name(name: str | None) -> bool:
    """A name an excerpt can write as a brief would: "X v. Y", not shouted, not a docket caption."""
    return bool(
        name
        and " v. " in name
        and len(name) <= 70
        and name != name.upper()
        and not re.search(r"(?i)petitioner|respondent|appellant|\bet al\b|[\[\](){}\"“”;:]|\d", name)
    )


def _case_info(reference: CaseLookup, case_id: str, name: str, reporter: str, key_pattern: re.Pattern[str]):
    facts = reference.case(case_id)
    if facts is None or not facts.year:
        return None
    keys = [m for m in (key_pattern.match(k) for k in sorted(facts.keys)) if m]
    if not keys:
        return None
    volume, page = int(keys[0].group(1)), int(keys[0].group(2))
    if reference.case_ids(f"{volume} {reporter} {page}") != [case_id]:
        return None  # companion cases sharing a page: not a clean citation
    starts = reference.starts(reporter, str(volume))
    index = bisect.bisect_right(starts, (page, "\uffff"))
    next_page = starts[index][0] if index < len(starts) else None
    return CaseInfo(case_id, name, volume, reporter, page, facts.year, facts.court_id or "", facts, next_page)


def load_cases(db: CaseDatabase, reference: CaseLookup) -> tuple[list[CaseInfo], list[CaseInfo], list[CaseInfo]]:
    """The clean Supreme Court cases (those with an opinion text, and every `OTHERS_EVERY`-th other one), the wholly
    overruled ones and the Courts of Appeals ones."""
    overruled_ids = {row[0] for row in db.conn.execute("SELECT overruled_case_id FROM overrulings") if row[0]}
    with_text = {row[0] for row in db.conn.execute("SELECT DISTINCT case_id FROM opinions WHERE text != ''")}
    rows = db.conn.execute(
        "SELECT case_id, name, overruled_year, overruled_in_part FROM cases WHERE court_id = 'scotus' "
        "AND name IS NOT NULL AND citation LIKE '% U.S. %' ORDER BY case_id"
    ).fetchall()
    clean: list[CaseInfo] = []
    overruled: list[CaseInfo] = []
    for number, (case_id, name, overruled_year, in_part) in enumerate(rows):
        if not usable_name(name) or (case_id not in with_text and overruled_year is None and number % OTHERS_EVERY):
            continue
        is_overruled = overruled_year is not None and not in_part
        if not is_overruled and (case_id in overruled_ids or overruled_year is not None):
            continue  # overruled in part, or listed by a source without a settled year: neither clean nor wholly
        info = _case_info(reference, case_id, name, "U.S.", US_KEY)
        if info is None or not names_match(name, info.facts.names)[0]:
            continue
        if reference.us_volume(info.volume).covered is False and not is_overruled:
            continue
        (overruled if is_overruled else clean).append(info)
    appeals: list[CaseInfo] = []
    for (case_id,) in db.conn.execute(
        "SELECT case_id FROM cases WHERE level = 'coa' AND decision_date IS NOT NULL ORDER BY case_id"
    ):
        info = _case_info(reference, case_id, "", "F.3d", F3D_KEY)
        if info is not None and info.court_id in CIRCUITS and info.facts.dated:
            appeals.append(info)
    return clean, overruled, appeals


def _opinion_rows(db: CaseDatabase) -> dict[str, list[tuple[str, bool, str | None, str]]]:
    rows: dict[str, list[tuple[str, bool, str | None, str]]] = defaultdict(list)
    for case_id, kind, majority, author, text in db.conn.execute(
        "SELECT case_id, opinion_type, is_majority, author, text FROM opinions WHERE text != '' AND case_id "
        "LIKE 'scotus:%' ORDER BY case_id, opinion_id"
    ):
        rows[case_id].append((kind, bool(majority), author, text))
    return rows


def _first_page(case_id: str) -> int | None:
    tail = case_id.rsplit("_", 1)[-1]
    return int(tail) if tail.isdigit() else None


def quotable_sentences(text: str, first_page: int | None, start: int = 0, end: int | None = None):
    """(sentence, page, marked pages) for every sentence of `text[start:end]` that lies on one page after the first
    star page mark and reads as a plain quotable sentence of `MIN_WORDS`-`MAX_WORDS` words."""
    marks = page_marks(text, first_page)
    if not marks.offsets:
        return []
    stop = len(text) if end is None else end
    found = []
    pages = tuple(sorted(set(marks.pages)))
    for index, offset in enumerate(marks.offsets):
        segment_end = marks.offsets[index + 1] if index + 1 < len(marks.offsets) else len(text)
        low, high = max(offset + 5, start), min(segment_end, stop)
        if high - low < 80:
            continue
        segment = text[low:high]
        for sentence in _SENTENCE.split(segment)[1:-1]:  # whole sentences only: not the cut first and last
            sentence = " ".join(sentence.split())
            words = sentence.split()
            if not MIN_WORDS <= len(words) <= MAX_WORDS or not _QUOTABLE.match(sentence):
                continue
            if _BAD_WORDS.search(sentence) or SEPARATE_WORDS.search(sentence) or "*" in sentence:
                continue
            found.append((sentence, marks.pages[index], pages))
    return found


#: Without a next decision to bound it, a case is taken to end this many pages after its first.
LAST_PAGE_SLACK = 100


def _paged_right(page: int, bounds: tuple[int, int | None]) -> bool:
    """Whether a passage's page (from star paging) lies within its case, from the first page to the next decision's
    first page: some texts carry another reporter's star paging ("*334" in Massiah v. United States, 377 U.S. 201,
    which ends by page 208), which the checker's page rule cannot tell from the U.S. Reports'."""
    first, next_page = bounds
    return first <= page <= (next_page if next_page is not None else first + LAST_PAGE_SLACK)


def load_passages(
    db: CaseDatabase, bounds: dict[str, tuple[int, int | None]]
) -> tuple[dict[str, list[Passage]], list[Passage], dict, set[str]]:
    """Passages of the Court's opinions and of separate opinions of the cases in `bounds` (case id -> first page,
    next decision's first page); the Court's: once in its opinion and in no separate one; a separate opinion's: once
    in it and not in the Court's opinion. Also every case's normalized opinion texts (to check that a passage is not
    in a case), and the cases left out because their star paging is not the U.S. Reports'."""
    mispaged: set[str] = set()
    court: dict[str, list[Passage]] = {}
    separate: list[Passage] = []
    letters: dict[str, list[str]] = {}
    for case_id, rows in _opinion_rows(db).items():
        first = _first_page(case_id)
        normalized = [normalize(text).letters for _, _, _, text in rows]
        letters[case_id] = normalized
        if case_id not in bounds:
            continue
        is_separate = [not majority and kind not in ("lead", "combined", "majority") for kind, majority, _, _ in rows]
        majority = [i for i, row in enumerate(rows) if row[0] == "lead" or (row[1] and row[0] != "combined")]
        if not majority:
            majority = [i for i, row in enumerate(rows) if row[0] == "combined"]
        others_of_court = [normalized[i] for i in range(len(rows)) if not is_separate[i] and rows[i][0] != "combined"]
        separates = [normalized[i] for i in range(len(rows)) if is_separate[i]]
        if majority:
            index = majority[0]
            kind, _, author, text = rows[index]
            opening = COURT_START.search(text) if kind == "combined" else None
            if kind != "combined" or opening:
                begin = opening.end() if opening else 0
                cut = SEPARATE_START.search(text, begin)
                items = []
                for sentence, page, pages in quotable_sentences(text, first, begin, cut.start() if cut else None):
                    if not _paged_right(page, bounds[case_id]):
                        mispaged.add(case_id)
                        continue
                    needle = normalize(sentence).letters
                    if normalized[index].count(needle) == 1 and not any(needle in body for body in separates):
                        items.append(Passage(case_id, sentence, page, kind, author, pages))
                if items:
                    court[case_id] = items
        for index, (kind, _, author, text) in enumerate(rows):
            if not is_separate[index]:
                continue
            for sentence, page, pages in quotable_sentences(text, first):
                if not _paged_right(page, bounds[case_id]):
                    mispaged.add(case_id)
                    continue
                needle = normalize(sentence).letters
                if normalized[index].count(needle) == 1 and not any(needle in body for body in others_of_court):
                    separate.append(Passage(case_id, sentence, page, kind, author, pages))
    return court, separate, letters, mispaged


def load_material(db: CaseDatabase, reference: CaseLookup) -> Material:
    """Read everything the excerpts need from the database."""
    clean, overruled, appeals = load_cases(db, reference)
    bounds = {case.case_id: (case.page, case.next_page) for case in clean + overruled}
    court, separate, letters, mispaged = load_passages(db, bounds)
    clean_ids = {case.case_id for case in clean}
    separate = [passage for passage in separate if passage.case_id in clean_ids]
    return Material(reference, clean, court, separate, overruled, appeals, letters, mispaged)
