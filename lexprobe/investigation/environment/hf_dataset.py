"""Import cases of the published InvestigationWorlds dataset (Hugging Face `investigation-worlds/investigation-worlds`)
from a LOCAL copy into lexprobe environment directories. Nothing here touches the network: the table is read with
`datasets` from local files with HF_DATASETS_OFFLINE=1.

ASSUMED LAYOUT (the real one could not be inspected offline; verify it against a download and adapt `_COLUMNS`,
`_KIND_LABELS`, `_ROLE_LABELS` and `_row_to_environment`):

    DATASET_DIR/
      *.parquet | *.jsonl                   the case table, one row per case (top level, or under data/; Parquet
      data/**/*.parquet | data/**/*.jsonl   files are used when there are any, else JSON Lines)
      files/<case_id>/<filename>            the documents in their native formats (optional, per document)

Columns of a case row (optional ones may be absent or null):

    case_id, case_name (or name), court, docket, category, dispositive_question, disposition, source
    entities:   list of {entity_id | id, name, kind, aliases, description}
    facts:      list of {fact_id | id, text | proposition, source, type, disputed, citation, highlight}
                (source: opinion | souf | rsouf | brief | injected; without it, a type starting with "injected"
                means injected, anything else opinion)
    hypotheses: list of {hypothesis_id | id, kind | label, claim, sub_claims, supporting_facts |
                supporting_fact_ids, refuting_facts | refuting_fact_ids, party}
                (sub_claims: strings, or {sub_claim_id | id, label | sub_claim | text, facts |
                supporting_fact_ids | fact_ids, ruling | judge_ruling, rationale | rationale_quote}; a string or
                an object without an id gets the id <hypothesis_id>_<k>, k from 1)
    documents:  list of {doc_id | id, filename | path, doc_type, role, date, author, mentions, facts | fact_ids,
                target_hypothesis | target, series, title, text, bytes}
    questions:  list of {question_id | id, question, answer, rubric (list of strings or of {item_id, text,
                fact_id}), facts | fact_ids}

Hypothesis kinds and document roles are mapped through small label tables (`court_adopted`, `adopted`, `h_star`,
...; `pro_alternative`, `pro_alt`, ...); an unknown label is an `HFDatasetError` naming the row, the case and the
field. A document's file is taken from files/<case_id>/<filename> when it exists, else from its `bytes` column,
else its inline `text` is written as <stem>.txt (format txt). The imported environment is then validated
(`lexprobe.investigation.environment.validate`), and an environment with errors raises `EnvironmentInvalid`.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date, datetime
from pathlib import Path, PurePosixPath
from typing import Any

from lexprobe.investigation.environment.format import (
    CORPUS_DIR,
    CaseInfo,
    Document,
    Entity,
    Environment,
    Fact,
    Hypothesis,
    HypothesisKind,
    Question,
    QuestionSet,
    Role,
    RubricItem,
    SubClaim,
    save_environment,
)
from lexprobe.investigation.environment.hf_names import DATASET_NAME
from lexprobe.investigation.environment.validate import (
    EnvironmentInvalid,
    corpus_path_problem,
    errors_in,
    validate_environment,
)

log = logging.getLogger(__name__)

FILES_DIR = "files"
FORMATS = ("pdf", "docx", "xlsx", "pptx", "txt")
_SAFE_CASE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")

_KIND_LABELS: dict[str, HypothesisKind] = {
    **dict.fromkeys(("court_adopted", "adopted", "h_star", "hstar", "h*"), HypothesisKind.court_adopted),
    **dict.fromkeys(("court_rejected", "rejected", "h_dagger", "hdagger"), HypothesisKind.court_rejected),
    **dict.fromkeys(("alternative", "alt", "alt_1", "alt_2", "h1", "h2"), HypothesisKind.alternative),
}
_ROLE_LABELS: dict[str, Role] = {
    **{role.value: role for role in Role},
    "merits_exhibit": Role.merits,
    "exhibit": Role.merits,
    "pro_alt": Role.pro_alternative,
    "pro-alternative": Role.pro_alternative,
    "refuter": Role.refuting,
    "refute": Role.refuting,
}
_FACT_SOURCES = ("opinion", "souf", "rsouf", "brief", "injected")


class HFDatasetError(ValueError):
    """The dataset folder is missing, unreadable, or a row does not fit the assumed layout (the message names the
    file or the row, the case and the field)."""


def load_hf_cases(path: Path) -> list[str]:
    """Return the case ids of the local dataset copy at `path`, in table order. Raises HFDatasetError when the
    folder holds no case table or the table has no case_id column."""
    return [row["case_id"] for row in _load_rows(Path(path))]


def import_hf_case(path: Path, case_id: str, out: Path, *, extract: bool = True, overwrite: bool = False) -> Path:
    """Write case `case_id` of the local dataset copy at `path` as an environment directory `out` (environment.json,
    questions.json, corpus/) and validate it; return `out`.

    Raises HFDatasetError (unknown case, a row that does not fit the layout, an unsafe file name),
    FileExistsError (`out` is a non-empty folder and `overwrite` is false), EnvironmentInvalid (the written
    environment has validation errors; the folder is kept for inspection). Warnings are logged.
    """
    return import_hf_cases(path, out, [case_id], extract=extract, overwrite=overwrite, nest=False)[0]


def import_hf_cases(
    path: Path,
    out: Path,
    case_ids: list[str] | None = None,
    *,
    extract: bool = True,
    overwrite: bool = False,
    nest: bool = True,
) -> list[Path]:
    """Import several cases (all when `case_ids` is None) reading the table once; each goes to out/<case_id> (or to
    `out` itself when `nest` is false, for a single case). Returns the environment folders; raises as
    `import_hf_case`, stopping at the first case that fails."""
    path = Path(path)
    rows = {row["case_id"]: (index, row) for index, row in enumerate(_load_rows(path))}
    wanted = list(rows) if case_ids is None else case_ids
    if not nest and len(wanted) != 1:
        raise ValueError("nest=False imports exactly one case")
    for case_id in wanted:
        if case_id not in rows:
            known = ", ".join(list(rows)[:10]) + (" ..." if len(rows) > 10 else "")
            raise HFDatasetError(f"{path}: no case {case_id!r} ({len(rows)} cases: {known})")
    written = []
    for case_id in wanted:
        index, row = rows[case_id]
        target = Path(out) / case_id if nest else Path(out)
        written.append(_import_row(path, index, row, target, extract=extract, overwrite=overwrite))
    return written


# --- reading the table -----------------------------------------------------------------------------------------


@contextmanager
def _offline() -> Iterator[Any]:
    """Import `datasets` with the hub switched off, restoring the environment afterwards."""
    saved = {key: os.environ.get(key) for key in ("HF_DATASETS_OFFLINE", "HF_HUB_OFFLINE")}
    os.environ.update(dict.fromkeys(saved, "1"))
    import datasets

    flags = {name: getattr(datasets.config, name, None) for name in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE")}
    for name in flags:
        setattr(datasets.config, name, True)
    bars = datasets.utils.logging.is_progress_bar_enabled()
    datasets.utils.logging.disable_progress_bar()  # stderr is for lexprobe's own progress and errors
    try:
        yield datasets
    finally:
        if bars:
            datasets.utils.logging.enable_progress_bar()
        for name, value in flags.items():
            setattr(datasets.config, name, value)
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def table_files(path: Path) -> tuple[str, list[Path]]:
    """Return ("parquet" | "json", the case-table files) of the dataset folder `path` (see the module docstring).
    Raises HFDatasetError when the folder does not exist or holds no table file."""
    if not path.is_dir():
        raise HFDatasetError(f"{path} is not a folder (expected a local copy of {DATASET_NAME})")
    for builder, suffix in (("parquet", ".parquet"), ("json", ".jsonl")):
        found = [*path.glob(f"*{suffix}"), *((path / "data").rglob(f"*{suffix}") if (path / "data").is_dir() else [])]
        if found:
            return builder, sorted(found)
    raise HFDatasetError(f"{path}: no case table (*.parquet or *.jsonl at the top level or under data/)")


def _load_rows(path: Path) -> list[dict[str, Any]]:
    builder, files = table_files(path)
    with _offline() as datasets, tempfile.TemporaryDirectory(prefix="lexprobe-hf-") as cache:
        try:
            table = datasets.load_dataset(
                builder, data_files=[str(f) for f in files], split="train", cache_dir=cache, keep_in_memory=True
            )
        except Exception as exc:  # datasets raises many kinds: name the files
            names = ", ".join(f.name for f in files)
            raise HFDatasetError(f"{path}: cannot read {names} with datasets: {type(exc).__name__}: {exc}") from None
        if "case_id" not in table.column_names:
            raise HFDatasetError(f"{path}: the case table has no case_id column ({', '.join(table.column_names)})")
        rows = [dict(row) for row in table]
    for index, row in enumerate(rows):
        if not isinstance(row["case_id"], str) or not row["case_id"]:
            raise HFDatasetError(f"{path}: row {index}: case_id must be a non-empty string, not {row['case_id']!r}")
    return rows


# --- one row -> one environment --------------------------------------------------------------------------------


class _Row:
    """A case row with helpers that name the row, the case and the field in every error."""

    def __init__(self, path: Path, index: int, row: dict[str, Any]) -> None:
        self.path, self.index, self.row = path, index, row
        self.case_id = row["case_id"]

    def error(self, field: str, message: str) -> HFDatasetError:
        return HFDatasetError(f"{self.path}: row {self.index} (case {self.case_id!r}): {field}: {message}")

    def items(self, column: str) -> list[tuple[str, dict[str, Any]]]:
        value = self.row.get(column) or []
        if not isinstance(value, list) or not all(isinstance(item, dict) for item in value):
            raise self.error(column, "expected a list of objects")
        return [(f"{column}[{i}]", item) for i, item in enumerate(value)]


def _get(item: dict[str, Any], *names: str, default: Any = None) -> Any:
    for name in names:
        if item.get(name) is not None:
            return item[name]
    return default


def _import_row(path: Path, index: int, raw: dict[str, Any], out: Path, *, extract: bool, overwrite: bool) -> Path:
    row = _Row(path, index, raw)
    if not _SAFE_CASE_ID.fullmatch(row.case_id):
        raise row.error("case_id", "not usable as a folder name (letters, digits, '.', '_', '-')")
    env, questions, files = _row_to_environment(row)
    if out.exists() and not out.is_dir():
        raise FileExistsError(f"{out} exists and is not a folder")
    if out.exists() and any(out.iterdir()):
        if not overwrite:
            raise FileExistsError(f"{out} exists and is not empty (overwrite to replace it)")
        shutil.rmtree(out)
    corpus = out / CORPUS_DIR
    corpus.mkdir(parents=True, exist_ok=True)
    for relative, content in files.items():
        target = corpus / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, Path):
            shutil.copyfile(content, target)
        else:
            target.write_bytes(content)
    save_environment(out, env, questions)
    problems = validate_environment(out, extract=extract)
    if errors_in(problems):
        raise EnvironmentInvalid(out, problems)
    for problem in problems:
        log.warning("%s: %s", out, problem)
    return out


def _row_to_environment(row: _Row) -> tuple[Environment, QuestionSet, dict[str, Path | bytes]]:
    r = row.row
    source = _get(r, "source", default=f"{DATASET_NAME} (local copy at {row.path})")
    case = _build(row, "case", CaseInfo, r, case_id=row.case_id, source=source)
    entities = [_build(row, where, Entity, e) for where, e in row.items("entities")]
    facts = [_fact(row, where, f) for where, f in row.items("facts")]
    hypotheses = [_hypothesis(row, where, h) for where, h in row.items("hypotheses")]
    documents: list[Document] = []
    files: dict[str, Path | bytes] = {}
    for where, d in row.items("documents"):
        document, content = _document(row, where, d, files)
        documents.append(document)
        files[document.path] = content
    questions = [_question(row, where, i, q) for i, (where, q) in enumerate(row.items("questions"))]
    env = Environment(case=case, entities=entities, facts=facts, hypotheses=hypotheses, documents=documents)
    return env, QuestionSet(questions=questions), files


#: Per model, the fields read from a row's columns: (the column names, the first one set wins; the default). The
#: other fields are given to `_build` (ids with a generated default, labels read through the label tables, ...).
_COLUMNS: dict[type, dict[str, tuple[tuple[str, ...], Any]]] = {
    CaseInfo: {
        "name": (("case_name", "name"), ""),
        "court": (("court",), ""),
        "docket": (("docket",), ""),
        "category": (("category",), ""),
        "dispositive_question": (("dispositive_question",), ""),
        "disposition": (("disposition",), ""),
    },
    Entity: {
        "entity_id": (("entity_id", "id"), None),
        "name": (("name",), None),
        "kind": (("kind",), "other"),
        "aliases": (("aliases",), []),
        "description": (("description",), ""),
    },
    Fact: {
        "fact_id": (("fact_id", "id"), None),
        "text": (("text", "proposition"), None),
        "citation": (("citation",), ""),
        "highlight": (("highlight", "highlight_text"), ""),
    },
    Hypothesis: {
        "hypothesis_id": (("hypothesis_id", "id"), None),
        "claim": (("claim",), None),
        "supporting_facts": (("supporting_facts", "supporting_fact_ids"), []),
        "refuting_facts": (("refuting_facts", "refuting_fact_ids"), []),
        "party": (("party",), ""),
    },
    SubClaim: {
        "label": (("label", "sub_claim", "text"), ""),
        "facts": (("facts", "supporting_fact_ids", "fact_ids"), []),
        "ruling": (("ruling", "judge_ruling"), None),
        "rationale": (("rationale", "rationale_quote"), ""),
    },
    Document: {
        "doc_type": (("doc_type",), "other"),
        "author": (("author",), None),
        "mentions": (("mentions",), []),
        "facts": (("facts", "fact_ids"), []),
        "target_hypothesis": (("target_hypothesis", "target"), None),
        "series": (("series",), None),
        "title": (("title",), ""),
    },
    RubricItem: {"text": (("text",), None), "fact_id": (("fact_id",), None)},
    Question: {
        "question": (("question",), None),
        "answer": (("answer",), None),
        "facts": (("facts", "fact_ids"), []),
    },
}


def _first_error(exc: Exception) -> str:
    errors = getattr(exc, "errors", None)
    if callable(errors):
        first = errors()[0]
        return f"{'.'.join(str(p) for p in first['loc'])}: {first['msg']}"
    return str(exc)


def _build(row: _Row, where: str, model: type, item: dict[str, Any], **given: Any) -> Any:
    """`model` from `item`'s columns (`_COLUMNS`) and the `given` fields; an error names the row and `where`."""
    values = {field: _get(item, *names, default=default) for field, (names, default) in _COLUMNS[model].items()}
    try:
        return model.model_validate(values | given)
    except ValueError as exc:
        raise row.error(where, _first_error(exc)) from None


