"""The import and size rules docs/architecture.md states, checked on every module of lexprobe/ (parsed with `ast`,
never imported): (a) no import of a layer above, in the layer table the doc draws under "Data flows down this list;
nothing imports a layer above it." (read from the doc, so the picture and the test cannot drift apart); (b) no
import between `lexprobe.hallucination` and `lexprobe.investigation`, either way; (c) no circle among module-level
imports (those under `if TYPE_CHECKING:` included; a function-level, lazy import may close a circle: the doc says
why); (d) no function or method over 60 lines (`FUNCTION_LINES_EXEMPT` names the few whose body is a data table or
a template, each with its reason); (e) no import of a private name (`from m import _x`) from another module; (f) no
`json_extract` (SQLite's JSON reader) in a module outside `lexprobe/engine/`, which owns the stored JSON's shape.
Imports inside functions and `if TYPE_CHECKING:` blocks count for (a), (b) and (e); relative imports are resolved
against the importing module's package."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "lexprobe"
ARCHITECTURE = ROOT / "docs" / "architecture.md"
LAYER_STATEMENT = "Data flows down this list; nothing imports a layer above it."
MAX_FUNCTION_LINES = 60
# "module:qualified.name" -> why its length is data, not logic (a table or a template read top to bottom).
FUNCTION_LINES_EXEMPT: dict[str, str] = {}
JSON_OWNER = "lexprobe.engine"
DOMAINS = ("lexprobe.hallucination", "lexprobe.investigation")


@dataclass(frozen=True)
class Import:
    """One import statement's target module, where it is, and whether it runs when its module is imported."""

    importer: str
    target: str
    line: int
    at_import_time: bool


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


@cache
def modules() -> dict[str, Path]:
    """Every module of lexprobe/ by dotted name (a package by its own name)."""
    return {_module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def _resolve(importer: str, node: ast.ImportFrom) -> str:
    """The absolute module a `from ... import` names (relative levels counted from the importer's package)."""
    if not node.level:
        return node.module or ""
    is_package = modules()[importer].name == "__init__.py"
    base = importer.split(".") if is_package else importer.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, node.module] if node.module else base)


def _targets(importer: str, node: ast.Import | ast.ImportFrom) -> list[str]:
    """The lexprobe modules one statement imports: `from a.b import c` names `a.b.c` when that is a module, else
    `a.b`; `import a.b` names `a.b`."""
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    else:
        module = _resolve(importer, node)
        names = [f"{module}.{a.name}" if f"{module}.{a.name}" in modules() else module for a in node.names]
    return sorted({name for name in names if name == "lexprobe" or name.startswith("lexprobe.")})


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _walk(importer: str, nodes: list[ast.stmt], at_import_time: bool, found: list[Import]) -> None:
    for node in nodes:
        if isinstance(node, ast.Import | ast.ImportFrom):
            found.extend(Import(importer, t, node.lineno, at_import_time) for t in _targets(importer, node))
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            _walk(importer, node.body, False, found)
        elif isinstance(node, ast.If) and _is_type_checking(node.test):
            _walk(importer, node.body, at_import_time, found)  # never run, but the type checker follows it
            _walk(importer, node.orelse, at_import_time, found)
        else:
            for field in ("body", "orelse", "finalbody", "handlers", "cases"):
                children = getattr(node, field, None)
                if isinstance(children, list):
                    _walk(importer, [c for c in children if isinstance(c, ast.AST)], at_import_time, found)


@cache
def trees() -> dict[str, ast.Module]:
    return {name: ast.parse(path.read_text(encoding="utf-8"), filename=str(path)) for name, path in modules().items()}


@cache
def imports() -> tuple[Import, ...]:
    """Every lexprobe import of every module, module-level and function-level alike."""
    found: list[Import] = []
    for name, tree in trees().items():
        _walk(name, tree.body, True, found)
    return tuple(found)


