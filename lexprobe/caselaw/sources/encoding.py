"""The bytes of the loaders' files: decompression told by the file name (`decompressed`), a byte count for
progress (`CountingReader`), and a UTF-16 or UTF-32 file told from the first bytes of its text, for the loaders'
one-line messages.

Every file the loaders read is UTF-8 (a UTF-8 byte-order mark is skipped). A file saved as UTF-16 (what Windows
PowerShell's `>` and some editors write) decodes as "not UTF-8" at its first byte when it starts with a byte-order
mark, and without one as text full of NUL characters that is "not JSON" on every line: neither says what is wrong.
`wide_encoding(head)` names the encoding instead ("UTF-16 little-endian with a byte-order mark"), and
`wide_encoding_message` says how to convert the file.
"""

from __future__ import annotations

import bz2
import codecs
import gzip
import io
import lzma
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

#: How many first bytes are looked at (an even number, so UTF-16 code units stay whole).
SNIFF_BYTES = 512

# longest first: the UTF-32 little-endian mark begins with the UTF-16 one
_MARKS = (
    (codecs.BOM_UTF32_LE, "UTF-32 little-endian"),
    (codecs.BOM_UTF32_BE, "UTF-32 big-endian"),
    (codecs.BOM_UTF16_LE, "UTF-16 little-endian"),
    (codecs.BOM_UTF16_BE, "UTF-16 big-endian"),
)


def wide_encoding(head: bytes) -> str | None:
    """Return the name of the UTF-16/UTF-32 encoding the text starting with `head` is in, or None (UTF-8 or
    something else). Told by a byte-order mark, or, without one, by NUL bytes: ASCII text in UTF-16 has a NUL in the
    same half of (nearly) every two-byte unit, which UTF-8 text never has."""
    for mark, name in _MARKS:
        if head.startswith(mark):
            return f"{name} with a byte-order mark"
    pairs = [head[i : i + 2] for i in range(0, min(len(head), SNIFF_BYTES) - 1, 2)]
    if len(pairs) < 2:
        return None
    low = sum(pair[1] == 0 and pair[0] != 0 for pair in pairs)  # "{\0" : little-endian
    high = sum(pair[0] == 0 and pair[1] != 0 for pair in pairs)  # "\0{" : big-endian
    for count, name in ((low, "UTF-16 little-endian"), (high, "UTF-16 big-endian")):
        if count * 10 >= len(pairs) * 9:
            return f"{name} without a byte-order mark"
    return None


def wide_encoding_message(name: str) -> str:
    """The one-line reason for a file in the encoding `name` ("UTF-16 little-endian with a byte-order mark")."""
    family = name.split(" ", 1)[0]
    return f"{name}, not UTF-8: convert it first (iconv -f {family} -t UTF-8)"


def decompressed(path: Path, raw: IO[bytes]) -> IO[bytes]:
    """`raw` read through the decompressor the file name asks for (`.bz2`, `.gz`, `.xz`), else `raw` itself."""
    name = path.name.lower()
    if name.endswith(".bz2"):
        return bz2.BZ2File(raw)
    if name.endswith(".gz"):
        return gzip.GzipFile(fileobj=raw, mode="rb")
    if name.endswith(".xz"):
        return lzma.LZMAFile(raw)
    return raw


def file_size(path: Path) -> int:
    """The size of `path` on disk in bytes, 0 when it cannot be read (for progress)."""
    try:
        return path.stat().st_size
    except OSError:
        return 0


class CountingReader(io.RawIOBase):
    """A raw stream that counts the bytes read through it (for progress and for a decompression ratio);
    `on_bytes(n)` is told of every n bytes read."""

    def __init__(self, raw: IO[bytes], on_bytes: Callable[[int], None] | None = None) -> None:
        self.raw = raw
        self._on_bytes = on_bytes
        self.count = 0

    def readable(self) -> bool:
        return True

    def close(self) -> None:
        if not self.closed:
            self.raw.close()
        super().close()

    def readinto(self, buffer: Any) -> int:
        data = self.raw.read(len(buffer))
        size = len(data)
        buffer[:size] = data
        self.count += size
        if self._on_bytes is not None and size:
            self._on_bytes(size)
        return size
