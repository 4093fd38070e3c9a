"""Attorney review of an environment (InvestigationWorlds Section 2.4 and Appendix B, Table 2).

`write_review_sheet` writes one .xlsx workbook per environment for attorneys to fill:

- Instructions: how to review, the verdict values (pass / fail) and a cell for the reviewer's name;
- Hypotheses: the party hypotheses (court-adopted and court-rejected) with the texts of their supporting facts:
  do they faithfully capture the court's and the losing party's accounts?
- Alternatives: each alternative with its supporting and refuting facts: is it a realistic reading of the record?
- Documents: a seeded sample of up to `per_role` documents per role, with the first ~1500 characters of the
  extracted text and the texts of the facts each is meant to carry: is it a plausible artifact that plays its role?
- Metadata: the same documents' doc type, date and author: are they right for the text?

Every verdict cell has a pass/fail dropdown. The first column of each item sheet is the item's id (hypothesis or
document id); reading goes by that id, so reviewers may sort or filter rows.

`read_review_sheets` reads the filled workbooks (one per reviewer; the reviewer is the name cell, else the file's
stem), refuses malformed verdicts naming file, sheet and cell (`alice.xlsx:Documents!H7`), and returns a
`ReviewReport`: per stage (party hypotheses, alternatives, documents of each role, metadata) the number of
verdicts n and the pass rate over them, and on items that more than one reviewer judged the percent agreement
(over every pair of reviewers and shared item) and Cohen's kappa (`lexprobe.stats.cohen_kappa`; with more than two
reviewers the mean over reviewer pairs, Light's kappa). Blank verdicts are not reviewed and count nowhere.
"""

from __future__ import annotations

import random
from dataclasses import asdict, dataclass, field
from itertools import combinations
from pathlib import Path
from typing import Any

import openpyxl
from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE
from openpyxl.styles import Alignment, Font, PatternFill
from openpyxl.utils import get_column_letter
from openpyxl.worksheet.datavalidation import DataValidation
from openpyxl.worksheet.worksheet import Worksheet

from lexprobe.errors import BadInputError
from lexprobe.investigation.environment.format import Document, Environment, HypothesisKind, Role, load_environment
from lexprobe.investigation.environment.validate import resolve_in_corpus
from lexprobe.stats import cohen_kappa

SHEET_FORMAT = "lexprobe-review/1"
VERDICTS = ("pass", "fail")
EXCERPT_CHARS = 1500
INSTRUCTIONS, HYPOTHESES, ALTERNATIVES, DOCUMENTS, METADATA = (
    "Instructions",
    "Hypotheses",
    "Alternatives",
    "Documents",
    "Metadata",
)
#: Column headers of each item sheet; the first is the item id, `verdict` and `comment` are for the reviewer.
COLUMNS: dict[str, tuple[str, ...]] = {
    HYPOTHESES: ("hypothesis_id", "kind", "party", "claim", "supporting facts", "verdict", "comment"),
    ALTERNATIVES: ("hypothesis_id", "claim", "supporting facts", "refuting facts", "verdict", "comment"),
    DOCUMENTS: (
        "doc_id",
        "role",
        "doc_type",
        "path",
        "text excerpt",
        "target facts",
        "target hypothesis",
        "verdict",
        "comment",
    ),
    METADATA: ("doc_id", "role", "path", "doc_type", "date", "author", "verdict", "comment"),
}
#: Labels of the Instructions sheet's key cells (column A; the value is in column B).
REVIEWER_LABEL, CASE_LABEL, FORMAT_LABEL = "Reviewer name", "Case id", "Sheet format"
PARTY_STAGE, ALTERNATIVE_STAGE, METADATA_STAGE, ALL_STAGES = (
    "Party hypotheses",
    "Alternative hypotheses",
    "Document metadata",
    "All stages",
)
ROLE_QUESTIONS = {
    Role.merits: "a real exhibit of the record: is it correctly kept as merits evidence?",
    Role.signal: "asserts (or patterns) the target facts supporting a party hypothesis, plausibly?",
    Role.pro_alternative: "supports the target alternative with the target facts, without contradicting the record?",
    Role.refuting: "carries the target fact that refutes the target alternative?",
    Role.noise: "on-topic for the case world but bearing on no hypothesis?",
    Role.chaff: "off-topic filler that reads as a realistic business record?",
}
_HEADER_FILL = PatternFill("solid", fgColor="DDDDDD")
_INPUT_FILL = PatternFill("solid", fgColor="FFF2CC")


