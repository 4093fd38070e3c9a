"""Where the papers' extracted text lives: `$LEXPROBE_PAPERS`, else a `papers` folder beside the data root
(`../shared/papers` next to `../shared/data`). Stand-in for `lexprobe.caselaw.paths.papers_root` until that lands."""

from __future__ import annotations

import os
from pathlib import Path

from lexprobe.caselaw.paths import data_root


def papers_root() -> Path:
    """Return the folder holding the papers' text: `$LEXPROBE_PAPERS`, else `data_root().parent / "papers"`."""
    override = os.environ.get("LEXPROBE_PAPERS")
    if override:
        return Path(override).expanduser()
    return data_root().parent / "papers"
