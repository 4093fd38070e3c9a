"""Plain-text renderer: the document plan as UTF-8 lines, one paragraph per line, blank lines between blocks.

Consecutive chat messages and Q/A blocks stay together without blank lines; a deposition prints its pages of 25
numbered lines, each headed "Page N". Plain text has no page numbers otherwise.
"""

from __future__ import annotations

from pathlib import Path

from lexprobe.documents.content import QA, ChatMessage, DocumentContent
from lexprobe.documents.render.plan import Rule, document_plan, part_lines
from lexprobe.documents.render.style import house_style


def render_text(content: DocumentContent, seed: int = 0) -> str:
    """Return the document as plain text (ends with a newline)."""
    style = house_style(seed)
    chunks: list[list[str]] = []
    previous: object = None
    for part in document_plan(content, style):
        lines = part_lines(part, style)
        run_on = isinstance(part, Rule) or (isinstance(part, QA | ChatMessage) and type(part) is type(previous))
        if chunks and run_on:
            chunks[-1].extend(lines)
        else:
            chunks.append(lines)
        previous = part
    return "\n\n".join("\n".join(chunk) for chunk in chunks) + "\n"


def render_txt(content: DocumentContent, path: Path, seed: int = 0) -> None:
    """Write the document to `path` as UTF-8 text with LF line ends."""
    path.write_text(render_text(content, seed), encoding="utf-8", newline="\n")
