"""Reading one CourtListener bulk CSV file row by row, in the dialect its export really used.

CourtListener's bulk files are PostgreSQL `COPY ... TO STDOUT WITH (FORMAT csv, ENCODING utf8, HEADER, ...)`
dumps, compressed with bzip2 (freelawproject/courtlistener `scripts/make_bulk_data.sh`). The quoting changed twice:

- since 2025-01-23 (`ESCAPE '\\', FORCE_QUOTE *`): every value in double quotes, a quote inside a value written
  `\\"` and a backslash `\\\\`; Python's default reader (which expects `""`) splits such rows wrongly;
- 2024-08-07 to 2025-01-23 (`QUOTE '`', FORCE_QUOTE *`): values in backticks, a backtick inside doubled;
- before 2024-08-07 (`FORCE_QUOTE *`): standard CSV, values in double quotes, a quote inside doubled.

In all three an unquoted empty value is NULL and booleans are `t`/`f`; the header row is not quoted. The dialect is
read from the file itself (see `detect_dialect`); the date in the file name breaks a tie.

Rows come back as dicts keyed by the header's column names, empty values (NULL or "") as None. A row whose field
count differs from the header's becomes a `RowIssue` (first `MAX_ISSUES_PER_FILE` of them, then a count).
"""

from __future__ import annotations

import csv
import io
import lzma
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from lexprobe.caselaw.records import ProgressFn, RowIssue
from lexprobe.caselaw.sources.encoding import (
    SNIFF_BYTES,
    CountingReader,
    decompressed,
    wide_encoding,
    wide_encoding_message,
)
from lexprobe.errors import BadInputError

SOURCE = "courtlistener"
MAX_ISSUES_PER_FILE = 1000
#: The largest single value read (an opinion's HTML can run to megabytes; anything beyond this is not a value).
MAX_FIELD_CHARS = 256 * 1024 * 1024
_SAMPLE_CHARS = 512 * 1024
_PROGRESS_STEP = 4 * 1024 * 1024
_BACKTICK_SINCE = "2024-08-07"
_DATE_IN_NAME = re.compile(r"(\d{4}-\d{2}-\d{2})")


def _dialect(quotechar: str, escapechar: str | None) -> type[csv.Dialect]:
    """One quoting of the export: comma-separated rows, a quote inside a value escaped or else doubled."""
    attributes = {
        "delimiter": ",",
        "quotechar": quotechar,
        "escapechar": escapechar,
        "doublequote": escapechar is None,
        "lineterminator": "\n",
        "quoting": csv.QUOTE_MINIMAL,
        "skipinitialspace": False,
        "strict": False,
    }
    return type("BulkDialect", (csv.Dialect,), attributes)


#: The three quotings (see the module docstring): 2025 on `\\"` and `\\\\` inside double quotes (ESCAPE '\\'),
#: 2024-08-07 to 2025-01-23 values in backticks (a backtick inside doubled), before standard CSV (quotes doubled).
DIALECTS: dict[str, type[csv.Dialect]] = {
    "escape": _dialect('"', "\\"),
    "backtick": _dialect("`", None),
    "doubled": _dialect('"', None),
}


def _refuse_wide_encoding(path: Path) -> None:
    """Raise `BadInputError` naming the encoding when the file's text is UTF-16 or UTF-32 (not "unreadable")."""
    with open(path, "rb") as raw, decompressed(path, raw) as stream:
        try:
            head = stream.read(SNIFF_BYTES)
        except (OSError, EOFError, lzma.LZMAError):
            return  # a damaged file: reading it proper reports the damage with its line
    if encoding := wide_encoding(head):
        raise BadInputError(f"{path}: {wide_encoding_message(encoding)}")


def _text_stream(path: Path, raw: IO[bytes]) -> io.TextIOWrapper:
    return io.TextIOWrapper(decompressed(path, raw), encoding="utf-8", newline="")


def detect_dialect(path: Path) -> str:
    """Name the dialect ("escape", "backtick" or "doubled") one bulk file was written in.

    The first data value tells a backtick file. For double quotes, the first ~512 KB are parsed both ways and the
    reading that gives more rows of the header's width wins; a tie (no quote inside any value yet) goes by the date
    in the file name (before 2024-08-07 doubled, else escaped)."""
    chunks: list[bytes] = []
    with open(path, "rb") as raw, decompressed(path, raw) as stream:
        try:
            while sum(map(len, chunks)) < _SAMPLE_CHARS and (chunk := stream.read(256 * 1024)):
                chunks.append(chunk)
        except (OSError, EOFError, lzma.LZMAError):
            pass  # a damaged file: decide on what was readable; reading it proper reports the damage
    sample = b"".join(chunks).decode("utf-8", errors="replace")
    header, _, body = sample.partition("\n")
    width = len(next(csv.reader([header]), []))
    if body.startswith("`"):
        return "backtick"
    scores = {name: _complete_rows(body, DIALECTS[name], width) for name in ("escape", "doubled")}
    if scores["escape"] != scores["doubled"]:
        return max(scores, key=lambda name: scores[name])
    match = _DATE_IN_NAME.search(path.name)
    if match and match.group(1) < _BACKTICK_SINCE:
        return "doubled"
    return "escape"


