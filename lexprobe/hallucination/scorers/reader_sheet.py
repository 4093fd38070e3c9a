"""Check the model reader (`--reader`, `model_reader.py`) against human coders, as `labelsheet.py` checks the judge.

1. `export_reader_sheet` draws a seeded sample of the answers a reader labelled (a `reference` score whose detail
   names a `reader`) and `write_reader_sheet` writes a blinded CSV sheet: an opaque `row_id`, the question as asked,
   the answer, what the question asks for (`wanted`, the words the reader was given), and empty `coder_label` and
   `notes` columns. The reader's decisions and the request ids go to the key (`<sheet>.key.json`, `"check":
   "reader"`), which must stay away from the coders.
2. Each coder writes in `coder_label` what the answer gives as its answer to the question: the value, as short as
   it can be (`1954`, `Earl Warren`, `affirmed`, `yes`, the quotation), or `declined` (it declines to answer and
   gives no value), or `no answer` (neither); blank rows count as not coded.
3. `reader_agreement` (what `lexprobe hallucination agreement` runs on a reader key) returns Cohen's kappa and raw
   agreement for every coder against the reader and every pair of coders. Two codes agree when they are the same
   decision, or both values and one's words (lower case, full stops dropped) are the other's or a run of them
   ("Warren" and "Earl Warren", "347 U.S. 483" and "347 US 483"). Rows whose reader reply was unreadable are left
   out of the comparisons with the reader and counted.
"""

from __future__ import annotations

import csv
import json
import random
import re
import unicodedata
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path
from typing import Any

from lexprobe.engine.store import RunStore
from lexprobe.errors import BadInputError
from lexprobe.hallucination.labels.score import REFERENCE_SCORER
from lexprobe.hallucination.scorers.labelsheet import (
    KEY_FORMAT,
    KeyRow,
    LabelKey,
    check_sheets,
    coder_title,
    compare,
    key_path,
    read_coded_sheet,
    safe_cell,
    text_digest,
)
from lexprobe.hallucination.scorers.model_reader import READER_ROLE, VALUE_WANTED, question_of
from lexprobe.hallucination.tasks.item import item_of

READER_COLUMNS = ("row_id", "question", "answer", "wanted", "coder_label", "notes")
#: The sheet's columns of text the key's digest covers.
VISIBLE = ("question", "answer", "wanted")
DECLINED = "declined"
NO_ANSWER = "no answer"
#: What a coder may write for the two decisions without a value (case-insensitive, spaces ignored).
CODE_ALIASES = {
    "declined": DECLINED,
    "decline": DECLINED,
    "declines": DECLINED,
    "abstain": DECLINED,
    "abstains": DECLINED,
    "no answer": NO_ANSWER,
    "no_answer": NO_ANSWER,
    "none": NO_ANSWER,
}
_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class ReaderRow:
    """One read answer on the sheet: what coders see, plus the request id and the reader's code (key only)."""

    row_id: int
    question: str
    answer: str
    wanted: str
    request_id: str
    reader_code: str | None  # the value, "declined", "no answer"; None for an unreadable reply

    def blinded(self) -> dict[str, str]:
        """Return the CSV cells of this row: no request id, no reader decision, empty label and notes."""
        return {"row_id": str(self.row_id), "question": safe_cell(self.question), "answer": safe_cell(self.answer),
                "wanted": self.wanted, "coder_label": "", "notes": ""}  # fmt: skip


@dataclass
class ReaderSheet:
    """An exported sheet of the reader's decisions (`short` when the run had fewer than were asked for)."""

    rows: list[ReaderRow]
    run_dir: str | None
    model: str | None
    reader: str
    seed: int
    requested: int
    read_answers: int

    @property
    def short(self) -> bool:
        """True when the run had fewer read answers than requested."""
        return len(self.rows) < self.requested

    def key(self, sheet_name: str | None = None) -> dict[str, Any]:
        """Return the sidecar key: run, reader, seed and, per row id, the request, the reader's code and a digest."""
        return {
            "format": KEY_FORMAT, "check": READER_ROLE, "sheet": sheet_name, "run_dir": self.run_dir,
            "model": self.model, "reader": self.reader, "seed": self.seed, "requested": self.requested,
            "read_answers": self.read_answers,
            "rows": {str(row.row_id): {"request_id": row.request_id, "reader_code": row.reader_code,
                                       "digest": text_digest(row.question, row.answer, row.wanted)}
                     for row in self.rows},
        }  # fmt: skip


