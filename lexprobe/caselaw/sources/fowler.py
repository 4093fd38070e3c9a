"""Fowler & Jeon Supreme Court citation network → one `CaseRecord` per case and one `CitationEdge` per citation.

Source: Fowler & Jeon, "The authority of Supreme Court precedent", Social Networks 30(1) 2008; replication files
`network/fowler_judicial.csv.gz` (node table, 30,288 majority opinions 1754-2002) and
`network/fowler_allcites.txt.gz` (216,738 lines "citing_caseid cited_caseid", both ids of the node table).

Node columns used and how they map (`load`):
- `caseid` → `source_id`; `court_id` is always "scotus".
- `usid` ("347US483") → `citations` ("347 U.S. 483",); a `usid` of another shape makes the row a `RowIssue`.
- `parties` → `name` (1,898 cases, mostly early ones, have none → None).
- `year` → `year` (required; not an integer → `RowIssue`).
- `auth` → `authority_score`, `hub` → `hub_score` (Kleinberg authority and hub scores from the paper).
- `prominence`: the percentile of `auth` among all Fowler cases loaded from the file, 0-100, ties averaged (the
  mid-rank percentile, `100 * (below + equal / 2) / n`, as `scipy.stats.percentileofscore(kind="mean")`). The
  9,344 cases never cited (auth 0) share one value (15.4). This is the offline stand-in for the CAP PageRank
  percentile the hallucination study uses as its prominence measure for Supreme Court cases.
- `overruled`, `overruling`: not counts or flags but case ids. `overruled` is the `caseid` of the decision that
  overruled this case, 0 if none (252 cases; only one id is given even where two decisions overruled a case);
  `overruling` is a space-separated list of the `caseid`s this case overruled, 0 if none (191 cases naming 256
  overruled cases; these pairs include all 252 of the `overruled` column). Both go to `extra` as `overruled_by`
  and `overrules`, written as edge references ("fowler:21109"), and are left out when 0.
- `indeg`, `outdeg` (citations received and made within the network), `hubrank`, `authrank`, `between`
  (betweenness), `incent` (in-centrality), `oxford` and `liihc` (0/1 flags: the case is in the Oxford Guide to
  Supreme Court decisions / in the LII list of historic decisions, the paper's salience checks) → `extra` as text.
  A numeric column that does not parse makes the row a `RowIssue`.

Edges (`load_edges`): each line "citing cited" → `CitationEdge("fowler", "fowler:<citing>", "fowler:<cited>")`; the
builder resolves the ids through the node records. A line that is not two integer ids is a `RowIssue`.
"""

from __future__ import annotations

import csv
import dataclasses
import re
from pathlib import Path

from lexprobe.caselaw.records import CaseRecord, CitationEdge, LoadResult, OverrulingRecord, RowIssue
from lexprobe.caselaw.sources.tables import RowError, load_rows, numbered_rows, open_text, read_header

SOURCE = "fowler"

REQUIRED_COLUMNS = ("caseid", "usid", "parties", "year", "overruled", "overruling", "hub", "auth")
#: Node columns kept as text facts in `extra` when present in the file.
EXTRA_COLUMNS = ("indeg", "outdeg", "hubrank", "authrank", "between", "incent", "oxford", "liihc")
_USID = re.compile(r"^(\d+)\s*US\s*(\d+)$", re.IGNORECASE)


def usid_citation(usid: str) -> str | None:
    """Turn Fowler's "347US483" into "347 U.S. 483"; None if it has another shape."""
    match = _USID.match(usid.strip())
    return f"{int(match.group(1))} U.S. {int(match.group(2))}" if match else None


def percentiles(values: list[float]) -> list[float]:
    """Return the mid-rank percentile (0-100, ties averaged) of each value among `values`: `100 * (rank - 1/2) / n`
    of its average rank, which is `100 * (below + equal / 2) / n`."""
    import pandas as pd  # only needed here, and slow to import

    ranks = pd.Series(values, dtype=float).rank(method="average")
    return [100.0 * (rank - 0.5) / len(values) for rank in ranks]


