"""Confined file access below an untrusted root (a downloaded environment's corpus/ or extracted/): nothing is
opened through a symbolic link and only regular files are read (`open_confined`: every path component is opened with
O_NOFOLLOW); writes and removals are confined the same way. `lexprobe.documents.corpus` builds its cache on these."""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import shutil
import stat
from pathlib import Path

CHUNK = 1 << 20  # bytes read at a time when hashing or copying


class UnsafePathError(ValueError):
    """A path below a confined root that lexprobe refuses to open: a symbolic link on the way, not a regular file,
    or not a plain relative path. The message says which and where."""


def shown(text: str) -> str:
    """Return untrusted text (a file name, a link target) safe to print: control characters as escapes."""
    return "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in text)


def relative_path_problem(rel: str) -> str | None:
    """Return why `rel` is not a plain relative "/"-separated path (empty, absolute, `..`, `.`, `//`, NUL), or None
    when it is one."""
    if not isinstance(rel, str) or not rel:
        return "empty path"
    if "\x00" in rel:
        return "NUL in path"
    if rel.startswith("/"):
        return "absolute path"
    parts = rel.split("/")
    if any(part in ("", ".", "..") for part in parts):
        return "path leaves its folder ('..')" if ".." in parts else "not a normalized path ('.', '//')"
    return None


def _parts(rel: str) -> list[str]:
    problem = relative_path_problem(rel)
    if problem:
        raise UnsafePathError(f"{shown(rel)}: {problem}")
    return rel.split("/")


def file_kind(mode: int, other: str = "not a regular file") -> str:
    """What a file of this `st_mode` that is not a regular file is ("a folder", "a named pipe", ...), else `other`."""
    for test, name in ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a named pipe"), (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISCHR, "a device"), (stat.S_ISBLK, "a device")):  # fmt: skip
        if test(mode):
            return name
    return other


def link_problem(root: Path, rel: str) -> str | None:
    """Return why `root/rel` must not be opened -- a component below `root` is a symbolic link (named, with its
    target) or the entry is not a regular file -- or None when it is a regular file reached without links (or does
    not exist: opening it then fails as usual). `rel` must be a plain relative path (`relative_path_problem`)."""
    here = Path(root)
    parts = _parts(rel)
    for index, part in enumerate(parts):
        here = here / part
        try:
            info = os.lstat(here)
        except OSError:
            return None
        where = "/".join(parts[: index + 1])
        if stat.S_ISLNK(info.st_mode):
            try:
                target = os.readlink(here)
            except OSError:
                target = "?"
            return f"{shown(where)} is a symbolic link (to {shown(target)}); links are never followed"
        if index == len(parts) - 1 and not stat.S_ISREG(info.st_mode):
            return f"{shown(where)} is {file_kind(info.st_mode)}, not a regular file"
    return None


def _open_dir(root: Path, parts: list[str], *, create: bool = False) -> int:
    """Return a descriptor of the folder `root/parts...`, each part opened without following links; with `create`,
    missing folders are made and a link or file standing in a folder's place is removed (never followed)."""
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for part in parts:
            flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
            try:
                child = os.open(part, flags, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    raise
                os.mkdir(part, dir_fd=fd)
                child = os.open(part, flags, dir_fd=fd)
            except OSError as exc:
                if not create or exc.errno not in (errno.ELOOP, errno.ENOTDIR):
                    raise
                os.unlink(part, dir_fd=fd)  # removes the link itself, never what it points to
                os.mkdir(part, dir_fd=fd)
                child = os.open(part, flags, dir_fd=fd)
            os.close(fd)
            fd = child
    except BaseException:
        os.close(fd)
        raise
    return fd


def open_confined(root: Path, rel: str) -> int:
    """Return a read-only descriptor of the regular file `root/rel`, every component below `root` opened with
    O_NOFOLLOW (no symbolic link is ever followed, so the file lies inside `root`).

    Raises UnsafePathError (a ValueError) for a path that is not plain, a link on the way or an entry that is not a
    regular file (a pipe never blocks), and OSError (FileNotFoundError, ...) when it cannot be opened."""
    parts = _parts(rel)
    try:
        folder = _open_dir(root, parts[:-1])
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):
            why = link_problem(root, rel) or f"{shown(rel)}: a folder on the way is a link or not a folder"
            raise UnsafePathError(why) from exc
        raise
    try:
        fd = os.open(parts[-1], os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=folder)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise UnsafePathError(link_problem(root, rel) or f"{shown(rel)} is a symbolic link") from exc
        raise
    finally:
        os.close(folder)
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise UnsafePathError(f"{shown(rel)} is {file_kind(mode)}, not a regular file")
    return fd


def read_confined(root: Path, rel: str, limit: int | None = None) -> bytes:
    """Return the bytes of the regular file `root/rel` opened as `open_confined` does. Raises UnsafePathError as it
    does, and when the file holds more than `limit` bytes."""
    fd = open_confined(root, rel)
    with os.fdopen(fd, "rb") as stream:
        size = os.fstat(stream.fileno()).st_size
        if limit is not None and size > limit:
            raise UnsafePathError(f"{shown(rel)} is too large ({size:,} bytes; at most {limit:,} expected)")
        return stream.read() if limit is None else stream.read(limit + 1)


def write_confined(root: Path, rel: str, data: bytes) -> None:
    """Write `data` to `root/rel` atomically (a temporary file, then a rename), creating folders; nothing below
    `root` is followed through a link (a link or folder in the way is replaced, never written through)."""
    parts = _parts(rel)
    Path(root).mkdir(parents=True, exist_ok=True)
    folder = _open_dir(root, parts[:-1], create=True)
    name, temporary = parts[-1], parts[-1] + ".tmp"
    try:
        _remove_entry(temporary, folder)
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644,
                     dir_fd=folder)  # fmt: skip
        with os.fdopen(fd, "wb") as stream:
            stream.write(data)
        if stat.S_ISDIR(_lstat_mode(name, folder)):
            _remove_entry(name, folder)
        os.replace(temporary, name, src_dir_fd=folder, dst_dir_fd=folder)
    finally:
        os.close(folder)


def _lstat_mode(name: str, folder: int) -> int:
    try:
        return os.stat(name, dir_fd=folder, follow_symlinks=False).st_mode
    except FileNotFoundError:
        return 0


def _remove_entry(name: str, folder: int) -> None:
    """Remove the entry `name` of the open folder `folder` when it is there: a file or link itself, or a whole folder
    (removed without following links)."""
    if stat.S_ISDIR(_lstat_mode(name, folder)):
        shutil.rmtree(name, dir_fd=folder)
    else:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(name, dir_fd=folder)


def unlink_confined(root: Path, rel: str) -> None:
    """Remove the entry `root/rel` (a link itself, never its target) when it is there and reached without links;
    does nothing otherwise."""
    try:
        parts = _parts(rel)
        folder = _open_dir(root, parts[:-1])
    except (OSError, UnsafePathError):
        return
    try:
        os.unlink(parts[-1], dir_fd=folder)
    except OSError:
        pass
    finally:
        os.close(folder)


# --- hashing and listing ---------------------------------------------------------------------------------------


def sha256_file(path: Path) -> str:
    """Return the hex sha256 of a file's bytes."""
    with open(path, "rb") as stream:
        return hashlib.file_digest(stream, "sha256").hexdigest()


def sha256_confined(root: Path, rel: str) -> str:
    """Return the hex sha256 of the regular file `root/rel`, opened as `open_confined` does (same errors)."""
    with os.fdopen(open_confined(root, rel), "rb") as stream:
        return hashlib.file_digest(stream, "sha256").hexdigest()
