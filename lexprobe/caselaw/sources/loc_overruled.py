"""Library of Congress, Constitution Annotated: Table of Supreme Court Decisions Overruled by Subsequent Decisions.

Source: `overruled/loc_overruled_2025.csv` (236 rows) and the older `overruled/loc_overruled_2022.csv` (233 rows,
CRLF line ends, rows not in `Order` order); UTF-8 with curly quotes. Columns: `Order`, `Overruling Decision`,
`Year of Overruling Decision`, `Overruled Decision(s)`, `Year(s) of Overruled Decision(s)`.

One `OverrulingRecord` per overruled case (a row overruling three cases gives three records):
- Cells are normalized before parsing: non-breaking and other odd spaces become spaces, runs of spaces collapse.
  Names keep their curly quotes and apostrophes as printed; a comma left inside a closing quote before the
  citation (`Steamship “Pinar Del Rio,”277 U.S. 151`) is dropped from the name.
- `Overruled Decision(s)` is split on `;`. Each part must read "Name, VOL U.S. [(NOMINATIVE)] PAGE[, PIN] (YEAR)"
  followed by zero or more parenthesized qualifiers; the comma and space between name and citation may be
  missing ("Casey,505 U.S. 833", "Coppage v. Kansas 236 U.S. 1"), and a stray year before the parenthesized one
  ("255 U.S. 298 1921 (1921)") is ignored. A part that does not read so is a `RowIssue` at the row's file:line;
  the other parts of the row still give records. Empty parts (a trailing `;`) are skipped.
- `overruled_citation` is "VOL U.S. PAGE": the nominative reporter ("8 U.S. (4 Cr.) 241") and pin cites are
  dropped so the citation joins the other sources. `overruled_year` is the year printed in the part itself; the
  `Year(s) of Overruled Decision(s)` column runs years together ("19921973") and is not read.
- `Overruling Decision` is one case, either as above or a slip cite "Name, No. 22-451 (U.S. June 28, 2024)", which
  gives `overruling_docket` "22-451" and `overruling_citation` None. `overruling_year` is the year printed in the
  case string (the decision year); `Year of Overruling Decision` is used only when the string has none. (The
  2022 edition prints 1967 in that column for Marchetti v. United States, 390 U.S. 39 (1968).) An overruling
  decision that cannot be read makes the whole row one `RowIssue`.
- `in_part` is True when "(in part)" qualifies the overruled case or the overruling decision (Minnesota v. Mille
  Lacs Band, 526 U.S. 172 (1999) (in part)). `note` holds every other qualifier as printed, in order, e.g.
  "(plurality opinion)", "(Powell, J., concurring)", "(per curiam)"; qualifiers of the overruling decision come
  after "overruling:" ("overruling: (re-argument)", "overruling: (Legal Tender Cases)").
- `location` is "path:line" of the row.

Data notes (kept as printed, not corrected):
- The table does not list Brown v. Board of Education as overruling Plessy v. Ferguson: Plessy appears once,
  overruled by Bob Jones University v. United States, 461 U.S. 574 (1983).
- Dobbs is printed "No. 19-1391"; its docket is 19-1392 (as in SCDB), so a docket join to SCDB fails for it.
- Johnson v. Louisiana is printed "406 U.S. 366 (1972) (Powell, J., concurring)": 366 is the page of the
  concurrence; the case begins at 406 U.S. 356.
- The 2022 edition prints Pennoyer v. Neff as "(1878)" (the 2025 edition: 1877) and 1936 in the year column for
  Hammer v. Dagenhart (1918); the 2025 edition adds three rows (Loper Bright, Dobbs, Edwards v. Vannoy) with four
  overruled cases, hence 292 records against 288.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from pathlib import Path

from lexprobe.caselaw.records import LoadResult, OverrulingRecord, RowIssue
from lexprobe.caselaw.sources.tables import require_columns

SOURCE = "loc"

COLUMN_OVERRULING = "Overruling Decision"
COLUMN_OVERRULING_YEAR = "Year of Overruling Decision"
COLUMN_OVERRULED = "Overruled Decision(s)"
REQUIRED_COLUMNS = (COLUMN_OVERRULING, COLUMN_OVERRULING_YEAR, COLUMN_OVERRULED)

_SPACES = re.compile(r"[\s\u00a0\u2000-\u200b\u202f\u205f\u3000]+")
_QUALIFIERS = re.compile(r"\(([^()]*)\)")
_CASE = re.compile(
    r"^(?P<name>.*?)[\s,]*"
    r"(?P<volume>\d+)\s*U\.\s*S\.\s*(?:\((?P<nominative>[^()]*)\)\s*)?(?P<page>\d+)"
    r"(?:\s*,\s*\d+(?:\s*[-–]\s*\d+)?)?"  # pin cite
    r"(?:\s+\d{4})?"  # a stray year before the parenthesized one
    r"\s*\((?P<year>\d{4})\)"
    r"(?P<rest>(?:\s*\([^()]*\))*)\s*$"
)
_SLIP = re.compile(
    r"^(?P<name>.*?)[\s,]*No\.\s*(?P<docket>\d+[-–‑]\d+)\s*"
    r"\(\s*U\.\s*S\.\s*(?P<date>[^()]*?)\)"
    r"(?P<rest>(?:\s*\([^()]*\))*)\s*$"
)
_YEAR_AT_END = re.compile(r"(\d{4})\s*$")


@dataclass(frozen=True)
class CaseRef:
    """One case as the table prints it."""

    name: str
    citation: str | None
    docket: str | None
    year: int | None
    qualifiers: tuple[str, ...]


def clean(text: str) -> str:
    """Collapse odd and repeated spaces into single spaces."""
    return _SPACES.sub(" ", text).strip()


def parse_case(text: str) -> CaseRef | None:
    """Read "Name, VOL U.S. PAGE (YEAR) (qualifier)..." or a slip cite "Name, No. 22-451 (U.S. June 28, 2024)"."""
    text = clean(text)
    match = _CASE.match(text)
    if match:
        citation = f"{int(match['volume'])} U.S. {int(match['page'])}"
        return _ref(match["name"], citation, None, int(match["year"]), match["rest"])
    match = _SLIP.match(text)
    if match:
        year = _YEAR_AT_END.search(match["date"])
        docket = re.sub(r"[–‑]", "-", match["docket"])
        return _ref(match["name"], None, docket, int(year.group(1)) if year else None, match["rest"])
    return None


def _ref(name: str, citation: str | None, docket: str | None, year: int | None, rest: str) -> CaseRef | None:
    name = re.sub(r",\s*([”\"’'])$", r"\1", name.strip()).rstrip(", ").strip()
    if not name:
        return None
    qualifiers = tuple(f"({clean(q)})" for q in _QUALIFIERS.findall(rest))
    return CaseRef(name, citation, docket, year, qualifiers)


def load(path: Path) -> LoadResult:
    """Load one edition of the LoC overruled-decisions table at `path`: one record per overruled case."""
    result = LoadResult()
    with path.open(encoding="utf-8-sig", newline="") as handle:
        reader = csv.DictReader(handle)
        reader.fieldnames = [clean(name) for name in reader.fieldnames or []]
        require_columns(reader.fieldnames, REQUIRED_COLUMNS, path, "not the LoC overruled-decisions table")
        for row in reader:
            result.rows_read += 1
            _read_row(row, f"{path}:{reader.line_num}", result)
    return result


def _read_row(row: dict[str, str | None], location: str, result: LoadResult) -> None:
    overruling_text = row.get(COLUMN_OVERRULING) or ""
    overruled_text = row.get(COLUMN_OVERRULED) or ""
    overruling = parse_case(overruling_text)
    if overruling is None:
        result.issues.append(RowIssue(SOURCE, location, f"overruling decision unreadable: {clean(overruling_text)!r}"))
        return
    year = overruling.year
    if year is None:
        column = clean(row.get(COLUMN_OVERRULING_YEAR) or "")
        if not column.isdigit():
            result.issues.append(RowIssue(SOURCE, location, f"no year for overruling decision {overruling.name!r}"))
            return
        year = int(column)
    parts = [part for part in overruled_text.split(";") if clean(part)]
    if not parts:
        result.issues.append(RowIssue(SOURCE, location, "no overruled decision"))
        return
    overruling_notes = [q for q in overruling.qualifiers if not _is_in_part(q)]
    for part in parts:
        overruled = parse_case(part)
        if overruled is None or overruled.citation is None or overruled.year is None:
            result.issues.append(RowIssue(SOURCE, location, f"overruled decision unreadable: {clean(part)!r}"))
            continue
        notes = [q for q in overruled.qualifiers if not _is_in_part(q)]
        if overruling_notes:
            notes.append("overruling: " + " ".join(overruling_notes))
        result.overrulings.append(
            OverrulingRecord(
                source=SOURCE,
                overruled_name=overruled.name,
                overruled_citation=overruled.citation,
                overruled_year=overruled.year,
                overruling_name=overruling.name,
                overruling_citation=overruling.citation,
                overruling_docket=overruling.docket,
                overruling_year=year,
                in_part=any(_is_in_part(q) for q in overruled.qualifiers + overruling.qualifiers),
                note=" ".join(notes) or None,
                location=location,
            )
        )


def _is_in_part(qualifier: str) -> bool:
    return qualifier.lower() == "(in part)"
