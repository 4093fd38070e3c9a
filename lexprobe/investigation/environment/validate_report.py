"""The record types of `lexprobe.investigation.environment.validate`: a `Problem` (location, message, severity), the
report that collects them, the parsed form of one JSON file, and `EnvironmentInvalid` for callers that need a valid
environment."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

Severity = Literal["error", "warning"]


@dataclass(frozen=True)
class Problem:
    """One thing wrong with an environment: where (file:JSON path, or corpus/<file>), what, and how bad."""

    location: str
    message: str
    severity: Severity = "error"

    def __str__(self) -> str:
        return f"{self.location}: {self.severity}: {self.message}"

    def as_dict(self) -> dict[str, str]:
        """Return {"location", "message", "severity"} (the JSON form of `lexprobe investigation validate`)."""
        return asdict(self)


class EnvironmentInvalid(ValueError):
    """An environment has errors; `.problems` holds every problem found (warnings included)."""

    def __init__(self, env_dir: Path, problems: list[Problem]) -> None:
        self.env_dir = env_dir
        self.problems = problems
        errors = [p for p in problems if p.severity == "error"]
        super().__init__(f"{env_dir}: {len(errors)} error(s), first: {errors[0] if errors else '-'}")


def errors_in(problems: Iterable[Problem]) -> list[Problem]:
    """Return the problems of severity `error`."""
    return [p for p in problems if p.severity == "error"]


def json_path(parts: Iterable[str | int]) -> str:
    """Return a pydantic-style location as a JSON path: ("documents", 3, "facts", 1) -> "documents[3].facts[1]"."""
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


@dataclass
class ParsedFile:
    """The elements of one file that passed the schema, with their original indices."""

    sections: dict[str, list[tuple[int, Any]]] = field(default_factory=dict)
    incomplete: set[str] = field(default_factory=set)  # sections where some element failed the schema
    extra_ids: dict[str, set[str]] = field(default_factory=dict)  # ids of elements that failed the schema
    extra_paths: set[str] = field(default_factory=set)  # paths of documents that failed the schema
    level: str | None = None  # environment.json's `ablation`, when it is a string

    def of(self, section: str) -> list[tuple[int, Any]]:
        """Return the (index, element) pairs of `section` that passed the schema."""
        return self.sections.get(section, [])


class ProblemReport:
    """Collects `Problem`s in the order they are found."""

    def __init__(self) -> None:
        self.problems: list[Problem] = []

    def add(self, file: str, where: Iterable[str | int] | str, message: str, severity: Severity = "error") -> None:
        """Add a problem at `file` and `where` (a JSON path as parts, or text; empty: the file itself)."""
        path = where if isinstance(where, str) else json_path(where)
        self.problems.append(Problem(f"{file}:{path}" if path else file, message, severity))
