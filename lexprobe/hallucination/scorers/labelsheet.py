"""Validate the contradiction judge against human coders (the study's Appendix C, "Intercoder reliability"):
`export_label_sheet` draws a seeded sample of judged pairs and `write_label_sheet` writes a blinded CSV sheet and
its sidecar key (`<sheet>.key.json`: the pair ids and the judge's verdicts, kept from the coders); each coder fills
`coder_label` (yes: consistent, no: contradiction); `agreement_table` gives Cohen's kappa of every coder against the
judge and of every pair of coders. docs/hallucination.md, "Validating the judge", says how.

The key stores a digest of each row's visible text (whitespace-normalized), so a sheet from another export is
refused even when its row ids happen to exist in the key. The model reader's decisions are checked the same way, on
sheets of their own (`reader_sheet.py`), written, keyed and compared here.
"""

from __future__ import annotations

import csv
import hashlib
import json
import random
from collections.abc import Callable
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path
from typing import Any, ClassVar

from lexprobe.engine.store import RunStore
from lexprobe.errors import BadInputError
from lexprobe.hallucination.scorers.judge import parse_verdict
from lexprobe.hallucination.scorers.model_reader import READER_ROLE, question_of
from lexprobe.models.types import Request
from lexprobe.stats import cohen_kappa

SHEET_COLUMNS = ("row_id", "question", "response_1", "response_2", "coder_label", "notes")
KEY_SUFFIX = ".key.json"
KEY_FORMAT = "lexprobe-label-key/1"
#: What a coder may write in `coder_label` (case-insensitive, surrounding spaces ignored) and what it means.
LABEL_ALIASES = {"yes": "yes", "y": "yes", "consistent": "yes", "no": "no", "n": "no", "contradiction": "no"}
#: Cells starting with one of these are read as formulas by spreadsheet programs; they are written with a leading
#: apostrophe (the usual CSV-injection guard), which the digest ignores.
_FORMULA_STARTS = ("=", "+", "-", "@")


@dataclass(frozen=True)
class SheetRow:
    """One pair on a judge's sheet: what coders see, plus the pair id and judge verdict that go to the key only."""

    row_id: int
    pair: str
    question: str
    response_1: str
    response_2: str
    judge_verdict: str | None  # "yes" (consistent), "no" (contradiction), None (no parseable verdict)

    def blinded(self) -> dict[str, str]:
        """Return the CSV cells of this row: no pair id, no judge verdict, empty label and notes."""
        return {
            "row_id": str(self.row_id),
            "question": safe_cell(self.question),
            "response_1": safe_cell(self.response_1),
            "response_2": safe_cell(self.response_2),
            "coder_label": "",
            "notes": "",
        }

    def key_entry(self) -> dict[str, Any]:
        """Return what the key keeps of this row: the pair, the judge's verdict and a digest of the visible text."""
        digest = text_digest(self.question, self.response_1, self.response_2)
        return {"pair": self.pair, "judge_verdict": self.judge_verdict, "digest": digest}


@dataclass
class CodingSheet:
    """An exported sheet: its rows and where they came from. `len(rows) < requested` when the run had fewer judged
    pairs (read answers) than were asked for (all of them are then on the sheet)."""

    rows: list[Any]
    run_dir: str | None
    model: str | None
    seed: int
    requested: int
    columns: ClassVar[tuple[str, ...]] = ()

    def key(self, sheet_name: str | None = None) -> dict[str, Any]:
        """Return the sidecar key (what each kind of sheet keeps of its rows, `<sheet>.key.json`)."""
        raise NotImplementedError

    @property
    def short(self) -> bool:
        """True when the run had fewer judged pairs (read answers) than requested."""
        return len(self.rows) < self.requested


@dataclass
class LabelSheet(CodingSheet):
    """An exported sheet of the judge's verdicts on `judged_pairs` judged pairs."""

    judge: str
    judged_pairs: int
    columns = SHEET_COLUMNS

    def key(self, sheet_name: str | None = None) -> dict[str, Any]:
        """Return the sidecar key: run, judge, seed and, per row id, the pair, the judge's verdict and a digest."""
        return {
            "format": KEY_FORMAT,
            "sheet": sheet_name,
            "run_dir": self.run_dir,
            "model": self.model,
            "judge": self.judge,
            "seed": self.seed,
            "requested": self.requested,
            "judged_pairs": self.judged_pairs,
            "rows": {str(row.row_id): row.key_entry() for row in self.rows},
        }


