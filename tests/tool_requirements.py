"""Skips for tests that need a tool the Makefile installs (bubblewrap, tesseract) or a kernel feature (private mount
namespaces): they skip on a developer's machine without it, and fail under CI=true, where it must be there."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from lexprobe.documents import ocr
from lexprobe.investigation.sandbox import sandbox_available

IN_CI = os.environ.get("CI") == "true"

needs_bwrap = pytest.mark.skipif(
    not sandbox_available() and not IN_CI,
    reason="bubblewrap is not installed (make test installs it; CI=true requires it)",
)

needs_tesseract = pytest.mark.skipif(
    not ocr.ocr_available() and not IN_CI,
    reason="tesseract is not installed (make test installs tesseract-ocr; CI=true requires it)",
)


def read_only_mounts_work() -> bool:
    """Whether a folder can be bind-mounted read-only in a private mount namespace (root ignores chmod, so this is
    the only honest read-only folder for a test run as root)."""
    if shutil.which("unshare") is None:
        return False
    probe = subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c", "mount --bind -o ro / /"],
                           capture_output=True)  # fmt: skip
    return probe.returncode == 0


def require_read_only_mounts() -> None:
    """Skip the calling test where read-only bind mounts are refused; fail instead under CI=true."""
    if not read_only_mounts_work():
        if IN_CI:
            pytest.fail("CI=true but `unshare -m` + a read-only bind mount is not permitted here")
        pytest.skip("no private mount namespace here (unshare -m / mount --bind -o ro refused)")


def run_with_read_only(folders: list[Path], argv: list[str], timeout: float = 300) -> subprocess.CompletedProcess:
    """Run `argv` with each of `folders` bind-mounted read-only over itself, in a private mount namespace."""
    mounts = " && ".join(f"mount --bind -o ro '{folder}' '{folder}'" for folder in folders)
    command = ["unshare", "-m", "--propagation", "private", "sh", "-c", f'{mounts} && exec "$@"', "sh", *argv]
    return subprocess.run(command, capture_output=True, text=True, env=os.environ.copy(), timeout=timeout)