def reader_code(decision: Any, value: Any) -> str | None:
    """Return the code a reader's stored decision stands for on a sheet: the value, "declined", "no answer"; None
    for an unreadable reply."""
    if decision == "answer" and isinstance(value, str) and value.strip():
        return " ".join(value.split())
    return decision if decision in (DECLINED, NO_ANSWER) else None


def _read_rows(store: RunStore) -> tuple[list[tuple[str, str, str, str, str | None]], set[str]]:
    """Return (request id, question, answer, wanted, reader code) of every answer a reader labelled, sorted by
    request id, and the readers named."""
    rows, readers = [], set()
    responses, scores, items = store.responses(), store.scores(), store.items()
    for request in store.requests():
        _, detail = scores.get((request.request_id, REFERENCE_SCORER), ("", {}))
        if request.request_id not in responses or not isinstance(detail.get("reader"), str):
            continue
        readers.add(detail["reader"])
        task = item_of(store, items, request).task
        code = reader_code(detail.get("reader_decision"), detail.get("reader_value"))
        answer = responses[request.request_id].text
        rows.append((request.request_id, question_of(request), answer, VALUE_WANTED.get(task, ""), code))
    return sorted(rows), readers


def export_reader_sheet(store: RunStore, n: int, seed: int) -> ReaderSheet:
    """Draw `n` of the answers a reader labelled in the run in `store` for human coding and return the sheet (not
    yet written): ordered by request id, sampled with `random.Random(seed)`, row ids 1..n in the sample's order; all
    of them when the run has fewer (`short`). Raises `BadInputError` when `n` < 1 or no answer was read."""
    if n < 1:
        raise BadInputError(f"n must be at least 1, not {n}")
    read, readers = _read_rows(store)
    if not read:
        raise BadInputError(
            "no answer in the run was read by a model reader; run `lexprobe hallucination run --reader MODEL` first"
        )
    picked = random.Random(seed).sample(read, min(n, len(read)))
    settings = store.get_meta("settings") or {}
    run_dir = None if str(store.path) == ":memory:" else str(Path(store.path).parent)
    rows = [
        ReaderRow(row_id=index, question=question, answer=answer, wanted=wanted, request_id=request_id,
                  reader_code=code)
        for index, (request_id, question, answer, wanted, code) in enumerate(picked, start=1)
    ]  # fmt: skip
    model = settings.get("model") or store.get_meta("model")
    return ReaderSheet(rows, run_dir, model, ", ".join(sorted(readers)), seed, n, len(read))


def write_reader_sheet(sheet: ReaderSheet, path: Path) -> Path:
    """Write the blinded sheet to `path` (UTF-8 CSV, header row) and its key to `<path>.key.json`; return the key's
    path. Existing files are overwritten (the CLI refuses unless asked)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=READER_COLUMNS)
        writer.writeheader()
        for row in sheet.rows:
            writer.writerow(row.blinded())
    key = key_path(path)
    key.write_text(json.dumps(sheet.key(path.name), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return key


def parse_code(cell: str) -> str | None:
    """Return a coder's code: "declined" or "no answer" (`CODE_ALIASES`), else the value as written (spaces
    collapsed, a spreadsheet's leading apostrophe dropped); None for a blank cell."""
    text = " ".join(cell.split()).lstrip("'").strip()
    if not text:
        return None
    return CODE_ALIASES.get(text.lower(), text)


def _words(code: str) -> list[str]:
    """Return a code's words, lower case, full stops dropped first ("U.S." is "us")."""
    return _WORD.findall(unicodedata.normalize("NFKC", code).casefold().replace(".", ""))


