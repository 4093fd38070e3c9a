"""Markers for tests that need a tool the Makefile installs (Chromium, bubblewrap, tesseract) or a kernel feature
(private mount namespaces): they skip on a developer's machine without it, and fail with a clear message under
CI=true, where it must be there.

`needs_chromium`, `needs_bwrap` and `needs_tesseract` are `pytest.mark.needs_tool(<name>)`; the check runs when the
test is set up (this module is a pytest plugin: tests/conftest.py registers it, a bare run passes
`-p tool_requirements`), so a test that lacks its tool neither runs half-way nor passes by accident.
`find_chromium` (the Chromium on PATH) lives here for the browser tests (tests/playwright_support.py): lexprobe
itself never starts a browser. The Chromium check also needs Playwright for Python (the dev extra) to drive it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest


def in_ci() -> bool:
    """Whether this run is a CI run (CI=true), where every tool the Makefile installs must be present."""
    return os.environ.get("CI") == "true"


#: The names Chromium goes by on PATH, in the order they are tried.
CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome")


def find_chromium() -> str | None:
    """Return the path of the first of `chromium`, `chromium-browser`, `google-chrome` on PATH, else None."""
    for name in CHROMIUM_NAMES:
        found = shutil.which(name)
        if found:
            return found
    return None


def _chromium() -> bool:
    """Chromium on PATH and Playwright for Python to drive it (the browser tests need both)."""
    if find_chromium() is None:
        return False
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return False
    return True


def _bwrap() -> bool:
    from lexprobe.investigation.shell.sandbox import sandbox_available

    return sandbox_available()


def _tesseract() -> bool:
    from lexprobe.documents import ocr

    return ocr.ocr_available()


#: Tool name -> (is it available here, what provides it).
TOOLS: dict[str, tuple[Callable[[], bool], str]] = {
    "chromium": (
        _chromium,
        "no chromium, chromium-browser or google-chrome on PATH (make test installs it via apt), or no Playwright "
        "for Python to drive it (the dev extra: pip install -e '.[dev]')",
    ),
    "bwrap": (_bwrap, "bubblewrap (bwrap) is not on PATH (make test installs it via apt)"),
    "tesseract": (_tesseract, "tesseract is not on PATH (make test installs tesseract-ocr via apt)"),
}

needs_chromium = pytest.mark.needs_tool("chromium")
needs_bwrap = pytest.mark.needs_tool("bwrap")
needs_tesseract = pytest.mark.needs_tool("tesseract")


def require_tool(name: str) -> None:
    """Return if tool `name` is here; otherwise skip the calling test, or fail it under CI=true."""
    available, missing = TOOLS[name]
    if available():
        return
    if in_ci():
        pytest.fail(f"CI=true requires {name}, but {missing}", pytrace=False)
    pytest.skip(missing)


def pytest_configure(config: pytest.Config) -> None:
    """Register the `needs_tool` marker."""
    config.addinivalue_line(
        "markers", f"needs_tool(name): skip without the tool, fail under CI=true; name is one of {sorted(TOOLS)}"
    )


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Check every tool the test is marked as needing before its fixtures are built."""
    for mark in item.iter_markers("needs_tool"):
        require_tool(mark.args[0])


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
        if in_ci():
            pytest.fail("CI=true but `unshare -m` + a read-only bind mount is not permitted here")
        pytest.skip("no private mount namespace here (unshare -m / mount --bind -o ro refused)")


def run_with_read_only(folders: list[Path], argv: list[str], timeout: float = 300) -> subprocess.CompletedProcess:
    """Run `argv` with each of `folders` bind-mounted read-only over itself, in a private mount namespace."""
    mounts = " && ".join(f"mount --bind -o ro '{folder}' '{folder}'" for folder in folders)
    command = ["unshare", "-m", "--propagation", "private", "sh", "-c", f'{mounts} && exec "$@"', "sh", *argv]
    return subprocess.run(command, capture_output=True, text=True, env=os.environ.copy(), timeout=timeout)
