"""The run-directory lock: one process at a time writes a run directory.

Two processes on one run directory would each send the requests the other has not finished yet, paying for them
twice. `RunDirLock` holds an exclusive `fcntl.flock` on `RUN_DIR/run.lock`, a file that names the holder (pid,
host, start time, command). The kernel drops the flock when its process dies, however it dies, so a lock file left
behind by a killed run is stale by construction: the next run takes it over and says so on stderr. A second live
process is refused with `RunDirectoryLocked`, naming the holder.

The lock is re-entrant within one process (several stores on one run directory in one process share it) and is
released, and its file removed, when the last holder in the process lets go or the process exits. Reading a run
(`report`, `show`, `score`) never takes it.
"""

from __future__ import annotations

import atexit
import contextlib
import errno
import fcntl
import json
import logging
import os
import socket
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from lexprobe.errors import RunDirectoryLocked, StoreError

LOCK_NAME = "run.lock"

logger = logging.getLogger(__name__)


@dataclass
class _Held:
    fd: int
    path: Path
    count: int
    pid: int  # a forked child inherits the table but must not remove its parent's lock file


_HELD: dict[str, _Held] = {}
_GUARD = threading.Lock()


def _holder_info() -> dict:
    """What the lock file says about this process."""
    return {
        "pid": os.getpid(),
        "host": socket.gethostname(),
        "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "command": " ".join(["lexprobe", *sys.argv[1:3]]),
    }


def read_holder(path: Path) -> dict:
    """Return what the lock file at `path` says about its holder ({} when it is missing, empty or unreadable)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8") or "{}")
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def describe_holder(holder: dict) -> str:
    """Return "process 123 on host h (since T, `lexprobe hallucination run`)" for messages."""
    if not holder.get("pid"):
        return "another process"
    text = f"process {holder['pid']}"
    if holder.get("host"):
        text += f" on host {holder['host']}"
    details = [f"since {holder['started']}" if holder.get("started") else "", f"`{holder.get('command')}`"]
    details = [d for d in details if d and d != "`None`"]
    return text + (f" ({', '.join(details)})" if details else "")


def _pid_alive(pid: object) -> bool:
    if not isinstance(pid, int) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _open_lock_file(run_dir: Path, path: Path) -> int:
    try:
        run_dir.mkdir(parents=True, exist_ok=True)
        return os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    except OSError as exc:
        if exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
            raise StoreError(f"run directory {run_dir} is not writable ({exc.strerror}: {path})") from None
        raise StoreError(f"cannot create the lock file {path}: {exc.strerror or exc}") from None


def _refuse(run_dir: Path, path: Path) -> RunDirectoryLocked:
    holder = read_holder(path)
    if not holder:  # the holder may be between taking the lock and writing its name
        time.sleep(0.05)
        holder = read_holder(path)
    return RunDirectoryLocked(
        f"run directory {run_dir} is in use by {describe_holder(holder)} (lock file {path}); "
        "wait for that run to finish or use another --run-dir"
    )


def _same_file(fd: int, path: Path) -> bool:
    """Whether `fd` is still the file at `path` (a releasing holder removes the file before unlocking it)."""
    try:
        return os.fstat(fd).st_ino == os.stat(path).st_ino
    except FileNotFoundError:
        return False


def _take(run_dir: Path, path: Path) -> int:
    """Open, flock and claim the lock file; return its descriptor."""
    for _ in range(20):
        fd = _open_lock_file(run_dir, path)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise _refuse(run_dir, path) from None
        except OSError as exc:
            os.close(fd)
            raise StoreError(f"cannot lock {path}: {exc.strerror or exc}") from None
        if not _same_file(fd, path):
            os.close(fd)
            continue
        _claim(fd, path)
        return fd
    raise StoreError(f"cannot lock {path}: the lock file keeps changing")


def _claim(fd: int, path: Path) -> None:
    """Note a stale holder (a run that died holding the lock) and write this process into the file."""
    previous = read_holder(path)
    if previous and previous.get("pid") != os.getpid():
        state = "no longer running" if not _pid_alive(previous.get("pid")) else "no longer holding it"
        logger.warning("taking over the stale lock %s of %s (%s)", path, describe_holder(previous), state)
    os.ftruncate(fd, 0)
    os.pwrite(fd, json.dumps(_holder_info()).encode("utf-8"), 0)


class RunDirLock:
    """The exclusive lock of one run directory (see the module docstring). Use as a context manager or call
    `acquire` / `release`."""

    def __init__(self, run_dir: Path | str) -> None:
        self.run_dir = Path(run_dir)
        self.path = self.run_dir / LOCK_NAME
        self.held = False

    def _key(self) -> str:
        return os.path.realpath(self.run_dir)

    def acquire(self) -> RunDirLock:
        """Take the lock. Raises `RunDirectoryLocked` when another live process holds it and `StoreError` when
        the run directory cannot be written."""
        if self.held:
            return self
        with _GUARD:
            key = self._key()
            held = _HELD.get(key)
            if held is not None:
                held.count += 1
            else:
                _HELD[key] = _Held(_take(self.run_dir, self.path), self.path, 1, os.getpid())
        self.held = True
        return self

    def release(self) -> None:
        """Let go; the last holder in this process removes the lock file and unlocks it."""
        if not self.held:
            return
        self.held = False
        with _GUARD:
            key = self._key()
            held = _HELD.get(key)
            if held is None:
                return
            held.count -= 1
            if held.count <= 0:
                del _HELD[key]
                _unlock(held)

    def __enter__(self) -> RunDirLock:
        return self.acquire()

    def __exit__(self, *exc_info: object) -> None:
        self.release()


def _unlock(held: _Held) -> None:
    if held.pid != os.getpid():
        return
    with contextlib.suppress(OSError):  # removed while still locked, so nobody locks a file about to vanish
        held.path.unlink(missing_ok=True)
    os.close(held.fd)


@atexit.register
def _release_all() -> None:
    """Remove this process's lock files at exit (the kernel would drop the locks anyway, but leave the files)."""
    with _GUARD:
        for held in _HELD.values():
            _unlock(held)
        _HELD.clear()
