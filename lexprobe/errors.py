"""The one error model of lexprobe: every *expected* failure is a `LexprobeError` that carries its exit code.

The command line has a single handler (`lexprobe.cli.handler.LexprobeGroup`) that prints such an error as one line
on stderr and exits with its code. Anything that is not a `LexprobeError` is a bug and keeps its traceback.

Exit codes: 0 success; 1 the work ran but some requests are still pending (rerun to resume); 2 bad input,
configuration or a permanent failure (the message says which file, setting or request); 130 interrupted (Ctrl-C)
after a clean stop.
"""

from __future__ import annotations

EXIT_PENDING = 1
EXIT_BAD_INPUT = 2
EXIT_INTERRUPTED = 130


class LexprobeError(Exception):
    """An expected failure with a one-line message and the process exit code it maps to."""

    exit_code: int = EXIT_BAD_INPUT

    def __init__(self, message: str, *, exit_code: int | None = None) -> None:
        super().__init__(message)
        if exit_code is not None:
            self.exit_code = exit_code


class BadInputError(LexprobeError, ValueError):
    """Malformed input file, argument or environment (exit 2)."""


class InputNotFoundError(LexprobeError, FileNotFoundError):
    """A named input file or directory does not exist (exit 2); still a `FileNotFoundError` for library callers."""


class StoreError(LexprobeError):
    """A run directory, cache or database that cannot be opened, read or written (exit 2)."""


class RunDirectoryLocked(LexprobeError):
    """Another live process holds the run directory's lock (exit 2)."""


class Interrupted(LexprobeError):
    """The user pressed Ctrl-C; the run stopped cleanly and can be resumed (exit 130)."""

    exit_code = EXIT_INTERRUPTED
