"""Ctrl-C as a request to stop cleanly, not an exception thrown into the middle of a model call.

Inside `stop_on_sigint()` (the commands that run models wrap their work in it) the first SIGINT only sets the
process-wide `STOP` flag and wakes every running `Engine.run`: the engines send nothing new, stop the calls in flight
at a safe point (an embedded llama.cpp call between two tokens, an HTTP call by cancelling it), commit what completed
and raise `RunInterrupted`, whose message is the summary ("N done, M pending; rerun to resume") and whose exit code
is 130. Loops over many engine runs (an investigation's steps) stop at their next step, because `Engine.run` raises
at once once a stop was requested. A second SIGINT exits at once with 130 (`os._exit`: no clean-up runs, so no model
is freed under a running call; every committed answer is already safe in SQLite).

Without `stop_on_sigint` (library use) nothing changes: Python raises KeyboardInterrupt as usual.

SIGTERM (`kill`, a service manager, a CI timeout) kills a process at once by default, so no `finally` runs: a command
that cleans up after itself (the demo removes its temporary folder) installs `stop_on_sigterm()` for as long as
there is something to clean up. Then SIGTERM takes the same path as Ctrl-C: while engines run (inside
`stop_on_sigint`) it asks them to stop at their next safe point (they raise `RunInterrupted`); anywhere else it
raises `Terminated` (exit 143) in the main thread. Either way the command's `finally` blocks run; `sigterm_received()`
tells it that the stop came from SIGTERM (so nobody is there to resume: the demo removes its folder instead of
keeping it). A second SIGTERM exits at once with 143.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from lexprobe.engine.summary import RunSummary
from lexprobe.errors import Interrupted

FIRST_NOTICE = b"\nCtrl-C: stopping at the next safe point, keeping what completed (Ctrl-C again quits at once)\n"
SECOND_NOTICE = b"\ninterrupted again: quitting now (committed answers are kept; rerun to resume)\n"
TERM_NOTICE = b"\nSIGTERM: stopping at the next safe point and cleaning up (a second SIGTERM quits at once)\n"
EXIT_TERMINATED = 128 + signal.SIGTERM


class StopRequest:
    """A process-wide flag that Ctrl-C sets, with listeners (running engines) woken when it is set."""

    def __init__(self) -> None:
        self.requested = False  # True once a stop was requested (until `reset`)
        self._listeners: set[Callable[[], None]] = set()

    def request(self) -> None:
        """Set the flag and call every listener (each must be safe to call from a signal handler)."""
        self.requested = True
        for listener in list(self._listeners):
            listener()

    def reset(self) -> None:
        """Clear the flag (at the start of a command)."""
        self.requested = False

    def subscribe(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Call `listener` when a stop is requested; returns the function that unsubscribes it."""
        self._listeners.add(listener)
        return lambda: self._listeners.discard(listener)


STOP = StopRequest()


class RunInterrupted(Interrupted):
    """An engine run stopped by Ctrl-C after committing what completed; `summary` counts what was done (exit 130)."""

    def __init__(self, summary: RunSummary, *, unit: str = "") -> None:
        super().__init__(interrupted_message(summary.done, summary.remaining, unit))
        self.summary = summary


def interrupted_message(done: int, pending: int, unit: str = "") -> str:
    """Return the one-line summary of an interrupted run: 'interrupted: N done, M pending; rerun to resume'."""
    what = f" {unit}" if unit else ""
    return f"interrupted: {done}{what} done, {pending} pending; rerun to resume"


def _on_sigint(signum: int, frame: object) -> None:
    if STOP.requested:
        os.write(2, SECOND_NOTICE)
        os._exit(130)
    os.write(2, FIRST_NOTICE)
    STOP.request()


@contextmanager
def stop_on_sigint() -> Iterator[StopRequest]:
    """Within the block, Ctrl-C asks running engines to stop cleanly (see the module docstring); the previous
    SIGINT handler is restored afterwards, unless a stop was requested: then SIGINT is ignored while the command
    prints its summary and exits with 130. Outside the main thread, where signals cannot be handled, or where
    SIGINT is ignored (a background job), it does nothing."""
    previous = signal.getsignal(signal.SIGINT) if threading.current_thread() is threading.main_thread() else None
    if previous is None or previous is signal.SIG_IGN:  # not the main thread, or Ctrl-C is ignored on purpose
        with _engines_may_run():
            yield STOP
        return
    STOP.reset()
    signal.signal(signal.SIGINT, _on_sigint)
    try:
        with _engines_may_run():
            yield STOP
    finally:
        # After a clean stop the command only prints its summary and exits 130. A further Ctrl-C then would meet
        # Python's own handler (a traceback) or, once the interpreter finalizes, SIG_DFL (death by SIGINT, since
        # llama.cpp's native threads do not block it): ignore it instead. Python leaves SIG_IGN alone at exit.
        signal.signal(signal.SIGINT, signal.SIG_IGN if STOP.requested else previous)


@contextmanager
def _engines_may_run() -> Iterator[None]:
    """Mark a `stop_on_sigint` block open: SIGTERM then stops engines at a safe point instead of raising."""
    _sigterm["engines"] += 1
    try:
        yield
    finally:
        _sigterm["engines"] -= 1


class Terminated(Interrupted):
    """SIGTERM under `stop_on_sigterm`: the command stopped and cleaned up (exit 143, as a process killed by it)."""

    exit_code = EXIT_TERMINATED

    def __init__(self, message: str = "terminated (SIGTERM)") -> None:
        super().__init__(message)


#: "received": SIGTERM arrived; "engines": how many `stop_on_sigint` blocks are open (engines may be running).
_sigterm = {"received": False, "engines": 0}


def sigterm_received() -> bool:
    """True once SIGTERM arrived inside `stop_on_sigterm` (until the next `stop_on_sigterm` starts)."""
    return _sigterm["received"]


def _on_sigterm(signum: int, frame: object) -> None:
    if _sigterm["received"]:
        os._exit(EXIT_TERMINATED)
    _sigterm["received"] = True
    os.write(2, TERM_NOTICE)
    if _sigterm["engines"]:
        STOP.request()  # engines are running: they stop at a safe point and raise RunInterrupted
        return
    raise Terminated()


@contextmanager
def stop_on_sigterm() -> Iterator[None]:
    """Within the block, SIGTERM stops the command like Ctrl-C so that its clean-up runs (see the module docstring);
    the previous SIGTERM handler is restored afterwards. Outside the main thread it does nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _sigterm["received"] = False
    previous = signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
