"""Caselaw Access Project (CAP) case files → one `CaseBundle` per case: the case, its opinions, its citations.

`load_files(paths, options)` reads every form CAP publishes (see `cap_inputs` for where the case files are and
`cap_json` for how a file is decoded): a JSON file (one case object, a JSON array such as `CasesMetadata.json`, or
JSON Lines; plain, .gz, .xz or .bz2), a static-export volume folder (`cases/PPPP-NN.json`) or volume zip
(`json/`), CAP's older BagIt bulk zip (`data/data.jsonl.xz`, cases with `casebody {status, data}`), or a tree of
reporters. It streams: one case object is in memory at a time, the court and year filter is applied as each case
is read, progress goes to `options.progress` per path in bytes. A path that yields no case raises
`EmptySourceError` with one line naming the path, the format expected and what was found there.
`load(path)` is the same for one path, collected into a `LoadResult`.

Mapping:
- court: `court.name`, else `court.name_abbreviation`, through `caselaw.courts.resolve_court` (courts-db ids);
  circuit and state follow from the id (`court_place`), a state otherwise from `jurisdiction.name_long`; the
  level (scotus, coa, district) follows from the id in the builder, so a local court has no federal level: the
  District of Columbia Municipal Court of Appeals resolves to courts-db "dc" (the District of Columbia Court of
  Appeals, the local court it became; system "state"), state "DC", no circuit. A court
  courts-db does not know leaves `court_id` None and is reported once (a `RowIssue` at its first case).
- name: `name_abbreviation`, the name as a citation gives it ("Peyton v. District of Columbia"), else `name`;
  the full caption (`name`, "PEYTON v. DISTRICT OF COLUMBIA") is kept in `extra` ("name_full").
- citations: the official citation first, then the others as listed.
- author: the majority opinion's byline without titles or roles ("HOOD, Associate Judge." → "Hood"; per curiam
  → none), see `cap_authors`; the byline as printed is kept in `extra` ("author_byline").
- prominence: CAP's `analysis.pagerank.percentile` is a fraction 0-1 over the whole CAP corpus; it is scaled to
  0-100 (a value already above 1 is taken as a 0-100 percentile). The raw PageRank goes to `extra`.
- edges: one per distinct `cites_to[].cite`: citing `cap:<id>` (the builder resolves source ids), cited the cite.
- opinions: ids `cap:<case id>:<index>`; CAP types map to the shared vocabulary ("majority" → "lead",
  "concurring-in-part-and-dissenting-in-part" → "concurrence_in_part"); the "majority" opinion is the majority;
  the author is the byline's name as above.
- a partial decision date ("1954-05", "1954") gives the year only; the raw text is kept in `extra`.
- CAP has no disposition field; `disposition` stays None.

This module reads the files; the mapping of one case object is `cap_cases`, the courts' places `cap_courts`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from lexprobe.caselaw.records import (
    CaseBundle,
    EmptySourceError,
    LoadOptions,
    LoadResult,
    RowIssue,
    SourceFilter,
    StreamedLoad,
)
from lexprobe.caselaw.sources.cap_cases import SOURCE, CaseError, case_bundle
from lexprobe.caselaw.sources.cap_inputs import CapUnit, Findings, plan, volume_key
from lexprobe.caselaw.sources.cap_json import JsonItem, JsonProblem, read_values

__all__ = [
    "EXPECTED",
    "JUNK_ROWS",
    "MAX_ISSUES_PER_PATH",
    "PROGRESS_STEP",
    "SOURCE",
    "case_bundle",
    "load",
    "load_files",
]

#: What a `--cap` path must hold, for the message when it holds no case.
EXPECTED = (
    "expected CAP case JSON (objects with id, name_abbreviation, decision_date and court: one object, a JSON array "
    "or JSON Lines, plain or .gz/.xz/.bz2), a CAP volume folder or zip, a BagIt bulk zip or a tree of reporters"
)
#: Issue rows kept per path; past this one row says how many more there were (a junk file makes one per line).
MAX_ISSUES_PER_PATH = 1000
#: A file whose first this many rows hold no case is junk: it is not read further.
JUNK_ROWS = 10_000
#: Progress is reported at least this often within a file (bytes).
PROGRESS_STEP = 8 * 1024 * 1024

#: Keys only a case object has (with its `id`); a jurisdiction entry has `name` too, but also `name_long`.
_CASE_KEYS = frozenset(("name", "name_abbreviation", "decision_date", "court", "casebody"))

_PROBLEM_PHRASES = {
    "not JSON": "lines that are not JSON",
    "not UTF-8": "lines that are not UTF-8",
    "UTF-16": "files not in UTF-8",
    "too large": "JSON values over the size limit",
    "unreadable": "files that cannot be read (damaged or truncated)",
}


def load_files(paths: Sequence[Path | str], options: LoadOptions | None = None) -> StreamedLoad:
    """Read CAP files, folders, zips or trees of reporters, one case at a time (see the module docstring).

    Raises FileNotFoundError for a path that does not exist and `EmptySourceError` for one that holds nothing to
    read, here; `EmptySourceError` while iterating for a path whose files held no case, or when the filter keeps
    none of the cases of all paths together.
    """
    options = options or LoadOptions()
    planned: list[tuple[Path, list[CapUnit], Findings]] = []
    for raw in paths:
        path = Path(raw)
        findings = Findings()
        units = plan(path, findings)
        if not units:
            raise EmptySourceError(f"{path}: no CAP case read: {EXPECTED}; found {_folder_findings(path, findings)}")
        planned.append((path, units, findings))
    result = LoadResult()
    return StreamedLoad(_Reader(options, result).bundles(planned), result)


def load(path: Path | str) -> LoadResult:
    """Read one CAP path (any form `load_files` takes) into cases, opinions and citation edges, all in memory.
    Raises `EmptySourceError` when it holds no case."""
    streamed = load_files([Path(path)])
    result = LoadResult()
    for bundle in streamed.bundles:
        result.cases.append(bundle.case)
        result.opinions.extend(bundle.opinions)
        result.edges.extend(bundle.edges)
    result.issues = streamed.result.issues
    result.rows_read = streamed.result.rows_read
    return result


def _folder_findings(path: Path, findings: Findings) -> str:
    if path.is_dir() and not findings.counts:
        return "an empty folder"
    return ("a folder with " if path.is_dir() else "") + findings.describe()


class _Reader:
    """Reads planned paths into bundles, filling `result.rows_read` and `result.issues` as it goes."""

    def __init__(self, options: LoadOptions, result: LoadResult) -> None:
        self.filter: SourceFilter = options.filter
        self.progress = options.progress
        self.result = result
        self.unresolved: set[str] = set()
        self.seen_volumes: dict[tuple[str, str], Path] = {}
        self._path_issues = 0
        self._dropped_issues = 0
        self._done = 0
        self._total = 0
        self._label = ""
        self._last_reported = 0
        self.read = 0  # cases read, all paths
        self.kept = 0  # cases the filter kept, all paths

    def bundles(self, planned: list[tuple[Path, list[CapUnit], Findings]]) -> Iterator[CaseBundle]:
        self.read = self.kept = 0
        for path, units, findings in planned:
            yield from self._path(path, units, findings)
        # the filter is judged over all paths together: a path whose courts are not asked for is no mistake
        if self.read > 0 and self.kept == 0:
            names = ", ".join(str(path) for path, _, _ in planned)
            raise EmptySourceError(
                f"{names}: {self.read:,} CAP case(s) read, none in the courts and years asked for "
                f"({_describe(self.filter)})"
            )

    def _issue(self, location: str, message: str) -> None:
        """Record one issue row of the current path (past `MAX_ISSUES_PER_PATH`, only counted)."""
        if self._path_issues < MAX_ISSUES_PER_PATH:
            self.result.issues.append(RowIssue(SOURCE, location, message))
            self._path_issues += 1
        else:
            self._dropped_issues += 1

    def _report(self, done: int) -> None:
        if self.progress is not None:
            self.progress(self._label, done, self._total)
            self._last_reported = done

    def _on_bytes(self, unit_start: int, unit_size: int) -> Any:
        consumed = 0

        def on_bytes(n: int) -> None:
            nonlocal consumed
            consumed += n
            done = unit_start + min(consumed, unit_size)
            if done - self._last_reported >= PROGRESS_STEP:
                self._report(done)

        return on_bytes

    def _path(self, path: Path, units: list[CapUnit], findings: Findings) -> Iterator[CaseBundle]:
        self._path_issues = self._dropped_issues = 0
        self._label, self._total, self._done = f"cap {path.name or path}", sum(unit.size for unit in units), 0
        self._report(0)
        read = twice = 0
        for unit in units:
            key = volume_key(unit)
            if key in self.seen_volumes:
                self._issue(str(unit.path), f"the same volume or file as {self.seen_volumes[key]}: read once")
                twice += 1
            else:
                self.seen_volumes[key] = unit.path
                for bundle in self._unit(unit, findings):
                    read += 1
                    case = bundle.case
                    if self.filter.keeps_court(case.court_id) and self.filter.keeps_year(case.year):
                        self.kept += 1
                        yield bundle
            self._done += unit.size
            self._report(self._done)
        if self._dropped_issues:
            self.result.issues.append(
                RowIssue(SOURCE, str(path), f"{self._dropped_issues:,} more issue rows like the above not recorded")
            )
        self.read += read
        if read == 0 and twice == 0:  # a path that is only a volume already read is not empty
            raise EmptySourceError(f"{path}: no CAP case read: {EXPECTED}; found {findings.describe()}")

    def _unit(self, unit: CapUnit, findings: Findings) -> Iterator[CaseBundle]:
        def report(location: str, message: str) -> None:
            self._issue(location, message)
            where = location.rsplit("!", 1)[-1] if "!" in location else Path(location).name
            findings.add("zip members or files skipped", f"{where}: {message.split(':')[0]}")

        for document in unit.documents(report):
            if document.metadata_only:
                self._issue(
                    document.label,
                    "case metadata without casebody (no cases/ or json/ folder beside it): cases without opinion text",
                )
            bad_rows = cases = values = 0
            on_bytes = self._on_bytes(self._done, unit.size) if unit.kind == "file" else None
            for item in read_values(document.open, on_bytes, document.layout):
                values += 1
                if isinstance(item, JsonProblem):
                    if item.kind not in ("unreadable", "UTF-16"):
                        self.result.rows_read += 1
                        bad_rows += 1
                    # the first bad places, so that the message says where to look: "f.jsonl line 2, byte 9"
                    place = f": {item.message}" if item.kind == "UTF-16" else f" {item.where()}"
                    findings.add(_PROBLEM_PHRASES[item.kind], _short(document.label) + place)
                    where = f" (byte {item.offset:,})" if item.offset is not None else ""
                    self._issue(f"{document.label}:{item.line}", item.message + where)
                else:
                    self.result.rows_read += 1
                    bundle = self._case(item, document.label, findings)
                    if bundle is None:
                        bad_rows += 1
                    else:
                        cases += 1
                        yield bundle
                if cases == 0 and bad_rows >= JUNK_ROWS:
                    self._issue(document.label, f"no CAP case in its first {JUNK_ROWS:,} rows: not read further")
                    findings.add("files not read to the end (no case in their first rows)", Path(document.label).name)
                    break
            if values == 0:
                findings.add("empty file(s)", Path(document.label).name)

    def _case(self, item: JsonItem, label: str, findings: Findings) -> CaseBundle | None:
        """The bundle of one JSON value, or None (an issue row) when it is not a usable case object."""
        location = f"{label}:{item.line}"
        value = item.value
        if not isinstance(value, dict):
            findings.add("JSON values that are not objects", type(value).__name__)
            self._issue(location, f"expected a case object, got {type(value).__name__}")
            return None
        if not (_CASE_KEYS & value.keys()) or "name_long" in value:
            keys = ", ".join(sorted(map(str, value))[:6]) or "none"
            findings.add("JSON objects that are not CAP cases", f"keys {keys}")
            self._issue(location, f"not a CAP case object (keys: {keys})")
            return None
        try:
            bundle, problems = case_bundle(value, label, self.unresolved)
        except CaseError as exc:
            findings.add("case objects without an id")
            self._issue(location, f"malformed case object: {exc}")
            return None
        for problem in problems:
            self._issue(location, problem)
        return bundle


def _short(label: str) -> str:
    """A document's file name (a zip member's name) for the message's examples."""
    return label.rsplit("!", 1)[-1].rsplit("/", 1)[-1] if "!" in label else Path(label).name


def _describe(source_filter: SourceFilter) -> str:
    parts = []
    if source_filter.courts is not None:
        parts.append("courts " + ", ".join(sorted(source_filter.courts)))
    if source_filter.years is not None:
        parts.append(f"years {source_filter.years[0]}-{source_filter.years[1]}")
    return "; ".join(parts) or "no filter"
