"""Sort the paths given to `lexprobe view`: hallucination run directories, and everything else (part B's)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from lexprobe.engine.sqlite_util import connect_read_only
from lexprobe.engine.store import LEGACY_KIND_KEYS, RUN_DB_NAME
from lexprobe.errors import LexprobeError
from lexprobe.hallucination.profile.results import RUN_KIND


def store_kinds(run_dir: Path) -> list[str]:
    """Return the kinds of run the store of `run_dir` holds ([] when it has no store or records none).

    Reads the `meta` table read-only; a store that cannot be read counts as no run (the caller names the path)."""
    path = Path(run_dir) / RUN_DB_NAME
    if not path.is_file():
        return []
    try:
        conn = connect_read_only(path)
    except LexprobeError:
        return []
    try:
        rows = dict(conn.execute("SELECT key, value FROM meta").fetchall())
    except sqlite3.Error:
        return []
    finally:
        conn.close()
    try:
        recorded = json.loads(rows["kinds"]) if "kinds" in rows else None
    except ValueError:
        recorded = None
    if isinstance(recorded, list) and all(isinstance(kind, str) for kind in recorded):
        return list(recorded)
    return [kind for key, kind in LEGACY_KIND_KEYS.items() if key in rows]


def is_hallucination_run(path: Path) -> bool:
    """Return whether `path` is a run directory whose store holds a hallucination run."""
    return Path(path).is_dir() and RUN_KIND in store_kinds(path)


def split_paths(paths: list[Path]) -> tuple[list[Path], list[Path]]:
    """Return (hallucination run directories, every other path), each in the order given."""
    hallucination = [path for path in paths if is_hallucination_run(path)]
    others = [path for path in paths if path not in hallucination]
    return hallucination, others
