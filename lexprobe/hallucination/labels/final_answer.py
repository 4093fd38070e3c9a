"""The part of a model's reply that is its answer, before any task reads it.

Today's models often think aloud before they answer (`<think>...</think>`, "Reasoning:" ... "Final answer:") and
format answers as markdown tables or JSON objects. The study scores the response's answer, so every scorer reads the
text `final_answer` returns: only the final answer of a reply that has a reasoning part, and tables and JSON objects
read as prose. The rules (docs/hallucination.md, "How a reply is read"):

- Reasoning in tags: `<think>`, `<thinking>`, `<reasoning>`, `<reflection>`, `<scratchpad>` and `<analysis>` blocks
  are dropped; a closing tag with no opening one (a chat template that opened the block in the prompt) drops
  everything before it; an opening tag that is never closed makes the rest of the reply reasoning.
- Reasoning sections: a reply that opens with a "Reasoning:", "Thinking:", "Analysis:", "Thought process:" (or
  "## Reasoning", "**Analysis**") heading is reasoning up to its answer heading.
- The answer heading: "Final answer:", "**Final Answer**", "## Final answer", "The final answer is" anywhere (the
  last one counts), and after a reasoning part also "Answer:", "Conclusion:" or "In conclusion," at the start of a
  line (the first one after the reasoning counts). Without a reasoning part a bare "Answer:" is not a heading
  (a few-shot continuation such as "Reverse\\n\\nCase: ...\\nAnswer: Affirm" is not the reply's answer).
- A reply with a reasoning part and no answer after it is "reasoning only": `final_answer` gives "" and
  `no_final_answer` the reason ("reasoning only, no final answer"), so the scorers leave it `unscored` instead of
  scoring a candidate the reasoning only considered.
- A markdown table reads as "header: cell." sentences (a two-column table of several rows as "left: right."); a
  JSON object (the whole reply, or a ```json fence) as "key: value." sentences, with an `answer`/`final_answer`
  field taken alone and `reasoning`-like fields dropped. What is parsed is bounded (`MAX_JSON_CHARS`,
  `MAX_JSON_DEPTH`, `MAX_ITEMS`, `MAX_TABLE_ROWS`): anything larger stays as text.
- `**bold**` and `__bold__` markers are dropped.
- What is read is bounded, so a huge reply cannot stall a run: the first `MAX_REPLY_CHARS` characters of a reply are
  read for its final answer, and the scorers read the first `MAX_ANSWER_CHARS` characters of that answer. A cut
  reading says so (`Reading.cut_note`), and the scorers add the note to the label's detail.

`final_answer` is idempotent: a text it returns reads back as itself.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

#: Why a reply that only reasons is not scored.
NO_FINAL_ANSWER = "reasoning only, no final answer"

MAX_JSON_CHARS = 20_000  # a longer JSON block is left as text
MAX_JSON_DEPTH = 6  # deeper nesting is left as text (checked before parsing)
MAX_ITEMS = 100  # key-value sentences read out of one JSON block
MAX_TABLE_ROWS = 100  # rows read out of one markdown table
MAX_REPLY_CHARS = 1_000_000  # a reply is read for its final answer up to here
MAX_ANSWER_CHARS = 20_000  # the scorers read a final answer up to here (about 3,000 words)

_FLAGS = re.IGNORECASE
_TAG_NAMES = r"think|thinking|thought|thoughts|reasoning|reflection|scratchpad|analysis"
_CLOSED_BLOCK = re.compile(rf"<\s*({_TAG_NAMES})\b[^>]*>.*?<\s*/\s*\1\s*>", _FLAGS | re.DOTALL)
_OPEN_TAG = re.compile(rf"<\s*(?:{_TAG_NAMES})\b[^>]*>", _FLAGS)
_CLOSE_TAG = re.compile(rf"<\s*/\s*(?:{_TAG_NAMES})\s*>", _FLAGS)

_MARKUP = r"(?:[#>*_\-\s]|\d+\.\s)*"  # heading marks, bullets, bold markers before a heading word
_REASONING_HEADING = re.compile(
    rf"^\s*{_MARKUP}(?:reasoning|thinking|thoughts?|thought\s+process|analysis|chain\s+of\s+thought|scratchpad"
    r"|step[- ]by[- ]step(?:\s+reasoning)?|let(?:'|’)?s\s+think(?:\s+step\s+by\s+step)?)\b[*_\s]*[:.\-–—\n]",
    _FLAGS,
)
_FINAL_HEADING = re.compile(
    r"(?<![\w'’])final\s+answer[*_]*(?:[ \t]*[:\-–—]|[ \t]*\n|\s+is\b:?)[*_\s]*",
    _FLAGS,
)
_ANSWER_HEADING = re.compile(
    rf"(?:^|\n){_MARKUP}(?:answer|conclusion|in\s+conclusion|so\s+the\s+answer\s+is)[*_\s]*(?:[:,\-–—]|(?=\n))[*_\s]*",
    _FLAGS,
)
_BOLD = re.compile(r"(\*\*|__)(.+?)\1", re.DOTALL)
_FENCE = re.compile(r"```[ \t]*(?:json|javascript|js)?[ \t]*\n?(.*?)```", _FLAGS | re.DOTALL)
_TABLE_ROW = re.compile(r"^\s*\|.*\|\s*$")
_SEPARATOR_ROW = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?\s*$")
#: JSON fields that hold the answer itself, and fields that hold reasoning (dropped).
ANSWER_KEYS = frozenset({"answer", "final_answer", "finalanswer", "final", "response"})
REASONING_KEYS = frozenset(
    {"reasoning", "thinking", "thoughts", "thought", "analysis", "rationale", "chain_of_thought", "scratchpad",
     "explanation_of_reasoning"}
)  # fmt: skip


#: Fields read as "written by NAME" and fields read as their value alone (`_pair`).
AUTHOR_KEYS = frozenset({"author", "opinion_author", "writer", "written_by", "authored_by", "authoring_justice"})
VALUE_ONLY_KEYS = frozenset({"agreement", "doctrinal_agreement", "agree_or_disagree", "relationship", "treatment"})


@dataclass(frozen=True)
class Reading:
    """A reply as the scorers read it: its final `answer` as prose, and whether it was reasoning with no answer."""

    answer: str
    reasoning_only: bool = False
    #: What reading cut, when the reply or its answer was longer than `MAX_REPLY_CHARS` / `MAX_ANSWER_CHARS`
    #: ("read the first 20,000 of the answer's 986,854 characters"); None when nothing was cut.
    cut_note: str | None = None


def read_reply(text: str) -> Reading:
    """Return the reading of a reply `text`: reasoning dropped, tables and JSON as prose (see the module rules)."""
    text = text or ""
    note = _cut_note(MAX_REPLY_CHARS, "reply", len(text)) if len(text) > MAX_REPLY_CHARS else None
    answer, had_reasoning = _drop_reasoning(_BOLD.sub(r"\2", text[:MAX_REPLY_CHARS]))
    answer = _as_prose(answer).strip()
    if had_reasoning and not answer:
        return Reading("", reasoning_only=True, cut_note=note)
    if len(answer) > MAX_ANSWER_CHARS:
        answer_note = _cut_note(MAX_ANSWER_CHARS, "answer", len(answer))
        return Reading(answer[:MAX_ANSWER_CHARS], cut_note=f"{note}; {answer_note}" if note else answer_note)
    return Reading(answer, cut_note=note)


def _cut_note(kept: int, what: str, total: int) -> str:
    """Return the note for a text of `total` characters read up to `kept`."""
    return f"read the first {kept:,} of the {what}'s {total:,} characters"


def final_answer(text: str) -> str:
    """Return the answer part of a reply `text`, as prose (the reply itself when it has no reasoning part, tables or
    JSON); "" for a reply that is reasoning only (`no_final_answer` then says so)."""
    reading = read_reply(text)
    return reading.answer if reading.answer or reading.reasoning_only else (text or "")


def no_final_answer(text: str) -> str | None:
    """Return `NO_FINAL_ANSWER` when `text` reasons and never gives a final answer, else None."""
    return NO_FINAL_ANSWER if read_reply(text).reasoning_only else None


# --- reasoning ----------------------------------------------------------------------------------------------------


def _drop_reasoning(text: str) -> tuple[str, bool]:
    """Return the text after its reasoning part ("" when it gives no answer), and whether it had one."""
    had_reasoning = False
    stripped = _CLOSED_BLOCK.sub("\n", text)
    if stripped != text:
        had_reasoning, text = True, stripped
    closing = list(_CLOSE_TAG.finditer(text))
    if closing:  # the block was opened by the chat template, before the reply
        had_reasoning, text = True, text[closing[-1].end() :]
    opening = _OPEN_TAG.search(text)
    if opening:  # never closed: the rest is reasoning, unless it states its final answer
        before, reasoning = text[: opening.start()], text[opening.end() :]
        final = _after_last(_FINAL_HEADING, reasoning)
        return (final if final is not None else before), True
    final = _after_last(_FINAL_HEADING, text)
    if final is not None:
        return final, True
    heading = _REASONING_HEADING.match(text)
    if heading:
        body = text[heading.end() :]
        answer = _ANSWER_HEADING.search(body)
        return (body[answer.end() :] if answer else ""), True
    if had_reasoning:
        answer = _ANSWER_HEADING.search(text)
        return (text[answer.end() :] if answer else text), True
    return text, False


def _after_last(pattern: re.Pattern[str], text: str) -> str | None:
    """Return the text after the last match of `pattern`, or None when it does not occur."""
    ends = [match.end() for match in pattern.finditer(text)]
    return text[ends[-1] :] if ends else None


# --- tables and JSON ----------------------------------------------------------------------------------------------


def _as_prose(text: str) -> str:
    """Return `text` with its JSON blocks and markdown tables as sentences."""
    fenced = _FENCE.sub(lambda match: _json_prose(match.group(1)) or match.group(0), text)
    if fenced == text and "{" in text:  # no fence: one object in the reply, from its first "{" to its last "}"
        start, end = text.find("{"), text.rfind("}")
        prose = _json_prose(text[start : end + 1]) if end > start else None
        if prose is not None:
            fenced = text[:start] + prose + text[end + 1 :]
    text = fenced
    return _tables_prose(text)


def _depth(text: str) -> int:
    """Return the deepest bracket nesting of a JSON text (strings skipped)."""
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "{[":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "}]":
            depth -= 1
    return deepest


def _json_prose(text: str) -> str | None:
    """Return a JSON value's text as "key: value." sentences, or None when it is not bounded, valid JSON."""
    text = text.strip()
    if not text or len(text) > MAX_JSON_CHARS or text[0] not in "{[" or _depth(text) > MAX_JSON_DEPTH:
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    if isinstance(value, dict):
        answers = [item for key, item in value.items() if _key(key) in ANSWER_KEYS]
        if answers and not isinstance(answers[0], dict | list):
            return _scalar(answers[0])
        if answers:
            value = answers[0]
    sentences: list[str] = []
    _flatten(value, "", sentences)
    return " ".join(sentences) if sentences else None