@dataclass(frozen=True)
class KeyRow:
    """What the key knows about one row id (`judge_verdict`: on a reader's key, the reader's code)."""

    pair: str
    judge_verdict: str | None
    digest: str


@dataclass(frozen=True)
class LabelKey:
    """A loaded key file (`judge`: on a reader's key, the reader; `reader`: whether it is one)."""

    path: Path
    judge: str
    rows: dict[int, KeyRow]
    reader: bool = False


@dataclass(frozen=True)
class CodedRow:
    """One row of a filled sheet."""

    row_id: int
    label: str | None  # "yes", "no" (the reader's sheet: a code), or None when left blank
    line: int  # the line of the file where the row starts
    digest: str


@dataclass(frozen=True)
class CodedSheet:
    """A filled sheet: one coder's labels by row id."""

    path: Path
    coder: str
    rows: dict[int, CodedRow]

    @property
    def labels(self) -> dict[int, str | None]:
        """Return each row id's label (None = not coded)."""
        return {row_id: row.label for row_id, row in self.rows.items()}

    @property
    def coded(self) -> int:
        """How many rows carry a label."""
        return sum(row.label is not None for row in self.rows.values())


def _normalize(text: str) -> str:
    """Collapse whitespace and drop leading apostrophes (a spreadsheet's text marker) for digest comparisons."""
    return " ".join(text.split()).lstrip("'")


def text_digest(*parts: str) -> str:
    """Return a short SHA-256 fingerprint of a row's visible text (question, response 1, response 2; the reader's
    sheet: question, answer, value wanted), insensitive to whitespace changes (line endings, trailing spaces) and to
    the apostrophe spreadsheets use to mark text."""
    blob = "\x1f".join(_normalize(part) for part in parts)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:16]


def safe_cell(text: str) -> str:
    """Return `text` safe to open in a spreadsheet program: a leading formula character gets an apostrophe."""
    return "'" + text if text.startswith(_FORMULA_STARTS) else text


def key_path(sheet: Path) -> Path:
    """Return where the key of `sheet` lives: `<sheet>.key.json` next to it (e.g. `labels.csv.key.json`)."""
    return sheet.with_name(sheet.name + KEY_SUFFIX)


def _judged_rows(store: RunStore) -> tuple[list[tuple[str, str, str, str, str | None]], set[str]]:
    """Return (pair, question, answer 1, answer 2, judge verdict) for every pair with a judge response, sorted by
    pair id, and the models the judge requests name."""
    responses = store.responses()
    samples: dict[str, dict[str, Request]] = {}
    judge_models: set[str] = set()
    judged: set[str] = set()
    for request in store.requests():
        role, pair = request.tags.get("role", ""), request.tags.get("pair")
        if pair is None:
            continue
        if role in ("sample0", "sample1"):
            samples.setdefault(pair, {})[role] = request
        elif role == "judge" and request.request_id in responses:
            judged.add(pair)
            judge_models.add(request.model)
    rows = []
    for pair in sorted(judged):
        first, second = samples.get(pair, {}).get("sample0"), samples.get(pair, {}).get("sample1")
        if first is None or second is None:
            continue
        answer_1, answer_2 = responses.get(first.request_id), responses.get(second.request_id)
        if answer_1 is None or answer_2 is None:
            continue
        verdict = parse_verdict(responses[f"{pair}|judge"].text)
        label = None if verdict is None else ("yes" if verdict else "no")
        rows.append((pair, question_of(first), answer_1.text, answer_2.text, label))
    return rows, judge_models


def drawn(store: RunStore, n: int, seed: int, found: list[tuple], nothing: str) -> dict[str, Any]:
    """Return the fields every sheet shares, its rows drawn from `found` (raising `BadInputError(nothing)` when it
    is empty): `n` of them sampled with `random.Random(seed)`, all when there are fewer."""
    if n < 1:
        raise BadInputError(f"n must be at least 1, not {n}")
    if not found:
        raise BadInputError(nothing)
    settings = store.get_meta("settings") or {}
    return {
        "rows": random.Random(seed).sample(found, min(n, len(found))),
        "run_dir": None if str(store.path) == ":memory:" else str(Path(store.path).parent),
        "model": settings.get("model") or store.get_meta("model"),
        "seed": seed,
        "requested": n,
    }


