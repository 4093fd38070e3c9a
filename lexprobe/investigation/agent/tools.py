"""The agent's four tools over an environment's extracted texts: read, glob, grep, shell.

These names and arguments are the contract scripted agents and other harnesses rely on:

- `read(path, offset=1, limit=200)`: lines offset..offset+limit-1 of a document's text, each prefixed with its
  line number (`cat -n` style); `limit` is capped at `MAX_READ_LINES`.
- `glob(pattern)`: the corpus paths matching a shell pattern (`*` within a folder, `**` across folders), sorted.
- `grep(pattern, path=".")`: a regular expression searched line by line in every document under `path` (a folder
  or one document); each hit as `path:line: text`, with one line of context either side, at most `MAX_GREP_HITS`
  hits. Patterns run on RE2 (`google-re2`), which matches in linear time: Python's syntax less backreferences and
  lookaround, and `\\w`, `\\d`, `\\s`, `\\b` are ASCII-only (`\\pL` is any letter); other patterns are an error.
- `shell(command)`: a read-only command in a bubblewrap sandbox whose working directory holds the texts under the
  same paths (see `sandbox.py`); disabled, with a message, where bwrap is missing. The texts are written to a
  private folder `<tmp>/lexprobe-view-<pid>-<random>` (`make_private_view`); folders left by a killed process are
  removed by the next `Toolbox` (`sweep_stale_views`).

Paths are corpus paths ("emails/0001.pdf"); anything that escapes the corpus (`..`, absolute paths) is refused
with a message. Every call has a time limit (`Toolbox.time_limit_s`, `TIME_LIMIT_S` by default): grep and glob
check it as they go and stop with an error, the shell's sandbox is killed when it passes; read does bounded work.
Every tool's output is cut at `MAX_OUTPUT_CHARS` with a note saying so. Tool errors go back to the model as text;
nothing here raises for bad arguments. Each call returns a `ToolResult` naming the documents it OPENED (showed the
content of) and those it only SAW IN SEARCH (showed by name or by a matching line), so coverage and signal recall
(opened) and the seen-in-search share can be measured from the log:

- `read`: opens the document when it shows any of its lines (or the document is empty); nothing is seen.
- `glob`: sees every path it lists; opens nothing.
- `grep`: sees every document with a matching line; opens nothing (match lines with one line of context are a
  search result, not a reading).
- `shell`: decided per command and file argument by `shell_reads.shell_documents` (cat, head, sed -n, grep -C ...
  on a file open it; ls, find, wc, grep -l and grep match lines over several files only show names).
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

import re2

from lexprobe.investigation.agent.corpus_view import CorpusView
from lexprobe.investigation.shell.sandbox import TIMEOUT_S, refusal, run_sandboxed, sandbox_available, sandbox_user
from lexprobe.investigation.shell.shell_reads import shell_documents
from lexprobe.models.types import ToolSpec

MAX_OUTPUT_CHARS = 20_000
MAX_READ_LINES = 500
MAX_GREP_HITS = 100
TOOL_NAMES = ("read", "glob", "grep", "shell")
TIME_LIMIT_S = TIMEOUT_S  # seconds of wall time per tool call
VIEW_PREFIX = "lexprobe-view-"
LEGACY_VIEW_AGE_S = 24 * 3600  # a view folder named without its owner's pid (older lexprobe) is stale after this
_VIEW_NAME = re.compile(re.escape(VIEW_PREFIX) + r"(\d+)-[A-Za-z0-9_]+")
_RE2_OPTIONS = re2.Options()
_RE2_OPTIONS.log_errors = False  # a bad pattern is reported to the model, not logged on stderr
_RE2_SYNTAX = "grep uses RE2 syntax: no backreferences or lookaround"
WINDOW_WORK = 20_000_000  # bytes x program size per RE2 search: about 0.2 s at worst (NFA)
MIN_WINDOW_BYTES, MAX_WINDOW_BYTES = 2048, 1 << 20


@dataclass
class ToolResult:
    """What one tool call returned to the model, and which documents it opened or only saw in search."""

    output: str
    opened: list[str] = field(default_factory=list)  # corpus paths whose content the call showed
    seen: list[str] = field(default_factory=list)  # corpus paths it showed only by name or matching line
    refused: bool = False
    error: bool = False
    truncated: bool = False

    @property
    def documents(self) -> list[str]:
        """Every document the call opened or saw (opened first)."""
        return list(dict.fromkeys([*self.opened, *self.seen]))


def _spec(name: str, description: str, properties: dict[str, dict], required: str) -> ToolSpec:
    """One tool whose arguments are an object of `properties`, of which `required` must be given."""
    schema = {"type": "object", "properties": properties, "required": [required]}
    return ToolSpec(name=name, description=description, parameters=schema)


def tool_specs(shell_enabled: bool = True) -> list[ToolSpec]:
    """Return the JSON-schema descriptions of the tools (without `shell` when it is disabled)."""
    read = {
        "path": {"type": "string", "description": "Document path, e.g. emails/0001.pdf"},
        "offset": {"type": "integer", "description": "First line (1-based).", "default": 1},
        "limit": {"type": "integer", "description": f"Lines (max {MAX_READ_LINES}).", "default": 200},
    }
    grep = {
        "pattern": {"type": "string"},
        "path": {"type": "string", "description": "Folder or document to search.", "default": "."},
    }
    specs = [
        _spec("read", "Read a document's text with line numbers. Paths are relative to the corpus.", read, "path"),
        _spec("glob", "List document paths matching a pattern (* within a folder, ** across folders).",
              {"pattern": {"type": "string"}}, "pattern"),
        _spec("grep", "Search documents for a regular expression; returns path:line: text with context.", grep,
              "pattern"),
    ]  # fmt: skip
    if shell_enabled:
        specs.append(_spec("shell", "Run a read-only shell command (grep, sed -n, head, wc, ls, ...) in the corpus "
                           "folder.", {"command": {"type": "string"}}, "command"))  # fmt: skip
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

    def __init__(self, view: CorpusView, *, shell: bool = True, time_limit_s: float = TIME_LIMIT_S) -> None:
        self.view = view
        self.time_limit_s = time_limit_s
        self.shell_enabled = shell and sandbox_available()
        self.shell_disabled_reason = None if self.shell_enabled else (
            "shell disabled by configuration" if not shell else "shell disabled: bubblewrap (bwrap) is not installed"
        )  # fmt: skip
        self._sandbox_dir: Path | None = None
        sweep_stale_views()

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
        return ToolResult(output, [normalized] if chunk or not lines else [], truncated=truncated)

    def glob(self, pattern: str) -> ToolResult:
        """Return the corpus paths matching a pattern."""
        normalized = _normalize(pattern)
        if normalized is None:
            return ToolResult(f"refused: {pattern!r} is outside the corpus", refused=True)
        try:
            regex = _glob_regex(normalized or "**")
        except re2.error as exc:
            return ToolResult(f"error: bad pattern {pattern!r}: {_re2_reason(exc)}", error=True)
        deadline = time.monotonic() + self.time_limit_s
        matches = []
        for path in self.view.paths:
            if time.monotonic() > deadline:
                return ToolResult(f"error: glob ran past its time limit of {self.time_limit_s:g} s and was stopped; "
                                  "use a simpler pattern", error=True)  # fmt: skip
            if regex.fullmatch(path):
                matches.append(path)
        output, truncated = _cut("\n".join(matches) if matches else f"no documents match {pattern!r}")
        return ToolResult(output, seen=_shown(matches, output, truncated), truncated=truncated)

    def grep(self, pattern: str, path: str = ".") -> ToolResult:
        """Return lines matching a regular expression (RE2), with one line of context; stops at the time limit."""
        try:
            regex = re2.compile(pattern.encode("utf-8"), _RE2_OPTIONS)  # UTF-8 bytes: the same matches as str
        except re2.error as exc:
            return ToolResult(f"error: bad regular expression {pattern!r}: {_re2_reason(exc)} ({_RE2_SYNTAX})",
                              error=True)  # fmt: skip
        except UnicodeEncodeError:
            return ToolResult(f"error: bad regular expression {pattern!r}: it is not valid Unicode", error=True)
        scope = _normalize(path)
        if scope is None:
            return ToolResult(f"refused: {path!r} is outside the corpus", refused=True)
        paths = [p for p in self.view.paths if not scope or p == scope or p.startswith(scope + "/")]
        if not paths:
            return ToolResult(f"error: no document or folder {path!r}", error=True)
        hits, matched, searched = self._grep_hits(regex, paths)
        if searched < len(paths):
            stopped = (f"error: grep ran past its time limit of {self.time_limit_s:g} s and was stopped after "
                       f"{searched} of {len(paths)} documents; narrow the pattern or the path")  # fmt: skip
            output, truncated = _cut("\n--\n".join([stopped, *hits]))
            return ToolResult(output, seen=_shown(matched, output, truncated), error=True, truncated=truncated)
        if not hits:
            return ToolResult(f"no matches for {pattern!r}")
        note = (
            f"\n[stopped at {MAX_GREP_HITS} hits; narrow the pattern or the path]" if len(hits) >= MAX_GREP_HITS else ""
        )
        output, truncated = _cut("\n--\n".join(hits) + note)
        return ToolResult(output, seen=_shown(matched, output, truncated), truncated=truncated)

    def _grep_hits(self, regex: Any, paths: list[str]) -> tuple[list[str], list[str], int]:
        """Return the hits (with context), the documents hit, and how many documents were searched in full."""
        deadline = time.monotonic() + self.time_limit_s
        window = _window_bytes(regex)
        hits: list[str] = []
        touched: list[str] = []
        for searched, doc in enumerate(paths):
            lines = self.view.lines(doc)
            for index, line in enumerate(lines):
                found = _line_matches(regex, line.encode("utf-8", "replace"), window, deadline)
                if found is None:
                    return hits, touched, searched
                if found:
                    if doc not in touched:
                        touched.append(doc)
                    before = f"{doc}-{index}- {lines[index - 1]}\n" if index > 0 else ""
                    after = f"\n{doc}-{index + 2}- {lines[index + 1]}" if index + 1 < len(lines) else ""
                    hits.append(f"{before}{doc}:{index + 1}: {line}{after}")
                    if len(hits) >= MAX_GREP_HITS:
                        return hits, touched, len(paths)
        return hits, touched, len(paths)

    def shell(self, command: str) -> ToolResult:
        """Run a read-only command in the sandbox over the texts."""
        if not self.shell_enabled:
            return ToolResult(f"error: {self.shell_disabled_reason}", refused=True)
        reason = refusal(command)
        if reason:
            return ToolResult(reason, refused=True)
        if self._sandbox_dir is None:
            try:
                self._sandbox_dir = make_private_view(self.view)
            except OSError as exc:
                return ToolResult(f"error: the shell's copy of the texts could not be written ({exc.strerror})",
                                  error=True)  # fmt: skip
        result = run_sandboxed(self._sandbox_dir / "corpus", command, timeout=self.time_limit_s)
        text = result.output
        if result.timed_out:
            text += f"\n[error: the command ran past the time limit of {self.time_limit_s:g} s and was stopped]"
        elif result.truncated:
            text += "\n[stopped: the command printed too much; output cut]"
        elif result.exit_code:
            text += f"\n[exit code {result.exit_code}]"
        output, truncated = _cut(text or "(no output)")
        found = shell_documents(command, output, self.view.paths, printed=bool(result.output.strip()),
                                truncated=truncated or result.truncated, lines_of=self.view.lines)  # fmt: skip
        return ToolResult(output, found.opened, found.seen, truncated=truncated or result.truncated,
                          error=bool(result.exit_code) or result.timed_out)  # fmt: skip


def _shown(paths: list[str], output: str, truncated: bool) -> list[str]:
    """The paths that reached the model: all of them, or, when the output was cut, those still in it."""
    return paths if not truncated else [path for path in paths if path in output]


def _window_bytes(regex: Any) -> int:
    """Return how many bytes of a line one RE2 search may cover: RE2's time is linear in the text, but where it falls
    back from its DFA to its NFA each byte costs up to the program's size, so a large pattern gets smaller windows
    (one search stays well under a second and the time limit is checked between them)."""
    return max(MIN_WINDOW_BYTES, min(MAX_WINDOW_BYTES, WINDOW_WORK // max(regex.programsize, 1)))


def _line_matches(regex: Any, data: bytes, window: int, deadline: float) -> bool | None:
    """Return whether an RE2 pattern matches somewhere in one line (UTF-8), or None once the deadline has passed.

    A line longer than `window` is searched in windows overlapping by half, each with the whole line as context (so
    `^`, `$` and `\\b` keep their meaning): any match up to `window // 2` bytes long is found."""
    start, step = 0, window // 2
    while True:
        if time.monotonic() > deadline:
            return None
        end = min(start + window, len(data))
        if regex.search(data, start, end) is not None:
            return True
        if end == len(data):
            return False
        start += step
        while start < len(data) and 0x80 <= data[start] < 0xC0:
            start += 1  # not inside a UTF-8 character


def _re2_reason(exc: Exception) -> str:
    """Return RE2's reason for refusing a pattern as text (it comes as bytes)."""
    reason = exc.args[0] if exc.args else exc
    return reason.decode("utf-8", "replace") if isinstance(reason, bytes) else str(reason)