def _key(key: object) -> str:
    return re.sub(r"[\s\-]+", "_", str(key).strip().lower())


def _scalar(value: object) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if value is None:
        return "none"
    return str(value).strip()


def _sentence(text: str) -> str:
    return text if text.endswith((".", "?", "!")) else text + "."


def _pair(key: str, value: str) -> str:
    """Return one field as a sentence: "key: value.", but an author field as "written by value." (a label before a
    name reads as a name) and an agreement field as its value alone (the key "agreement" holds the word "agree")."""
    name = _key(key).removeprefix("majority_").removeprefix("opinion_")
    if not name:
        return _sentence(value)
    if name in AUTHOR_KEYS:
        return _sentence(f"The majority opinion was written by {value}")
    if name in VALUE_ONLY_KEYS:
        return _sentence(value)
    return _sentence(f"{key}: {value}")


def _flatten(value: object, label: str, out: list[str]) -> None:
    """Append "label: value." sentences of a parsed JSON value to `out` (at most `MAX_ITEMS`)."""
    if len(out) >= MAX_ITEMS:
        return
    if isinstance(value, dict):
        keys = {_key(key): item for key, item in value.items()}
        if {"volume", "reporter", "page"} <= keys.keys():  # a citation in parts: "347 U.S. 483"
            parts = (_scalar(keys[part]) for part in ("volume", "reporter", "page"))
            out.append(_pair(label, " ".join(parts)))
            return
        for key, item in value.items():
            if _key(key) in REASONING_KEYS:
                continue
            name = str(key).replace("_", " ").strip()
            _flatten(item, f"{label} {name}".strip() if label and not isinstance(item, dict) else name, out)
    elif isinstance(value, list):
        if all(not isinstance(item, dict | list) for item in value):
            joined = ", ".join(_scalar(item) for item in value)
            if joined:
                out.append(_pair(label, joined))
        else:
            for item in value:
                _flatten(item, label, out)
    else:
        out.append(_pair(label, _scalar(value)))