class ReviewSheetError(ValueError):
    """Filled review sheets that cannot be read; `.errors` lists every bad cell as `file:Sheet!Cell: why`."""

    def __init__(self, errors: list[str]) -> None:
        self.errors = errors
        super().__init__("\n".join(errors))


# --- writing ---------------------------------------------------------------------------------------------------


def sample_documents(env: Environment, per_role: int, seed: int) -> list[Document]:
    """Return up to `per_role` documents of each role, drawn with `seed` (each role by its own stream, so one
    role's size does not change another's draw), in role order then doc id order."""
    if per_role < 0:
        raise BadInputError("per_role must be >= 0")
    chosen: list[Document] = []
    for role in Role:
        docs = sorted((d for d in env.documents if d.role == role), key=lambda d: d.doc_id)
        picked = random.Random(f"{seed}:{role.value}").sample(docs, min(per_role, len(docs)))
        chosen.extend(sorted(picked, key=lambda d: d.doc_id))
    return chosen


def write_review_sheet(env_dir: Path, out: Path, per_role: int = 3, seed: int = 0) -> dict[str, int]:
    """Write the review workbook of the environment at `env_dir` to `out` (.xlsx; see the module docstring) and
    return the number of items per sheet. The same environment, `per_role` and `seed` give the same cells.
    Raises FileNotFoundError / ValueError from `load_environment`, ValueError for a negative `per_role`."""
    env_dir = Path(env_dir)
    env, _ = load_environment(env_dir)
    documents = sample_documents(env, per_role, seed)
    facts = {fact.fact_id: fact.text for fact in env.facts}
    entities = {entity.entity_id: entity.name for entity in env.entities}
    claims = {h.hypothesis_id: h.claim for h in env.hypotheses}

    def fact_lines(fact_ids: list[str]) -> str:
        return "\n".join(f"{fid}: {facts.get(fid, '(unknown fact)')}" for fid in fact_ids)

    party = [
        h for kind in (HypothesisKind.court_adopted, HypothesisKind.court_rejected) for h in env.hypotheses_of(kind)
    ]
    rows: dict[str, list[tuple[Any, ...]]] = {
        HYPOTHESES: [(h.hypothesis_id, h.kind.value, h.party, h.claim, fact_lines(h.supporting_facts)) for h in party],
        ALTERNATIVES: [
            (h.hypothesis_id, h.claim, fact_lines(h.supporting_facts), fact_lines(h.refuting_facts))
            for h in env.hypotheses_of(HypothesisKind.alternative)
        ],
        DOCUMENTS: [
            (
                d.doc_id,
                d.role.value,
                d.doc_type,
                d.path,
                _excerpt(env_dir, d),
                fact_lines(d.facts),
                f"{d.target_hypothesis}: {claims.get(d.target_hypothesis, '(unknown hypothesis)')}"
                if d.target_hypothesis
                else "",
            )
            for d in documents
        ],
        METADATA: [
            (d.doc_id, d.role.value, d.path, d.doc_type, d.date or "(none)", _author(d.author, entities))
            for d in documents
        ],
    }
    workbook = openpyxl.Workbook()
    _instructions(workbook.active, env, per_role, seed)
    for sheet, items in rows.items():
        _item_sheet(workbook.create_sheet(sheet), COLUMNS[sheet], items)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    workbook.save(out)
    return {sheet: len(items) for sheet, items in rows.items()}


def _author(author: str | None, entities: dict[str, str]) -> str:
    if author is None:
        return "(none)"
    return f"{entities.get(author, '(unknown entity)')} ({author})"


def _excerpt(env_dir: Path, doc: Document) -> str:
    from lexprobe.documents.extract import ExtractionError, extract_text

    try:
        text = extract_text(resolve_in_corpus(env_dir, doc.path))
    except (ExtractionError, ValueError, OSError) as exc:
        return f"(cannot read {doc.path}: {getattr(exc, 'reason', exc)})"
    text = text.strip()
    return text if len(text) <= EXCERPT_CHARS else text[:EXCERPT_CHARS].rstrip() + " [...]"


def _put(sheet: Worksheet, row: int, column: int, value: Any) -> None:
    """Write a cell as plain text (never a formula, no control characters)."""
    cell = sheet.cell(row, column, ILLEGAL_CHARACTERS_RE.sub("", value) if isinstance(value, str) else value)
    if isinstance(value, str):
        cell.data_type = "s"
    cell.alignment = Alignment(wrap_text=True, vertical="top")