def make_private_view(view: CorpusView) -> Path:
    """Write the view's texts under a new private folder's `corpus/` (same relative paths) and return the folder.

    The folder is `<tmp>/lexprobe-view-<pid>-<random>`, so `sweep_stale_views` can tell when its process is gone.
    Nothing in it is readable by other users: folders 0700 and files 0600, or, when the sandbox runs as `nobody`
    (lexprobe run by root), folders 0750 and files 0640 in nobody's group, which the sandbox needs to read them."""
    folder = Path(tempfile.mkdtemp(prefix=f"{VIEW_PREFIX}{os.getpid()}-"))  # mode 0700
    try:
        _write_private_texts(view, folder)
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    return folder


def _write_private_texts(view: CorpusView, folder: Path) -> None:
    """Write the view's texts under `folder/corpus/`, readable by us and, when it runs as `nobody`, the sandbox."""
    gid = sandbox_user()
    dir_mode, file_mode = (0o700, 0o600) if gid is None else (0o750, 0o640)
    _private(folder, dir_mode, gid)
    corpus = folder / "corpus"
    _private(corpus, dir_mode, gid, make=True)
    for path, text in view.texts.items():
        if _normalize(path) != path or not path:
            continue  # never written outside the view
        target = corpus / path
        for parent in reversed(target.relative_to(corpus).parents[:-1]):
            _private(corpus / parent, dir_mode, gid, make=True)
        descriptor = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, file_mode)
        os.fchmod(descriptor, file_mode)  # whatever the umask
        if gid is not None:
            os.fchown(descriptor, -1, gid)
        with os.fdopen(descriptor, "w", encoding="utf-8", errors="surrogatepass") as handle:
            handle.write(text)


