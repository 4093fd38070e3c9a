"""The agent's four tools over an environment's extracted texts: read, glob, grep, shell.

These names and arguments are the contract scripted agents and other harnesses rely on:

- `read(path, offset=1, limit=200)`: lines offset..offset+limit-1 of a document's text, each prefixed with its
  line number (`cat -n` style); `limit` is capped at `MAX_READ_LINES`.
- `glob(pattern)`: the corpus paths matching a shell pattern (`*` within a folder, `**` across folders), sorted.
- `grep(pattern, path=".")`: a Python regular expression searched line by line in every document under `path` (a
  folder or one document); each hit as `path:line: text`, with one line of context either side, at most
  `MAX_GREP_HITS` hits.
- `shell(command)`: a read-only command in a bubblewrap sandbox whose working directory holds the texts under the
  same paths (see `sandbox.py`); disabled, with a message, where bwrap is missing.

Paths are corpus paths ("emails/0001.pdf"); anything that escapes the corpus (`..`, absolute paths) is refused
with a message. Every tool's output is cut at `MAX_OUTPUT_CHARS` with a note saying so. Tool errors go back to the
model as text; nothing here raises for bad arguments. Each call returns a `ToolResult` naming the documents it
touched, so coverage and signal recall can be measured from the log.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from lexprobe.investigation.corpus_view import CorpusView
from lexprobe.investigation.sandbox import refusal, run_sandboxed, sandbox_available
from lexprobe.models.types import ToolSpec

MAX_OUTPUT_CHARS = 20_000
MAX_READ_LINES = 500
MAX_GREP_HITS = 100
TOOL_NAMES = ("read", "glob", "grep", "shell")


@dataclass
class ToolResult:
    """What one tool call returned to the model, and which documents it touched."""

    output: str
    documents: list[str] = field(default_factory=list)  # corpus paths read or matched
    refused: bool = False
    error: bool = False
    truncated: bool = False


def tool_specs(shell_enabled: bool = True) -> list[ToolSpec]:
    """Return the JSON-schema descriptions of the tools (without `shell` when it is disabled)."""
    specs = [
        ToolSpec(
            name="read",
            description="Read a document's text with line numbers. Paths are relative to the corpus.",
            parameters={
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "Document path, e.g. emails/0001.pdf"},
                    "offset": {"type": "integer", "description": "First line (1-based).", "default": 1},
                    "limit": {"type": "integer", "description": f"Lines (max {MAX_READ_LINES}).", "default": 200},
                },
                "required": ["path"],
            },
        ),
        ToolSpec(
            name="glob",
            description="List document paths matching a pattern (* within a folder, ** across folders).",
            parameters={"type": "object", "properties": {"pattern": {"type": "string"}}, "required": ["pattern"]},
        ),
        ToolSpec(
            name="grep",
            description="Search documents for a regular expression; returns path:line: text with context.",
            parameters={
                "type": "object",
                "properties": {
                    "pattern": {"type": "string"},
                    "path": {"type": "string", "description": "Folder or document to search.", "default": "."},
                },
                "required": ["pattern"],
            },
        ),
    ]
    if shell_enabled:
        specs.append(
            ToolSpec(
                name="shell",
                description="Run a read-only shell command (grep, sed -n, head, wc, ls, ...) in the corpus folder.",
                parameters={"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]},
            )
        )
    return specs


def _cut(text: str) -> tuple[str, bool]:
    if len(text) <= MAX_OUTPUT_CHARS:
        return text, False
    return text[:MAX_OUTPUT_CHARS] + f"\n[output truncated at {MAX_OUTPUT_CHARS:,} characters]", True


def _normalize(path: str) -> str | None:
    """Return a corpus path in canonical form, or None when it escapes the corpus."""
    raw = (path or ".").strip().replace("\\", "/")
    if raw.startswith("/") or re.match(r"^[A-Za-z]:", raw):
        return None
    parts = [part for part in PurePosixPath(raw).parts if part not in ("", ".")]
    if any(part == ".." for part in parts):
        return None
    return "/".join(parts)


class Toolbox:
    """Executes tool calls for one episode over one corpus view."""

    def __init__(self, view: CorpusView, *, shell: bool = True) -> None:
        self.view = view
        self.shell_enabled = shell and sandbox_available()
        self.shell_disabled_reason = None if self.shell_enabled else (
            "shell disabled by configuration" if not shell else "shell disabled: bubblewrap (bwrap) is not installed"
        )  # fmt: skip
        self._sandbox_dir: Path | None = None

    def close(self) -> None:
        """Remove the sandbox's materialized view, if one was made."""
        if self._sandbox_dir is not None:
            shutil.rmtree(self._sandbox_dir, ignore_errors=True)
            self._sandbox_dir = None

    def call(self, name: str, arguments: dict[str, Any]) -> ToolResult:
        """Run one tool call; unknown tools and bad arguments come back as error text, never as exceptions."""
        try:
            if name == "read":
                return self.read(str(arguments["path"]), int(arguments.get("offset", 1)),
                                 int(arguments.get("limit", 200)))  # fmt: skip
            if name == "glob":
                return self.glob(str(arguments["pattern"]))
            if name == "grep":
                return self.grep(str(arguments["pattern"]), str(arguments.get("path", ".")))
            if name == "shell":
                return self.shell(str(arguments["command"]))
        except KeyError as missing:
            return ToolResult(f"error: {name} needs the argument {missing}", error=True)
        except (TypeError, ValueError) as exc:
            return ToolResult(f"error: bad arguments for {name}: {exc}", error=True)
        return ToolResult(f"error: unknown tool {name!r}; available: {', '.join(self.names)}", error=True)

    @property
    def names(self) -> list[str]:
        """The tools this episode offers."""
        return [name for name in TOOL_NAMES if name != "shell" or self.shell_enabled]

    def read(self, path: str, offset: int = 1, limit: int = 200) -> ToolResult:
        """Return numbered lines of one document."""
        normalized = _normalize(path)
        if normalized is None:
            return ToolResult(f"refused: {path!r} is outside the corpus", refused=True)
        if normalized not in self.view.texts:
            why = self.view.errors.get(normalized)
            message = f"error: {normalized} could not be read ({why})" if why else f"error: no document {path!r}"
            return ToolResult(message, error=True)
        lines = self.view.lines(normalized)
        offset, limit = max(offset, 1), max(min(limit, MAX_READ_LINES), 1)
        chunk = lines[offset - 1 : offset - 1 + limit]
        body = "\n".join(f"{number:>6}\t{line}" for number, line in enumerate(chunk, start=offset))
        end = offset + len(chunk) - 1
        footer = f"\n[{normalized}: lines {offset}-{end} of {len(lines)}]" if chunk else (
            f"[{normalized} has {len(lines)} lines; offset {offset} is past the end]"
        )  # fmt: skip
        output, truncated = _cut(body + footer)
        return ToolResult(output, [normalized], truncated=truncated)

    def glob(self, pattern: str) -> ToolResult:
        """Return the corpus paths matching a pattern."""
        normalized = _normalize(pattern)
        if normalized is None:
            return ToolResult(f"refused: {pattern!r} is outside the corpus", refused=True)
        regex = _glob_regex(normalized or "**")
        matches = [path for path in self.view.paths if regex.fullmatch(path)]
        output, truncated = _cut("\n".join(matches) if matches else f"no documents match {pattern!r}")
        return ToolResult(output, truncated=truncated)

    def grep(self, pattern: str, path: str = ".") -> ToolResult:
        """Return lines matching a regular expression, with one line of context."""
        try:
            regex = re.compile(pattern)
        except re.error as exc:
            return ToolResult(f"error: bad regular expression {pattern!r}: {exc}", error=True)
        scope = _normalize(path)
        if scope is None:
            return ToolResult(f"refused: {path!r} is outside the corpus", refused=True)
        paths = [p for p in self.view.paths if not scope or p == scope or p.startswith(scope + "/")]
        if not paths:
            return ToolResult(f"error: no document or folder {path!r}", error=True)
        hits, touched = [], []
        for doc in paths:
            lines = self.view.lines(doc)
            for index, line in enumerate(lines):
                if regex.search(line):
                    if doc not in touched:
                        touched.append(doc)
                    before = f"{doc}-{index}- {lines[index - 1]}\n" if index > 0 else ""
                    after = f"\n{doc}-{index + 2}- {lines[index + 1]}" if index + 1 < len(lines) else ""
                    hits.append(f"{before}{doc}:{index + 1}: {line}{after}")
                    if len(hits) >= MAX_GREP_HITS:
                        break
            if len(hits) >= MAX_GREP_HITS:
                break
        if not hits:
            return ToolResult(f"no matches for {pattern!r}")
        note = (
            f"\n[stopped at {MAX_GREP_HITS} hits; narrow the pattern or the path]" if len(hits) >= MAX_GREP_HITS else ""
        )
        output, truncated = _cut("\n--\n".join(hits) + note)
        return ToolResult(output, touched, truncated=truncated)

    def shell(self, command: str) -> ToolResult:
        """Run a read-only command in the sandbox over the texts."""
        if not self.shell_enabled:
            return ToolResult(f"error: {self.shell_disabled_reason}", refused=True)
        reason = refusal(command)
        if reason:
            return ToolResult(reason, refused=True)
        if self._sandbox_dir is None:
            self._sandbox_dir = Path(tempfile.mkdtemp(prefix="lexprobe-view-"))
            self._sandbox_dir.chmod(0o755)  # the sandbox runs as an unprivileged user
            self.view.materialize(self._sandbox_dir / "corpus")
        result = run_sandboxed(self._sandbox_dir / "corpus", command)
        text = result.output
        if result.timed_out:
            text += "\n[stopped: the command ran past the time limit]"
        elif result.truncated:
            text += "\n[stopped: the command printed too much; output cut]"
        elif result.exit_code:
            text += f"\n[exit code {result.exit_code}]"
        output, truncated = _cut(text or "(no output)")
        touched = [path for path in self.view.paths if path in command or path in result.output]
        return ToolResult(output, touched, truncated=truncated or result.truncated, error=bool(result.exit_code))


