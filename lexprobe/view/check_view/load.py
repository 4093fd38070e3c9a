"""Read a `lexprobe check --json` output file for the viewer, and find the text it checked.

The JSON holds the citations (text, span, verdict, case, reason, notes) and `summary.files` (each file's path and
its slice of the citations), not the text itself. The viewer looks for each checked file inside the JSON file's own
folder only (the path as recorded when it is relative, then its bare name; never outside that folder, never
through a link, at most `MAX_DOCUMENT_BYTES`), extracts it as `lexprobe check` did, and shows it highlighted only
when every citation's text is found at its recorded span; otherwise the page lists the citations alone and says
why. The file is untrusted: a field of the wrong type makes it "not a check result", with the reason.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from lexprobe.check.verify import VERDICTS

#: The largest check result file read, and the largest checked document looked up beside it.
MAX_JSON_BYTES = 64 * 1024 * 1024
MAX_DOCUMENT_BYTES = 32 * 1024 * 1024


class NotACheckResult(ValueError):
    """The file is not a `lexprobe check --json` output; the message says why in one line."""


@dataclass(frozen=True)
class Citation:
    """One citation's verdict, as `CitationVerdict.to_json` wrote it."""

    index: int
    text: str
    span: tuple[int, int]
    verdict: str
    case: dict | None
    reason: str
    notes: tuple[str, ...]

    def case_label(self) -> str:
        """The database case as name, citation (year), or an empty string."""
        if not self.case:
            return ""
        return f"{self.case.get('name') or ''}, {self.case.get('citation') or ''} ({self.case.get('year') or '?'})"


@dataclass(frozen=True)
class Segment:
    """A piece of the checked text: plain (`citation` None) or one highlighted citation."""

    text: str
    citation: Citation | None = None


@dataclass
class CheckedFile:
    """One checked file: its recorded path, its citations, and its text as segments when it was found."""

    path: str
    citations: list[Citation]
    counts: dict[str, int]
    segments: list[Segment] | None = None
    text_problem: str = ""


@dataclass
class CheckResult:
    """A whole check result file."""

    source: Path
    files: list[CheckedFile] = field(default_factory=list)
    totals: dict[str, int] = field(default_factory=dict)

    @property
    def citations(self) -> list[Citation]:
        """Every citation of every file, in file order."""
        return [citation for checked in self.files for citation in checked.citations]


def _citation(index: int, raw: object) -> Citation:
    if not isinstance(raw, dict):
        raise NotACheckResult(f"citation {index} is not an object")
    span = raw.get("span")
    ok = (isinstance(raw.get("text"), str) and isinstance(span, list) and len(span) == 2
          and all(isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in span)
          and raw.get("verdict") in VERDICTS and isinstance(raw.get("reason"), str)
          and isinstance(raw.get("notes", []), list) and all(isinstance(n, str) for n in raw.get("notes", []))
          and (raw.get("case") is None or isinstance(raw.get("case"), dict)))  # fmt: skip
    if not ok:
        raise NotACheckResult(f"citation {index} lacks text, span, a known verdict, reason or notes")
    return Citation(index, raw["text"], (span[0], span[1]), raw["verdict"], raw.get("case"), raw["reason"],
                    tuple(raw.get("notes", [])))  # fmt: skip


def read_check_json(path: Path) -> dict:
    """The parsed JSON of a check result; raises NotACheckResult when it is not one (too large, not JSON, not the
    shape `lexprobe check --json` writes)."""
    path = Path(path)
    if path.is_symlink() or not path.is_file():
        raise NotACheckResult("not a regular file")
    if path.stat().st_size > MAX_JSON_BYTES:
        raise NotACheckResult(f"larger than {MAX_JSON_BYTES:,} bytes")
    try:
        payload = json.loads(path.read_bytes().decode("utf-8"))
    except (ValueError, RecursionError) as exc:
        raise NotACheckResult(f"not JSON ({type(exc).__name__})") from None
    if not isinstance(payload, dict) or not isinstance(payload.get("citations"), list):
        raise NotACheckResult("no 'citations' list (not the output of `lexprobe check --json`)")
    if not isinstance(payload.get("summary"), dict):
        raise NotACheckResult("no 'summary' object (not the output of `lexprobe check --json`)")
    return payload