def _instructions(sheet: Worksheet, env: Environment, per_role: int, seed: int) -> None:
    sheet.title = INSTRUCTIONS
    sheet["A1"] = "lexprobe attorney review of an investigation environment"
    sheet["A1"].font = Font(bold=True, size=14)
    keys = [
        (REVIEWER_LABEL, ""),
        (CASE_LABEL, env.case.case_id),
        ("Case", env.case.name + (" (fictional)" if env.case.fictional else "")),
        ("Dispositive question", env.case.dispositive_question),
        ("Sample", f"up to {per_role} documents per role, seed {seed}"),
        (FORMAT_LABEL, SHEET_FORMAT),
    ]
    for offset, (label, value) in enumerate(keys, start=3):
        _put(sheet, offset, 1, label)
        sheet.cell(offset, 1).font = Font(bold=True)
        _put(sheet, offset, 2, value)
    sheet["B3"].fill = _INPUT_FILL
    lines = [
        "How to review",
        "1. Write your name in the yellow cell above (else the file name names you).",
        "2. On each sheet, write a verdict for every row: pass or fail (the dropdown offers both). Leave it blank "
        "only if you did not review the row. Explain every fail in the comment column.",
        "3. Hypotheses: does each party hypothesis faithfully capture the court-adopted (the judge's) or the "
        "court-rejected (the losing party's) account, with the right supporting facts?",
        "4. Alternatives: is each alternative a realistic reading of the same record, plausible from its "
        "supporting facts, and refuted by its refuting facts on a complete reading?",
        "5. Documents: read the excerpt (the file is at the path under corpus/). Does it read as a plausible "
        "artifact of the case world, and does it play its role?",
        *(f"   - {role.value}: {question}" for role, question in ROLE_QUESTIONS.items()),
        "6. Metadata: are the document type, date and author right for the document's text?",
        "Do not edit the first column (the item ids) or the headers; sorting and filtering rows is fine.",
    ]
    for offset, line in enumerate(lines, start=4 + len(keys)):
        _put(sheet, offset, 1, line)
    sheet.cell(4 + len(keys), 1).font = Font(bold=True)
    sheet.column_dimensions["A"].width = 24
    sheet.column_dimensions["B"].width = 100


def _item_sheet(sheet: Worksheet, columns: tuple[str, ...], items: list[tuple[Any, ...]]) -> None:
    for column, header in enumerate(columns, start=1):
        _put(sheet, 1, column, header)
        sheet.cell(1, column).font = Font(bold=True)
        sheet.cell(1, column).fill = _HEADER_FILL
        wide = header in ("claim", "text excerpt") or header.endswith("facts") or header == "target hypothesis"
        sheet.column_dimensions[get_column_letter(column)].width = 60 if wide else 16
    for row, values in enumerate(items, start=2):
        for column, value in enumerate(values, start=1):
            _put(sheet, row, column, value)
    sheet.freeze_panes = "B2"
    verdict = get_column_letter(columns.index("verdict") + 1)
    if items:
        validation = DataValidation(type="list", formula1=f'"{",".join(VERDICTS)}"', allow_blank=True)
        validation.error, validation.errorTitle, validation.showErrorMessage = "pass or fail", "Verdict", True
        sheet.add_data_validation(validation)
        validation.add(f"{verdict}2:{verdict}{len(items) + 1}")
        for row in range(2, len(items) + 2):
            sheet[f"{verdict}{row}"].fill = _INPUT_FILL


# --- reading ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Verdict:
    """One reviewer's verdict on one item, with the cell it was read from (`alice.xlsx:Documents!H3`)."""

    reviewer: str
    stage: str
    item: str  # "<sheet>:<item id>"
    verdict: str  # pass | fail
    cell: str


@dataclass(frozen=True)
class StageRow:
    """One row of the Table 2 layout: verdicts and pass rate, and agreement on the items more than one reviewer
    judged (`shared`: such items; `comparisons`: reviewer pairs times shared items)."""

    stage: str
    n: int
    passed: int
    pass_rate: float | None
    shared: int
    comparisons: int
    agreement: float | None
    kappa: float | None