def _glob_regex(pattern: str) -> re.Pattern[str]:
    """Translate a glob with `**` (any folders) and `*` (within one folder) into a regex over corpus paths."""
    pieces = []
    index = 0
    while index < len(pattern):
        if pattern.startswith("**/", index):
            pieces.append("(?:.*/)?")
            index += 3
        elif pattern.startswith("**", index):
            pieces.append(".*")
            index += 2
        elif pattern[index] == "*":
            pieces.append("[^/]*")
            index += 1
        elif pattern[index] == "?":
            pieces.append("[^/]")
            index += 1
        else:
            pieces.append(re.escape(pattern[index]) if pattern[index] != "[" else _bracket(pattern, index, pieces))
            index = _skip_bracket(pattern, index)
    return re.compile("".join(pieces))


def _bracket(pattern: str, index: int, pieces: list[str]) -> str:
    """Return the regex class of a `[...]` glob class (`[!...]` negates), or a literal `[` when unclosed."""
    end = pattern.find("]", index + 1)
    if end == -1:
        return re.escape("[")
    inner = pattern[index + 1 : end]
    negate = inner.startswith("!")
    body = re.escape(inner[1:] if negate else inner).replace("\\-", "-")
    return f"[{'^' if negate else ''}{body}]"


def _skip_bracket(pattern: str, index: int) -> int:
    if pattern[index] != "[":
        return index + 1
    end = pattern.find("]", index + 1)
    return index + 1 if end == -1 else end + 1
