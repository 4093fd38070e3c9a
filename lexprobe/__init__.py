"""lexprobe: measure what language models know about law and how well they investigate legal evidence."""

from __future__ import annotations

from typing import Any


def __getattr__(name: str) -> Any:
    """Lazy attributes: `lexprobe.__version__` reads the installed metadata, and `lexprobe.check_text` and
    `lexprobe.CitationVerdict` import the citation checker, on first use (importing `lexprobe` stays cheap)."""
    if name == "__version__":
        from importlib.metadata import PackageNotFoundError, version

        try:
            value = version("lexprobe")
        except PackageNotFoundError:  # running from a source tree that was never installed
            value = "0.0.0+source"
        globals()["__version__"] = value
        return value
    if name in ("check_text", "CitationVerdict"):
        from lexprobe import check

        return getattr(check, name)
    raise AttributeError(f"module 'lexprobe' has no attribute {name!r}")
