"""Factual QA on an environment (`lexprobe investigation qa`): each question of `questions.json` asked with the same
tools as an investigation and its own budgets, the answer graded against the question's rubric by a judge model,
one `QARecord` per question beside the run's episodes (`runner`). Scoring the records is
`lexprobe.investigation.scoring.qa`.

May import: `lexprobe.investigation.agent`, `lexprobe.investigation.environment`, `lexprobe.engine`,
`lexprobe.models`. The names below are exported lazily (`lexprobe.lazy`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lexprobe.lazy import lazy_exports

if TYPE_CHECKING:
    from lexprobe.investigation.qa.runner import QA_DIR, QARecord, extract_answer, load_qa_records, parse_grades, run_qa

__all__ = [
    "QA_DIR",
    "QARecord",
    "extract_answer",
    "load_qa_records",
    "parse_grades",
    "run_qa",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    globals(),
    {
        "QARecord": "runner",
        "QA_DIR": "runner",
        "extract_answer": "runner",
        "load_qa_records": "runner",
        "parse_grades": "runner",
        "run_qa": "runner",
    },
)
