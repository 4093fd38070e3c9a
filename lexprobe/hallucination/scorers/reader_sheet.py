"""Check the model reader (`--reader`, `model_reader.py`) against human coders, as `labelsheet.py` checks the judge
(docs/hallucination.md, "Checking the reader"): the reader's sheet (`row_id`, `question`, `answer`, `wanted`,
`coder_label`, `notes`) and key (`"check": "reader"`, the reader's code of each row), the codes coders write (the
value, `declined` or `no answer`), and when two codes agree (`same_code`): the same decision, or two values one of
whose words (lower case, full stops dropped) are the other's or a run of them. `labelsheet.agreement_report` reads
the filled sheets.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Any

from lexprobe.engine.store import RunStore
from lexprobe.hallucination.labels.score import REFERENCE_SCORER
from lexprobe.hallucination.scorers.labelsheet import KEY_FORMAT, CodingSheet, drawn, safe_cell, text_digest
from lexprobe.hallucination.scorers.model_reader import READER_ROLE, VALUE_WANTED, question_of
from lexprobe.hallucination.tasks.item import item_of

READER_COLUMNS = ("row_id", "question", "answer", "wanted", "coder_label", "notes")
#: The reader's sheet's columns of text the key's digest covers.
VISIBLE = ("question", "answer", "wanted")

DECLINED = "declined"
NO_ANSWER = "no answer"
#: What a coder of the reader's sheet may write for the two decisions without a value (case-insensitive).
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
    """One read answer on a reader's sheet: what coders see, plus the request id and the reader's code (key only)."""

    row_id: int
    request_id: str
    question: str
    answer: str
    wanted: str
    reader_code: str | None  # the value, "declined", "no answer"; None for an unreadable reply

    def blinded(self) -> dict[str, str]:
        """Return the CSV cells of this row: no request id, no reader decision, empty label and notes."""
        return {"row_id": str(self.row_id), "question": safe_cell(self.question), "answer": safe_cell(self.answer),
                "wanted": self.wanted, "coder_label": "", "notes": ""}  # fmt: skip

    def key_entry(self) -> dict[str, Any]:
        """Return what the key keeps of this row: the request, the reader's code and a digest of the visible text."""
        digest = text_digest(self.question, self.answer, self.wanted)
        return {"request_id": self.request_id, "reader_code": self.reader_code, "digest": digest}


@dataclass
class ReaderSheet(CodingSheet):
    """An exported sheet of the decisions of `reader` on `read_answers` answers it read."""

    reader: str
    read_answers: int
    columns = READER_COLUMNS

    def key(self, sheet_name: str | None = None) -> dict[str, Any]:
        """Return the sidecar key: run, reader, seed and, per row id, the request, the reader's code and a digest."""
        return {
            "format": KEY_FORMAT, "check": READER_ROLE, "sheet": sheet_name, "run_dir": self.run_dir,
            "model": self.model, "reader": self.reader, "seed": self.seed, "requested": self.requested,
            "read_answers": self.read_answers, "rows": {str(row.row_id): row.key_entry() for row in self.rows},
        }  # fmt: skip


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
    read, readers = _read_rows(store)
    nothing = "no answer in the run was read by a model reader; run `lexprobe hallucination run --reader MODEL` first"
    fields = drawn(store, n, seed, read, nothing)
    fields["rows"] = [ReaderRow(index, *row) for index, row in enumerate(fields["rows"], start=1)]
    return ReaderSheet(**fields, reader=", ".join(sorted(readers)), read_answers=len(read))


def reader_code(decision: Any, value: Any) -> str | None:
    """Return the code a reader's stored decision stands for on a sheet: the value, "declined", "no answer"; None
    for an unreadable reply."""
    if decision == "answer" and isinstance(value, str) and value.strip():
        return " ".join(value.split())
    return decision if decision in (DECLINED, NO_ANSWER) else None


def parse_code(cell: str) -> str | None:
    """Return a coder's code on a reader's sheet: "declined" or "no answer" (`CODE_ALIASES`), else the value as
    written (spaces collapsed, a spreadsheet's leading apostrophe dropped); None for a blank cell."""
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


def aligned(a: dict[int, str | None], b: dict[int, str | None]) -> dict[int, str | None]:
    """Return `b` with each code that agrees with `a`'s on the same row (`same_code`) written as `a`'s, so the
    categories kappa counts are the codes that agree."""
    return {row: a[row] if code is not None and a.get(row) is not None and same_code(a[row], code) else code
            for row, code in b.items()}  # fmt: skip
