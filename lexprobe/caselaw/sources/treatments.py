"""Free Law Project citator pairs with expert treatment labels: one `TreatmentRecord` per citing -> cited pair.

Files in `data_root()/treatment/` (what `load` takes):

- `flp_citator_pairs.csv`: 1,099 citing -> cited pairs with CourtListener cluster ids, the citing decision as
  "Morgan v. United States,113 U.S. 476  (1885)", the cited case's names and parallel citations as a Python
  list string ("['74 U.S. 700', '19 L. Ed. 227']"), and an `overruled` yes/no flag.
- `flp_citator_eval.csv`: the same pairs (same `citing_cluster_id`, `cited_cluster_id`) with model predictions,
  annotator columns and the final expert label `Final_Label` (Mentioned 773, Overruled 168, Distinguished 91,
  Reversed 24, Criticized 21, Limited 17, Questioned 5); `True_Labelled` is 1 for the 255 pairs an expert
  reviewed by hand.

The two files are joined on (citing cluster id, cited cluster id). A record takes its names and citations from
the pairs file and its label from the eval file.

The study's agree/disagree variable (`agreement`): the hallucination study coarsened Shepard's treatment codes
into agree/disagree after dropping neutral treatments. This data has no positive ("followed") label, so no pair
maps to "agree":

- Overruled, Distinguished, Criticized, Limited, Questioned -> "disagree": each is a negative treatment, the
  citing court declining to follow the cited precedent in whole or in part.
- Mentioned -> None: a citation without treatment is neutral, and the study drops neutral treatments.
- Reversed -> None: in this data every "Reversed" pair is the Supreme Court reviewing the decision below in the
  same litigation (the cited case is a state supreme court or court of appeals decision of the same parties,
  e.g. "The PEOPLE v. Escobedo (1963)" cited by "Escobedo v. Illinois"). That is subsequent history within one
  case, not a treatment of one precedent by another; counting it as "disagree" would mix case dispositions
  (which the study measures separately, as affirm/reverse) into precedent treatment.

Other decisions:

- `cited_name` is the pairs file's `cited_name`, or `cited_name_full` where that is blank (8 lower-court cases).
- `label` is the expert `Final_Label`. The pairs file's `overruled` flag (from the Library of Congress table) is
  not used; it says "no" for 7 pairs the experts labelled Overruled.
- `citing_citations` is the U.S. Reports citation parsed from the citing decision name (the only citation the
  files give for the citing case); a trailing qualifier such as "(in part)" is dropped from the name. A name
  that does not parse keeps the raw string, no citation, and a `RowIssue`.
- List strings are parsed with `ast.literal_eval` (never `eval`) and must be a list of strings.
- A pair without an eval row, an eval row without a pair, a duplicate pair, an unknown label or an unusable
  field becomes a `RowIssue` naming "file:line" (the line a CSV record starts on).
- `rows_read` counts the data rows of both files (2,198 for the real data).
"""

from __future__ import annotations

import ast
import csv
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from lexprobe.caselaw.records import Agreement, LoadResult, RowIssue, TreatmentRecord

SOURCE = "flp_citator"
PAIRS_FILE = "flp_citator_pairs.csv"
EVAL_FILE = "flp_citator_eval.csv"

AGREEMENT: dict[str, Agreement | None] = {
    "Overruled": "disagree",
    "Distinguished": "disagree",
    "Criticized": "disagree",
    "Limited": "disagree",
    "Questioned": "disagree",
    "Mentioned": None,
    "Reversed": None,
}
PAIRS_COLUMNS = ("citing_cluster_id", "cited_cluster_id", "citing_decision_name", "cited_name", "cited_citations")
EVAL_COLUMNS = ("citing_cluster_id", "cited_cluster_id", "Final_Label", "True_Labelled")
MAX_LIST_CHARS = 10_000

_CITING_NAME = re.compile(r"^\s*(?P<name>.+?)\s*,\s*(?P<cite>\d+\s+U\.\s?S\.\s+\d+)\s+\((?P<year>\d{4})\)(?P<note>.*)$")
_TRUE = frozenset({"1", "1.0", "true", "yes"})
_FALSE = frozenset({"0", "0.0", "false", "no"})

PairKey = tuple[str, str]


@dataclass(frozen=True)
class CsvRow:
    """One CSV record and where it starts."""

    location: str  # "path:line"
    values: dict[str, str]


def load(folder: Path) -> LoadResult:
    """Load the citator pairs joined with their expert labels from the `treatment` folder."""
    folder = Path(folder)
    result = LoadResult()
    pairs = _read_table(folder / PAIRS_FILE, PAIRS_COLUMNS, result)
    labels = _read_table(folder / EVAL_FILE, EVAL_COLUMNS, result)
    if pairs is None or labels is None:
        return result
    label_rows = dict(_first_of_each_pair(labels, result.issues))
    joined: set[PairKey] = set()
    for key, row in _first_of_each_pair(pairs, result.issues):
        joined.add(key)
        label_row = label_rows.get(key)
        if label_row is None:
            result.issues.append(RowIssue(SOURCE, row.location, f"pair {key[0]} -> {key[1]} has no row in {EVAL_FILE}"))
            continue
        record = _record(key, row, label_row, result.issues)
        if record is not None:
            result.treatments.append(record)
    for key, label_row in label_rows.items():
        if key not in joined:
            result.issues.append(
                RowIssue(SOURCE, label_row.location, f"pair {key[0]} -> {key[1]} has no row in {PAIRS_FILE}")
            )
    return result


