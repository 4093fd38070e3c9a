"""File names as `lexprobe check` shows them: on the terminal, in `--json` and in the `--html` page.

A POSIX file name is bytes. Python decodes one that is not valid UTF-8 with "surrogateescape", so
`b"brief\\xff.txt"` arrives as "brief\\udcff.txt": a lone surrogate, which no UTF-8 writer accepts (writing it
raised UnicodeEncodeError half-way through the page) and which a terminal must not receive raw. `display_name`
shows each such byte as a visible "\\xff" escape, and any other lone surrogate as "\\udXXX", so the name is valid
text everywhere; terminal control characters are left for `lexprobe.terminal.safe_text` to escape.
"""

from __future__ import annotations

import os
import re

_SURROGATE = re.compile(r"[\ud800-\udfff]")


def _visible(match: re.Match[str]) -> str:
    code = ord(match.group())
    if 0xDC80 <= code <= 0xDCFF:  # an undecodable byte, as "surrogateescape" carries it
        return f"\\x{code - 0xDC00:02x}"
    return f"\\u{code:04x}"


def display_name(path: str | os.PathLike[str]) -> str:
    """Return `path` as text that encodes as UTF-8: every byte that was not valid UTF-8 shown as "\\xNN", any
    other lone surrogate as "\\uXXXX"; a valid name is returned unchanged."""
    return _SURROGATE.sub(_visible, os.fspath(path))
