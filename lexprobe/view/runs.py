"""The viewer's sections for investigation runs, QA runs and check results (part A's app mounts them).

`sections(paths)` sorts the paths part A did not take as hallucination runs: a run directory with episode records
(`episodes/*.json`) is an investigation run, one with QA records (`qa/*.qa.json`) a QA run (a directory may be
both: `investigation qa` may share the run directory of `investigation run`), and a `lexprobe check --json` output
file a check result; anything else comes back with a one-line reason. Each section is a Starlette sub-app with its
own pages and stylesheet (docs/viewer.md). `export_static(paths, out, limit)` writes the same pages as files
under `out/investigation/`, `out/qa/` and `out/check/`, which open from disk.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

from starlette.applications import Starlette

from lexprobe.reporting.html import copy_assets, write_page
from lexprobe.view.check_view.app import STATIC_DIR as CHECK_STATIC
from lexprobe.view.check_view.app import CheckPages
from lexprobe.view.check_view.app import build_app as build_check_app
from lexprobe.view.check_view.load import check_problem
from lexprobe.view.investigation.index import connect_read_only, ensure_index, is_investigation_run, is_qa_run
from lexprobe.view.investigation.pages import STATIC_DIR as RUNS_STATIC
from lexprobe.view.investigation.pages import ListQuery, RunPages
from lexprobe.view.investigation.pages import build_app as build_runs_app

INVESTIGATION_MOUNT, QA_MOUNT, CHECK_MOUNT = "/investigation", "/qa", "/check"


@dataclass(frozen=True)
class ViewSection:
    """One section of the viewer: its sub-app, mounted at `mount`, and its entries for the index page."""

    mount: str  # e.g. "/investigation", "/qa", "/check"
    title: str  # e.g. "Investigation runs"
    app: Starlette  # the sub-app, mounted by part A at `mount`
    entries: list[tuple[str, str]]  # (label, URL relative to the mount, e.g. "runs/0/") for the index page


@dataclass(frozen=True)
class _Sorted:
    investigation: list[Path]
    qa: list[Path]
    check: list[Path]
    rejected: list[tuple[Path, str]]


def _sort(paths: list[Path]) -> _Sorted:
    found = _Sorted([], [], [], [])
    for path in map(Path, paths):
        if path.is_dir():  # a directory may be both kinds of run
            kinds = [
                runs
                for runs, test in ((found.investigation, is_investigation_run), (found.qa, is_qa_run))
                if test(path)
            ]
            for runs in kinds:
                runs.append(path)
            if not kinds:
                found.rejected.append((path, "a directory without episode or QA records (not an investigation, QA or "
                                             "hallucination run)"))  # fmt: skip
        elif not path.is_file():
            found.rejected.append((path, "no such file or directory"))
        elif problem := check_problem(path):
            found.rejected.append((path, problem))
        else:
            found.check.append(path)
    return found


def _index_problem(run_dir: Path) -> str | None:
    """Build (or refresh) the run's side index now; return why it cannot be built (None when it was)."""
    try:
        ensure_index(run_dir)
    except (OSError, sqlite3.Error) as exc:
        return f"its viewer index cannot be built ({type(exc).__name__}: {exc})"
    return None


def _label(path: Path) -> str:
    return path.name or str(path)


def sections(paths: list[Path]) -> tuple[list[ViewSection], list[tuple[Path, str]]]:
    """Take every path part A did not recognise as a hallucination run; return the sections for investigation
    runs, QA runs and check results among them, and the paths that are none of these, each with a one-line
    reason (part A turns those into the CLI's error). The side index of each run is built here, once."""
    found = _sort(paths)
    made: list[ViewSection] = []
    for kind, mount, run_dirs in (("investigation", INVESTIGATION_MOUNT, found.investigation),
                                  ("qa", QA_MOUNT, found.qa)):  # fmt: skip
        for run_dir in list(run_dirs):
            problem = _index_problem(run_dir)
            if problem:
                run_dirs.remove(run_dir)
                if run_dir not in [path for path, _ in found.rejected]:
                    found.rejected.append((run_dir, problem))
        if run_dirs:
            pages = RunPages(kind, run_dirs)
            entries = [(_label(d), pages.list_href(n)) for n, d in enumerate(run_dirs)]
            made.append(ViewSection(mount, pages.title, build_runs_app(pages), entries))
    if found.check:
        pages = CheckPages(found.check)
        entries = [(_label(p), pages.list_href(n)) for n, p in enumerate(found.check)]
        made.append(ViewSection(CHECK_MOUNT, pages.title, build_check_app(pages), entries))
    return made, found.rejected


def _write(path: Path, html: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    write_page(path, html)


def _export_runs(kind: str, run_dirs: list[Path], out: Path, limit: int) -> list[tuple[str, str, str]]:
    pages = RunPages(kind, run_dirs, static=True)
    folder = out / kind
    copy_assets(RUNS_STATIC, folder / "static")
    _write(folder / "index.html", pages.index_page())
    links = []
    for number, run_dir in enumerate(run_dirs):
        base = folder / "runs" / str(number)
        _write(base / "index.html", pages.list_page(number, ListQuery(), limit))
        with connect_read_only(ensure_index(run_dir)) as connection:
            keys = [row[0] for row in connection.execute(f"SELECT key FROM {pages.table} ORDER BY key LIMIT ?",
                                                         (limit,))]  # fmt: skip
        for key in keys:
            try:
                _write(base / pages.record_dir / f"{key}.html", pages.record_page(number, key))
            except LookupError:  # an unreadable record: listed with its problem, no page
                continue
            for position in pages.documents_named(number, key):
                _write(base / "documents" / key / f"{position}.html", pages.document_page(number, key, position))
        links.append((pages.title, _label(run_dir), f"{kind}/runs/{number}/index.html"))
    return links


def export_static(paths: list[Path], out: Path, limit: int) -> list[tuple[str, str, str]]:
    """Write the static copy of those paths' pages under `out` (e.g. out/investigation/...), at most `limit`
    rows per list; return (section title, label, relative href from `out`) for the static index page."""
    if limit < 1:
        raise ValueError("limit must be at least 1")
    found = _sort(paths)
    out = Path(out)
    links: list[tuple[str, str, str]] = []
    for kind, run_dirs in (("investigation", found.investigation), ("qa", found.qa)):
        if run_dirs:
            links += _export_runs(kind, run_dirs, out, limit)
    if found.check:
        pages = CheckPages(found.check, static=True)
        folder = out / "check"
        copy_assets(CHECK_STATIC, folder / "static")
        _write(folder / "index.html", pages.index_page())
        for number, path in enumerate(found.check):
            _write(folder / "runs" / str(number) / "index.html", pages.result_page(number, limit=limit))
            links.append((pages.title, _label(path), f"check/runs/{number}/index.html"))
    return links


__all__ = ["ViewSection", "export_static", "sections"]