def _record(key: PairKey, row: CsvRow, label_row: CsvRow, issues: list[RowIssue]) -> TreatmentRecord | None:
    """Build one record from a pair row and its label row, or record why not."""
    label = label_row.values["Final_Label"].strip()
    if label not in AGREEMENT:
        issues.append(RowIssue(SOURCE, label_row.location, f"unknown Final_Label {label!r}"))
        return None
    reviewed = label_row.values["True_Labelled"].strip().lower()
    if reviewed not in _TRUE | _FALSE:
        issues.append(RowIssue(SOURCE, label_row.location, f"True_Labelled {reviewed!r} is not 1 or 0"))
        return None
    try:
        cited_citations = parse_list_string(row.values["cited_citations"])
    except ValueError as exc:
        issues.append(RowIssue(SOURCE, row.location, f"cited_citations: {exc}"))
        return None
    citing_name, citing_citation = parse_citing_name(row.values["citing_decision_name"])
    if citing_citation is None:
        issues.append(
            RowIssue(
                SOURCE,
                row.location,
                f"citing_decision_name {row.values['citing_decision_name']!r} is not 'Name, VOL U.S. PAGE (YEAR)'; "
                "kept as the name, no citing citation",
            )
        )
    # the short name is blank for 8 lower-court cases
    names = (row.values["cited_name"], row.values.get("cited_name_full"), label_row.values.get("cited_decision_name"))
    cited_name = next((name.strip() for name in names if name and name.strip()), None)
    return TreatmentRecord(
        source=SOURCE,
        citing_cluster_id=key[0],
        cited_cluster_id=key[1],
        citing_name=citing_name,
        cited_name=cited_name,
        citing_citations=(citing_citation,) if citing_citation else (),
        cited_citations=cited_citations,
        label=label,
        agreement=AGREEMENT[label],
        expert_reviewed=reviewed in _TRUE,
        location=row.location,
    )


def parse_list_string(text: str) -> tuple[str, ...]:
    """Parse a Python list string such as "['74 U.S. 700', '19 L. Ed. 227']" safely; raise ValueError if unusable."""
    if len(text) > MAX_LIST_CHARS:
        raise ValueError(f"list string longer than {MAX_LIST_CHARS} characters")
    try:
        value = ast.literal_eval(text.strip())
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError) as exc:
        raise ValueError(f"not a Python list literal: {text[:80]!r} ({type(exc).__name__})") from None
    if not isinstance(value, list | tuple) or not all(isinstance(item, str) for item in value):
        raise ValueError(f"not a list of strings: {text[:80]!r}")
    return tuple(item.strip() for item in value if item.strip())


def parse_citing_name(text: str) -> tuple[str | None, str | None]:
    """Split "Morgan v. United States,113 U.S. 476  (1885)" into ("Morgan v. United States", "113 U.S. 476")."""
    match = _CITING_NAME.match(text)
    if match is None:
        return (text.strip() or None), None
    return match.group("name"), " ".join(match.group("cite").split())


def _pair_key(row: CsvRow, issues: list[RowIssue]) -> PairKey | None:
    """Return (citing cluster id, cited cluster id), or None after recording a malformed id."""
    citing = row.values["citing_cluster_id"].strip()
    cited = row.values["cited_cluster_id"].strip()
    if not (citing.isdigit() and cited.isdigit()):
        issues.append(RowIssue(SOURCE, row.location, f"cluster ids {citing!r} -> {cited!r} are not numbers"))
        return None
    return citing, cited


def _first_of_each_pair(rows: list[CsvRow], issues: list[RowIssue]) -> Iterator[tuple[PairKey, CsvRow]]:
    """Yield (pair, row) for the first row of each pair; later duplicates and malformed ids become issues as they
    come."""
    seen: set[PairKey] = set()
    for row in rows:
        key = _pair_key(row, issues)
        if key is None:
            continue
        if key in seen:
            issues.append(RowIssue(SOURCE, row.location, f"duplicate pair {key[0]} -> {key[1]}"))
            continue
        seen.add(key)
        yield key, row


def _read_table(path: Path, required: tuple[str, ...], result: LoadResult) -> list[CsvRow] | None:
    """Read a CSV file into rows with their start lines; None (and an issue) when the file is unusable."""
    try:
        with path.open(encoding="utf-8", newline="") as handle:
            rows = list(_csv_rows(handle, path, required, result))
    except FileNotFoundError:
        result.issues.append(RowIssue(SOURCE, str(path), "file not found"))
        return None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        result.issues.append(RowIssue(SOURCE, str(path), f"unreadable CSV: {exc}"))
        return None
    return rows


def _csv_rows(handle: TextIO, path: Path, required: tuple[str, ...], result: LoadResult) -> Iterator[CsvRow]:
    """Yield the data rows of an open CSV file; rows of the wrong width or broken quoting become issues."""
    reader = csv.reader(handle)
    header = next(reader, None)
    if header is None:
        raise ValueError("empty file")
    missing = [name for name in required if name not in header]
    if missing:
        raise ValueError(f"missing columns {', '.join(missing)}")
    start = reader.line_num + 1
    while True:
        location = f"{path}:{start}"
        try:
            cells = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            result.issues.append(RowIssue(SOURCE, location, f"CSV error: {exc}; rest of the file not read"))
            return
        start = reader.line_num + 1
        if not cells or not any(cell.strip() for cell in cells):
            continue  # a blank line is not a row
        result.rows_read += 1
        if len(cells) != len(header):
            result.issues.append(RowIssue(SOURCE, location, f"{len(cells)} fields, header has {len(header)}"))
            continue
        yield CsvRow(location, dict(zip(header, cells, strict=True)))
