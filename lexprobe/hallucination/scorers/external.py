"""Score answers produced elsewhere (`lexprobe hallucination score-answers`): one JSON object a line,
`{"task", "case", "answer"}` plus `"dissenter"` for false_dissent and `"case2"` for doctrinal_agreement.

`case` is a citation, a case id or a case's full name (one that only one case in the database bears; a name that
several bear is unscored, its reason listing them); for fake_existence it is the fabricated case as asked and is
not looked up. Every input line yields one output line with `label` and `detail` added; a malformed line (also a
field holding a NUL or a lone surrogate, which is not text) yields a `LineError` naming its line number and is left
out of the output, and the other lines are still scored.

The input is untrusted. It is read as bytes and decoded line by line, so a bad byte spoils only its own line; a
line longer than `MAX_LINE_BYTES`, nested deeper than `MAX_DEPTH` or holding a number of more than `MAX_DIGITS`
digits is a `LineError` (never a traceback, never a quadratic parse). The encoding is UTF-8 (a UTF-8 byte-order
mark is skipped); a file that starts with a UTF-16 or UTF-32 byte-order mark (what Windows PowerShell's `>` writes)
is decoded in that encoding, and `read_answer_lines` says so, so the caller can suggest UTF-8.
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, BinaryIO

from lexprobe.caselaw.query import CaseDatabase
from lexprobe.errors import BadInputError
from lexprobe.hallucination.labels.score import Score
from lexprobe.hallucination.scorers.by_task import SCORERS, ScoringContext
from lexprobe.hallucination.tasks import TASKS
from lexprobe.hallucination.tasks.base import shown
from lexprobe.models.types import Request

if TYPE_CHECKING:
    from lexprobe.engine.store import RunStore
    from lexprobe.hallucination.scorers.model_reader import ReaderPass

MAX_LINE_BYTES = 1 << 20  # 1 MiB: an answer line is a few KB; a longer line is refused, not parsed
MAX_DEPTH = 32  # an answer line is a flat object; deeper nesting is refused before `json.loads` recurses
MAX_DIGITS = 100  # numbers carry no meaning here; a long one is refused before int() spends quadratic time
_CHUNK_BYTES = 1 << 16

# byte-order mark -> codec, longest first (the UTF-32 LE mark begins with the UTF-16 LE one)
_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_BRACKET = re.compile(r"[\[\]{}]")


@dataclass(frozen=True)
class LineError:
    """A line that could not be scored at all."""

    line: int
    message: str


@dataclass(frozen=True)
class AnswerLine:
    """One decoded input line and its 1-based number in the file."""

    line: int
    text: str


class _NumberTooLong(ValueError):
    def __init__(self, digits: int) -> None:
        super().__init__(f"a number with {digits:,} characters (at most {MAX_DIGITS} allowed)")


def detect_encoding(head: bytes) -> tuple[str, int]:
    """Return (codec, length of the byte-order mark) for a file that starts with `head` (UTF-8 when no mark)."""
    for bom, codec in _BOMS:
        if head.startswith(bom):
            return codec, len(bom)
    return "utf-8", 0


def _find_newline(buffer: bytes, newline: bytes, start: int) -> int:
    """Return the index of the first `newline` at or after `start` that is aligned to a code unit, else -1."""
    unit = len(newline)
    index = buffer.find(newline, start)
    while index >= 0 and (index - start) % unit:
        index = buffer.find(newline, index + 1)
    return index


def split_lines(
    handle: BinaryIO, newline: bytes, limit: int = MAX_LINE_BYTES, head: bytes = b""
) -> Iterator[bytes | None]:
    """Yield the bytes of every line of `head` + `handle` (without the newline), or None for a line over `limit`.

    Never holds more than `limit` plus one chunk in memory. `newline` is the encoded "\\n" (2 bytes in UTF-16), and
    only newlines aligned to that code-unit size end a line. Raises `BadInputError` when the file cannot be read.
    """
    unit = len(newline)
    buffer = head
    too_long = False
    while True:
        start = 0
        while (index := _find_newline(buffer, newline, start)) >= 0:
            yield None if too_long or index - start > limit else buffer[start:index]
            too_long = False
            start = index + unit
        buffer = buffer[start:]
        if len(buffer) > limit:  # the line goes on past the limit: drop what we have, keep code-unit alignment
            too_long = True
            buffer = buffer[len(buffer) - len(buffer) % unit :]
        chunk = _read(handle, _CHUNK_BYTES)
        if not chunk:
            break
        buffer += chunk
    if buffer or too_long:
        yield None if too_long or len(buffer) > limit else buffer


def _read(handle: BinaryIO, size: int) -> bytes:
    """Read up to `size` bytes; raises `BadInputError` naming the file when it cannot be read."""
    try:
        return handle.read(size)
    except OSError as exc:
        raise BadInputError(f"cannot read {getattr(handle, 'name', 'the input')}: {exc.strerror or exc}") from None


def _decode(raw: bytes, codec: str) -> str:
    """Decode one line; raises ValueError naming the first bad byte and a likely cause."""
    try:
        return raw.decode(codec)
    except UnicodeDecodeError as exc:
        message = f"not valid {codec.upper()} text (byte 0x{raw[exc.start]:02x} at byte {exc.start + 1} of the line)"
        raise ValueError(message + "; is it a binary file?") from None


def read_answer_lines(handle: BinaryIO) -> tuple[str, Iterator[AnswerLine | LineError]]:
    """Return the codec of a binary answers file and an iterator over its numbered lines, each decoded on its own.

    A line that cannot be decoded or is longer than `MAX_LINE_BYTES` becomes a `LineError`; blank lines are kept
    (they are skipped when scored). The codec is "utf-8" unless the file starts with a UTF-16/32 byte-order mark.
    """
    head = _read(handle, 4)
    codec, bom = detect_encoding(head)
    newline = "\n".encode(codec)

    def lines() -> Iterator[AnswerLine | LineError]:
        for number, raw in enumerate(split_lines(handle, newline, head=head[bom:]), start=1):
            if raw is None:
                yield LineError(number, f"line longer than {MAX_LINE_BYTES:,} bytes; not read")
                continue
            try:
                text = _decode(raw, codec)
            except ValueError as exc:
                yield LineError(number, str(exc))
                continue
            yield AnswerLine(number, text)

    return codec, lines()


def too_deep(text: str, limit: int = MAX_DEPTH) -> bool:
    """Return True when the brackets of JSON `text` nest more than `limit` deep outside strings (linear time)."""
    if text.count("[") + text.count("{") <= limit:
        return False
    depth = 0
    for match in _BRACKET.finditer(_STRING.sub('""', text)):
        depth += 1 if match.group() in "[{" else -1
        if depth > limit:
            return True
    return False


def _bounded_number(kind: Callable[[str], object]) -> Callable[[str], object]:
    """Return a JSON number parser that refuses a literal longer than `MAX_DIGITS` before converting it."""

    def parse(text: str) -> object:
        if len(text) > MAX_DIGITS:
            raise _NumberTooLong(len(text))
        return kind(text)

    return parse


_PARSE_INT = _bounded_number(int)
_PARSE_FLOAT = _bounded_number(float)


def parse_record(text: str) -> dict:
    """Parse one answer line into its JSON object; raises ValueError with the reason it cannot be one."""
    if too_deep(text):
        raise ValueError(f"JSON nested deeper than {MAX_DEPTH} levels")
    try:
        record = json.loads(text, parse_int=_PARSE_INT, parse_float=_PARSE_FLOAT)
    except _NumberTooLong as exc:
        raise ValueError(f"not an answer line: {exc}") from None
    except json.JSONDecodeError as exc:
        hint = "; the line holds NUL bytes: is the file UTF-16 without a byte-order mark?" if "\0" in text else ""
        raise ValueError(f"not valid JSON ({exc.msg.removesuffix(' at')} at column {exc.colno}){hint}") from None
    except (ValueError, RecursionError) as exc:
        raise ValueError(f"not valid JSON ({type(exc).__name__})") from None
    if not isinstance(record, dict):
        raise ValueError("expected a JSON object")
    return record


def unreadable_field(record: dict) -> str | None:
    """Return why a field of an answer line cannot be read as text (a NUL character, or a lone surrogate such as
    the JSON escape "\\ud800", which no UTF-8 text holds), or None when every string field is text."""
    for key, value in record.items():
        for text in (key, value) if isinstance(value, str) else (key,):
            if "\0" in text:
                return f"field {shown(key)} holds a NUL character; not text"
            try:
                text.encode("utf-8")
            except UnicodeEncodeError as exc:
                return f"field {shown(key)} holds a lone surrogate ({text[exc.start]!r}); not text"
    return None


def reference_for(task: str, record: dict, db: CaseDatabase) -> tuple[dict | None, str | None]:
    """Return (reference, None) for one external answer line, or (None, reason) when no reference exists: the
    task's own reference lookup (`TaskSpec.lookup` in the task registry)."""
    spec = TASKS.get(task)
    if spec is None or spec.lookup is None:
        return None, f"task {task} has no reference-based scorer"
    return spec.lookup(record, db)


