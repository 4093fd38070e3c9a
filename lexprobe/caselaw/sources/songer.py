"""U.S. Courts of Appeals Database update, 1997-2002 (Songer / Kuersten-Haire) → one `CaseRecord` per case.

Source: `coa/cta02.csv.gz`, 2,160 published decisions (30 sampled per circuit and year, 12 circuits, 1997-2002),
244 columns, no case names. Judges are named through the Auburn judge attribute files beside it:
`coa/auburn_appct.dta` (677 appeals judges; column `ids` is the Songer appeals-judge code, `name` "Last, First")
and `coa/auburn_district.dta` (2,558 district judges; `songer_code` is the Songer district-judge code).

Columns used and how they map:
- `casenum` → `source_id`. Two casenums occur twice for different decisions (21006: 187 F.3d 1213 and
  196 F.3d 1084; 21140: 211 F.3d 735 and 214 F.3d 395); every row of a repeated casenum gets
  "<casenum>-L<line>" instead, so ids stay unique, and `extra` keeps `casenum`.
- `circuit` → `court_id` and `circuit`: 1..11 → "ca1".."ca11" / "1".."11"; 0 → "cadc" / "dc". The file uses 0 for
  the D.C. Circuit (all 180 of its cases have state 53, District of Columbia, or 55, no state); 12 does not occur,
  and the Federal Circuit is not sampled. Any other code makes the row a `RowIssue`.
  Quirk kept as coded: 22 cases of 2000-2001 coded circuit 3 have state 35 (Ohio) and Sixth-Circuit-style dockets
  ("99-5251"); they may be Sixth Circuit cases miscoded.
- `citevol`, `beginpage` → `citations` ("124 F.3d 243",); either missing or not an integer → `RowIssue`.
- `decisiondate` → `decision_date`: mostly MM/DD/YY (the two-digit year is 19YY for 50-99, 20YY for 00-49), 97 rows
  M/D/YYYY. The date is kept only when its year is within one of the `year` column (the sample year); 4 rows
  print impossible years (08/19/87 in 1997, 04/01/09 and 10/04/06 in 1999, 06/06/05 in 2001): their date is None
  and the raw text goes to `extra` as `decisiondate_raw`, as does any date that does not parse.
- `year` → `year`: the year of the kept decision date, else the `year` column.
- `treatment` → `disposition_raw` and `disposition`: 1 (affirmed) → "affirm"; 2 (reversed), 3 (reversed and
  remanded), 4 (vacated and remanded), 7 (vacated) → "reverse"; every other code → None.
- `state` → `state` as a two-letter code. The codes are the 50 states in alphabetical order (1 Alabama .. 50
  Wyoming), then 51 Virgin Islands, 52 Puerto Rico, 53 District of Columbia, 54 Guam, 57 Northern Mariana
  Islands (inferred from the data: every code falls in the circuit of its state or territory); 55 (no state:
  federal agency and other federal-origin appeals, 188 cases), 0 and empty → None. The raw code goes to `extra` as
  `state_code`; `district` goes to `extra` as `district_code`.
- `docketnum` → `docket`.
- `j1` → `author`: in this database the first judge (`j1`) is the author of the majority opinion (it has no vote
  columns, j2..j15 do; e.g. United States v. Emerson, 270 F.3d 203, j1 = 517 = Garwood); for a per curiam opinion it
  is only the first judge listed (United States v. Microsoft, 253 F.3d 34, per curiam, j1 = Edwards, the chief
  judge). So `author` is set only when `opinionstatus` is 1 (signed opinion; 2 is per curiam), from the Auburn
  appeals file for codes of up to four digits and from the Auburn district file for five-digit codes (district
  judges sitting by designation). Names are turned from "Garwood, William Lockhart" into "William Lockhart
  Garwood" ("Birch, Stanley F., Jr." → "Stanley F. Birch, Jr."). The code always goes to `extra` as `j1`, with
  `opinionstatus`. A code is taken to name an Auburn judge only if that judge was appointed by the decision year
  and had not died before it (Auburn `yeara`/`ayear` and `yeard`); this also settles district code 20579, which
  the district file gives to Orma R. Smith (died 1982) and Edmund A. Sargus, Jr.
  `author` stays None where the Auburn files cannot name the code (observed on cta02: 1,949 signed opinions,
  1,682 authors named, 267 not):
  (a) 192: the appeals file has Songer codes (`ids`) only for judges appointed up to 1996; its 67 judges appointed
      1997-2004 (Lipez, Sotomayor, Katzmann, Marcus, Hull, Graber, Berzon, ...) have no code, so codes such as
      123, 250, 976-990, 1124-1126 and 1253 match no row (nor does 536, absent from the file);
  (b) 44: Eleventh Circuit codes 1101-1118 other than 1103 and 1105. The appeals file lists the judges who came
      from the old Fifth Circuit (Tjoflat, Anderson, Hatchett, Kravitch, ...) under their Fifth Circuit codes
      (554, 502, 523, 537, ...), none of which occurs in cta02's Eleventh Circuit cases, and has no row with these
      11xx codes;
  (c) 20: five-digit codes missing from the district file (11131, 20690, 30200, ...);
  (d) 7: 9999/99999, the missing-value codes;
  (e) 2: code 570, which the appeals file gives to James C. Hill (Fifth Circuit 1976-81, then Eleventh Circuit),
      but which cta02 uses for an active Fifth Circuit judge: it occurs 21 times in Fifth Circuit panels of
      1997-2002 while 569 (James L. Dennis, active since 1995) never does. It is listed in `MISALIGNED_CODES`;
      likewise Carolyn Dineen King is 542 in the file (her code as Carolyn Dineen Randall) and never occurs,
      while 536, absent from the file, occurs 29 times;
  (f) 2: the named judge had died before the decision year per the file (816 Jesse Smith Henley, died 1996, in a
      1997 case; 553 William Homer Thornberry, died 1995, in a 2000 case).
"""

