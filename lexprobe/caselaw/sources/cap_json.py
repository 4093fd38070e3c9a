"""JSON values out of one CAP file, in bounded memory: JSON Lines, one JSON object, or a JSON array (compact or
pretty-printed), each plain or compressed with gzip, xz or bzip2 (told by the file's first bytes, not its name).

What the file is, is told from its first 64 KiB once decompressed: a file whose text starts with "[" is a JSON
array (`CasesMetadata.json`); one whose first line is a lone "{" is a pretty-printed object (`cases/0036-01.json`)
or several such objects one after another; anything else is read as JSON Lines, one value a line (CAP's older bulk
`data.jsonl.xz`). Arrays and pretty-printed objects are decoded value by value from a sliding text buffer, so a
JSON array of any length is never held whole.

Every problem names its line and the byte offset (in the decompressed text) where the bad text starts, so a bad
line of a large file can be found (`tail -c +OFFSET+1 FILE | head -1`). A file in UTF-16 or UTF-32 (told by its
byte-order mark or its NUL bytes, `encoding.wide_encoding`) is one problem naming the encoding, not a "not UTF-8"
or "not JSON" problem on every line.

Limits on untrusted input: one value (a line, an array element, an object) may be at most `MAX_VALUE_BYTES`; a
compressed stream may not grow past `MAX_RATIO` times the compressed bytes read once it has produced
`RATIO_FREE_BYTES` (a decompression bomb); either stops or skips with a `JsonProblem`, never with a traceback.
"""

from __future__ import annotations

import bz2
import codecs
import gzip
import io
import json
import lzma
import re
import zipfile
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import IO, Any, Literal

from lexprobe.caselaw.sources.encoding import SNIFF_BYTES as SNIFF_ENCODING_BYTES
from lexprobe.caselaw.sources.encoding import CountingReader, wide_encoding, wide_encoding_message

MAX_VALUE_BYTES = 64 * 1024 * 1024  # the largest CAP case object is a few MB
MAX_RATIO = 200  # decompressed / compressed bytes; CAP's JSON compresses about 5-20 times
RATIO_FREE_BYTES = 16 * 1024 * 1024  # the ratio is checked only past this much output
CHUNK = 1024 * 1024
SNIFF_BYTES = 64 * 1024

Opener = Callable[[], IO[bytes]]
ProblemKind = Literal["not JSON", "not UTF-8", "UTF-16", "too large", "unreadable"]
Layout = Literal["jsonl", "document"]

_GZIP, _XZ, _BZIP2 = b"\x1f\x8b", b"\xfd7zXZ\x00", b"BZh"
_NON_SPACE = re.compile(r"\S")
#: What reading a damaged file raises: truncated or corrupt compression, a bad zip member (CRC, encryption).
READ_ERRORS = (OSError, EOFError, lzma.LZMAError, zlib.error, zipfile.BadZipFile, RuntimeError)


@dataclass(frozen=True)
class JsonItem:
    """One JSON value and the line it starts on."""

    line: int
    value: Any


@dataclass(frozen=True)
class JsonProblem:
    """Text that could not be read as JSON: the line, what kind of problem, a one-line message, and the byte offset
    in the decompressed text where the bad text starts (the line's first byte in JSON Lines, the spot the JSON
    decoder stopped at in a document; None where not known)."""

    line: int
    kind: ProblemKind
    message: str
    offset: int | None = None

    def where(self) -> str:
        """ "line 7, byte 1,234" (or "line 7")."""
        return f"line {self.line:,}" + (f", byte {self.offset:,}" if self.offset is not None else "")


class DecompressionBomb(OSError):
    """A compressed stream that grows far beyond what text compresses to."""


class _RatioGuard(CountingReader):
    """A decompressed stream that raises `DecompressionBomb` once it outgrows `MAX_RATIO` times its input."""

    def __init__(self, stream: IO[bytes], source: CountingReader) -> None:
        super().__init__(stream)
        self._source = source

    def close(self) -> None:
        super().close()
        self._source.close()

    def readinto(self, buffer: Any) -> int:
        # read1: what one step of decompression gives, so the text before a damaged spot is still returned
        data = self.raw.read1(len(buffer))  # type: ignore[attr-defined]
        size = len(data)
        buffer[:size] = data
        self.count += size
        if self.count > RATIO_FREE_BYTES and self.count > MAX_RATIO * max(self._source.count, 1):
            raise DecompressionBomb(
                f"decompresses to more than {MAX_RATIO} times its size ({self.count:,} bytes from "
                f"{self._source.count:,}): not read further"
            )
        return size


