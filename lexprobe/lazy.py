"""Lazy re-exports for package `__init__` modules (PEP 562 module `__getattr__`), and regular expressions compiled
on first use (`lazy_pattern`).

A package that re-exports names from its submodules imports them all as soon as any one submodule is imported, so
`from lexprobe.engine.store import RunStore` would pull in the executor, the model clients and their SDKs. With

    __getattr__, __dir__ = lazy_exports(__name__, globals(), {"RunStore": "store", ...})

each name is imported from its submodule on first use (and then kept in the package namespace), and a submodule
not imported yet is still reachable as an attribute, as it was when the package imported every submodule. Keep
the real imports under `if TYPE_CHECKING:` beside it for type checkers and editors.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Iterator, Mapping
from typing import Any

__all__ = ["LazyPattern", "lazy_exports", "lazy_pattern"]


def lazy_exports(
    package: str, namespace: dict[str, Any], exports: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """Return the `__getattr__` and `__dir__` of `package` whose module globals are `namespace`: each name of
    `exports` (name -> submodule, relative to `package`) is imported from that submodule on first use."""

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is not None:
            value = getattr(importlib.import_module(f"{package}.{module}"), name)
            namespace[name] = value
            return value
        if not name.startswith("_"):
            try:
                return importlib.import_module(f"{package}.{name}")
            except ModuleNotFoundError as exc:
                if exc.name != f"{package}.{name}":
                    raise
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __dir__() -> list[str]:
        return sorted({*namespace, *exports})

    return __getattr__, __dir__


class LazyPattern:
    """A regular expression compiled on its first use, then kept: a module of many patterns (the scorers' answer
    readers) costs nothing to import for the patterns a command never uses. It matches exactly as
    `re.compile(source, flags)` does; any other attribute of the compiled pattern is passed through."""

    __slots__ = ("_compiled", "_flags", "_source")

    def __init__(self, source: str, flags: int = 0) -> None:
        self._source = source
        self._flags = flags
        self._compiled: re.Pattern[str] | None = None

    @property
    def compiled(self) -> re.Pattern[str]:
        """The compiled pattern (compiled now if it was not yet)."""
        if self._compiled is None:
            self._compiled = re.compile(self._source, self._flags)
        return self._compiled

    def search(self, string: str, *args: int) -> re.Match[str] | None:
        return self.compiled.search(string, *args)

    def match(self, string: str, *args: int) -> re.Match[str] | None:
        return self.compiled.match(string, *args)

    def fullmatch(self, string: str, *args: int) -> re.Match[str] | None:
        return self.compiled.fullmatch(string, *args)

    def finditer(self, string: str, *args: int) -> Iterator[re.Match[str]]:
        return self.compiled.finditer(string, *args)

    def findall(self, string: str, *args: int) -> list[Any]:
        return self.compiled.findall(string, *args)

    def sub(self, repl: Any, string: str, count: int = 0) -> str:
        return self.compiled.sub(repl, string, count)

    def subn(self, repl: Any, string: str, count: int = 0) -> tuple[str, int]:
        return self.compiled.subn(repl, string, count)

    def split(self, string: str, maxsplit: int = 0) -> list[Any]:
        return self.compiled.split(string, maxsplit)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.compiled, name)

    def __repr__(self) -> str:
        return f"lazy_pattern({self._source!r}, {self._flags!r})"


def lazy_pattern(source: str, flags: int = 0) -> LazyPattern:
    """Return `re.compile(source, flags)` as a `LazyPattern`: compiled on first use, so importing costs nothing."""
    return LazyPattern(source, flags)