from __future__ import annotations

import csv
import datetime as dt
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from lexprobe.caselaw.records import CaseRecord, Disposition, LoadResult, RowIssue
from lexprobe.caselaw.sources.tables import (
    RowError,
    int_field,
    load_rows,
    numbered_rows,
    open_text,
    read_header,
    text_facts,
)

SOURCE = "songer"

#: treatment codes → the study's coarsening.
DISPOSITIONS: dict[int, Disposition] = {1: "affirm", 2: "reverse", 3: "reverse", 4: "reverse", 7: "reverse"}

#: Songer state codes → postal codes.
_STATE_ORDER = (
    "AL AK AZ AR CA CO CT DE FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY NC ND OH OK OR PA "
    "RI SC SD TN TX UT VT VA WA WV WI WY VI PR DC GU"
)
STATES: dict[int, str] = dict(enumerate(_STATE_ORDER.split(" "), start=1)) | {57: "MP"}

REQUIRED_COLUMNS = ("casenum", "year", "citevol", "beginpage", "decisiondate", "docketnum", "treatment", "circuit")

SIGNED_OPINION = "1"

#: Codes whose Auburn judge is not the judge cta02 means by them (see the module docstring).
MISALIGNED_CODES = frozenset({"570"})


def load(path: Path, auburn_dir: Path | None = None) -> LoadResult:
    """Load cta02 at `path`; judge names come from the Auburn files in `auburn_dir` (default: beside `path`)."""
    result = LoadResult()
    judges = load_judges(auburn_dir if auburn_dir is not None else path.parent, result)
    with open_text(path) as handle:
        reader = csv.reader(handle)
        header = read_header(reader, path, REQUIRED_COLUMNS, "not the Courts of Appeals Database")
        rows = list(numbered_rows(reader))
    casenum = header.index("casenum")
    counts = Counter(fields[casenum].strip() for _, fields in rows if len(fields) > casenum)

    def build(row: dict[str, str], line: int) -> CaseRecord:
        return _case(row, line, counts[row["casenum"].strip()] > 1, judges)

    result.cases = load_rows(rows, header, path, SOURCE, result, build)
    return result


@dataclass(frozen=True)
class Judge:
    """One Auburn row: a judge's name and the years that bound when the judge can have written an opinion."""

    name: str
    appointed: int | None
    died: int | None


def load_judges(folder: Path, result: LoadResult) -> dict[str, list[Judge]]:
    """Return Songer judge code → the Auburn judges holding it, from the appeals and district files in `folder`.

    A missing file is reported once in `result.issues`.
    """
    import pandas as pd  # only needed here, and slow to import

    tables = (("auburn_appct.dta", "ids", "yeara"), ("auburn_district.dta", "songer_code", "ayear"))
    judges: dict[str, list[Judge]] = {}
    for file_name, code_column, appointed_column in tables:
        file_path = folder / file_name
        if not file_path.exists():
            result.issues.append(RowIssue(SOURCE, str(file_path), "Auburn judge file not found: authors left empty"))
            continue
        columns = [code_column, "name", appointed_column, "yeard"]
        frame = pd.read_stata(file_path, columns=columns, convert_categoricals=False, convert_dates=False)
        for code, name, appointed, died in frame.itertuples(index=False, name=None):
            if pd.notna(code) and isinstance(name, str) and name.strip():
                judge = Judge(natural_name(name), _year_or_none(appointed), _year_or_none(died))
                judges.setdefault(str(int(code)), []).append(judge)
    return judges


