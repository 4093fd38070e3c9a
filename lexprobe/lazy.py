"""Lazy re-exports for package `__init__` modules (PEP 562 module `__getattr__`).

A package that re-exports names from its submodules imports them all as soon as any one submodule is imported, so
`from lexprobe.engine.store import RunStore` would pull in the executor, the model clients and their SDKs. With

    __getattr__, __dir__ = lazy_exports(__name__, globals(), {"RunStore": "store", ...})

each name is imported from its submodule on first use (and then kept in the package namespace), and a submodule
not imported yet is still reachable as an attribute, as it was when the package imported every submodule. Keep
the real imports under `if TYPE_CHECKING:` beside it for type checkers and editors.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_exports"]


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