def _cells(row: str) -> list[str]:
    inner = row.strip()
    inner = inner[1:] if inner.startswith("|") else inner
    inner = inner[:-1] if inner.endswith("|") else inner
    return [cell.strip() for cell in inner.split("|")]


def _table_prose(rows: list[str]) -> str:
    """Return a markdown table (its lines) as sentences."""
    table = [_cells(row) for row in rows if not _SEPARATOR_ROW.match(row)][: MAX_TABLE_ROWS + 1]
    has_header = len(rows) > 1 and bool(_SEPARATOR_ROW.match(rows[1]))
    header, body = (table[0], table[1:]) if has_header and len(table) > 1 else ([], table)
    sentences = []
    if header and len(body) == 1:  # one record: "Court: Ninth Circuit. Year: 1990."
        sentences = [_pair(h, c) for h, c in zip(header, body[0], strict=False) if c]
    elif all(len(row) == 2 for row in body):  # a key-value table
        sentences = [_pair(row[0], row[1]) for row in body if row[1]]
    else:
        for row in body:
            pairs = [_pair(h, c) for h, c in zip(header or [""] * len(row), row, strict=False) if c]
            if pairs:
                sentences.append(" ".join(pairs))
    return " ".join(sentences)


def _tables_prose(text: str) -> str:
    """Return `text` with every markdown table (two or more `|` rows) read as sentences."""
    if "|" not in text:
        return text
    lines = text.split("\n")
    out: list[str] = []
    index = 0
    while index < len(lines):
        if not _TABLE_ROW.match(lines[index]):
            out.append(lines[index])
            index += 1
            continue
        end = index
        while end < len(lines) and _TABLE_ROW.match(lines[end]):
            end += 1
        block = lines[index:end]
        out.append(_table_prose(block) if len(block) > 1 else block[0])
        index = end
    return "\n".join(out)