def author_name(judges: dict[str, list[Judge]], code: str, year: int | None) -> str | None:
    """Return the one judge `code` can name for a decision of `year`, or None (unknown, implausible, ambiguous)."""
    if code in MISALIGNED_CODES:
        return None
    names = {judge.name for judge in judges.get(code, ()) if _could_sit(judge, year)}
    return names.pop() if len(names) == 1 else None


def _could_sit(judge: Judge, year: int | None) -> bool:
    if year is None:
        return True
    return (judge.appointed is None or judge.appointed <= year) and (judge.died is None or judge.died >= year)


def _year_or_none(value: object) -> int | None:
    """Auburn years: 9999 (still living/serving) and values outside 1700..2100 (99 is used as missing) → None."""
    try:
        year = int(value)  # type: ignore[call-overload]
    except (TypeError, ValueError):
        return None
    return year if 1700 <= year <= 2100 else None


def natural_name(name: str) -> str:
    """Turn "Last, First Middle[, Suffix]" into "First Middle Last[, Suffix]"."""
    parts = [" ".join(part.split()) for part in name.split(",") if part.strip()]
    if len(parts) < 2:
        return " ".join(name.split())
    last, rest = parts[0], parts[1:]
    suffix = None
    if len(rest) > 1 and _is_suffix(rest[-1]):
        suffix = rest.pop()
    elif len(rest[-1].split()) > 1 and _is_suffix(rest[-1].split()[-1]):  # "Roberts, John G. Jr."
        *first, suffix = rest.pop().split()
        rest.append(" ".join(first))
    full = " ".join([*rest, last])
    return f"{full}, {suffix}" if suffix else full


def _is_suffix(word: str) -> bool:
    return word.rstrip(".") in {"Jr", "Sr", "I", "II", "III", "IV"}


def _case(row: dict[str, str], line: int, repeated_casenum: bool, judges: dict[str, list[Judge]]) -> CaseRecord:
    casenum = row["casenum"].strip()
    if not casenum:
        raise RowError("empty casenum")
    circuit_code = row["circuit"].strip()
    if circuit_code == "0":
        court_id, circuit = "cadc", "dc"
    elif circuit_code.isdigit() and 1 <= int(circuit_code) <= 11:
        court_id, circuit = f"ca{int(circuit_code)}", str(int(circuit_code))
    else:
        raise RowError(f"circuit {circuit_code!r} is not 0 (D.C.) or 1..11")
    volume, page = int_field(row, "citevol"), int_field(row, "beginpage")
    if volume is None or page is None:
        raise RowError("no F.3d citation (citevol/beginpage empty)")
    sample_year = int_field(row, "year")
    extra: list[tuple[str, str]] = []
    if repeated_casenum:
        extra.append(("casenum", casenum))
    decided = _date(row["decisiondate"])
    if decided is not None and sample_year is not None and abs(decided.year - sample_year) > 1:
        decided = None
    if decided is None and row["decisiondate"].strip():
        extra.append(("decisiondate_raw", row["decisiondate"].strip()))
    state_code, author_code, status = (row.get(column, "").strip() for column in ("state", "j1", "opinionstatus"))
    extra += text_facts(row, state_code="state", district_code="district", j1="j1", opinionstatus="opinionstatus")
    treatment = int_field(row, "treatment")
    year = decided.year if decided else sample_year
    return CaseRecord(
        source=SOURCE,
        source_id=f"{casenum}-L{line}" if repeated_casenum else casenum,
        court_id=court_id,
        citations=(f"{volume} F.3d {page}",),
        decision_date=decided.isoformat() if decided else None,
        year=year,
        docket=row["docketnum"].strip() or None,
        author=author_name(judges, author_code, year) if status == SIGNED_OPINION else None,
        disposition=DISPOSITIONS.get(treatment) if treatment is not None else None,
        disposition_raw=str(treatment) if treatment is not None else None,
        state=STATES.get(int(state_code)) if state_code.isdigit() else None,
        circuit=circuit,
        extra=tuple(extra),
    )


def _date(text: str) -> dt.date | None:
    """Parse MM/DD/YY or M/D/YYYY; None if it is neither."""
    try:
        month, day, year = (int(part) for part in text.strip().split("/"))
        if year < 100:
            year += 1900 if year >= 50 else 2000
        return dt.date(year, month, day)
    except ValueError:
        return None