def same_code(a: str, b: str) -> bool:
    """Return whether two codes agree: the same decision, or two values one of whose words (`_words`) are the other's
    or a run of them."""
    if a in (DECLINED, NO_ANSWER) or b in (DECLINED, NO_ANSWER):
        return a == b
    short, long = sorted((_words(a), _words(b)), key=len)
    if not short:
        return a.strip() == b.strip()
    return any(long[start : start + len(short)] == short for start in range(len(long) - len(short) + 1))


def _aligned(a: dict[int, str | None], b: dict[int, str | None]) -> dict[int, str | None]:
    """Return `b` with each code that agrees with `a`'s on the same row (`same_code`) written as `a`'s, so the
    categories kappa counts are the codes that agree."""
    return {row: a[row] if code is not None and a.get(row) is not None and same_code(a[row], code) else code
            for row, code in b.items()}  # fmt: skip


def load_reader_key(path: Path) -> LabelKey:
    """Read a key of `write_reader_sheet` (each row's `judge_verdict` holds the reader's code); raises
    `BadInputError` naming the file when it is not one."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise BadInputError(f"{path}: not a reader label key ({exc})") from None
    if not isinstance(data, dict) or not isinstance(data.get("rows"), dict):
        raise BadInputError(f"{path}: not a reader label key (no 'rows' object)")
    rows = {}
    for raw_id, entry in data["rows"].items():
        code = entry.get("reader_code") if isinstance(entry, dict) else 0
        if not str(raw_id).isdigit() or not isinstance(code, (str, type(None))):
            raise BadInputError(f"{path}: not a reader label key (row {raw_id!r} is malformed)")
        rows[int(raw_id)] = KeyRow(str(entry.get("request_id", "")), code, str(entry.get("digest", "")))
    return LabelKey(path=path, judge=str(data.get("reader") or "reader"), rows=rows)


def is_reader_key(path: Path) -> bool:
    """Return whether `path` is a key of a reader sheet (False for anything else, whose reader says what is wrong)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and data.get("check") == READER_ROLE


def reader_agreement(sheets: list[Path], key: Path) -> dict[str, Any]:
    """Return {"check": "reader", "reader", "key", "coders", "rows"} for filled reader sheets of one export: every
    coder against the reader, then every pair of coders, each with "coders", "a", "b", "kappa", "agreement", "n",
    "note" (and against the reader "no_reader_decision", coded rows whose reader reply was unreadable)."""
    label_key = load_reader_key(key)
    coded = [read_coded_sheet(path, VISIBLE, parse_code) for path in sheets]
    check_sheets(coded, label_key)
    reader = {row_id: row.judge_verdict for row_id, row in label_key.rows.items()}
    rows: list[dict[str, Any]] = []
    for index, sheet in enumerate(coded, start=1):
        result = compare(reader, _aligned(reader, sheet.labels))
        unread = sum(1 for row_id, code in sheet.labels.items() if code is not None and reader.get(row_id, "") is None)
        notes = [result["note"]] + ([f"{unread} coded row(s) without a reader decision left out"] if unread else [])
        result |= {"note": "; ".join(note for note in notes if note) or None, "no_reader_decision": unread}
        rows.append({"coders": f"{coder_title(index, sheet.coder)} vs. {label_key.judge}", "a": sheet.coder,
                     "b": label_key.judge} | result)  # fmt: skip
    for (i, first), (j, second) in combinations(enumerate(coded, start=1), 2):
        result = compare(first.labels, _aligned(first.labels, second.labels))
        rows.append({"coders": f"{coder_title(i, first.coder)} vs. {coder_title(j, second.coder)}",
                     "a": first.coder, "b": second.coder} | result)  # fmt: skip
    return {
        "check": READER_ROLE,
        "reader": label_key.judge,
        "key": str(label_key.path),
        "coders": [
            {"coder": sheet.coder, "sheet": str(sheet.path), "coded": sheet.coded, "rows": len(label_key.rows)}
            for sheet in coded
        ],
        "rows": rows,
    }
