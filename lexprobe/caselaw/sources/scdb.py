"""Supreme Court Database (SCDB), case-centered release, citation unit → one `CaseRecord` per case.

Source: `scdb/SCDB_2024_01_caseCentered_Citation.csv.gz` (Spaeth et al., terms 1946-2023, 9,277 rows, 53 columns),
with `scdb/justices.csv` (`scdb_id,name,...`, 118 justices) to name the majority opinion writer.

Encoding: the 2024_01 file is UTF-8 (it holds "§", curly quotes, en dashes and one "ñ"); SCDB's own downloads have
been Windows-1252 in other releases, so the bytes are decoded as UTF-8 (a BOM is dropped) and, only if that fails,
as cp1252, which cannot fail. The whole file is read at once (3 MB unpacked).

Columns used and how they map:
- `caseId` → `source_id` (required; a row without it is a `RowIssue`). `court_id` is always "scotus".
- `caseName` → `name`, kept exactly as given (often upper case, "BROWN et al. v. BOARD OF EDUCATION ..."); the
  builder decides what to display.
- `usCite`, `sctCite`, `ledCite`, `lexisCite` → `citations`, the non-empty ones in that order (440 cases from the
  2016 term on have no `usCite` yet). Quirk fixed: for terms 1947-1955 the file prints Lawyers' Edition citations
  as "98 L. Ed. 2d 873" although those volumes (92-100) are the first series (L. Ed. 2d began with the 1956 term;
  98 L. Ed. 2d is a 1988 volume). Such a citation of a case before the 1956 term is rewritten to "98 L. Ed. 873"
  and the printed form is kept in `extra` as `ledCite_raw`, so it cannot collide with a real 1988 case.
- `dateDecision` (M/D/YYYY) → `decision_date` (ISO) and `year`; `term` → `term`. A date or term that does not parse
  makes the row a `RowIssue` (every SCDB row has both, so a bad one means a broken row).
- `docket` → `docket`, with en/em dashes turned into hyphens ("11–5001" → "11-5001") so it joins slip citations.
- `majOpinWriter` → `author`: the justice's full name from justices.csv (`scdb_id` → `name`, its pattern expanded
  by `caselaw.judges`); empty (per curiam and
  other unsigned decisions, 1,755 cases) → None; the code is kept in `extra` as `majOpinWriter`. A code missing from
  the justices table leaves `author` None (none occur in 2024_01).
- `caseDisposition` → `disposition_raw` (the code as text) and `disposition`: 2 (affirmed) → "affirm"; 3 (reversed),
  4 (reversed and remanded), 5 (vacated and remanded), 8 (vacated) → "reverse"; every other code and empty → None
  (the coarsening of the hallucination study).
- `partyWinning` → `party_winning`; `precedentAlteration` (0/1) → `precedent_alteration` (bool); `issueArea` →
  `issue_area`; `majVotes` → `majority_votes`; `minVotes` → `minority_votes`. Empty → None; a value that is not an
  integer makes the row a `RowIssue`.
- `chief` goes to `extra` as `chief`.

A row whose field count differs from the header is a `RowIssue`, never a guess.
"""

from __future__ import annotations

import csv
import datetime as dt
import gzip
import io
import re
from pathlib import Path

from lexprobe.caselaw.records import CaseRecord, Disposition, LoadResult, RowIssue
from lexprobe.caselaw.sources.tables import RowError, int_field, load_rows, numbered_rows, require_columns, text_facts
from lexprobe.errors import BadInputError

SOURCE = "scdb"

#: caseDisposition codes → the study's coarsening.
DISPOSITIONS: dict[int, Disposition] = {2: "affirm", 3: "reverse", 4: "reverse", 5: "reverse", 8: "reverse"}

REQUIRED_COLUMNS = (
    "caseId",
    "usCite",
    "sctCite",
    "ledCite",
    "lexisCite",
    "dateDecision",
    "term",
    "docket",
    "caseName",
    "caseDisposition",
    "partyWinning",
    "precedentAlteration",
    "issueArea",
    "majOpinWriter",
    "majVotes",
    "minVotes",
)

