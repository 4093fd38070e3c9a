"""`lazy_pattern` matches exactly as `re.compile` does, and compiles only on first use."""

from __future__ import annotations

import re

from lexprobe.lazy import lazy_pattern

SOURCE = r"\b(?P<word>[a-z]+)(\d*)\b"
TEXT = "Brown v. Board 347 U.S. 483 (1954), abc12 and xyz"


def test_lazy_pattern_matches_as_compiled() -> None:
    for flags in (0, re.IGNORECASE):
        lazy, compiled = lazy_pattern(SOURCE, flags), re.compile(SOURCE, flags)
        assert lazy._compiled is None  # nothing compiled before the first use
        assert lazy.search(TEXT).group() == compiled.search(TEXT).group()
        assert lazy.search(TEXT, 5, 30).span() == compiled.search(TEXT, 5, 30).span()
        assert (lazy.match(TEXT) is None) == (compiled.match(TEXT) is None) == (flags == 0)
        assert lazy.match("abc1 x").groupdict() == compiled.match("abc1 x").groupdict()
        assert lazy.fullmatch("abc12").groups() == compiled.fullmatch("abc12").groups()
        assert [m.span() for m in lazy.finditer(TEXT)] == [m.span() for m in compiled.finditer(TEXT)]
        assert lazy.findall(TEXT) == compiled.findall(TEXT)
        assert lazy.sub("_", TEXT) == compiled.sub("_", TEXT)
        assert lazy.sub(lambda m: m.group().upper(), TEXT, 2) == compiled.sub(lambda m: m.group().upper(), TEXT, 2)
        assert lazy.subn("_", TEXT, count=1) == compiled.subn("_", TEXT, count=1)
        assert lazy.split(TEXT, 3) == compiled.split(TEXT, 3)
        assert (lazy.pattern, lazy.flags, lazy.groups, lazy.groupindex) == (
            compiled.pattern, compiled.flags, compiled.groups, compiled.groupindex
        )  # fmt: skip
        assert lazy.compiled is lazy.compiled  # compiled once, then kept