def _private(folder: Path, mode: int, gid: int | None, *, make: bool = False) -> None:
    """Give `folder` (created first when `make` and missing) `mode`, and group `gid` when one is given."""
    if make and not folder.is_dir():
        folder.mkdir(mode=mode)
    if gid is not None:
        os.chown(folder, -1, gid, follow_symlinks=False)
    os.chmod(folder, mode, follow_symlinks=False)


def sweep_stale_views(root: Path | None = None) -> list[Path]:
    """Remove the view folders a killed process left in the temporary folder; return the ones removed.

    A folder is stale when it is ours (same owner, a real folder, not a link) and the process in its name
    (`lexprobe-view-<pid>-...`) is gone; a folder named without a pid (older lexprobe) when it is older than
    `LEGACY_VIEW_AGE_S`."""
    root = Path(root or tempfile.gettempdir())
    try:
        entries = [entry for entry in os.scandir(root) if entry.name.startswith(VIEW_PREFIX)]
    except OSError:
        return []
    removed = []
    for entry in entries:
        try:
            info = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid():
            continue
        match = _VIEW_NAME.fullmatch(entry.name)
        stale = not _alive(int(match.group(1))) if match else time.time() - info.st_mtime > LEGACY_VIEW_AGE_S
        if stale:
            shutil.rmtree(entry.path, ignore_errors=True)
            removed.append(Path(entry.path))
    return removed


def _alive(pid: int) -> bool:
    """Return whether a process with this pid exists (ours or another user's)."""
    if pid == os.getpid():
        return True
    if pid <= 0:
        return False  # os.kill would signal a process group
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, OverflowError):
        return False
    except PermissionError:
        return True
    return True


def _glob_regex(pattern: str) -> Any:
    """Translate a glob with `**` (any folders) and `*` (within one folder) into an RE2 regex over corpus paths.

    Raises re2.error for a class RE2 refuses (`[z-a]`)."""
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
    return re2.compile("".join(pieces), _RE2_OPTIONS)


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
