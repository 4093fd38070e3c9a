"""Reading the Turn-2 verdicts (InvestigationWorlds, Appendix D.4) out of a model's reply, leniently but never by
guessing.

The prompt asks for a JSON array `[{"label": "H1", "verdict": "A", "reason": "..."}, ...]` with A = Believe,
B = Don't believe, C = Don't know. Replies drift from that; this module reads, in order:

1. JSON anywhere in the reply (inside ``` fences or surrounded by prose): an array of objects, one object, an object
   keyed by label (`{"H1": "A"}` or `{"H1": {"verdict": "A"}}`), a wrapper object holding such an array
   (`{"verdicts": [...]}`), or an array of `[label, verdict, reason]` rows. Trailing commas, single quotes, smart
   quotes and unquoted keys are repaired. An array whose items carry no labels at all is read by position, and only
   when it has exactly one item per hypothesis (the prompt asks for the order shown).
2. Complete `{...}` objects anywhere, one by one (a reply cut off inside its array keeps its finished objects).
3. Lines, for the hypotheses still missing: `H1: A — reason`, `- **H2** (B): reason`, `H3 - Don't know`,
   markdown table rows `| H1 | A | reason |`, and a label line followed by a `Verdict: B` line.

A verdict value is read from a letter (`A`, `a`, `A.`, `(B)`, `[C]`, `Option A`, `A - Believe`) or a word
(`Believe`, `Don't believe`, `do not believe`, `disbelieve`, `reject`, `Don't know`, `do not know`, `unknown`,
`unsure`, `uncertain`, `not sure`, `cannot determine`). A letter and a word that disagree (`A (Don't believe)`),
an unrecognized value, or two different verdicts for one label give None: a hypothesis without a readable verdict
is recorded as unparsed, never filled in.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from lexprobe.investigation.agent.episode import Verdict

LETTERS: dict[str, Verdict] = {"a": "believe", "b": "reject", "c": "dont_know"}

LABEL_KEYS = ("label", "hypothesis", "hypothesis_label", "id", "h", "name", "key")
VERDICT_KEYS = ("verdict", "answer", "choice", "decision", "judgment", "judgement", "option", "selection", "belief",
                "assessment", "rating", "response")  # fmt: skip
REASON_KEYS = ("reason", "reasoning", "rationale", "explanation", "justification", "why", "because")

_APOSTROPHES = str.maketrans({"’": "'", "‘": "'", "`": "'", "´": "'"})
_NOT = r"(?:do\s*not|don'?t|dont|does\s*not|doesn'?t|did\s*not|didn'?t)"
# (pattern, verdict): anchored at the start of the value; negations before "believe".
_WORDS: tuple[tuple[re.Pattern[str], Verdict], ...] = tuple(
    (re.compile(pattern, re.IGNORECASE), verdict)
    for pattern, verdict in (
        (rf"^{_NOT}\s+believe\b", "reject"),
        (r"^not\s+believed?\b", "reject"),
        (r"^disbelieve[sd]?\b", "reject"),
        (r"^reject(?:ed|s)?\b", "reject"),
        (rf"^{_NOT}\s+know\b", "dont_know"),
        (r"^(?:unknown|unsure|uncertain|undecided|undetermined)\b", "dont_know"),
        (r"^not\s+sure\b", "dont_know"),
        (r"^(?:cannot|can'?t|can\s+not)\s+(?:determine|tell|say|decide)\b", "dont_know"),
        (r"^believe[sd]?\b", "believe"),
    )
)
_I_PREFIX = re.compile(r"^i\s+(?=(?:do|don|dont|believe|disbelieve|reject|can|cannot)\b)", re.IGNORECASE)
_LETTER = re.compile(
    r"""^(?:option\s+|choice\s+|verdict\s*[:=]?\s*)?
        (?:\(\s*([abc])\s*\)|\[\s*([abc])\s*\]|([abc])(?![a-z0-9']))   # (A) [A] or a lone letter
        \s*([.):\-–—,;]?)\s*(.*)$""",
    re.IGNORECASE | re.VERBOSE | re.DOTALL,
)
_OTHER_LETTER = re.compile(r"^(?:or\s+|and\s+|/\s*)?[(\[]?\s*([abc])\s*[)\]]?\s*[.?!]?$", re.IGNORECASE)
_STRIP = " \t\r\n*_\"'.:;,-–—"
_LABEL = re.compile(r"^(?:hypothesis|hyp\.?)?\s*h?\s*#?\s*(\d+)$", re.IGNORECASE)


@dataclass
class ParsedVerdicts:
    """What could be read from one reply: a verdict (or None) and a reason ("" when none) for every label asked
    about, in the order asked. `source` says where each verdict was found (`json`, `object`, `line`) or why there
    is none (`unreadable`: the label was given an unrecognized value or two different verdicts; `missing`: the
    label was not found)."""

    verdicts: dict[str, Verdict | None]
    reasons: dict[str, str] = field(default_factory=dict)
    source: dict[str, str] = field(default_factory=dict)

    @property
    def unparsed(self) -> list[str]:
        """The labels without a readable verdict."""
        return [label for label, verdict in self.verdicts.items() if verdict is None]

    @property
    def complete(self) -> bool:
        """True when every label has a verdict."""
        return not self.unparsed


def _word_verdict(text: str) -> tuple[Verdict | None, str]:
    """Read a verdict word at the start of `text`; return it and the rest of the text (case kept)."""
    text = text.translate(_APOSTROPHES).lstrip(_STRIP + "([")
    unprefixed = _I_PREFIX.sub("", text, count=1)
    for pattern, verdict in _WORDS:
        match = pattern.match(unprefixed)
        if match:
            rest = unprefixed[match.end() :].lstrip(")] ")
            if verdict == "believe" and unprefixed != text and rest.strip(" .!"):
                return None, text  # "I believe this is unlikely" is prose, not a verdict; a bare "I believe" is one
            return verdict, rest
    return None, text


def read_verdict(value: Any) -> tuple[Verdict | None, str]:
    """Return the verdict a single value states (letter or word, see the module docstring) and the text after it
    (a reason, when the value carried one). (None, "") when the value states none, or two that disagree."""
    if not isinstance(value, str):
        return None, ""
    raw = value.translate(_APOSTROPHES).strip().strip("*_\"'` \t")
    if not raw:
        return None, ""
    match = _LETTER.match(raw)
    if match:
        letter = (match.group(1) or match.group(2) or match.group(3)).lower()
        bracketed = match.group(1) is not None or match.group(2) is not None
        separator, rest = match.group(4), match.group(5).strip()
        verdict = LETTERS[letter]
        word, after = _word_verdict(rest)
        if word is not None:
            return (verdict, _clean_reason(after)) if word == verdict else (None, "")
        other = _OTHER_LETTER.match(rest)
        if other and other.group(1).lower() != letter:
            return None, ""  # "A, B", "A or B", "A/B"
        if not rest or bracketed or separator:
            return verdict, _clean_reason(rest)
        # a lone letter followed by prose without a separator ("a bit unclear") is no letter verdict
    word, after = _word_verdict(raw)
    if word is None:
        return None, ""
    trailing = re.match(r"^\s*[(\[]\s*([abc])\s*[)\]]", after, re.IGNORECASE)
    if trailing:  # "Believe (A)" agrees, "Believe (B)" is a conflict
        if LETTERS[trailing.group(1).lower()] != word:
            return None, ""
        after = after[trailing.end() :]
    return word, _clean_reason(after)


def _clean_reason(text: str) -> str:
    text = text.strip().lstrip(".):;,-–—|").strip()
    prefix = re.match(r"^(?:reason|because|rationale)\s*[:\-–—]\s*", text, re.IGNORECASE)
    return text[prefix.end() :].strip() if prefix else text


def _label_key(text: str) -> str:
    cleaned = " ".join(text.translate(_APOSTROPHES).lower().split()).strip(_STRIP + "()[]#")
    match = _LABEL.match(cleaned)
    return f"h{int(match.group(1))}" if match else cleaned


# --- JSON ------------------------------------------------------------------------------------------------------


def _spans(text: str, openers: str = "[{") -> list[str]:
    """Return every balanced bracket span starting with one of `openers`, longest first. Brackets inside strings
    (double quotes, smart quotes, and single quotes that open right after a delimiter) do not count."""
    found: list[str] = []
    stack: list[tuple[str, int]] = []
    quote: str | None = None
    escaped = False
    pairs = {"[": "]", "{": "}"}
    for index, char in enumerate(text):
        if quote:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == quote:
                quote = None
            continue
        if char in pairs:
            stack.append((char, index))
        elif not stack:
            continue
        elif char == '"':
            quote = '"'
        elif char == "“":
            quote = "”"
        elif char == "'" and text[:index].rstrip()[-1:] in ("[", "{", ",", ":"):
            quote = "'"
        elif char in "]}":
            opener, start = stack.pop()
            if pairs[opener] != char:
                stack.clear()  # mismatched brackets: start again after them
            elif opener in openers:
                found.append(text[start : index + 1])
    found.sort(key=len, reverse=True)
    return found


def _loads(span: str) -> Any:
    """Parse a JSON-ish span, repairing trailing commas, smart quotes, single quotes and unquoted keys. Raises
    ValueError when no repair parses."""
    repaired = re.sub(r",\s*([}\]])", r"\1", span.replace("“", '"').replace("”", '"'))
    quoted_keys = re.sub(r"([{,]\s*)([A-Za-z_][A-Za-z0-9_]*)\s*:", r'\1"\2":', repaired)
    for attempt in (span, repaired, quoted_keys):
        try:
            return json.loads(attempt)
        except ValueError:
            continue
    for attempt in (repaired, quoted_keys):
        python = re.sub(r"\btrue\b", "True", attempt)
        python = re.sub(r"\bfalse\b", "False", python)
        python = re.sub(r"\bnull\b", "None", python)
        try:
            return ast.literal_eval(python)
        except (ValueError, SyntaxError, MemoryError, RecursionError, TypeError):
            continue
    raise ValueError("not JSON")


def _lowered(mapping: dict) -> dict[str, Any]:
    return {str(key).strip().lower(): value for key, value in mapping.items()}


def _get(mapping: dict, keys: Sequence[str]) -> Any:
    lowered = _lowered(mapping)
    return next((lowered[key] for key in keys if key in lowered), None)


class _Collector:
    """Verdicts found per label; two different verdicts for one label are a conflict (None)."""

    def __init__(self, labels: Sequence[str]) -> None:
        self.labels = list(labels)
        self.keys = {_label_key(label): label for label in labels}
        self.found: dict[str, tuple[Verdict | None, str]] = {}
        self.conflicts: set[str] = set()

    def label(self, value: Any) -> str | None:
        """Map a label as written ("H1", "h1", "Hypothesis 1", 1) to one of the labels asked about."""
        if isinstance(value, bool) or not isinstance(value, str | int):
            return None
        return self.keys.get(_label_key(str(value)))

    def item_label(self, item: dict) -> str | None:
        lowered = _lowered(item)
        return next((self.label(lowered[key]) for key in LABEL_KEYS if self.label(lowered.get(key))), None)

    def add(self, label: str, value: Any, reason: Any = None) -> None:
        verdict, rest = read_verdict(value)
        reason = reason.strip() if isinstance(reason, str) and reason.strip() else rest
        if label in self.found:
            previous, previous_reason = self.found[label]
            if previous != verdict or label in self.conflicts:
                self.found[label] = (None, "")
                self.conflicts.add(label)
            elif not previous_reason and reason:
                self.found[label] = (verdict, reason)
            return
        self.found[label] = (verdict, reason)

    @property
    def readable(self) -> int:
        return sum(verdict is not None for verdict, _ in self.found.values())


def _from_item(item: Any, collector: _Collector, label: str | None = None) -> bool:
    """Read one item: an object with a label and a verdict, a [label, verdict, reason] row, or (when `label` is
    given, by position) an object without a label or a bare verdict string."""
    if isinstance(item, dict):
        label = collector.item_label(item) or label
        value = _get(item, VERDICT_KEYS)
        if label is None or value is None:
            return False
        collector.add(label, value, _get(item, REASON_KEYS))
        return True
    if isinstance(item, list | tuple) and len(item) >= 2 and collector.label(item[0]):
        collector.add(collector.label(item[0]), item[1], item[2] if len(item) > 2 else None)
        return True
    if label is not None and isinstance(item, str):
        collector.add(label, item)
        return True
    return False


def _from_keyed(value: dict, collector: _Collector) -> bool:
    """An object keyed by label: {"H1": "A", "H2": {"verdict": "B", "reason": "..."}, "H3": ["C", "why"]}."""
    read = False
    for key, inner in value.items():
        label = collector.label(key)
        if label is None:
            continue
        if isinstance(inner, dict):
            read = _from_item(inner, collector, label) or read
        elif isinstance(inner, str):
            collector.add(label, inner)
            read = True
        elif isinstance(inner, list | tuple) and inner and isinstance(inner[0], str):
            collector.add(label, inner[0], inner[1] if len(inner) > 1 else None)
            read = True
    return read


def _labelled(item: Any, collector: _Collector) -> bool:
    if isinstance(item, dict):
        return collector.item_label(item) is not None or any(collector.label(key) for key in item)
    return isinstance(item, list | tuple) and bool(item) and collector.label(item[0]) is not None


def _from_value(value: Any, collector: _Collector) -> None:
    """Read every verdict a parsed JSON value holds (the shapes of the module docstring)."""
    if isinstance(value, list):
        if not any(_labelled(item, collector) for item in value):
            if value and len(value) == len(collector.labels):  # by position: exactly one item per hypothesis
                for label, item in zip(collector.labels, value, strict=True):
                    _from_item(item, collector, label)
            return
        for item in value:
            if isinstance(item, dict) and collector.item_label(item) is None:
                _from_keyed(item, collector)
            else:
                _from_item(item, collector)
    elif isinstance(value, dict):
        if collector.item_label(value) is not None:
            _from_item(value, collector)
        elif not _from_keyed(value, collector):
            for inner in value.values():  # a wrapper: {"verdicts": [...]}
                if isinstance(inner, list | dict):
                    _from_value(inner, collector)


def json_values(text: str) -> list[Any]:
    """Every JSON array or object in `text` (read with the repairs of `_loads`), outermost spans only, in order."""
    kept: list[str] = []
    for span in _spans(text):  # longest first: keep the spans not inside one already kept
        if not any(span in other for other in kept):
            kept.append(span)
    values = []
    for span in sorted(kept, key=text.find):
        try:
            values.append(_loads(span))
        except ValueError:
            continue
    return values


def _json_verdicts(text: str, labels: Sequence[str]) -> dict[str, tuple[Verdict | None, str]]:
    """The reading of the JSON value in `text` that gives the most verdicts (the last one on a tie: a final answer
    after a draft)."""
    best: dict[str, tuple[Verdict | None, str]] = {}
    best_count = -1
    for value in json_values(text):
        collector = _Collector(labels)
        _from_value(value, collector)
        if collector.found and collector.readable >= best_count:
            best, best_count = collector.found, collector.readable
    return best


def _object_verdicts(text: str, labels: Sequence[str]) -> dict[str, tuple[Verdict | None, str]]:
    """Verdicts from every complete, labelled {...} object, read one by one (a reply cut off inside its array)."""
    collector = _Collector(labels)
    for span in sorted(_spans(text, openers="{"), key=text.find):
        try:
            value = _loads(span)
        except ValueError:
            continue
        if isinstance(value, dict) and collector.item_label(value) is not None:
            _from_item(value, collector)
    return collector.found


# --- lines -----------------------------------------------------------------------------------------------------

_LINE = re.compile(
    r"""^\s*(?:[-*•>]+\s*|\d+[.)]\s+)?(?:\#+\s*)?[*_]*\s*
        (?P<label>(?:hypothesis\s*)?h\s*\d+|hypothesis\s*\d+)(?![0-9a-z])
        \s*[*_]*\s*(?P<sep>[:.)\-–—=]|\s|$)\s*[*_]*\s*(?P<rest>.*)$""",
    re.IGNORECASE | re.VERBOSE,
)
_FIELD = re.compile(r"^\s*[-*•]?\s*[*_]*\s*(?P<key>verdict|answer|choice|decision|reason|rationale)\s*[*_]*\s*"
                    r"[:\-–—=]\s*[*_]*\s*(?P<rest>.*)$", re.IGNORECASE)  # fmt: skip
_INLINE_FIELD = re.compile(r"\b(?:verdict|answer|choice|decision)\s*[*_]*\s*[:=]\s*[*_]*\s*(?P<rest>.*)$",
                           re.IGNORECASE)  # fmt: skip


def _line_verdicts(text: str, labels: Sequence[str]) -> dict[str, tuple[Verdict | None, str]]:
    """Verdicts from lines: `H1: A - reason`, table rows `| H1 | A | reason |`, and a label line followed by a
    `Verdict: B` line (a `Reason:` line after it gives the reason)."""
    collector = _Collector(labels)
    current: str | None = None
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("|"):
            cells = [cell.strip().strip("*_ ") for cell in stripped.strip("|").split("|")]
            label = collector.label(cells[0]) if len(cells) >= 2 else None
            if label:
                collector.add(label, cells[1], cells[2] if len(cells) > 2 else None)
            current = None
            continue
        match = _LINE.match(line)
        if match:
            label = collector.label(match.group("label"))
            rest = match.group("rest")
            inline = _INLINE_FIELD.search(rest)
            if label is not None and read_verdict(rest)[0] is not None:
                collector.add(label, rest)
                current = None
            elif label is not None and inline and read_verdict(inline.group("rest"))[0] is not None:
                collector.add(label, inline.group("rest"))
                current = None
            else:
                current = label
            continue
        field_match = _FIELD.match(line)
        if field_match and current is not None:
            if field_match.group("key").lower() in ("reason", "rationale"):
                verdict, reason = collector.found.get(current, (None, ""))
                if verdict is not None and not reason:
                    collector.found[current] = (verdict, field_match.group("rest").strip())
            else:
                collector.add(current, field_match.group("rest"))
    return collector.found


# --- entry point -----------------------------------------------------------------------------------------------


def parse_verdicts(reply: str, labels: Sequence[str]) -> ParsedVerdicts:
    """Read the verdict on each of `labels` (H1, H2, ...) from a Turn-2 reply (see the module docstring).

    Every label gets an entry, None where no verdict could be read or where the reply gave two that disagree. Each
    reader (JSON, then single objects, then lines) only fills the labels the earlier ones never mentioned: a label a
    reader saw with an unreadable or conflicting value stays None."""
    labels = list(dict.fromkeys(labels))
    text = reply or ""
    result: dict[str, tuple[Verdict | None, str]] = {}
    source: dict[str, str] = {}
    for name, reader in (("json", _json_verdicts), ("object", _object_verdicts), ("line", _line_verdicts)):
        if len(result) == len(labels):
            break
        for label, (verdict, reason) in reader(text, labels).items():
            if label not in result:
                result[label] = (verdict, reason)
                source[label] = name if verdict is not None else "unreadable"
    return ParsedVerdicts(
        verdicts={label: result.get(label, (None, ""))[0] for label in labels},
        reasons={label: result.get(label, (None, ""))[1].strip() for label in labels},
        source={label: source.get(label, "missing") for label in labels},
    )