def _label(row: _Row, where: str, value: Any, table: dict[str, Any], what: str) -> Any:
    key = str(value).strip().lower() if value is not None else ""
    if key not in table:
        known = ", ".join(sorted({str(v) for v in table.values()}))
        raise row.error(
            where,
            f"unknown {what} {value!r} (known: {known}; aliases in lexprobe.investigation.environment.hf_dataset)",
        )
    return table[key]


def _fact(row: _Row, where: str, f: dict[str, Any]) -> Fact:
    source = _get(f, "source")
    if source is None:
        source = "injected" if str(_get(f, "type", default="")).startswith("injected") else "opinion"
    source = _label(row, f"{where}.source", source, {s: s for s in _FACT_SOURCES}, "fact source")
    return _build(row, where, Fact, f, source=source, disputed=bool(_get(f, "disputed", default=False)))


def _hypothesis(row: _Row, where: str, h: dict[str, Any]) -> Hypothesis:
    kind = _label(row, f"{where}.kind", _get(h, "kind", "label"), _KIND_LABELS, "hypothesis kind")
    return _build(row, where, Hypothesis, h, kind=kind, sub_claims=_sub_claims(row, where, h))


def _sub_claims(row: _Row, where: str, h: dict[str, Any]) -> list[SubClaim]:
    """Return a hypothesis's sub-claims from strings or objects (see the module docstring for the names)."""
    hypothesis_id = _get(h, "hypothesis_id", "id", default="h")
    sub_claims = []
    for k, item in enumerate(_get(h, "sub_claims", default=[]), start=1):
        here = f"{where}.sub_claims[{k - 1}]"
        if isinstance(item, str):
            item = {"label": item}
        if not isinstance(item, dict):
            raise row.error(here, "a sub-claim is a string or {sub_claim_id, label, facts, ruling, rationale}")
        sub_claim_id = _get(item, "sub_claim_id", "id", default=f"{hypothesis_id}_{k}")
        sub_claims.append(_build(row, here, SubClaim, item, sub_claim_id=sub_claim_id))
    return sub_claims