def load(path: Path) -> LoadResult:
    """Load the Fowler node table at `path` into case records with authority, hub and prominence."""
    result = LoadResult()
    with open_text(path) as handle:
        reader = csv.reader(handle)
        header = read_header(reader, path, REQUIRED_COLUMNS, "not a Fowler node table")
        result.cases = load_rows(numbered_rows(reader), header, path, SOURCE, result, lambda row, _: _case(row))
    scores = [case.authority_score or 0.0 for case in result.cases]
    result.cases = [
        dataclasses.replace(case, prominence=round(percentile, 4))
        for case, percentile in zip(result.cases, percentiles(scores), strict=True)
    ]
    result.overrulings = overrulings_from_nodes(result.cases, path)
    return result


def overrulings_from_nodes(cases: list[CaseRecord], path: Path) -> list[OverrulingRecord]:
    """Return one overruling record per `overruled` link (the overruled case -> the node that overruled it).

    The year overruled is the overruling node's year. Links to a node missing from the table are skipped
    (the table names none).
    """
    by_id = {f"{SOURCE}:{case.source_id}": case for case in cases}
    records = []
    for case in cases:
        for name, value in case.extra:
            if name != "overruled_by":
                continue
            for reference in value.split():
                overruling = by_id.get(reference)
                if overruling is None or overruling.year is None:
                    continue
                records.append(
                    OverrulingRecord(
                        source=SOURCE,
                        overruled_name=case.name or "",
                        overruled_citation=case.citations[0] if case.citations else None,
                        overruled_year=case.year,
                        overruling_name=overruling.name or "",
                        overruling_citation=overruling.citations[0] if overruling.citations else None,
                        overruling_docket=None,
                        overruling_year=overruling.year,
                        in_part=False,
                        location=f"{path}:caseid {case.source_id}",
                    )
                )
    return records


def load_edges(path: Path) -> LoadResult:
    """Load the Fowler edge list at `path` ("citing cited" caseids a line) into citation edges."""
    result = LoadResult()
    with open_text(path) as handle:
        for line_number, line in enumerate(handle, start=1):
            result.rows_read += 1
            parts = line.split()
            if len(parts) == 2 and parts[0].isdigit() and parts[1].isdigit():
                result.edges.append(CitationEdge(SOURCE, f"{SOURCE}:{int(parts[0])}", f"{SOURCE}:{int(parts[1])}"))
            else:
                message = f"expected two integer case ids, got {line.strip()[:80]!r}"
                result.issues.append(RowIssue(SOURCE, f"{path}:{line_number}", message))
    return result


def _case(row: dict[str, str]) -> CaseRecord:
    case_id = row["caseid"].strip()
    if not case_id.isdigit():
        raise RowError(f"caseid {case_id!r} is not an integer")
    citation = usid_citation(row["usid"])
    if citation is None:
        raise RowError(f"usid {row['usid']!r} is not VOLUSPAGE")
    extra = [(column, row[column].strip()) for column in EXTRA_COLUMNS if column in row]
    for column, _ in extra:
        _float(row, column)
    overruled_by = _case_ids(row, "overruled")
    if overruled_by:
        extra.append(("overruled_by", " ".join(overruled_by)))
    overrules = _case_ids(row, "overruling")
    if overrules:
        extra.append(("overrules", " ".join(overrules)))
    return CaseRecord(
        source=SOURCE,
        source_id=str(int(case_id)),
        court_id="scotus",
        name=row["parties"].strip() or None,
        citations=(citation,),
        year=_year(row["year"]),
        authority_score=_float(row, "auth"),
        hub_score=_float(row, "hub"),
        extra=tuple(extra),
    )


def _year(text: str) -> int:
    try:
        return int(text.strip())
    except ValueError as exc:
        raise RowError(f"year {text!r} is not an integer") from exc


def _float(row: dict[str, str], column: str) -> float:
    text = row[column].strip()
    try:
        return float(text)
    except ValueError as exc:
        raise RowError(f"{column} {text!r} is not a number") from exc


def _case_ids(row: dict[str, str], column: str) -> list[str]:
    """Return the `fowler:<id>` references in an overruled/overruling cell ("0" or empty means none)."""
    ids = row[column].split()
    if not all(part.isdigit() for part in ids):
        raise RowError(f"{column} {row[column]!r} is not a list of case ids")
    return [f"{SOURCE}:{int(part)}" for part in ids if int(part) != 0]
