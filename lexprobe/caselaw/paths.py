"""Where the public data and the built case database live."""

from __future__ import annotations

import os
from pathlib import Path

from lexprobe.engine.cache import default_cache_dir

CASE_DB_NAME = "caselaw.sqlite"


def data_root() -> Path:
    """Return `$LEXPROBE_DATA`, else `../shared/data` from the working directory, else from the source checkout."""
    override = os.environ.get("LEXPROBE_DATA")
    if override:
        return Path(override).expanduser()
    relative = Path("../shared/data")
    if relative.is_dir():
        return relative
    beside_checkout = Path(__file__).resolve().parents[2].parent / "shared" / "data"
    return beside_checkout if beside_checkout.is_dir() else relative


def default_db_path() -> Path:
    """Return the default case database path: `caselaw.sqlite` in the lexprobe cache folder."""
    return default_cache_dir() / CASE_DB_NAME


def papers_root() -> Path:
    """Return the folder holding the papers' plain text (`large-legal-fictions.txt`, `investigation-worlds.txt`):
    `$LEXPROBE_PAPERS`, else `papers` next to the data root (`data_root().parent / "papers"`)."""
    override = os.environ.get("LEXPROBE_PAPERS")
    if override:
        return Path(override).expanduser()
    return data_root().parent / "papers"