_FIRST_LED2_TERM = 1956
_LED2 = re.compile(r"^(\d+) L\. ?Ed\. ?2d (\d+)$")
_DASHES = str.maketrans({"\u2013": "-", "\u2014": "-", "\u2012": "-", "\u2212": "-"})


def read_text(path: Path) -> str:
    """Return the text of `path` (gzip when it ends in .gz): UTF-8 if it decodes, else cp1252."""
    raw = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        return raw.decode("cp1252", errors="replace")


def load_justices(path: Path) -> dict[str, str]:
    """Return justices.csv as `scdb_id` → full name. The file's `name` column is a small pattern
    ("Harry ?(?:Andrew|A\\.)? Blackmun"); `caselaw.judges` expands it and the fullest spelling is the name."""
    from lexprobe.caselaw.judges import expand_name_pattern

    with path.open(newline="", encoding="utf-8") as handle:
        return {
            row["scdb_id"].strip(): expand_name_pattern(row["name"].strip())[0]
            for row in csv.DictReader(handle)
            if row.get("scdb_id") and row.get("name")
        }


def load(path: Path, justices: Path | None = None) -> LoadResult:
    """Load the SCDB case-centered citation CSV at `path`; `justices` defaults to the sibling `justices.csv`."""
    result = LoadResult()
    justices_path = justices if justices is not None else path.with_name("justices.csv")
    names: dict[str, str] = {}
    if justices_path.exists():
        names = load_justices(justices_path)
    else:
        result.issues.append(RowIssue(SOURCE, str(justices_path), "justices table not found: authors left empty"))
    reader = csv.reader(io.StringIO(read_text(path), newline=""))
    header = next(reader, None)
    if header is None:
        raise BadInputError(f"{path}: empty file, expected the SCDB header")
    header = [name.strip() for name in header]
    require_columns(header, REQUIRED_COLUMNS, path, "not an SCDB case-centered file")
    result.cases = load_rows(numbered_rows(reader), header, path, SOURCE, result, lambda row, _: _case(row, names))
    return result


def _case(row: dict[str, str], justices: dict[str, str]) -> CaseRecord:
    case_id = row["caseId"].strip()
    if not case_id:
        raise RowError("empty caseId")
    decided = _date(row["dateDecision"])
    term = int_field(row, "term")
    if term is None:
        raise RowError("empty term")
    extra: list[tuple[str, str]] = []
    led = row["ledCite"].strip()
    match = _LED2.match(led)
    if match and term < _FIRST_LED2_TERM:
        extra.append(("ledCite_raw", led))
        led = f"{match.group(1)} L. Ed. {match.group(2)}"
    citations = tuple(c for c in (row["usCite"].strip(), row["sctCite"].strip(), led, row["lexisCite"].strip()) if c)
    writer = row["majOpinWriter"].strip()
    extra += text_facts(row, majOpinWriter="majOpinWriter", chief="chief")
    disposition = int_field(row, "caseDisposition")
    alteration = int_field(row, "precedentAlteration")
    return CaseRecord(
        source=SOURCE,
        source_id=case_id,
        court_id="scotus",
        name=row["caseName"].strip() or None,
        citations=citations,
        decision_date=decided.isoformat(),
        year=decided.year,
        term=term,
        docket=row["docket"].strip().translate(_DASHES) or None,
        author=justices.get(writer) if writer else None,
        disposition=DISPOSITIONS.get(disposition) if disposition is not None else None,
        disposition_raw=str(disposition) if disposition is not None else None,
        party_winning=int_field(row, "partyWinning"),
        precedent_alteration=bool(alteration) if alteration is not None else None,
        issue_area=int_field(row, "issueArea"),
        majority_votes=int_field(row, "majVotes"),
        minority_votes=int_field(row, "minVotes"),
        extra=tuple(extra),
    )


def _date(text: str) -> dt.date:
    """Parse SCDB's M/D/YYYY."""
    try:
        month, day, year = (int(part) for part in text.strip().split("/"))
        return dt.date(year, month, day)
    except ValueError as exc:
        raise RowError(f"dateDecision {text!r} is not M/D/YYYY") from exc
