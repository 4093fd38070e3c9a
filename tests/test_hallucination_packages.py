"""The hallucination domain reads by concept: one package per concept, each importing only the packages before it
in the order docs/architecture.md draws, none importing `lexprobe.investigation`, no module over 500 lines, and
every package `__init__` saying what it is and what it may import (names are imported from the module that
defines them: a package re-exports nothing)."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

import lexprobe.hallucination

ROOT = Path(lexprobe.hallucination.__file__).parent
#: What each package of the domain may import of the domain (docs/architecture.md, "hallucination/").
MAY_IMPORT: dict[str, set[str]] = {
    "help_facts": set(),
    "reader": set(),
    "labels": {"reader"},
    "prompts": set(),
    "tasks": {"labels", "reader", "help_facts"},
    "scorers": {"labels", "reader", "prompts", "tasks", "help_facts"},
    "profile": {"labels", "reader", "tasks"},
    "paper_figures": {"profile", "tasks"},
    "report": {"labels", "reader", "tasks", "scorers", "profile", "paper_figures"},
    "run": {"help_facts", "labels", "reader", "prompts", "tasks", "scorers", "profile", "paper_figures", "report"},
}
PACKAGES = [name for name in MAY_IMPORT if (ROOT / name).is_dir()]


def _modules() -> list[Path]:
    return sorted(path for path in ROOT.rglob("*.py"))


def _imported(path: Path) -> set[str]:
    """Every absolute module name a module imports (at top level or inside a function)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return names


def _concept(path: Path) -> str:
    return path.relative_to(ROOT).parts[0].removesuffix(".py")


@pytest.mark.parametrize("path", _modules(), ids=lambda path: str(path.relative_to(ROOT)))
def test_a_module_imports_only_the_packages_before_its_own(path: Path) -> None:
    concept = _concept(path)
    if concept == "__init__":
        return
    allowed = MAY_IMPORT[concept] | {concept}
    used = {name.split(".")[2] for name in _imported(path) if name.startswith("lexprobe.hallucination.")}
    assert used <= allowed, f"{path.relative_to(ROOT)} imports {sorted(used - allowed)}"
    assert not [name for name in _imported(path) if name.split(".")[:2] == ["lexprobe", "investigation"]]


def test_every_module_lives_in_a_known_package_and_none_is_over_500_lines() -> None:
    for path in _modules():
        assert _concept(path) in MAY_IMPORT or path == ROOT / "__init__.py", path
        assert len(path.read_text(encoding="utf-8").splitlines()) <= 500, path


@pytest.mark.parametrize("package", PACKAGES)
def test_a_package_init_says_what_it_is(package: str) -> None:
    module = importlib.import_module(f"lexprobe.hallucination.{package}")
    assert module.__doc__ and "May import" in module.__doc__
