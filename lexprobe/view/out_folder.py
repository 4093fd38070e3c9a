"""The folder `lexprobe view --out DIR` writes: checked first (`check_out_folder`: not a file, holding none of the
paths copied, empty or an earlier copy marked with `MARKER` unless `force`), written beside it, then moved into place
(`writing`), as docs/viewer.md ("The static copy") describes.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from lexprobe.errors import BadInputError

#: The file that marks a folder as a copy written by `lexprobe view --out`.
MARKER = ".lexprobe-view-copy"


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def check_out_folder(out: Path, inputs: list[Path], force: bool) -> None:
    """Raise `BadInputError` (one line) when `out` cannot take the copy (see the module docstring)."""
    if out.exists() and not out.is_dir():
        raise BadInputError(f"{out}: not a folder (--out needs a folder to write the copy into)")
    resolved = out.resolve()
    for path in inputs:
        if _inside(Path(path).resolve(), resolved):
            raise BadInputError(f"{out}: holds {path}, one of the paths to copy; write the copy somewhere else")
    if out.is_dir() and not (out / MARKER).is_file() and any(out.iterdir()) and not force:
        raise BadInputError(
            f"{out}: a folder that is not empty and is no earlier copy of lexprobe view; give a new folder, "
            "or --force to replace it (its files are deleted)"
        )


@contextmanager
def writing(out: Path, inputs: list[Path], force: bool) -> Iterator[Path]:
    """Check `out`, yield a new empty temporary folder beside it to write the copy into; on a clean exit mark the
    copy and put it in place of `out`. Raises `BadInputError` as `check_out_folder` does."""
    check_out_folder(out, inputs, force)
    parent = out.absolute().parent
    parent.mkdir(parents=True, exist_ok=True)
    temporary = Path(tempfile.mkdtemp(prefix=f".{out.name}.writing-", dir=parent))
    try:
        yield temporary
        (temporary / MARKER).write_text(json.dumps({"written_by": "lexprobe view --out"}) + "\n", encoding="utf-8")
        old = None
        if out.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-", dir=parent))
            out.rename(old / "copy")
        try:
            temporary.rename(out)
        except OSError:
            if old is not None:
                (old / "copy").rename(out)
            raise
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    finally:
        if temporary.exists():
            shutil.rmtree(temporary, ignore_errors=True)
