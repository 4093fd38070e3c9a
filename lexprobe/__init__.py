"""lexprobe: measure what language models know about law and how well they investigate legal evidence."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("lexprobe")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0+source"


def __getattr__(name: str):
    """Lazy exports: `lexprobe.check_text` and `lexprobe.CitationVerdict` import the citation checker on first use."""
    if name in ("check_text", "CitationVerdict"):
        from lexprobe import check

        return getattr(check, name)
    raise AttributeError(f"module 'lexprobe' has no attribute {name!r}")
