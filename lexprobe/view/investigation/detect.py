"""Recognise an investigation run directory (episodes/*.json) and a QA run directory (qa/*.qa.json)."""

from __future__ import annotations

from pathlib import Path

from lexprobe.investigation.agent.episode import EPISODES_DIR
from lexprobe.investigation.qa.runner import QA_DIR


def episode_files(run_dir: Path) -> list[Path]:
    """The episode records of a run directory (regular files only, never through a link), sorted by name."""
    return _records(Path(run_dir) / EPISODES_DIR, "*.json", ".qa.json")


def qa_files(run_dir: Path) -> list[Path]:
    """The QA records of a run directory (regular files only, never through a link), sorted by name."""
    return _records(Path(run_dir) / QA_DIR, "*.qa.json", None)


def _records(folder: Path, pattern: str, excluded_suffix: str | None) -> list[Path]:
    if folder.is_symlink() or not folder.is_dir():
        return []
    found = []
    for path in sorted(folder.glob(pattern)):
        if path.is_symlink() or not path.is_file():
            continue
        if excluded_suffix and path.name.endswith(excluded_suffix):
            continue
        found.append(path)
    return found


def is_investigation_run(path: Path) -> bool:
    """Whether `path` is a run directory holding at least one investigation episode record."""
    return Path(path).is_dir() and bool(episode_files(path))


def is_qa_run(path: Path) -> bool:
    """Whether `path` is a run directory holding at least one QA record (`investigation qa`)."""
    return Path(path).is_dir() and bool(qa_files(path))
