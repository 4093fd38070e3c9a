"""CSV tables, one home for what the loaders share (SCDB, Fowler, Songer, the LoC table): opening a `.csv` or
`.csv.gz`, the header check (a file without a required column is not the table it claims to be: `BadInputError`)
and the row loop (a row whose field count differs from the header's, or whose fields cannot be used, becomes a
`RowIssue` and the load goes on)."""

from __future__ import annotations

import gzip
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any, TypeVar

from lexprobe.caselaw.records import LoadResult, RowIssue
from lexprobe.errors import BadInputError

T = TypeVar("T")


class RowError(ValueError):
    """A field of one row cannot be used; the row becomes a `RowIssue`."""


@contextmanager
def open_text(path: Path) -> Iterator[IO[str]]:
    """Open `path` as UTF-8 text (a byte-order mark skipped) for the csv module, through gzip when it ends in .gz."""
    if path.suffix == ".gz":
        with gzip.open(path, "rt", encoding="utf-8-sig", newline="") as handle:
            yield handle
    else:
        with path.open(encoding="utf-8-sig", newline="") as handle:
            yield handle


def require_columns(header: Sequence[str], required: Iterable[str], path: Path, what: str) -> None:
    """Raise `BadInputError` ("PATH: WHAT, missing columns A, B") when `header` lacks a required column."""
    missing = [name for name in required if name not in header]
    if missing:
        raise BadInputError(f"{path}: {what}, missing columns {', '.join(missing)}")


def read_header(reader: Iterator[list[str]], path: Path, required: Iterable[str], what: str) -> list[str]:
    """Read the header row of a `csv.reader` (names stripped) and check it with `require_columns`."""
    header = [name.strip() for name in next(reader, [])]
    require_columns(header, required, path, what)
    return header


def numbered_rows(reader: Any) -> Iterator[tuple[int, list[str]]]:
    """Yield (line number where the row ends, fields) for each row of a `csv.reader`."""
    for fields in reader:
        yield reader.line_num, fields


def load_rows(
    rows: Iterable[tuple[int, list[str]]],
    header: Sequence[str],
    path: Path,
    source: str,
    result: LoadResult,
    build: Callable[[dict[str, str], int], T],
) -> list[T]:
    """Return `build(row, line)` for each row with as many fields as the header, as a dict by column name.

    Every row counts in `result.rows_read`; a row of another width, or one whose `build` raises `RowError`,
    becomes a `RowIssue` at "PATH:LINE" instead.
    """
    built: list[T] = []
    for line, fields in rows:
        location = f"{path}:{line}"
        result.rows_read += 1
        if len(fields) != len(header):
            message = f"{len(fields)} fields where the header has {len(header)}"
            result.issues.append(RowIssue(source, location, message))
            continue
        try:
            built.append(build(dict(zip(header, fields, strict=True)), line))
        except RowError as exc:
            result.issues.append(RowIssue(source, location, str(exc)))
    return built


def int_field(row: dict[str, str], column: str) -> int | None:
    """The integer in `row[column]`; None when it is blank; `RowError` when it is not an integer."""
    text = row[column].strip()
    if not text:
        return None
    try:
        return int(text)
    except ValueError as exc:
        raise RowError(f"{column} {text!r} is not an integer") from exc


def text_facts(row: dict[str, str], **columns: str) -> list[tuple[str, str]]:
    """(fact, text) for each of `columns` (fact name = column) that `row` has and that is not blank, stripped."""
    return [(fact, row[column].strip()) for fact, column in columns.items() if row.get(column, "").strip()]
