"""Issue 35, the investigation domain by concept: the tree docs/architecture.md draws for `lexprobe/investigation/`
is the tree on disk, each package imports only the packages its line allows, nothing imports the other domain,
and each package `__init__` explains itself (it re-exports nothing). (Its 500-line module cap went with issue 47: the
function-length budget of tests/test_import_rules.py replaced it.)

The imports are read from the source (`ast`), not by importing, so a lazy import inside a function counts too.
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import lexprobe

PACKAGE_ROOT = Path(lexprobe.__file__).parent
INVESTIGATION = PACKAGE_ROOT / "investigation"
ARCHITECTURE = PACKAGE_ROOT.parent / "docs" / "architecture.md"
#: A tree line of the investigation section: `  name/  what it is -> allowed, packages; lower layers`.
TREE_LINE = re.compile(r"^  (?P<name>[a-z_]+)/\s+.*?(?:-> (?P<allowed>[^;]*);.*)?$")


def drawn_tree() -> dict[str, set[str] | None]:
    """Return {package: the investigation packages it may import (None: no arrow, no code)} as the investigation
    section of docs/architecture.md draws them."""
    text = ARCHITECTURE.read_text(encoding="utf-8")
    section = text.split("## investigation/", 1)[1].split("\n## ", 1)[0]
    block = section.split("```\nlexprobe/investigation/\n", 1)[1].split("```", 1)[0]
    tree: dict[str, set[str] | None] = {}
    for line in block.splitlines():
        match = TREE_LINE.match(line)
        assert match, f"not a tree line: {line!r}"
        allowed = match["allowed"]
        if allowed is None:
            tree[match["name"]] = None
        else:
            tree[match["name"]] = {name.strip() for name in allowed.split(",") if name.strip() not in {"", "(none)"}}
    return tree


def imported_modules(path: Path) -> set[str]:
    """Return every module `path` imports (top-level and inside functions), as dotted names."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "import_module" and node.args:
            name = node.args[0]
            found.update([name.value] if isinstance(name, ast.Constant) and isinstance(name.value, str) else [])
    return found


def package_of(path: Path) -> str:
    """Return the investigation package a module belongs to ("" for the domain's own `__init__`)."""
    parts = path.relative_to(INVESTIGATION).parts
    return parts[0] if len(parts) > 1 else ""


def test_the_drawn_tree_is_the_tree_on_disk() -> None:
    on_disk = {entry.name for entry in INVESTIGATION.iterdir() if entry.is_dir() and entry.name != "__pycache__"}
    assert set(drawn_tree()) == on_disk
    assert sorted(path.name for path in INVESTIGATION.glob("*.py")) == ["__init__.py"]  # no module at the top


def test_each_package_imports_only_what_its_line_allows() -> None:
    tree = drawn_tree()
    wrong = []
    for path in sorted(INVESTIGATION.rglob("*.py")):
        own = package_of(path)
        allowed = tree.get(own) or set()
        for module in imported_modules(path):
            if not module.startswith("lexprobe.investigation."):
                continue
            target = module.split(".")[2]
            if target != own and target in tree and target not in allowed:
                wrong.append(f"{path.relative_to(PACKAGE_ROOT)} imports {module} ({own} may import {sorted(allowed)})")
    assert wrong == []


def test_the_drawn_arrows_make_no_circle() -> None:
    tree = {name: allowed or set() for name, allowed in drawn_tree().items()}
    done: set[str] = set()

    def visit(name: str, path: tuple[str, ...]) -> None:
        assert name not in path, " -> ".join((*path, name))
        if name in done:
            return
        for target in tree.get(name, set()):
            visit(target, (*path, name))
        done.add(name)

    for name in tree:
        visit(name, ())


def test_nothing_in_the_investigation_domain_imports_the_hallucination_domain() -> None:
    crossing = [
        f"{path.relative_to(PACKAGE_ROOT)}: {module}"
        for path in sorted(INVESTIGATION.rglob("*.py"))
        for module in imported_modules(path)
        if module == "lexprobe.hallucination" or module.startswith("lexprobe.hallucination.")
    ]
    assert crossing == []


@pytest.mark.parametrize("name", sorted(name for name, allowed in drawn_tree().items() if allowed is not None))
def test_each_package_says_what_it_is(name: str) -> None:
    init = INVESTIGATION / name / "__init__.py"
    module = ast.parse(init.read_text(encoding="utf-8"))
    docstring = ast.get_docstring(module) or ""
    assert len(docstring) > 80
    assert "May import:" in docstring  # what it may import


def test_the_old_run_store_names_still_import_from_the_store() -> None:
    from lexprobe.engine.run_claim import RunClaim, RunConflictError
    from lexprobe.engine.store import LEGACY_KIND_KEYS, RunStore, settings_changes
    from lexprobe.engine.store import RunConflictError as from_engine
    from lexprobe.engine.store import RunConflictError as from_store

    assert from_store is RunConflictError is from_engine
    assert issubclass(RunStore, RunClaim)
    assert LEGACY_KIND_KEYS["investigation_settings"] == "investigation"
    assert settings_changes({"a": 1}, {"a": 2}) == ["a: 1 -> 2"]


#: Light modules whose import must not pull in the heavy libraries the re-exports of their package name.
LIGHT = {
    "lexprobe.investigation.environment.ladder": ("pydantic", "jinja2", "openpyxl", "matplotlib"),
    "lexprobe.investigation.environment.hf_names": ("pydantic", "jinja2", "openpyxl", "matplotlib"),
    "lexprobe.investigation.shell.sandbox": ("pydantic", "jinja2", "openpyxl", "matplotlib"),
    "lexprobe.investigation.review": ("openpyxl", "matplotlib"),
    "lexprobe.investigation.report": ("matplotlib", "jinja2"),
}


@pytest.mark.parametrize("module", sorted(LIGHT))
def test_importing_a_light_module_imports_nothing_heavy(module: str) -> None:
    code = f"import json, sys; import {module}; print(json.dumps(sorted(sys.modules)))"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    imported = {name.split(".")[0] for name in json.loads(proc.stdout)}
    assert sorted(imported & set(LIGHT[module])) == []