@dataclass(frozen=True)
class PairRow:
    """Agreement of two reviewers over every item both judged."""

    reviewers: tuple[str, str]
    n: int
    agreement: float | None
    kappa: float | None


@dataclass
class ReviewReport:
    """What `read_review_sheets` returns; `as_dict()` is the JSON form of `lexprobe investigation review-import`."""

    case_id: str
    reviewers: dict[str, str]  # reviewer -> sheet file
    blank: dict[str, int]  # reviewer -> verdict cells left blank
    stages: list[StageRow]
    pairs: list[PairRow]
    verdicts: list[Verdict] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        """Return the report as plain JSON-ready data."""
        return asdict(self)


def read_review_sheets(env_dir: Path, sheets: list[Path]) -> ReviewReport:
    """Read filled review workbooks of the environment at `env_dir` and return pass rates and agreement per stage
    (see the module docstring). Raises ReviewSheetError listing every unreadable file, missing sheet or column,
    unknown or repeated item, sheet of another case, repeated reviewer and verdict other than pass/fail (each as
    `file:Sheet!Cell: why`); FileNotFoundError / ValueError from `load_environment`."""
    env, _ = load_environment(Path(env_dir))
    stage_of = _stage_map(env)
    errors: list[str] = []
    reviewers: dict[str, str] = {}
    blank: dict[str, int] = {}
    verdicts: list[Verdict] = []
    for path in sheets:
        path = Path(path)
        try:
            workbook = openpyxl.load_workbook(path, data_only=True)
        except Exception as exc:  # zipfile, KeyError, InvalidFileException...: one line naming the file
            errors.append(f"{path.name}: cannot open as .xlsx: {type(exc).__name__}: {exc}")
            continue
        reviewer = _read_instructions(workbook, path, env.case.case_id, errors)
        if reviewer in reviewers:
            errors.append(f"{path.name}: reviewer {reviewer!r} also filled {reviewers[reviewer]}")
            continue
        reviewers[reviewer] = path.name
        blank[reviewer] = 0
        for sheet_name in COLUMNS:
            found, empty = _read_items(workbook, path, sheet_name, reviewer, stage_of, errors)
            verdicts.extend(found)
            blank[reviewer] += empty
    if errors:
        raise ReviewSheetError(errors)
    stages = [*dict.fromkeys(stage_of.values())]
    rows = [_stage_row(stage, [v for v in verdicts if v.stage == stage]) for stage in stages]
    rows = [row for row in rows if row.n]
    rows.append(_stage_row(ALL_STAGES, verdicts))
    pairs = [PairRow((a, b), *_pair_kappa(a, b, verdicts)) for a, b in combinations(sorted(reviewers), 2)]
    return ReviewReport(env.case.case_id, reviewers, blank, rows, pairs, verdicts)


def _stage_map(env: Environment) -> dict[str, str]:
    """Map every reviewable item ("<sheet>:<id>") to its stage, in Table 2 order."""
    stages: dict[str, str] = {}
    for h in env.hypotheses:
        if h.kind != HypothesisKind.alternative:
            stages[f"{HYPOTHESES}:{h.hypothesis_id}"] = PARTY_STAGE
    for h in env.hypotheses_of(HypothesisKind.alternative):
        stages[f"{ALTERNATIVES}:{h.hypothesis_id}"] = ALTERNATIVE_STAGE
    for role in Role:
        for d in env.documents:
            if d.role == role:
                stages[f"{DOCUMENTS}:{d.doc_id}"] = f"Documents: {role.value}"
    for d in env.documents:
        stages[f"{METADATA}:{d.doc_id}"] = METADATA_STAGE
    return stages


def _label_value(sheet: Worksheet, label: str) -> tuple[Any, str] | None:
    for row in range(1, min(sheet.max_row, 60) + 1):
        if str(sheet.cell(row, 1).value or "").strip().lower() == label.lower():
            return sheet.cell(row, 2).value, f"B{row}"
    return None


