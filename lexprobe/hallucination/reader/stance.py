"""The stance lexicon: the phrase tables of `stance.toml` compiled into patterns, and the matching that reads them.

A table is a list of phrases (and optionally `unless` phrases that veto a match they overlap). A phrase is words
with a small notation, compiled into one regular expression of bounded pieces (so a search is linear in the text):

    {a|b c}   one of the alternatives, each a phrase     [a|b c]  the same, optional
    ~N        up to N words, as few as fit               ~N:set   up to N words of `[sets] set`
    ~N,       up to N words, commas and "v." among them
    %         one word                                   ...      the rest of the sentence
    word*     a word's beginning ("overrul*")            *suffix  a word's ending ("*n't", "*ly")
    @macro    the phrase `[macros] macro`                <name>   a value the caller gives (`table(..., name=)`)
    ^  $      the start (bullets, emoji may precede it)  &        the end of a clause
              / the end of the text

Words match whole words, ignoring case; between two words stands white space, or a comma, colon or dash. The text
is expected normalized (straight quotes; `labels.abstention.normalize_answer`).
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterator
from functools import cache
from importlib.resources import files
from typing import Any

__all__ = ["PhraseTable", "phrase_pattern", "table"]

_FLAGS = re.IGNORECASE
#: Between two words of a phrase: white space, or a comma, colon or dash with any spaces around it.
SEPARATOR = r"(?:\s*[,:\u2013\u2014-]\s*|\s+)"
# a word starts after no letter and is taken whole (possessive): a long run of letters costs one pass, not one per
# position
_WORD = r"(?<![\w'])[\w'-]++"
_GAP_WORD = _WORD + r"\s+"
_LOOSE_GAP_WORD = r"(?<![\w'])(?:\w{1,3}\.|[\w'-]++),?\s+"  # also "v.", "Heller,": the words of a case name
_ANCHORS = {"^": r"^\W*?", "$": r"(?=[\s.!?]*\Z)", "&": r"(?=\s*(?:[.!?;,:)/\u2013\u2014-]|\Z))"}
_TOKENS = re.compile(r"\s+|[{}\[\]|]|[^\s{}\[\]|]+")
_MACRO = re.compile(r"@(\w+)")
_VETO_REACH = 80  # characters around a match searched for a veto


@cache
def _lexicon() -> dict[str, Any]:
    """The parsed `stance.toml` (read once)."""
    return tomllib.loads(files(__package__).joinpath("stance.toml").read_text("utf-8"))


def _expand(phrase: str, depth: int = 0) -> str:
    """Return `phrase` with its `@macro`s replaced by their phrases (macros may use macros)."""
    if depth > 5:
        raise ValueError(f"stance.toml: macros nested too deep in {phrase!r}")
    macros = _lexicon()["macros"]
    return _MACRO.sub(lambda m: "{" + _expand(macros[m.group(1)], depth + 1) + "}", phrase)


def _word(atom: str) -> str:
    """One word of a phrase as a pattern: whole-word, with `*` at either end as a wildcard."""
    core = atom.strip("*")
    pattern = re.escape(core)
    if atom.startswith("*") and len(atom) > 1:
        pattern = r"\w*" + pattern
    if atom.endswith("*"):
        pattern += r"\w*"
    start = r"(?<![\w'])" if atom.startswith("*") or re.match(r"\w", core) else ""
    end = r"(?![\w'])" if not atom.endswith("*") and re.search(r"\w$", core) else ""
    return start + pattern + end


class _Parser:
    """Recursive descent over a phrase's tokens into a pattern."""

    def __init__(self, phrase: str, params: dict[str, str]) -> None:
        self.tokens = [token for token in _TOKENS.findall(_expand(phrase)) if not token.isspace()]
        self.index = 0
        self.params = params
        self.phrase = phrase

    def parse(self) -> str:
        pattern = self._sequence()
        if self.index != len(self.tokens):
            raise ValueError(f"stance.toml: unbalanced brackets in {self.phrase!r}")
        return pattern

    def _alternatives(self, close: str) -> str:
        options = [self._sequence()]
        while self.index < len(self.tokens) and self.tokens[self.index] == "|":
            self.index += 1
            options.append(self._sequence())
        if self.index >= len(self.tokens) or self.tokens[self.index] != close:
            raise ValueError(f"stance.toml: missing {close!r} in {self.phrase!r}")
        self.index += 1
        return "(?:" + "|".join(options) + ")"

    def _sequence(self) -> str:
        out: list[str] = []
        separate = False  # whether the next piece needs a separator before it
        while self.index < len(self.tokens) and self.tokens[self.index] not in ("|", "}", "]"):
            token = self.tokens[self.index]
            self.index += 1
            if token in _ANCHORS:
                out.append(_ANCHORS[token])
                continue
            if token.startswith("~"):
                count, _, word_set = token[1:].partition(":")
                word = _GAP_WORD
                if count.endswith(","):
                    count, word = count[:-1], _LOOSE_GAP_WORD
                if word_set:
                    words = "|".join(_word(w) for w in _lexicon()["sets"][word_set])
                    word = rf"(?:{words})\s+"
                out.append((SEPARATOR if separate else "") + f"(?:{word}){{0,{int(count)}}}?")
                separate = False
                continue
            optional = token == "["
            if token in ("{", "["):
                piece = self._alternatives("}" if token == "{" else "]")
            elif token == "%":
                piece = _WORD
            elif token == "...":
                piece = r"[^;!?\n]*"
            elif token.startswith("<") and token.endswith(">"):
                piece = _word(self.params[token[1:-1]])
            else:
                piece = _word(token)
            if optional and separate:
                out.append(f"(?:{SEPARATOR}{piece})?")
            elif optional:
                out.append(f"(?:{piece}{SEPARATOR})?")
            else:
                out.append((SEPARATOR if separate else "") + piece)
                separate = True
        return "".join(out)


