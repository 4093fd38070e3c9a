"""The one error extraction raises."""

from __future__ import annotations

from pathlib import Path

from lexprobe.errors import LexprobeError


class ExtractionError(LexprobeError, ValueError):
    """A file whose text cannot be extracted: corrupt, encrypted, empty, too large, or of an unknown format.

    `path` is the file and `reason` says what is wrong with it; the message names both.
    """

    def __init__(self, path: Path | str, reason: str):
        self.path = Path(path)
        self.reason = reason
        super().__init__(f"{self.path}: {reason}")

    def __reduce__(self):
        return (type(self), (self.path, self.reason))
