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
- `safe_value(v)` is `safe_text` for a string of any kind (a Jinja `Markup` stays `Markup`) and leaves anything else
  as it is: the `finalize` hook of every HTML template environment, so no page shows a raw control or bidi character.
- `make_inert(console)` is the safety net under all of these: every later `print` of that Rich console passes the
  text it renders through `safe_text` (Rich's own colour and cursor codes are untouched). The CLI's consoles
  (`cli.output`) are made inert, so a value a printer forgot to pass through `safe_text` still prints visibly.
  Callers still escape where they build the text: Rich measures a table cell before the net widens "\\x1b" to
  four characters, so only text made safe first keeps its columns aligned.

Left alone on purpose: the bidi *marks* U+200E, U+200F and U+061C (they only decide the direction of neutral
characters next to them and appear in ordinary right-to-left text), and the line and paragraph separators
U+2028/U+2029 (terminals print them as spaces or not at all).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from rich.console import Console, ConsoleOptions, RenderableType, RenderHook
from rich.markup import escape
from rich.segment import Segment

#: C0 controls except tab and newline, DEL, C1 controls, the bidirectional embeddings, overrides and isolates, and
#: lone surrogates (from a JSON "\\ud800" escape: not printable, and a UTF-8 terminal cannot even encode them).
_UNSAFE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def _visible(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def safe_text(text: str) -> str:
    """Return `text` with every terminal control character shown as an escape ("\\x1b", "\\x9b", "\\u202e").

    Newlines and tabs are kept; everything else below U+0020 (NUL included), DEL, the C1 controls U+0080-U+009F,
    the bidirectional embeddings, overrides and isolates U+202A-U+202E and U+2066-U+2069 and lone surrogates are
    replaced, so printing the result cannot move the cursor, clear the screen, retitle the window, open a hyperlink,
    reorder the text or fail to encode.
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


def safe_value(value: Any) -> Any:
    """Return `safe_text(value)` for a string, of the same type (a Jinja `Markup` stays `Markup`, so trusted HTML is
    not escaped twice); any other value unchanged. The `finalize` hook of every HTML template environment."""
    if isinstance(value, str) and _UNSAFE.search(value):
        return type(value)(safe_text(value))
    return value


class _Inert:
    """A renderable printed with `safe_text` applied to every piece of text it renders; Rich's control segments
    (cursor moves of a live display) pass as they are, and styles are applied after, so colours still work."""

    def __init__(self, renderable: RenderableType) -> None:
        self.renderable = renderable

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> Iterator[Segment]:
        for segment in console.render(self.renderable, options):
            if segment.control or not _UNSAFE.search(segment.text):
                yield segment
            else:
                yield Segment(safe_text(segment.text), segment.style)


class _InertHook(RenderHook):
    def process_renderables(self, renderables: list[Any]) -> list[Any]:  # type: ignore[override]
        return [_Inert(renderable) for renderable in renderables]


def make_inert(console: Console) -> Console:
    """Make every later `print`/`log` of `console` pass its rendered text through `safe_text` (see the module
    docstring) and return the console."""
    console.push_render_hook(_InertHook())
    return console