def open_text_bytes(opener: Opener, on_bytes: Callable[[int], None] | None = None) -> IO[bytes]:
    """Open a file through `opener` and return its decompressed bytes (gzip, xz and bzip2 told by their magic
    bytes), buffered, guarded against decompression bombs. `on_bytes(n)` is told of every n raw bytes read."""
    raw = opener()
    counting = CountingReader(raw, on_bytes)
    buffered = io.BufferedReader(counting, CHUNK)
    head = buffered.peek(6)[:6]
    stream: IO[bytes]  # returned open: the caller closes it (closing it closes the file under it)
    if head.startswith(_GZIP):
        stream = gzip.GzipFile(fileobj=buffered, mode="rb")
    elif head.startswith(_XZ):
        stream = lzma.LZMAFile(buffered)  # noqa: SIM115
    elif head.startswith(_BZIP2):
        stream = bz2.BZ2File(buffered)
    else:
        return buffered
    return io.BufferedReader(_RatioGuard(stream, counting), CHUNK)


def sniff_layout(opener: Opener) -> Layout:
    """Tell JSON Lines from a JSON document (an array, or pretty-printed objects) by the first decompressed bytes."""
    head = b""
    with open_text_bytes(opener) as stream:
        try:
            while len(head) < SNIFF_BYTES and b"\n" not in head.lstrip():
                piece = stream.read1(SNIFF_BYTES - len(head))
                if not piece:
                    break
                head += piece
        except READ_ERRORS:
            if not head:
                raise  # nothing readable at all; reading the file reports the problem with its line
    text = head.decode("utf-8", errors="replace").lstrip("\ufeff \t\r\n")
    if text.startswith("["):
        return "document"
    first_line = text.split("\n", 1)[0].strip()
    return "document" if first_line == "{" else "jsonl"


def read_values(
    opener: Opener, on_bytes: Callable[[int], None] | None = None, layout: Layout | None = None
) -> Iterator[JsonItem | JsonProblem]:
    """Yield every JSON value of a file (the elements of a top-level array), or a `JsonProblem` for text that is
    not JSON. In JSON Lines a bad line is skipped; in a document the first problem ends the reading. `layout`,
    where the caller knows it (a static export's case file is a document), saves telling it from the text."""
    try:  # a UTF-16/UTF-32 file is told from the first bytes of its decompressed text
        with open_text_bytes(opener) as stream:
            encoding = wide_encoding(stream.read(SNIFF_ENCODING_BYTES))
    except READ_ERRORS:
        encoding = None  # reading the file reports the problem with its line
    if encoding is not None:
        yield JsonProblem(1, "UTF-16", wide_encoding_message(encoding), 0)
        return
    if layout is None:
        try:
            layout = sniff_layout(opener)
        except READ_ERRORS as exc:
            yield JsonProblem(1, "unreadable", f"cannot read: {_reason(exc)}")
            return
    reader = _json_lines if layout == "jsonl" else _document
    try:
        with open_text_bytes(opener, on_bytes) as stream:
            yield from reader(stream)
    except READ_ERRORS as exc:
        yield JsonProblem(getattr(exc, "lexprobe_line", 0), "unreadable", f"cannot read further: {_reason(exc)}")


def _reason(exc: BaseException) -> str:
    return str(exc) or type(exc).__name__


def _json_lines(stream: IO[bytes]) -> Iterator[JsonItem | JsonProblem]:
    """One value a line; blank lines are not rows."""
    lineno = offset = 0
    try:
        while True:
            start = offset
            raw = stream.readline(MAX_VALUE_BYTES + 1)
            if not raw:
                return
            lineno += 1
            offset += len(raw)
            if len(raw) > MAX_VALUE_BYTES and not raw.endswith(b"\n"):
                while raw and not raw.endswith(b"\n"):  # skip the rest of the line, bounded by CHUNK at a time
                    raw = stream.readline(CHUNK)
                    offset += len(raw)
                yield JsonProblem(lineno, "too large", f"line longer than {MAX_VALUE_BYTES:,} bytes: skipped", start)
                continue
            if not raw.strip():
                continue
            try:
                yield JsonItem(lineno, json.loads(raw.decode("utf-8-sig" if lineno == 1 else "utf-8")))
            except UnicodeDecodeError as exc:
                yield JsonProblem(lineno, "not UTF-8", f"not UTF-8: {exc}", start)
            except json.JSONDecodeError as exc:
                yield JsonProblem(lineno, "not JSON", f"invalid JSON: {exc.msg} at character {exc.pos}", start)
    except READ_ERRORS as exc:
        exc.lexprobe_line = lineno + 1  # type: ignore[union-attr]
        raise


class _TooLarge(ValueError):
    pass