def _iso(value: Any) -> Any:
    """Arrow's JSON reader turns ISO date strings into dates: turn them back."""
    return value.isoformat() if isinstance(value, date | datetime) else value


def _document(row: _Row, where: str, d: dict[str, Any], taken: dict[str, Path | bytes]) -> tuple[Document, Any]:
    role = _label(row, f"{where}.role", _get(d, "role"), _ROLE_LABELS, "document role")
    doc_id = _get(d, "doc_id", "id")
    filename = _get(d, "filename", "path")
    if not isinstance(filename, str) or not isinstance(doc_id, str):
        raise row.error(where, "a document needs a doc_id and a filename (strings)")
    problem = corpus_path_problem(filename)
    if problem:
        raise row.error(f"{where}.filename", f"{filename!r}: {problem}")
    native = row.path / FILES_DIR / row.case_id / filename
    content: Path | bytes
    if native.is_file():
        content = native
    elif isinstance(_get(d, "bytes"), bytes):
        content = d["bytes"]
    elif isinstance(_get(d, "text"), str):
        content = d["text"].encode("utf-8")
        if PurePosixPath(filename).suffix.lower() != ".txt":
            stem = str(PurePosixPath(filename).with_suffix(""))
            filename = f"{stem}.txt" if f"{stem}.txt" not in taken else f"{stem}_{doc_id}.txt"
    else:
        raise row.error(where, f"no file {FILES_DIR}/{row.case_id}/{filename}, no bytes and no text for {doc_id!r}")
    suffix = PurePosixPath(filename).suffix.lower().lstrip(".")
    if suffix not in FORMATS:
        raise row.error(f"{where}.filename", f"{filename!r}: unsupported format (one of {', '.join(FORMATS)})")
    if filename in taken:
        raise row.error(f"{where}.filename", f"{filename!r} is used by two documents")
    document = _build(row, where, Document, d, doc_id=doc_id, path=filename, format=suffix,
                      date=_iso(_get(d, "date")), role=role)  # fmt: skip
    return document, content


def _question(row: _Row, where: str, index: int, q: dict[str, Any]) -> Question:
    rubric = []
    for j, item in enumerate(_get(q, "rubric", default=[])):
        if isinstance(item, str):
            rubric.append(RubricItem(item_id=f"r{j + 1}", text=item))
        elif isinstance(item, dict):
            item_id = _get(item, "item_id", "id", default=f"r{j + 1}")
            rubric.append(_build(row, f"{where}.rubric[{j}]", RubricItem, item, item_id=item_id))
        else:
            raise row.error(f"{where}.rubric[{j}]", "a rubric item is a string or {item_id, text}")
    question_id = _get(q, "question_id", "id", default=f"q{index + 1:03d}")
    return _build(row, where, Question, q, question_id=question_id, rubric=rubric)