def _complete_rows(body: str, dialect: type[csv.Dialect], width: int) -> int:
    """How many rows of the sample (its last, maybe cut-off row left out) parse to the header's width."""
    rows = list(csv.reader(io.StringIO(body, newline=""), dialect))[:-1]
    return sum(len(row) == width for row in rows) - sum(len(row) != width for row in rows)


@dataclass
class FileReport:
    """What reading one file produced besides its rows."""

    rows: int = 0
    issues: list[RowIssue] = field(default_factory=list)
    unlisted_issues: int = 0
    dialect: str = ""

    def add_issue(self, location: str, message: str) -> None:
        """Keep the first `MAX_ISSUES_PER_FILE` issues; count the rest."""
        if len(self.issues) < MAX_ISSUES_PER_FILE:
            self.issues.append(RowIssue(SOURCE, location, message))
        else:
            self.unlisted_issues += 1


def read_rows(
    path: Path,
    required: tuple[str, ...],
    report: FileReport,
    progress: ProgressFn | None = None,
    wanted: tuple[str, ...] | None = None,
) -> Iterator[tuple[int, dict[str, str | None]]]:
    """Yield (line number, row) for every data row of a bulk CSV file; empty values are None. A row holds the
    `wanted` columns the header has (all columns when None), keyed by name.

    Raises `BadInputError` (one line naming the file) when the header lacks a `required` column or the file is
    truncated, corrupt or not UTF-8; rows of the wrong width become issues in `report`."""
    _refuse_wide_encoding(path)
    report.dialect = detect_dialect(path)
    dialect = DIALECTS[report.dialect]
    if csv.field_size_limit() < MAX_FIELD_CHARS:
        csv.field_size_limit(MAX_FIELD_CHARS)
    size = path.stat().st_size
    label = path.name
    with open(path, "rb", buffering=0) as plain:
        counting = CountingReader(plain)
        buffered = io.BufferedReader(counting, buffer_size=1024 * 1024)
        with _text_stream(path, buffered) as text:  # type: ignore[arg-type]
            reader = csv.reader(text, dialect)
            try:
                header = next(reader, None)
                if header is None:
                    return
                _check_header(path, header, required)
                names = wanted if wanted is not None else tuple(header)
                picks = [(name, header.index(name)) for name in names if name in header]
                next_report = 0
                for start, row in _well_formed(reader, path, len(header), report):
                    yield start, {name: (row[index] or None) for name, index in picks}
                    if progress is not None and counting.count >= next_report:
                        progress(label, counting.count, size)
                        next_report = counting.count + _PROGRESS_STEP
            except (OSError, EOFError, UnicodeDecodeError, lzma.LZMAError) as exc:
                raise BadInputError(
                    f"{path}:{reader.line_num + 1}: unreadable after {counting.count:,} of {size:,} bytes "
                    f"({_reason(exc)}): the file is truncated or corrupt; download it again"
                ) from None
    if progress is not None:
        progress(label, size, size)
    if report.unlisted_issues:
        report.issues.append(
            RowIssue(SOURCE, str(path), f"{report.unlisted_issues:,} more malformed rows not listed one by one")
        )


def _check_header(path: Path, header: list[str], required: tuple[str, ...]) -> None:
    """Raise `BadInputError` naming the file when its header lacks a required column."""
    missing = [name for name in required if name not in header]
    if missing:
        shown = ",".join(header[:8]) + (",..." if len(header) > 8 else "")
        raise BadInputError(
            f"{path}:1: not a CourtListener {_kind_word(path)} file: the header lacks "
            f"{', '.join(missing)} (found {shown[:200]!r})"
        )


def _well_formed(reader: Any, path: Path, width: int, report: FileReport) -> Iterator[tuple[int, list[str]]]:
    """Yield (first line number, fields) of each row as wide as the header; an unreadable or wrongly wide row is an
    issue in `report` instead."""
    while True:
        start = reader.line_num + 1  # a row's first line (a value may hold newlines)
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            report.add_issue(f"{path}:{start}", f"unreadable CSV row: {exc}")
            continue
        report.rows += 1
        if len(row) != width:
            report.add_issue(
                f"{path}:{start}",
                f"expected {width} fields (the header's), found {len(row)}: "
                f"the row's quoting does not match the file's ({report.dialect}) dialect",
            )
            continue
        yield start, row


def _kind_word(path: Path) -> str:
    return path.name.split(".")[0].rstrip("0123456789-") or "bulk"


def _reason(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0][:200]