class _TextWindow:
    """A sliding window of decoded text over a byte stream, with the line number of its read position."""

    def __init__(self, stream: IO[bytes]) -> None:
        self._stream = stream
        self._decoder = codecs.getincrementaldecoder("utf-8")()
        self.text = ""
        self.pos = 0
        self.line = 1
        self.eof = False
        self._dropped_bytes = 0  # UTF-8 bytes of the text dropped from the window (a byte-order mark included)

    def more(self) -> bool:
        """Read more text (at least as much as is pending, so a large value is re-parsed few times); False at EOF."""
        if self.eof:
            return False
        pending = len(self.text) - self.pos
        chunk = self._stream.read(max(CHUNK, min(pending, MAX_VALUE_BYTES)))
        if not chunk:
            self.eof = True
            self.text += self._decoder.decode(b"", final=True)
            return False
        self.text += self._decoder.decode(chunk)
        if self.line == 1 and self.pos == 0 and self.text.startswith("\ufeff"):  # a byte-order mark at the start
            self.text = self.text[1:]
            self._dropped_bytes += 3
        return True

    def advance(self, to: int) -> None:
        self.line += self.text.count("\n", self.pos, to)
        self.pos = to
        if self.pos >= CHUNK:  # drop what has been read
            self._dropped_bytes += _utf8_size(self.text, 0, self.pos)
            self.text = self.text[self.pos :]
            self.pos = 0

    def byte_offset(self, position: int | None = None) -> int:
        """The byte offset in the stream of text position `position` (default: the read position)."""
        return self._dropped_bytes + _utf8_size(self.text, 0, self.pos if position is None else position)

    def next_char(self) -> str | None:
        """Skip whitespace; return the next character (not consumed), or None at the end of the text."""
        while True:
            match = _NON_SPACE.search(self.text, self.pos)
            if match:
                self.advance(match.start())
                return self.text[self.pos]
            self.advance(len(self.text))
            if not self.more() and self.pos >= len(self.text):
                return None

    def value(self, decoder: json.JSONDecoder) -> Any:
        """Decode the JSON value at the read position, reading more text until it is complete."""
        while True:
            try:
                value, end = decoder.raw_decode(self.text, self.pos)
            except json.JSONDecodeError as exc:
                near_end = exc.pos >= len(self.text) - 6 or exc.msg.startswith("Unterminated string")
                if near_end and not self.eof:
                    if len(self.text) - self.pos > MAX_VALUE_BYTES:
                        raise _TooLarge from None
                    self.more()
                    continue
                raise
            if end == len(self.text) and not self.eof and self.more():
                continue  # a number or literal at the end of the window may go on
            self.advance(end)
            return value


def _document(stream: IO[bytes]) -> Iterator[JsonItem | JsonProblem]:
    """The elements of a top-level array, or the values of a text of whole JSON values (pretty-printed objects)."""
    window = _TextWindow(stream)
    decoder = json.JSONDecoder()
    try:
        first = window.next_char()
        if first is None:
            return
        if first != "[":
            while window.next_char() is not None:
                line = window.line
                yield JsonItem(line, window.value(decoder))
            return
        window.advance(window.pos + 1)
        if window.next_char() == "]":
            window.advance(window.pos + 1)
        else:
            while True:
                window.next_char()
                line = window.line
                yield JsonItem(line, window.value(decoder))
                separator = window.next_char()
                if separator is not None:
                    window.advance(window.pos + 1)
                if separator == "]":
                    break
                if separator != ",":
                    found = "the end of the file" if separator is None else repr(separator)
                    message = f"invalid JSON: expected ',' or ']', found {found}"
                    yield JsonProblem(window.line, "not JSON", message, window.byte_offset())
                    return
        if window.next_char() is not None:
            yield JsonProblem(window.line, "not JSON", "invalid JSON: text after the closing ']'", window.byte_offset())
    except json.JSONDecodeError as exc:
        line = window.line + window.text.count("\n", window.pos, exc.pos)
        yield JsonProblem(line, "not JSON", f"invalid JSON: {exc.msg}", window.byte_offset(exc.pos))
    except UnicodeDecodeError as exc:
        yield JsonProblem(window.line, "not UTF-8", f"not UTF-8: {exc.reason}: not read further")
    except _TooLarge:
        message = f"a JSON value longer than {MAX_VALUE_BYTES:,} bytes: not read"
        yield JsonProblem(window.line, "too large", message, window.byte_offset())
    except READ_ERRORS as exc:
        exc.lexprobe_line = window.line  # type: ignore[union-attr]
        raise


def _utf8_size(text: str, start: int, end: int) -> int:
    """Bytes of `text[start:end]` in UTF-8 (a lone surrogate of a damaged file counts as its three bytes)."""
    return len(text[start:end].encode("utf-8", "surrogatepass"))