def load_check_result(path: Path) -> CheckResult:
    """Read and check a result file and find each checked file's text (see the module docstring); raises
    NotACheckResult."""
    payload = read_check_json(path)
    citations = [_citation(index, raw) for index, raw in enumerate(payload["citations"])]
    entries = payload["summary"].get("files")
    if not isinstance(entries, list) or not entries:
        entries = [{"path": "(checked text)", "first": 0, "count": len(citations)}]
    result = CheckResult(Path(path))
    for number, entry in enumerate(entries):
        first, count = (entry.get("first"), entry.get("count")) if isinstance(entry, dict) else (None, None)
        whole = isinstance(first, int) and isinstance(count, int) and min(first, count) >= 0
        if not whole or not isinstance(entry.get("path"), str):
            raise NotACheckResult(f"summary.files[{number}] lacks path, first or count")
        own = citations[first : first + count]
        checked = CheckedFile(entry["path"], own, _counts(own))
        text, checked.text_problem = find_text(Path(path).parent, entry["path"])
        if text is not None:
            checked.segments, checked.text_problem = segments(text, own)
        result.files.append(checked)
    result.totals = _counts(citations)
    return result


def _counts(citations: list[Citation]) -> dict[str, int]:
    """How many of `citations` have each verdict."""
    return {verdict: sum(c.verdict == verdict for c in citations) for verdict in VERDICTS}


def _candidates(folder: Path, recorded: str) -> list[Path]:
    pure = PurePosixPath(recorded.replace("\\", "/"))
    found = []
    if not pure.is_absolute() and ".." not in pure.parts:
        found.append(folder / pure)
    if pure.name:
        found.append(folder / pure.name)
    return found


def find_text(folder: Path, recorded: str) -> tuple[str | None, str]:
    """The text of the checked file `recorded` looked up inside `folder` (see the module docstring), or None and
    why not."""
    from lexprobe.documents.errors import ExtractionError
    from lexprobe.documents.extract import extract_text

    root = folder.resolve()
    for candidate in _candidates(folder, recorded):
        if candidate.is_symlink() or not candidate.is_file() or not candidate.resolve().is_relative_to(root):
            continue
        if candidate.stat().st_size > MAX_DOCUMENT_BYTES:
            return None, f"the checked file is larger than {MAX_DOCUMENT_BYTES:,} bytes: not shown"
        try:
            return extract_text(candidate, MAX_DOCUMENT_BYTES), ""
        except ExtractionError as exc:
            return None, f"the checked file could not be read again ({exc.reason})"
    return None, "the checked file is not beside the result file: only the citations are listed"


def segments(text: str, citations: list[Citation]) -> tuple[list[Segment] | None, str]:
    """The text cut into plain pieces and highlighted citations (overlapping spans are listed in the table only),
    or None and why when a citation's text is not at its span (the file changed since it was checked)."""
    for citation in citations:
        start, end = citation.span
        if end > len(text) or text[start:end] != citation.text:
            return None, "the checked file changed since the check (a citation is not at its recorded place)"
    pieces: list[Segment] = []
    position = 0
    for citation in sorted(citations, key=lambda c: c.span):
        start, end = citation.span
        if start < position or end <= start:
            continue
        pieces.append(Segment(text[position:start]))
        pieces.append(Segment(text[start:end], citation))
        position = end
    pieces.append(Segment(text[position:]))
    return pieces, ""


def check_problem(path: Path) -> str | None:
    """Why `path` is not a check result file (None when it is one)."""
    try:
        load_check_result(path)
    except NotACheckResult as exc:
        return f"not a `lexprobe check --json` result: {exc}"
    except OSError as exc:
        return f"cannot be read ({exc.strerror or exc})"
    return None
