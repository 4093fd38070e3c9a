"""Printing untrusted text (model output, tool output, document text, file names) to a terminal safely.

Text that came from a model, a document or an environment can hold terminal control sequences: "\\x1b[2J" clears
the screen, "\\x1b]0;...\\x07" retitles the window, OSC 8 makes hidden links, a C1 control such as "\\x9b" is a CSI
on its own, "\\r" overwrites what was printed, and bidirectional overrides (U+202E) make a command read differently
from what it is. Rich also reads "[bold]" or "[link=...]" inside a string as markup, and ":smile:" as an emoji.

- `safe_text(s)` makes every such character visible as an escape ("\\x1b", "\\x9b", "\\u202e"), keeping newlines
  and tabs: use it for text printed with `print()` or as a `rich.text.Text` (which Rich never reads as markup).
- `safe_markup(s)` is `safe_text` with Rich markup escaped too: use it for untrusted text placed inside a Rich
  markup string (print such strings with `emoji=False`, since markup escaping does not cover emoji codes).
- `safe_json(s)` escapes the same characters inside a JSON document as "\\u001b" escapes (still valid JSON).
"""

from __future__ import annotations

import re

from rich.markup import escape

#: C0 controls except tab and newline, DEL, C1 controls, and the bidirectional embeddings, overrides and isolates.
_UNSAFE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _visible(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def safe_text(text: str) -> str:
    """Return `text` with every terminal control character shown as an escape ("\\x1b", "\\x9b", "\\u202e").

    Newlines and tabs are kept; everything else below U+0020, DEL, the C1 controls U+0080-U+009F and the
    bidirectional controls U+202A-U+202E and U+2066-U+2069 are replaced, so printing the result cannot move the
    cursor, clear the screen, retitle the window, open a hyperlink or reorder the text.
    """
    return _UNSAFE.sub(_visible, text)


def safe_markup(text: str) -> str:
    """Return `safe_text(text)` with Rich markup escaped, for untrusted text inside a Rich markup string:
    "[bold]x[/bold]" prints as written instead of bold."""
    return escape(safe_text(text))


def safe_json(document: str) -> str:
    """Return a JSON document with the control characters `safe_text` replaces written as "\\uXXXX" escapes.

    JSON allows such characters only inside strings, where the escape means the same character, so the result
    parses to the same value.
    """
    return _UNSAFE.sub(lambda match: f"\\u{ord(match.group()):04x}", document)
