"""One deadline for all the requests of `lexprobe check --online` (citation lookups and opinion-text fetches).

A per-request timeout does not bound a server that answers slowly but steadily (one byte every half second keeps
every read within its timeout for as long as the server likes), so each request runs in a daemon thread that the
command waits for only until the deadline; past it the request is abandoned (its thread ends with the process or
when the server lets go) and the command goes on with what it has. The clock runs only while a request is waited
for: the offline work between requests (reading the documents, checking quotations) does not use it up.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

#: Seconds all of `check --online`'s requests may take together (`--online-timeout`).
DEFAULT_ONLINE_TIMEOUT_S = 120.0


class DeadlineExceeded(Exception):
    """The deadline passed before the work was done."""


class Deadline:
    """`seconds` for all the work run through `run`, together, and a way to run work that must finish within what
    is left."""

    def __init__(self, seconds: float = DEFAULT_ONLINE_TIMEOUT_S) -> None:
        self.seconds = seconds
        self.left = seconds

    def remaining(self) -> float:
        """Seconds left (0 when passed)."""
        return max(0.0, self.left)

    @property
    def expired(self) -> bool:
        return self.remaining() <= 0.0

    def run(self, work: Callable[[], T]) -> T:
        """Return `work()`'s result (or raise its exception), run in a daemon thread; raise `DeadlineExceeded` when
        the deadline passes first (the thread is left behind: a blocking read cannot be interrupted portably)."""
        if self.expired:
            raise DeadlineExceeded
        outcome: dict[str, object] = {}

        def target() -> None:
            try:
                outcome["result"] = work()
            except BaseException as exc:  # handed to the waiting thread, which raises it
                outcome["error"] = exc

        thread = threading.Thread(target=target, name="lexprobe-online-request", daemon=True)
        began = time.monotonic()
        thread.start()
        thread.join(self.remaining())
        self.left -= time.monotonic() - began
        if thread.is_alive():
            self.left = 0.0
            raise DeadlineExceeded
        if "error" in outcome:
            raise outcome["error"]  # type: ignore[misc]
        return outcome["result"]  # type: ignore[return-value]

    def message(self, what: str) -> str:
        """The line the command prints when the deadline passed during `what` ("--online", "--online texts")."""
        return (
            f"{what} skipped: CourtListener took too long (all of --online's requests must be done within "
            f"{self.seconds:g} s; --online-timeout)"
        )
