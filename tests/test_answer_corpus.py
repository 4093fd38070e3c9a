"""The labelled answer corpus (issue 45): every answer of `tests/data/answers/*.jsonl` gets its human label.

The corpus is the project's own writing: answers in the paper's styles and in today's (paragraphs, hedges, several
facts with one answer, bylines, other languages, decoration), each with its task's reference and the label a careful
reader gives from the paper's definitions. One table-driven test: a row's scorer label must equal the human label.

Rows the current rules still misread are listed in `known_misreads.json` (id -> the scorer's label today) and run as
strict expected failures: a change that fixes one fails the test until the id is taken off the list, and a change
that breaks any other row fails it outright. The list is the reader's open work (issue 45 asks for it to be empty).
`bench/reader_agreement.py` prints the agreement per task, class and style.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lexprobe.caselaw.query import CaseDatabase
from lexprobe.hallucination.labels.scoring import ScoringContext
from lexprobe.hallucination.scorers.by_task import SCORERS

CORPUS = Path(__file__).resolve().parent / "data" / "answers"
LABELS = {"correct", "hallucination", "abstain", "unscored"}
STYLES = {
    "paper",
    "paragraph",
    "hedge",
    "several_facts",
    "byline",
    "decline",
    "other_language",
    "decoration",
    "vague",
}
NEEDS_DB = {"quotation", "authority"}


def _rows() -> list[dict]:
    """Return every corpus row with its file and line."""
    rows = []
    for path in sorted(CORPUS.glob("*.jsonl")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if line.strip():
                rows.append({**json.loads(line), "place": f"{path.name}:{number}"})
    return rows


ROWS = _rows()
KNOWN_MISREADS: dict[str, str] = json.loads((CORPUS / "known_misreads.json").read_text(encoding="utf-8"))["misreads"]
CONTEXT = ScoringContext()


def test_the_corpus_is_well_formed() -> None:
    ids = [row["id"] for row in ROWS]
    assert len(ids) == len(set(ids)), "duplicate ids"
    assert len(ROWS) >= 400
    for row in ROWS:
        assert row["task"] in SCORERS, row["place"]
        assert row["label"] in LABELS, row["place"]
        assert row["style"] in STYLES, row["place"]
        assert isinstance(row["reference"], dict) and row["answer"] and row["why"], row["place"]
        assert row["id"].startswith(row["task"] + "-"), row["place"]
    assert set(KNOWN_MISREADS) <= set(ids), set(KNOWN_MISREADS) - set(ids)


def _params() -> list:
    """One parameter per row; the known misreads as strict expected failures."""
    params = []
    for row in ROWS:
        marks = []
        if row["id"] in KNOWN_MISREADS:
            marks = [pytest.mark.xfail(strict=True, reason=f"known misread: scorer says {KNOWN_MISREADS[row['id']]}")]
        params.append(pytest.param(row, id=row["id"], marks=marks))
    return params


@pytest.fixture(scope="module")
def db_context(case_db_path: Path) -> ScoringContext:
    """A scoring context with the case database built from LEXPROBE_DATA (quotation and authority read its texts)."""
    return ScoringContext(CaseDatabase(case_db_path))


@pytest.mark.parametrize("row", _params())
def test_the_scorer_gives_the_human_label(row: dict, request: pytest.FixtureRequest) -> None:
    context = request.getfixturevalue("db_context") if row["task"] in NEEDS_DB else CONTEXT
    score = SCORERS[row["task"]](row["answer"], row["reference"], context)
    assert score.label == row["label"], f"{row['place']}: {row['why']} | scorer: {score.detail}"