def _read_instructions(workbook: Any, path: Path, case_id: str, errors: list[str]) -> str:
    if INSTRUCTIONS not in workbook.sheetnames:
        errors.append(f"{path.name}:{INSTRUCTIONS}: sheet missing")
        return path.stem
    sheet = workbook[INSTRUCTIONS]
    case = _label_value(sheet, CASE_LABEL)
    if case is None:
        errors.append(f"{path.name}:{INSTRUCTIONS}: no {CASE_LABEL!r} cell")
    elif str(case[0] or "").strip() != case_id:
        errors.append(f"{path.name}:{INSTRUCTIONS}!{case[1]}: sheet of case {case[0]!r}, not {case_id!r}")
    version = _label_value(sheet, FORMAT_LABEL)
    if version is not None and str(version[0] or "").strip() != SHEET_FORMAT:
        errors.append(f"{path.name}:{INSTRUCTIONS}!{version[1]}: sheet format {version[0]!r}, not {SHEET_FORMAT!r}")
    name = _label_value(sheet, REVIEWER_LABEL)
    return str(name[0]).strip() if name and name[0] is not None and str(name[0]).strip() else path.stem


def _read_items(
    workbook: Any, path: Path, sheet_name: str, reviewer: str, stage_of: dict[str, str], errors: list[str]
) -> tuple[list[Verdict], int]:
    where = f"{path.name}:{sheet_name}"
    if sheet_name not in workbook.sheetnames:
        errors.append(f"{where}: sheet missing")
        return [], 0
    sheet = workbook[sheet_name]
    header = [str(cell.value or "").strip().lower() for cell in sheet[1]]
    id_name = COLUMNS[sheet_name][0]
    if not header or header[0] != id_name or "verdict" not in header:
        errors.append(f"{where}!1: header must start with {id_name!r} and have a 'verdict' column")
        return [], 0
    verdict_column = header.index("verdict") + 1
    found: list[Verdict] = []
    seen: dict[str, str] = {}
    empty = 0
    for row in range(2, sheet.max_row + 1):
        item_cell, verdict_cell = sheet.cell(row, 1), sheet.cell(row, verdict_column)
        item_id = str(item_cell.value).strip() if item_cell.value is not None else ""
        value = verdict_cell.value
        text = str(value).strip().lower() if value is not None else ""
        if not item_id:
            if text:
                errors.append(f"{where}!{verdict_cell.coordinate}: verdict on a row without an item id")
            continue
        key = f"{sheet_name}:{item_id}"
        if key not in stage_of:
            errors.append(f"{where}!{item_cell.coordinate}: unknown item {item_id!r} for this environment")
            continue
        if item_id in seen:
            errors.append(f"{where}!{item_cell.coordinate}: item {item_id!r} repeated (first at {seen[item_id]})")
            continue
        seen[item_id] = item_cell.coordinate
        if not text:
            empty += 1
            continue
        if not isinstance(value, str) or text not in VERDICTS:
            errors.append(f"{where}!{verdict_cell.coordinate}: verdict {value!r} is not one of {', '.join(VERDICTS)}")
            continue
        found.append(Verdict(reviewer, stage_of[key], key, text, f"{where}!{verdict_cell.coordinate}"))
    return found, empty


def _stage_row(stage: str, verdicts: list[Verdict]) -> StageRow:
    passed = sum(v.verdict == "pass" for v in verdicts)
    by_item: dict[str, dict[str, str]] = {}
    for v in verdicts:
        by_item.setdefault(v.item, {})[v.reviewer] = v.verdict
    shared = [labels for labels in by_item.values() if len(labels) > 1]
    comparisons = agreeing = 0
    for labels in shared:
        for a, b in combinations(sorted(labels), 2):
            comparisons += 1
            agreeing += labels[a] == labels[b]
    reviewers = sorted({v.reviewer for v in verdicts})
    kappas = [k for a, b in combinations(reviewers, 2) if (k := _pair_kappa(a, b, verdicts)[2]) is not None]
    return StageRow(
        stage=stage,
        n=len(verdicts),
        passed=passed,
        pass_rate=passed / len(verdicts) if verdicts else None,
        shared=len(shared),
        comparisons=comparisons,
        agreement=agreeing / comparisons if comparisons else None,
        kappa=sum(kappas) / len(kappas) if kappas else None,
    )


def _pair_kappa(a: str, b: str, verdicts: list[Verdict]) -> tuple[int, float | None, float | None]:
    first = {v.item: v.verdict for v in verdicts if v.reviewer == a}
    second = {v.item: v.verdict for v in verdicts if v.reviewer == b}
    items = sorted(first.keys() & second.keys())
    if not items:
        return 0, None, None
    left, right = [first[i] for i in items], [second[i] for i in items]
    agreement = sum(x == y for x, y in zip(left, right, strict=True)) / len(items)
    return len(items), agreement, cohen_kappa(left, right)