def top_level(module: str) -> str:
    """The top-level package or module a module belongs to: "lexprobe.caselaw.query" -> "caselaw"."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


@cache
def layers() -> tuple[tuple[str, ...], ...]:
    """The layer table of docs/architecture.md, top first: each row's top-level packages and modules ("cli",
    "demo", ...), read from the backticked names of its second column."""
    text = ARCHITECTURE.read_text(encoding="utf-8")
    assert LAYER_STATEMENT in text, f"docs/architecture.md no longer says {LAYER_STATEMENT!r}"
    rows: list[tuple[str, ...]] = []
    for line in text.split(LAYER_STATEMENT, 1)[1].lstrip("\n").splitlines():
        if not line.startswith("|"):
            if rows:
                break
            continue
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        if len(cells) < 2 or set(cells[0]) <= set("-: ") or not cells[0].isdigit():
            continue
        names = tuple(re.sub(r"(/|\.py)$", "", name) for name in re.findall(r"`([^`]+)`", cells[1]))
        rows.append(names)
    assert rows, "no layer table under the layer statement of docs/architecture.md"
    return tuple(rows)


def layer_of() -> dict[str, int]:
    return {name: index for index, row in enumerate(layers()) for name in row}


def test_the_doc_names_every_top_level_package_once() -> None:
    named = [name for row in layers() for name in row]
    assert len(named) == len(set(named)), f"a package is on two layers of docs/architecture.md: {named}"
    present = {top_level(module) for module in modules()} - {""}
    assert sorted(present - set(named)) == [], "add these to the layer table of docs/architecture.md"
    assert sorted(set(named) - present) == [], "the layer table of docs/architecture.md names what is not there"


def test_no_import_of_a_layer_above_or_beside() -> None:
    """A module imports its own top-level package or a layer below; never one above it, nor another package on
    its own layer. `lexprobe/__init__.py` (the version, and `check_text` loaded on first use) is no layer."""
    rank = layer_of()
    wrong = []
    for item in imports():
        source, target = top_level(item.importer), top_level(item.target)
        if not source or not target or source == target or source not in rank or target not in rank:
            continue
        if rank[target] <= rank[source]:
            where = "above" if rank[target] < rank[source] else "beside"
            wrong.append(f"{item.importer}:{item.line} imports {item.target} (a layer {where})")
    assert wrong == []


def test_no_import_between_the_two_domains() -> None:
    wrong = [
        f"{item.importer}:{item.line} imports {item.target}"
        for item in imports()
        for source, target in (DOMAINS, DOMAINS[::-1])
        if _within(item.importer, source) and _within(item.target, target)
    ]
    assert wrong == []


def _within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def find_circle(edges: dict[str, set[str]]) -> list[str] | None:
    """One circle of the graph `edges` (as the modules along it, the first repeated at the end), or None."""
    state: dict[str, int] = {}  # 1 on the current path, 2 finished
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state:
                circle = visit(nxt)
                if circle:
                    return circle
        path.pop()
        state[node] = 2
        return None

    for start in sorted(edges):
        if start not in state:
            circle = visit(start)
            if circle:
                return circle
    return None


def test_find_circle_finds_one_and_only_one() -> None:
    assert find_circle({"a": {"b"}, "b": {"c"}, "c": set()}) is None
    assert find_circle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_circle({"a": {"a"}}) == ["a", "a"]


def test_no_circle_among_import_time_imports() -> None:
    edges: dict[str, set[str]] = {}
    for item in imports():
        if item.at_import_time and item.target != item.importer:
            edges.setdefault(item.importer, set()).add(item.target)
    assert find_circle(edges) is None


def test_the_rules_see_relative_and_function_level_imports() -> None:
    """The parser itself: relative imports resolve against their package; an import inside a function is seen and
    marked lazy, one under `if TYPE_CHECKING:` counts as module-level."""
    one_up, two_up = (ast.parse(source).body[0] for source in ("from .records import X", "from ..records import X"))
    assert isinstance(one_up, ast.ImportFrom) and isinstance(two_up, ast.ImportFrom)
    assert _targets("lexprobe.caselaw.query", one_up) == ["lexprobe.caselaw.records"]
    assert _targets("lexprobe.caselaw", one_up) == ["lexprobe.caselaw.records"]
    assert _targets("lexprobe.caselaw.sources.cap", two_up) == ["lexprobe.caselaw.records"]
    source = "def f():\n    from lexprobe.check import x\nif TYPE_CHECKING:\n    import lexprobe.engine\n"
    found: list[Import] = []
    _walk("lexprobe.caselaw.query", ast.parse(source).body, True, found)
    assert [(i.target, i.at_import_time) for i in found] == [("lexprobe.check", False), ("lexprobe.engine", True)]
    assert len(modules()) > 100 and len(imports()) > 500  # the rules below are not checked on an empty tree


def long_functions(tree: ast.Module, limit: int) -> dict[str, int]:
    """Every function and method of a parsed module over `limit` lines (from its `def` line to its last line,
    nested functions counted inside the one that holds them too), by qualified name."""
    long: dict[str, int] = {}

    def visit(nodes: list[ast.stmt], prefix: str) -> None:
        for node in nodes:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                name = f"{prefix}{node.name}"
                size = (node.end_lineno or node.lineno) - node.lineno + 1
                if not isinstance(node, ast.ClassDef) and size > limit:
                    long[name] = size
                visit(node.body, f"{name}.")
            else:
                for field in ("body", "orelse", "finalbody", "handlers", "cases"):
                    children = getattr(node, field, None)
                    if isinstance(children, list):
                        visit([c for c in children if isinstance(c, ast.AST)], prefix)

    visit(tree.body, "")
    return long


def private_imports(tree: ast.Module) -> list[tuple[int, str]]:
    """Each `from m import _x` of a parsed module (any depth, relative or absolute) as (line, "m._x");
    dunder names (`__version__`) are public."""
    return [
        (node.lineno, f"{'.' * node.level}{node.module or ''}.{alias.name}")
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
        if alias.name.startswith("_") and not alias.name.startswith("__")
    ]


def test_the_size_and_privacy_rules_see_what_they_check() -> None:
    source = (
        "from .a import _x, __version__\n"
        "def f():\n    from b import _y\n" + "    pass\n" * 60 + "class C:\n    def g(self):\n        pass\n"
    )
    tree = ast.parse(source)
    assert private_imports(tree) == [(1, ".a._x"), (3, "b._y")]
    assert long_functions(tree, 60) == {"f": 62}
    assert long_functions(tree, 1) == {"f": 62, "C.g": 2}


def test_no_function_over_60_lines() -> None:
    """Split by concept: a function that does two things is two functions. A data table or a template is
    exempt only by name in `FUNCTION_LINES_EXEMPT`, with its reason."""
    long = {
        f"{module}:{name}": size
        for module, tree in trees().items()
        for name, size in long_functions(tree, MAX_FUNCTION_LINES).items()
        if f"{module}:{name}" not in FUNCTION_LINES_EXEMPT
    }
    assert long == {}


def test_the_exemptions_name_long_functions_that_exist() -> None:
    present = {
        f"{module}:{name}" for module, tree in trees().items() for name in long_functions(tree, MAX_FUNCTION_LINES)
    }
    assert sorted(set(FUNCTION_LINES_EXEMPT) - present) == []


def test_no_import_of_a_private_name() -> None:
    """A name starting with `_` belongs to its module: a module that needs it takes a public name, or the concept
    moves into one module."""
    wrong = [
        f"{module}:{line} imports {name}" for module, tree in trees().items() for line, name in private_imports(tree)
    ]
    assert wrong == []


def test_json_extract_only_in_the_engine() -> None:
    """The engine writes the run store's JSON columns; reading inside them is its business, so a change of shape
    is one package's change."""
    wrong = [
        module
        for module, path in modules().items()
        if not _within(module, JSON_OWNER) and "json_extract" in path.read_text(encoding="utf-8")
    ]
    assert wrong == []