def export_label_sheet(store: RunStore, n: int, seed: int) -> LabelSheet:
    """Draw `n` judged pairs from the run in `store` for human coding and return the sheet (not yet written).

    Pairs are ordered by pair id and then sampled with `random.Random(seed)`, so the same run and seed give the
    same sheet; the sheet's order is the sample's order, and row ids run 1..n. When the run has fewer than `n`
    judged pairs, all of them are taken (`LabelSheet.short` is then True). Raises ValueError when `n` < 1 or the
    run has no judged pair.
    """
    judged, judge_models = _judged_rows(store)
    nothing = ("the run has no judged pairs (reference-free tasks whose two samples got a judge verdict); "
               "run `lexprobe hallucination run` with a reference-free task first")  # fmt: skip
    fields = drawn(store, n, seed, judged, nothing)
    fields["rows"] = [SheetRow(index, *row) for index, row in enumerate(fields["rows"], start=1)]
    judge = (store.get_meta("settings") or {}).get("judge") or ", ".join(sorted(judge_models)) or "judge"
    return LabelSheet(**fields, judge=judge, judged_pairs=len(judged))


def write_label_sheet(sheet: CodingSheet, path: Path) -> Path:
    """Write the blinded sheet (the judge's or the reader's) to `path` (UTF-8 CSV with a header row) and its key to
    `<path>.key.json`; return the key's path. Existing files are overwritten (the CLI refuses unless asked)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=sheet.columns)
        writer.writeheader()
        for row in sheet.rows:
            writer.writerow(row.blinded())
    key = key_path(path)
    key.write_text(json.dumps(sheet.key(path.name), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return key


def parse_label(value: str) -> str | None:
    """Return "yes", "no", or None for a blank cell; raises ValueError for anything else."""
    cleaned = value.strip().lower()
    if not cleaned:
        return None
    if cleaned not in LABEL_ALIASES:
        raise BadInputError(
            f"coder_label {value.strip()!r} is not a label; write yes (consistent) or no (contradiction), "
            "or leave it blank"
        )
    return LABEL_ALIASES[cleaned]


def read_coded_sheet(
    path: Path,
    visible: tuple[str, ...] = ("question", "response_1", "response_2"),
    parse: Callable[[str], str | None] = parse_label,
) -> CodedSheet:
    """Read a filled sheet; the coder is the file's stem. Errors raise BadInputError(f"{path}:{line}: ...") naming the
    line where the offending row starts (a missing column, a row id that is not a positive integer or repeats, a
    label other than yes/no/consistent/contradiction/y/n). A UTF-8 byte-order mark (Excel's "CSV UTF-8") is fine.
    `visible` names the columns of text the digest covers and `parse` reads a label (the reader's sheet: its own).
    """
    try:
        handle = path.open(encoding="utf-8-sig", newline="")
    except OSError as exc:
        raise BadInputError(f"{path}: cannot read the sheet ({exc.strerror or exc})") from None
    rows: dict[int, CodedRow] = {}
    with handle:
        reader = csv.reader(handle)
        try:
            header = next(reader, None)
        except (csv.Error, UnicodeDecodeError) as exc:
            raise BadInputError(f"{path}:1: not a readable CSV file ({exc})") from None
        if header is None:
            raise BadInputError(f"{path}:1: the file is empty; expected a header row {','.join(SHEET_COLUMNS)}")
        columns = [name.strip().lower() for name in header]
        missing = [name for name in ("row_id", *visible, "coder_label") if name not in columns]
        if missing:
            raise BadInputError(
                f"{path}:1: missing column(s) {', '.join(missing)}; a label sheet from `export-labels` has "
                f"{','.join(('row_id', *visible, 'coder_label', 'notes'))}"
            )
        where = {name: columns.index(name) for name in columns}
        while True:
            line = reader.line_num + 1
            try:
                record = next(reader, None)
            except (csv.Error, UnicodeDecodeError) as exc:
                raise BadInputError(f"{path}:{line}: not readable as CSV ({exc})") from None
            if record is None:
                break
            if not any(cell.strip() for cell in record):
                continue
            cells = {name: record[index] if index < len(record) else "" for name, index in where.items()}
            raw_id = cells["row_id"].strip()
            if not raw_id.isdigit() or int(raw_id) < 1:
                raise BadInputError(f"{path}:{line}: row_id {raw_id!r} is not a positive integer")
            row_id = int(raw_id)
            if row_id in rows:
                raise BadInputError(f"{path}:{line}: row_id {row_id} appears twice (first on line {rows[row_id].line})")
            try:
                label = parse(cells["coder_label"])
            except ValueError as exc:
                raise BadInputError(f"{path}:{line}: {exc}") from None
            digest = text_digest(*(cells[name] for name in visible))
            rows[row_id] = CodedRow(row_id=row_id, label=label, line=line, digest=digest)
    return CodedSheet(path=path, coder=path.stem, rows=rows)


def load_key(path: Path) -> LabelKey:
    """Read a key written by `write_label_sheet`, the judge's or the reader's (`"check": "reader"`: each row's
    `judge_verdict` holds the reader's code); raises ValueError naming the file when it is not one."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise BadInputError(f"{path}: cannot read the key ({exc.strerror or exc})") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise BadInputError(f"{path}: not a label key (invalid JSON: {exc})") from None
    reader = isinstance(data, dict) and data.get("check") == READER_ROLE
    what, source, verdict_field = ("reader label key", "request_id", "reader_code") if reader else (
        "label key", "pair", "judge_verdict")  # fmt: skip
    if not isinstance(data, dict) or not isinstance(data.get("rows"), dict):
        hint = "" if reader else "; keys are written by `export-labels`"
        raise BadInputError(f"{path}: not a {what} (no 'rows' object){hint}")
    rows: dict[int, KeyRow] = {}
    for raw_id, entry in data["rows"].items():
        verdict = entry.get(verdict_field) if isinstance(entry, dict) else 0
        if not str(raw_id).isdigit() or not isinstance(entry, dict) or not isinstance(verdict, (str, type(None))):
            raise BadInputError(f"{path}: not a {what} (row {raw_id!r} is malformed)")
        if not reader and verdict not in ("yes", "no", None):
            raise BadInputError(f"{path}: row {raw_id}: judge_verdict must be yes, no or null, not {verdict!r}")
        rows[int(raw_id)] = KeyRow(str(entry.get(source, "")), verdict, str(entry.get("digest", "")))
    checked = str(data.get("reader" if reader else "judge") or ("reader" if reader else "judge"))
    return LabelKey(path=path, judge=checked, rows=rows, reader=reader)


def find_key(sheets: list[Path]) -> Path:
    """Return the key next to the sheets (`<sheet>.key.json`); raises ValueError when there is none, or when the
    sheets sit next to different keys (different exports)."""
    found = [key_path(sheet) for sheet in sheets if key_path(sheet).is_file()]
    if not found:
        looked = ", ".join(str(key_path(sheet)) for sheet in sheets)
        raise BadInputError(
            f"no key file found (looked for {looked}); pass --key with the .key.json that `export-labels` wrote "
            "next to the exported sheet"
        )
    first = found[0]
    for other in found[1:]:
        if other.read_bytes() != first.read_bytes():
            raise BadInputError(f"{first} and {other} differ: the sheets come from different exports")
    return first


def check_sheets(coded: list[CodedSheet], key: LabelKey) -> None:
    """Raise `BadInputError` when two filled sheets name the same coder or a sheet's row is not a row of the export
    `key` describes."""
    names = [sheet.coder for sheet in coded]
    duplicates = sorted({name for name in names if names.count(name) > 1})
    if duplicates:
        raise BadInputError(
            f"two sheets name the same coder {', '.join(duplicates)}: give each coder's file its own name"
        )
    for sheet in coded:
        _check_against_key(sheet, key)


def _check_against_key(sheet: CodedSheet, key: LabelKey) -> None:
    """Raise ValueError when a row of `sheet` is not a row of the export `key` describes."""
    for row in sheet.rows.values():
        if row.row_id not in key.rows:
            raise BadInputError(
                f"{sheet.path}:{row.line}: row_id {row.row_id} is not in the key {key.path} "
                f"({len(key.rows)} rows): the sheet comes from a different export"
            )
    for row in sheet.rows.values():
        expected = key.rows[row.row_id]
        if expected.digest and expected.digest != row.digest:
            raise BadInputError(
                f"{sheet.path}:{row.line}: row {row.row_id}'s question and answers differ from the export in "
                f"{key.path}: the sheet comes from a different export (or its text was edited)"
            )


def compare(a: dict[int, str | None], b: dict[int, str | None]) -> dict[str, Any]:
    """Return {"kappa", "agreement", "n", "note"} for two label maps over the rows both labelled (None = no label).

    `agreement` is the raw share of rows with the same label (0..1). With no common row, kappa and agreement are
    None and `note` says why; when both sides use one identical label throughout, kappa is 1 by convention (see
    `stats.cohen_kappa`) and `note` says so.
    """
    common = sorted(row for row in a.keys() & b.keys() if a[row] is not None and b[row] is not None)
    if not common:
        return {"kappa": None, "agreement": None, "n": 0, "note": "no row labelled by both"}
    left, right = [a[row] for row in common], [b[row] for row in common]
    note = None
    if len(set(left) | set(right)) == 1:
        note = f"every label is {left[0]!r}: kappa is 1 by convention"
    return {
        "kappa": cohen_kappa(left, right),
        "agreement": sum(x == y for x, y in zip(left, right, strict=True)) / len(common),
        "n": len(common),
        "note": note,
    }


def coder_title(index: int, name: str) -> str:
    """A coder as the agreement table names them: "Coder 2 (alice)"."""
    return f"Coder {index} ({name})"


def _as_labelled(a: dict[int, str | None], b: dict[int, str | None]) -> dict[int, str | None]:
    """Return `b` as it is: a judge's sheet's labels are compared as written."""
    return b


def agreement_report(sheets: list[Path], key: Path | None = None) -> dict[str, Any]:
    """Return {"judge", "key", "coders", "rows"} for filled sheets of one export (see `agreement_table`); for a
    reader's sheets {"check": "reader", "reader", ...}, each row against the reader with "no_reader_decision" (coded
    rows whose reader reply was unreadable) instead of "no_judge_verdict"."""
    if not sheets:
        raise BadInputError("give at least one filled sheet")
    label_key = load_key(key if key is not None else find_key(sheets))
    if label_key.reader:  # a sheet of the model reader's decisions (`export-labels --check reader`)
        from lexprobe.hallucination.scorers.reader_sheet import VISIBLE, aligned, parse_code  # it imports this module

        coded = [read_coded_sheet(path, VISIBLE, parse_code) for path in sheets]
        align, missing, counted = aligned, "a reader decision", "no_reader_decision"
    else:
        coded = [read_coded_sheet(path) for path in sheets]
        align, missing, counted = _as_labelled, "a judge verdict", "no_judge_verdict"
    check_sheets(coded, label_key)
    truth = {row_id: row.judge_verdict for row_id, row in label_key.rows.items()}
    rows: list[dict[str, Any]] = []
    for index, sheet in enumerate(coded, start=1):
        result = compare(truth, align(truth, sheet.labels))
        left_out = sum(1 for row_id, code in sheet.labels.items() if code is not None and truth.get(row_id, "") is None)
        notes = [result["note"]] + ([f"{left_out} coded row(s) without {missing} left out"] if left_out else [])
        result |= {"note": "; ".join(note for note in notes if note) or None, counted: left_out}
        rows.append({"coders": f"{coder_title(index, sheet.coder)} vs. {label_key.judge}", "a": sheet.coder,
                     "b": label_key.judge} | result)  # fmt: skip
    for (i, first), (j, second) in combinations(enumerate(coded, start=1), 2):
        result = compare(first.labels, align(first.labels, second.labels))
        rows.append({"coders": f"{coder_title(i, first.coder)} vs. {coder_title(j, second.coder)}",
                     "a": first.coder, "b": second.coder} | result)  # fmt: skip
    checked = {"check": READER_ROLE, "reader": label_key.judge} if label_key.reader else {"judge": label_key.judge}
    return checked | {
        "key": str(label_key.path),
        "coders": [
            {"coder": sheet.coder, "sheet": str(sheet.path), "coded": sheet.coded, "rows": len(label_key.rows)}
            for sheet in coded
        ],
        "rows": rows,
    }


def agreement_table(sheets: list[Path], key: Path | None = None) -> list[dict[str, Any]]:
    """Return Appendix Table 2 for filled sheets of one export, one dict per comparison: every coder against the
    judge ("Coder 1 (alice) vs. <judge>"), then every pair of coders ("Coder 1 (alice) vs. Coder 2 (bob)").

    Each dict has "coders", "a", "b", "kappa" (Cohen's kappa, None with no common row), "agreement" (raw share
    agreeing, 0..1), "n" (rows both sides labelled), "note" (why kappa is None, rows without a judge verdict left
    out, ...), and for judge rows "no_judge_verdict". Coders are named by their files' stems, in the order given.
    The key is `key`, or else `<sheet>.key.json` next to the sheets. Raises ValueError (naming file and line where
    there is one) on a malformed sheet or key, or a sheet from another export.
    """
    return agreement_report(sheets, key)["rows"]
