"""The error a lexprobe task raises for bad input under `inspect eval`: one line, as lexprobe's own commands print.

Inspect's command line prints an error that is a `PrerequisiteError` as its message alone, and any other error
with its whole traceback (a task's arguments are checked when Inspect builds the task, inside its event loop).
Inspect exports no public name for that class, so it is imported from `inspect_ai._util.error`: the one private
Inspect import of lexprobe (see docs/interop.md).
"""

from __future__ import annotations

from inspect_ai._util.error import PrerequisiteError  # no public API: the class Inspect's CLI prints as one line

from lexprobe.errors import BadInputError

__all__ = ["InspectInputError"]


class InspectInputError(BadInputError, PrerequisiteError):
    """Bad input to a lexprobe Inspect task (a `BadInputError`, exit 2 in lexprobe) that `inspect eval` prints as
    its one-line message."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message
