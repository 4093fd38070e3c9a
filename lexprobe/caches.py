"""Empty lexprobe's in-process memo caches, so that a benchmark times what a first user pays.

The citation, court and judge code memoizes per input string (`caselaw.citations.parse_citation` and
`citation_key`, `caselaw.courts.resolve_court`, `caselaw.judges._parse`, `caselaw.case_names.normalize_case_name`,
...) and builds lookup tables once per process (the reporter table, the court name index); the citation checker and
the fabricator keep per-database registries (`check.verify._lookups`, `hallucination.fabricate._INDEXES`). A
process that has already scored or checked something answers later calls from these; a new user's process has none.
`clear_all()` empties every one of them in the modules loaded so far, found by what they are rather than by name, so
a cache added later is cleared too.
"""

from __future__ import annotations

import sys
import weakref
from collections.abc import Iterable

#: The packages whose memo caches `clear_all` empties by default.
MEMO_PACKAGES = ("lexprobe.caselaw", "lexprobe.check", "lexprobe.hallucination")


def clear_all(packages: Iterable[str] = MEMO_PACKAGES) -> list[str]:
    """Empty every module-level `functools.cache` / `lru_cache` function and every module-level
    `weakref.WeakKeyDictionary` registry in the loaded modules of `packages` (and their submodules); return the
    qualified names of what was cleared, sorted. Modules not imported yet hold nothing and are not imported."""
    prefixes = tuple(packages)
    cleared: list[str] = []
    for name, module in list(sys.modules.items()):
        if module is None or not any(name == p or name.startswith(p + ".") for p in prefixes):
            continue
        for attribute, value in list(vars(module).items()):
            if isinstance(value, weakref.WeakKeyDictionary):
                value.clear()
                cleared.append(f"{name}.{attribute}")
            elif callable(getattr(value, "cache_clear", None)) and getattr(value, "__module__", None) == name:
                value.cache_clear()
                cleared.append(f"{name}.{attribute}")
    return sorted(cleared)
