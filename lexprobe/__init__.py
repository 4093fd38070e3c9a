"""lexprobe: measure what language models know about law and how well they investigate legal evidence."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("lexprobe")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0+source"
