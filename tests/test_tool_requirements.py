"""The tool markers of tests/tool_requirements.py: without the tool a test skips on a developer's machine and fails,
with a message that names the tool, under CI=true (the rest of the suite shows the tools being found: its browser,
sandbox and OCR tests run). Checked in a child pytest whose PATH holds none of the tools."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent

TINY_TESTS = """
from tool_requirements import needs_bwrap, needs_chromium, needs_tesseract


@needs_chromium
def test_chromium():
    pass


@needs_bwrap
def test_bwrap():
    pass


@needs_tesseract
def test_tesseract():
    pass


def test_no_tool():
    pass
"""


def run_tiny_suite(tmp_path: Path, path: Path, ci: bool) -> subprocess.CompletedProcess:
    """Run the four tiny tests in a child pytest with `path` as its only PATH entry, CI=true or not."""
    folder = tmp_path / "suite"
    folder.mkdir(exist_ok=True)
    (folder / "pytest.ini").write_text("[pytest]\n")
    (folder / "test_tiny.py").write_text(TINY_TESTS)
    env = {key: value for key, value in os.environ.items() if key not in {"CI", "PYTEST_ADDOPTS"}}
    env.update(PATH=str(path), PYTHONPATH=str(TESTS))
    if ci:
        env["CI"] = "true"
    command = [sys.executable, "-m", "pytest", "-p", "tool_requirements", "-p", "no:cacheprovider", "-q", "-rs"]
    return subprocess.run([*command, str(folder)], capture_output=True, text=True, cwd=folder, env=env, timeout=300)


@pytest.fixture
def empty_path(tmp_path: Path) -> Path:
    """A PATH folder with no programs in it: no chromium, bwrap or tesseract."""
    folder = tmp_path / "bin"
    folder.mkdir()
    return folder


def test_a_missing_tool_skips_outside_ci(tmp_path: Path, empty_path: Path) -> None:
    result = run_tiny_suite(tmp_path, empty_path, ci=False)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert "1 passed, 3 skipped" in output
    for hint in ("no chromium, chromium-browser or google-chrome on PATH", "bubblewrap (bwrap) is not on PATH",
                 "tesseract is not on PATH"):  # fmt: skip
        assert hint in output, output


def test_a_missing_tool_fails_under_ci(tmp_path: Path, empty_path: Path) -> None:
    result = run_tiny_suite(tmp_path, empty_path, ci=True)
    output = result.stdout + result.stderr
    assert result.returncode == 1, output
    assert "1 passed, 3 errors" in output and "skipped" not in output
    for tool in ("chromium", "bwrap", "tesseract"):
        assert f"CI=true requires {tool}, but " in output, output