def phrase_pattern(phrase: str, **params: str) -> str:
    """Return the regular expression (case-insensitive) of one phrase in the notation of this module."""
    return _Parser(phrase, params).parse()


class PhraseTable:
    """The phrases of one table as one pattern, with the table's vetoes; matched against normalized text."""

    def __init__(self, name: str, phrases: list[str], unless: list[str], params: dict[str, str]) -> None:
        self.name = name
        self.phrases = tuple(phrases)
        self.pattern = re.compile("|".join(f"(?:{phrase_pattern(p, **params)})" for p in phrases), _FLAGS)
        self.veto = (
            re.compile("|".join(f"(?:{phrase_pattern(p, **params)})" for p in unless), _FLAGS) if unless else None
        )

    def _vetoed(self, text: str, match: re.Match[str]) -> bool:
        if self.veto is None:
            return False
        low, high = max(0, match.start() - _VETO_REACH), min(len(text), match.end() + _VETO_REACH)
        return any(
            veto.start() < match.end() and veto.end() > match.start()
            for veto in self.veto.finditer(text, low, high)
            if veto.end() > veto.start()
        )

    def finditer(self, text: str, pos: int = 0, endpos: int | None = None) -> Iterator[re.Match[str]]:
        """Yield the table's matches in `text[pos:endpos]` from left to right, none vetoed, none overlapping."""
        end = len(text) if endpos is None else endpos
        while pos <= end:
            match = self.pattern.search(text, pos, end)
            if match is None:
                return
            if self._vetoed(text, match):
                pos = match.start() + 1
                continue
            yield match
            pos = max(match.end(), match.start() + 1)

    def search(self, text: str, pos: int = 0, endpos: int | None = None) -> re.Match[str] | None:
        """Return the first match (not vetoed) in `text[pos:endpos]`, else None."""
        return next(self.finditer(text, pos, endpos), None)

    def match(self, text: str, pos: int = 0) -> re.Match[str] | None:
        """Return a match (not vetoed) that starts at `pos`, else None."""
        match = self.pattern.match(text, pos)
        return None if match is None or self._vetoed(text, match) else match

    def found(self, text: str) -> str | None:
        """Return the first phrase found in `text` as written there (stripped), else None."""
        match = self.search(text)
        return match.group().strip() if match else None


@cache
def table(name: str, /, **params: str) -> PhraseTable:
    """Return the compiled table `name` of `stance.toml` ("abstain", "reject.dissent"), its `<param>`s filled from
    `params` (the justice's last name: `table("dissent.rejection", name="Warren")`). Compiled once per value."""
    node: Any = _lexicon()
    for part in name.split("."):
        node = node[part]
    return PhraseTable(name, list(node["phrases"]), list(node.get("unless", [])), params)