def _numbered(lines: Iterable[str | AnswerLine | LineError]) -> Iterator[AnswerLine | LineError]:
    for number, line in enumerate(lines, start=1):
        yield AnswerLine(number, line) if isinstance(line, str) else line


def score_lines(
    lines: Iterable[str | AnswerLine | LineError],
    db: CaseDatabase,
    reader: ReaderPass | None = None,
    store: RunStore | None = None,
) -> Iterator[dict | LineError]:
    """Yield each input line scored (the input object plus `label` and `detail`), or a `LineError`.

    `lines` are text lines (numbered from 1) or the output of `read_answer_lines`; blank lines are skipped. With a
    `reader` (`score-answers --reader`, `run/score_file.py`) an answer the rules leave unscored is labelled by the
    reader's reading where `store` holds one (the line then also carries `reader`, `reader_decision`,
    `reader_value` and `rules`), and the reader's requests still to send are collected in `reader.unread`.
    """
    context = ScoringContext(db)
    for line in _numbered(lines):
        if isinstance(line, LineError):
            yield line
            continue
        if not line.text.strip():
            continue
        try:
            record = parse_record(line.text)
        except ValueError as exc:
            yield LineError(line.line, str(exc))
            continue
        missing = [key for key in ("task", "case", "answer") if not isinstance(record.get(key), str)]
        if missing:
            yield LineError(line.line, f"missing or non-string field(s): {', '.join(missing)}")
            continue
        problem = unreadable_field(record)
        if problem:
            yield LineError(line.line, problem)
            continue
        task = record["task"]
        if task not in SCORERS:
            yield LineError(line.line, f"unknown task {shown(task)}; scorable: {', '.join(sorted(SCORERS))}")
            continue
        found, reason = reference_for(task, record, db)
        reference = TASKS[task].reference_of(found) if found is not None else None  # read once, typed, from here
        score = (
            SCORERS[task](record["answer"], reference, context)
            if reference is not None
            else Score("unscored", f"reference missing: {reason}")
        )
        keys: dict = {}
        if reader is not None and store is not None and reference is not None:
            unit = answer_unit(line.line, task, record)
            score, keys, _ = reader.apply(store, unit, task, record["answer"], score, reference, context)
        yield record | {"label": score.label, "detail": score.detail} | keys


#: The parts of a task's Table 2 question that an answer line fills in, and from which field ("case" by default).
_QUESTION_FIELDS = {"{case}": "case", "{case1}": "case", "{case2}": "case2", "{fabricated case}": "case",
                    "{never-overruled case}": "case", "{X}": "dissenter"}  # fmt: skip


def answer_unit(number: int, task: str, record: dict) -> Request:
    """Return the stand-in for the question an answer line answered, as the model reader is shown it: the task's
    Table 2 question with the line's case (and dissenter, second case) filled in, id `line <number>`."""
    question = re.sub(r"\s*\([^)]*\)\s*$", "", TASKS[task].question)  # "(X wrote no dissent)" is not asked
    for part, name in _QUESTION_FIELDS.items():
        question = question.replace(part, str(record.get(name) or part.strip("{}")))
    return Request.from_prompt("score-answers", question, id=f"line {number}")
